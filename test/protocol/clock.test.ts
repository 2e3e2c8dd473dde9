import { describe, expect, it } from "vitest";
import { monoNs } from "../../src/protocol/clock.js";

const hrNs = (): number => Number(process.hrtime.bigint());

describe("monoNs: the host's monotonic clock in ns (the clock every process on the host reads)", () => {
  it("reads the clock process.hrtime reads: between two readings of it, a whole number, never backwards", () => {
    let prev = 0;
    let outside = 0;
    for (let i = 0; i < 20_000; i++) {
      const a = hrNs();
      const t = monoNs();
      const b = hrNs();
      expect(Number.isInteger(t)).toBe(true);
      expect(t).toBeGreaterThanOrEqual(prev);
      prev = t;
      // The origin is placed from readings a fraction of a µs apart: allow 5 µs either side (a wrong
      // origin, or another clock, is off by far more).
      if (t < a - 5_000 || t > b + 5_000) outside++;
    }
    expect(outside).toBe(0);
  });
});
