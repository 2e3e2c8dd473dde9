/**
 * The clock's known-wrong state: a venue 401 holds signing and re-syncs; the fresh offset decides
 * whether the epoch window explains the 401; while the clock is known wrong it re-syncs on its own
 * (doubling the wait up to a bound) and resumes signing once an offset within the drift guard is
 * measured. Local time and the venue's time are both injected; timers are vitest's fake ones.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type ClockEvent, type ClockState, NEXT, SIGNS } from "../../src/clock/clockState.js";
import { ClockError, ClockSync } from "../../src/clock/clockSync.js";

/** A venue whose clock is `skew` ms ahead of the local one; each time request takes `rtt` ms. */
class FakeVenue {
  local = 1_700_000_000_000;
  skew = 0;
  rtt = 2;
  calls = 0;
  down = false;
  readonly now = (): number => this.local;
  readonly serverTime = async (): Promise<number> => {
    this.calls++;
    if (this.down) throw new Error("time endpoint down");
    this.local += this.rtt / 2;
    const t = this.local + this.skew;
    this.local += this.rtt / 2;
    return t;
  };
  /** The epoch a request signed now with `offset` carries. */
  epoch(offset: number): number {
    return this.local + offset;
  }
}

function clock(v: FakeVenue, extra: Partial<ConstructorParameters<typeof ClockSync>[0]> = {}) {
  const states: ClockState[] = [];
  let resumed = 0;
  const c = new ClockSync({
    now: v.now,
    serverTime: v.serverTime,
    samples: 3,
    resyncMs: 0,
    recheckMs: 100,
    recheckMaxMs: 400,
    onWarn: () => {},
    onState: (s) => states.push(s),
    ...extra,
  });
  c.onResume(() => resumed++);
  return { c, states, resumed: () => resumed };
}

describe("clock state table", () => {
  const states = Object.keys(SIGNS) as ClockState[];
  const events: ClockEvent[] = ["inWindow", "beyondWarn", "beyondRefuse", "noSample", "unauthorized"];

  it("names a next state for every state and event, and only checking and refuse hold signing", () => {
    for (const s of states) for (const e of events) expect(states).toContain(NEXT[s][e]);
    expect(states.filter((s) => !SIGNS[s]).sort()).toEqual(["checking", "refuse"]);
  });

  it("a plausible sample ends any refusal; a 401 never lets signing continue unchecked", () => {
    for (const s of states) {
      expect(SIGNS[NEXT[s].inWindow]).toBe(true);
      expect(SIGNS[NEXT[s].beyondWarn]).toBe(true);
      expect(SIGNS[NEXT[s].beyondRefuse]).toBe(false);
      expect(SIGNS[NEXT[s].unauthorized]).toBe(false);
    }
    // A check that cannot measure leaves the clock untrusted.
    expect(NEXT.checking.noSample).toBe("refuse");
  });
});

describe("ClockSync: a venue 401 on the epoch window", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("401-epoch: signing held at once, re-sync, known wrong while implausible, resumes by itself", async () => {
    const v = new FakeVenue();
    const { c, states, resumed } = clock(v);
    await c.sync();
    expect(c.state).toBe("ok");
    // The venue's clock jumps 90 s ahead: a request signed with our offset comes back 401.
    v.skew = 90_000;
    const epoch = v.epoch(c.offsetMs);
    v.local += 3; // its round trip
    const verdict = c.unauthorized(epoch);
    // Held before the re-sync answers: nothing more is signed with the wrong clock.
    expect(c.state).toBe("checking");
    expect(c.canSign).toBe(false);
    expect(() => c.assertCanSign()).toThrow(ClockError);
    expect(await verdict).toBe(true);
    // The re-sync measured +90 s: beyond the drift guard (60 s), so the clock stays known wrong.
    expect(Math.abs(c.offsetMs - 90_000)).toBeLessThanOrEqual(2);
    expect(c.state).toBe("refuse");
    expect(() => c.assertCanSign()).toThrow(/known wrong/);
    // Re-syncs on its own while wrong: 100, then 200, 400, 400 ms apart.
    const calls0 = v.calls;
    await vi.advanceTimersByTimeAsync(100);
    expect(v.calls - calls0).toBe(3);
    expect(c.state).toBe("refuse");
    await vi.advanceTimersByTimeAsync(199);
    expect(v.calls - calls0).toBe(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(v.calls - calls0).toBe(6);
    await vi.advanceTimersByTimeAsync(400);
    expect(v.calls - calls0).toBe(9);
    await vi.advanceTimersByTimeAsync(400);
    expect(v.calls - calls0).toBe(12);
    // The venue's clock comes back: the next re-sync resumes signing, with no one asking.
    v.skew = 0;
    expect(resumed()).toBe(0);
    await vi.advanceTimersByTimeAsync(400);
    expect(c.state).toBe("ok");
    expect(c.canSign).toBe(true);
    expect(() => c.assertCanSign()).not.toThrow();
    expect(resumed()).toBe(1);
    expect(states).toEqual(["ok", "checking", "refuse", "ok"]);
    // Nothing more to re-sync once signing is allowed again.
    const calls1 = v.calls;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(v.calls).toBe(calls1);
    expect(c.unauthorizedStats).toEqual({ seen: 1, clock: 1 });
  });

  it("401 with the clock fine (a key or signature problem): checked, not blamed, signing goes on", async () => {
    const v = new FakeVenue();
    const { c, states, resumed } = clock(v);
    v.skew = 800;
    await c.sync();
    const epoch = v.epoch(c.offsetMs);
    v.local += 3;
    const verdict = c.unauthorized(epoch);
    expect(c.canSign).toBe(false);
    expect(await verdict).toBe(false);
    expect(c.state).toBe("ok");
    expect(c.canSign).toBe(true);
    expect(resumed()).toBe(1);
    expect(states).toEqual(["ok", "checking", "ok"]);
    expect(c.unauthorizedStats).toEqual({ seen: 1, clock: 0 });
  });

  it("401s arriving while a check runs join it: one re-sync, every verdict from it", async () => {
    const v = new FakeVenue();
    const { c } = clock(v);
    await c.sync();
    const calls0 = v.calls;
    v.skew = 90_000;
    const epochs = [v.epoch(0), v.epoch(0) + 1, v.epoch(0) + 2];
    const verdicts = epochs.map((e) => c.unauthorized(e));
    expect(await Promise.all(verdicts)).toEqual([true, true, true]);
    expect(v.calls - calls0).toBe(3);
  });

  it("a late 401 for a request signed before the latest sample is judged by that sample, no new re-sync", async () => {
    const v = new FakeVenue();
    const { c } = clock(v);
    await c.sync();
    // Signed with offset 0; the venue moves 30 s (rejecting soft drift); a sync measures it first.
    const oldEpoch = v.epoch(c.offsetMs);
    v.local += 5;
    v.skew = 30_000;
    await c.sync();
    expect(c.state).toBe("warn");
    const calls0 = v.calls;
    v.local += 5;
    expect(await c.unauthorized(oldEpoch)).toBe(true);
    expect(v.calls).toBe(calls0);
    // Signing never stopped: the offset already covers the venue's clock.
    expect(c.canSign).toBe(true);
    // A 401 for an epoch signed with the corrected offset is not the clock's doing.
    const newEpoch = v.epoch(c.offsetMs);
    v.local += 5;
    expect(await c.unauthorized(newEpoch)).toBe(false);
  });

  it("on an epoch grid, a 401 for a request signed after the latest sample re-syncs, though its epoch is older", async () => {
    const v = new FakeVenue();
    const { c } = clock(v, { epochStepMs: 50 });
    v.local += 20;
    await c.sync();
    // Signed 10 ms after the sample, its epoch floored to the 50 ms grid: it names a moment before
    // the sample. The venue's clock has jumped meanwhile; only a fresh sample can say so.
    v.local += 10;
    v.skew = 90_000;
    const floored = v.epoch(c.offsetMs) - (v.epoch(c.offsetMs) % 50);
    expect(floored).toBeLessThan(c.last!.at - c.last!.rttMs);
    v.local += 3;
    const calls0 = v.calls;
    expect(await c.unauthorized(floored)).toBe(true);
    expect(v.calls - calls0).toBe(3);
    expect(c.state).toBe("refuse");
  });

  it("soft drift: a 401 whose re-sync measures a plausible offset resumes at once with corrected epochs", async () => {
    const v = new FakeVenue();
    const { c, states } = clock(v);
    await c.sync();
    v.skew = 30_000;
    const epoch = v.epoch(c.offsetMs);
    v.local += 3;
    expect(await c.unauthorized(epoch)).toBe(true);
    expect(c.state).toBe("warn");
    expect(c.canSign).toBe(true);
    expect(Math.abs(c.offsetMs - 30_000)).toBeLessThanOrEqual(2);
    expect(states).toEqual(["ok", "checking", "warn"]);
  });

  it("a check that cannot measure the venue's time refuses until a re-sync succeeds", async () => {
    const v = new FakeVenue();
    const { c, resumed } = clock(v);
    await c.sync();
    v.down = true;
    expect(await c.unauthorized(v.epoch(0))).toBe(true);
    expect(c.state).toBe("refuse");
    expect(c.canSign).toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    expect(c.state).toBe("refuse");
    v.down = false;
    await vi.advanceTimersByTimeAsync(200);
    expect(c.state).toBe("ok");
    expect(resumed()).toBe(1);
  });

  it("a sync begun before the 401 does not end the check (its samples may predate the jump)", async () => {
    const v = new FakeVenue();
    let release: (() => void) | undefined;
    let slow = false;
    const c = new ClockSync({
      now: v.now,
      serverTime: async () => {
        if (slow) await new Promise<void>((r) => (release = r));
        return v.serverTime();
      },
      samples: 1,
      resyncMs: 0,
      onWarn: () => {},
    });
    await c.sync();
    slow = true;
    const early = c.sync(); // a periodic resync waiting on a slow answer
    slow = false;
    v.skew = 90_000;
    const verdict = c.unauthorized(v.epoch(0));
    expect(await verdict).toBe(true);
    expect(c.state).toBe("refuse");
    // The early round answers now with a pre-jump reading: ignored, the clock stays known wrong.
    v.skew = 0;
    release?.();
    expect(await early).toBeUndefined();
    expect(c.state).toBe("refuse");
    c.stop();
  });

  it("a 401 while the clock is known wrong is the clock's, without another re-sync", async () => {
    const v = new FakeVenue();
    const { c } = clock(v);
    v.skew = 61_000;
    await c.sync();
    expect(c.state).toBe("refuse");
    const calls0 = v.calls;
    expect(await c.unauthorized(v.epoch(0))).toBe(true);
    expect(v.calls).toBe(calls0);
    c.stop();
  });

  it("the drift guard stays: a periodic sync beyond 60 s refuses, warns once, and rechecks until in bounds", async () => {
    const v = new FakeVenue();
    const warnings: string[] = [];
    const c = new ClockSync({
      now: v.now,
      serverTime: v.serverTime,
      samples: 2,
      resyncMs: 0,
      recheckMs: 50,
      recheckMaxMs: 50,
      onWarn: (m) => warnings.push(m),
    });
    v.skew = 61_000;
    await c.sync();
    expect(c.state).toBe("refuse");
    await vi.advanceTimersByTimeAsync(500);
    expect(c.state).toBe("refuse");
    // Ten re-syncs measured the same offset: one warning, not eleven.
    expect(warnings.length).toBe(1);
    v.skew = 10;
    await vi.advanceTimersByTimeAsync(50);
    expect(c.state).toBe("ok");
    c.stop();
  });
});
