import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LimitTable, RateLimiter, type RequestKind } from "../../src/limits/index.js";
import { ManualClock } from "./manualClock.js";

const table: LimitTable = {
  buckets: {
    o: { capacity: 20, windowMs: 1000, cancelReserve: 4 },
    q: { capacity: 50, windowMs: 1000, cancelReserve: 0 },
  },
  classes: {
    "spot.create": "o",
    "spot.cancel": "o",
    "spot.listOrders": "q",
    "spot.portfolio": "q",
    "spot.tds": "q",
    "spot.other": "q",
    "hft.create": "o",
    "hft.cancel": "o",
    "hft.query": "q",
    "hft.other": "q",
    "futures.create": "q",
    "futures.cancel": "q",
    "futures.query": "q",
    "futures.list": "q",
    "futures.other": "q",
  },
};

function setup() {
  const clock = new ManualClock();
  const lim = new RateLimiter({ table, marginMs: 0, clock, timers: clock, maxQueue: 10_000 });
  const sent: { t: number; kind: RequestKind }[] = [];
  const ask = (kind: RequestKind, deadline: number, onDone?: (ok: boolean) => void) => {
    const cls = kind === "cancel" ? "spot.cancel" : "spot.create";
    const r = lim.acquire(cls, kind, deadline);
    if (r.status === "granted") {
      sent.push({ t: clock.now(), kind });
      onDone?.(true);
    } else if (r.status === "queued") {
      // Tests step the clock 1 ms at a time with a microtask turn, so this runs at the grant instant.
      void r.done.then((x) => onDone?.(x.status === "granted"));
    } else onDone?.(false);
    return r;
  };
  return { clock, lim, sent, ask };
}

function maxInWindow(times: number[], w: number): number {
  let best = 0;
  let j = 0;
  for (let i = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= w) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe("limiter under a create flood", () => {
  it("gets every cancel through within its deadline while creates saturate the bucket", async () => {
    const { clock, lim, ask } = setup();
    const grantTimes: number[] = [];
    const createTimes: number[] = [];
    let cancelsOk = 0;
    let cancelsAsked = 0;
    let createsOk = 0;
    for (let t = 0; t < 10_000; t++) {
      // 200 creates/s against a 16/s create allowance.
      if (t % 5 === 0)
        ask("create", 300, (ok) => {
          if (ok) {
            createsOk++;
            grantTimes.push(clock.now());
            createTimes.push(clock.now());
          }
        });
      if (t % 250 === 0) {
        cancelsAsked++;
        ask("cancel", 1000, (ok) => {
          if (ok) {
            cancelsOk++;
            grantTimes.push(clock.now());
          }
        });
      }
      clock.advance(1);
      await Promise.resolve();
    }
    for (let t = 0; t < 2000; t++) {
      clock.advance(1);
      await Promise.resolve();
    }
    expect(cancelsOk).toBe(cancelsAsked);
    expect(createsOk).toBeGreaterThan(100);
    grantTimes.sort((a, b) => a - b);
    expect(maxInWindow(grantTimes, 1000)).toBeLessThanOrEqual(20);
    // Creates never dip into the cancel reserve (cancels in the same window take shared room too).
    const creates = maxInWindow(createTimes, 1000);
    expect(creates).toBeLessThanOrEqual(16);
    expect(creates).toBeGreaterThanOrEqual(14);
    lim.close();
  });

  it("never grants more than capacity in any window, whatever the mix (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            dt: fc.integer({ min: 0, max: 25 }),
            kind: fc.constantFrom<RequestKind>("create", "cancel", "query"),
            wait: fc.constantFrom(0, 0, 50, 400, 2000),
          }),
          { minLength: 60, maxLength: 200 },
        ),
        async (steps) => {
          const clock = new ManualClock();
          const lim = new RateLimiter({ table, marginMs: 0, clock, timers: clock });
          const all: number[] = [];
          const shared: number[] = [];
          const stamp = (kind: RequestKind) => {
            all.push(clock.now());
            if (kind !== "cancel") shared.push(clock.now());
          };
          const tick = async (ms: number) => {
            // 1 ms steps with a microtask turn between: queued grants are stamped at their own instant.
            for (let i = 0; i < ms; i++) {
              clock.advance(1);
              await Promise.resolve();
            }
          };
          for (const s of steps) {
            await tick(s.dt);
            // "query" here is the create bucket used by a query-kind request: it may not use the reserve.
            const cls = s.kind === "cancel" ? "spot.cancel" : "spot.create";
            const r = lim.acquire(cls, s.kind, s.wait);
            if (r.status === "granted") stamp(s.kind);
            else if (r.status === "queued") {
              const k = s.kind;
              void r.done.then((x) => x.status === "granted" && stamp(k));
            }
          }
          await tick(2100);
          lim.close();
          all.sort((a, b) => a - b);
          shared.sort((a, b) => a - b);
          expect(maxInWindow(all, 1000)).toBeLessThanOrEqual(20);
          expect(maxInWindow(shared, 1000)).toBeLessThanOrEqual(16);
        },
      ),
      { numRuns: 40 },
    );
  });
});
