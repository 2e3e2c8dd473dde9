import { describe, expect, it } from "vitest";
import { EpochSource } from "../../src/auth/epoch.js";

describe("EpochSource", () => {
  it("clock policy: same millisecond gives the same epoch, offset applied", () => {
    let t = 1_000_000;
    const e = new EpochSource({ policy: "clock", now: () => t, offset: () => 250.4 });
    expect(e.next()).toBe(1_000_250);
    expect(e.next()).toBe(1_000_250);
    t += 1;
    expect(e.next()).toBe(1_000_251);
    expect(e.toStr(1_000_251)).toBe("1000251");
  });

  it("unique policy: strictly increasing within one ms, capped at maxAhead", () => {
    const t = 5_000;
    const e = new EpochSource({ policy: "unique", maxAheadMs: 3, now: () => t });
    const got = [e.next(), e.next(), e.next(), e.next(), e.next(), e.next()];
    expect(got).toEqual([5000, 5001, 5002, 5003, 5003, 5003]);
    expect(e.capped).toBe(2);
  });

  it("unique policy: follows the clock once it catches up", () => {
    let t = 100;
    const e = new EpochSource({ policy: "unique", maxAheadMs: 10, now: () => t });
    e.next();
    e.next();
    t = 200;
    expect(e.next()).toBe(200);
    expect(e.next()).toBe(201);
  });

  it("unique policy never goes backwards when the offset drops", () => {
    let off = 1000;
    const e = new EpochSource({ policy: "unique", maxAheadMs: 5, now: () => 0, offset: () => off });
    expect(e.next()).toBe(1000);
    off = 0;
    const n = e.next();
    expect(n).toBeGreaterThanOrEqual(1000);
  });
});
