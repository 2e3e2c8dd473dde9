import { describe, expect, it } from "vitest";
import { ClockError, ClockSync } from "../../src/clock/clockSync.js";

/** A fake server whose clock is `skew` ms ahead; each call advances local time by the given rtt. */
function fake(skew: number, rtts: number[]) {
  let local = 1_000_000;
  let i = 0;
  return {
    now: () => local,
    serverTime: async () => {
      const rtt = rtts[i++ % rtts.length]!;
      // The server stamps at an arbitrary point inside a slow round trip (here: at the very end).
      const slowSkewed = rtt > 50 ? rtt : rtt / 2;
      const stamp = local + slowSkewed + skew;
      local += rtt;
      return stamp;
    },
  };
}

describe("ClockSync", () => {
  it("keeps the minimum-RTT sample; one slow sample does not move the offset", async () => {
    const f = fake(1200, [4, 4, 900, 4, 4]);
    const c = new ClockSync({ ...f, samples: 5, resyncMs: 0 });
    const s = await c.sync();
    expect(s?.rttMs).toBe(4);
    expect(c.offsetMs).toBe(1200);
    expect(c.state).toBe("ok");
  });

  it("discards a round where every sample is slow", async () => {
    const c = new ClockSync({ ...fake(100, [4]), samples: 3, resyncMs: 0 });
    await c.sync();
    expect(c.offsetMs).toBe(100);
    const slow = new ClockSync({ ...fake(9999, [2000]), samples: 3, resyncMs: 0, maxRttMs: 1000 });
    await slow.sync();
    expect(slow.offsetMs).toBe(0);
    expect(slow.discarded).toBe(1);
  });

  it("warns above 5 s and refuses to sign above 60 s until resynced in bounds", async () => {
    const warnings: string[] = [];
    let skew = 7000;
    let local = 0;
    const c = new ClockSync({
      now: () => local,
      serverTime: async () => local + skew,
      samples: 2,
      resyncMs: 0,
      onWarn: (m) => warnings.push(m),
    });
    await c.sync();
    expect(c.state).toBe("warn");
    expect(() => c.assertCanSign()).not.toThrow();
    skew = 61_000;
    await c.sync();
    expect(c.state).toBe("refuse");
    expect(() => c.assertCanSign()).toThrow(ClockError);
    expect(warnings.length).toBe(2);
    skew = 10;
    local += 1;
    await c.sync();
    expect(c.state).toBe("ok");
    expect(() => c.assertCanSign()).not.toThrow();
  });

  it("failed samples are skipped; all failing leaves the offset unchanged", async () => {
    const c = new ClockSync({
      now: () => 0,
      serverTime: async () => {
        throw new Error("down");
      },
      resyncMs: 0,
    });
    expect(await c.sync()).toBeUndefined();
    expect(c.state).toBe("unsynced");
  });
});
