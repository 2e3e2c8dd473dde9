/**
 * The echo check's record of ids the HFT private stream delivered: bounded, oldest evicted first, an
 * id already held takes no second slot.
 */
import { describe, expect, it } from "vitest";
import { RecentIds } from "../../src/streams/nats/recentIds.js";

describe("RecentIds", () => {
  it("holds the last `capacity` distinct ids and forgets the oldest first", () => {
    const r = new RecentIds(3);
    for (const id of ["a", "b", "c"]) r.add(id);
    expect(["a", "b", "c"].map((id) => r.has(id))).toEqual([true, true, true]);
    r.add("d");
    expect(r.has("a")).toBe(false);
    expect(["b", "c", "d"].map((id) => r.has(id))).toEqual([true, true, true]);
    expect(r.size).toBe(3);
  });

  it("a repeated id takes no slot: an order's many messages do not push others out", () => {
    const r = new RecentIds(2);
    r.add("a");
    r.add("b");
    for (let i = 0; i < 10; i++) r.add("b");
    expect(r.has("a")).toBe(true);
    r.add("c");
    expect(r.has("a")).toBe(false);
    expect(r.has("b") && r.has("c")).toBe(true);
  });

  it("never holds the empty id and stays bounded over many adds", () => {
    const r = new RecentIds(100);
    r.add("");
    expect(r.has("")).toBe(false);
    for (let i = 0; i < 10_000; i++) r.add(`o${i}`);
    expect(r.size).toBe(100);
    expect(r.has("o9999") && r.has("o9900")).toBe(true);
    expect(r.has("o9899")).toBe(false);
    expect(() => new RecentIds(0)).toThrow(RangeError);
  });
});
