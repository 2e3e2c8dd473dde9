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

  it("clock policy with a step: the corrected clock floored to the step, never ahead of it", () => {
    let t = 1_000_000;
    const e = new EpochSource({ policy: "clock", stepMs: 5, now: () => t, offset: () => 3 });
    expect(e.stepMs).toBe(5);
    const got: number[] = [];
    for (let i = 0; i < 7; i++, t++) got.push(e.next());
    // corrected clock 1_000_003 .. 1_000_009
    expect(got).toEqual([1_000_000, 1_000_000, 1_000_005, 1_000_005, 1_000_005, 1_000_005, 1_000_005]);
    // The unique policy ignores the step: its epochs must differ by 1 ms.
    expect(new EpochSource({ policy: "unique", stepMs: 5 }).stepMs).toBe(1);
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
