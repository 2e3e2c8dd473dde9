import { describe, expect, it } from "vitest";
import {
  DEFAULT_LIMIT_TABLE,
  type Granted,
  type LimitTable,
  RateLimiter,
  type Rejected,
  SlidingLog,
} from "../../src/limits/index.js";
import { LimitConfigError } from "../../src/limits/limiter.js";
import { ManualClock } from "./manualClock.js";

const small: LimitTable = {
  buckets: {
    order: { capacity: 10, windowMs: 1000, cancelReserve: 2 },
    q: { capacity: 5, windowMs: 1000, cancelReserve: 0 },
  },
  classes: {
    "spot.create": "order",
    "spot.cancel": "order",
    "spot.listOrders": "q",
    "spot.portfolio": "q",
    "spot.tds": "q",
    "spot.other": "q",
    "hft.create": "order",
    "hft.cancel": "order",
    "hft.query": "q",
    "hft.other": "q",
    "futures.create": "q",
    "futures.cancel": "q",
    "futures.query": "q",
    "futures.list": "q",
    "futures.other": "q",
  },
};

function mk(opts: { random?: () => number } = {}) {
  const clock = new ManualClock();
  const lim = new RateLimiter({
    table: small,
    marginMs: 0,
    clock,
    timers: clock,
    random: opts.random ?? (() => 0.5),
    circuit: { baseMs: 100, maxMs: 1000, jitter: 0.5, probeTimeoutMs: 500 },
  });
  return { clock, lim };
}

describe("SlidingLog", () => {
  it("never allows more than capacity in any window", () => {
    const log = new SlidingLog(3, 100);
    const grants: number[] = [];
    for (let t = 0; t < 1000; t += 7) {
      if (log.canTake(3, t)) {
        log.take(t);
        grants.push(t);
      }
    }
    for (let i = 3; i < grants.length; i++) expect(grants[i]! - grants[i - 3]!).toBeGreaterThanOrEqual(100);
    expect(grants.length).toBeGreaterThan(20);
  });
  it("reports when room appears", () => {
    const log = new SlidingLog(2, 100);
    log.take(0);
    log.take(10);
    expect(log.readyAt(2, 20)).toBe(100);
    expect(log.readyAt(1, 20)).toBe(110);
    expect(log.readyAt(0, 20)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("RateLimiter", () => {
  it("uses the published Spot figures by default", () => {
    expect(DEFAULT_LIMIT_TABLE.buckets["spot.order"]!.capacity).toBe(100);
    expect(DEFAULT_LIMIT_TABLE.classes["spot.cancel"]).toBe(DEFAULT_LIMIT_TABLE.classes["spot.create"]);
    const lim = new RateLimiter();
    expect(lim.credit("spot.tds")).toBe(25);
    expect(lim.credit("spot.listOrders")).toBe(10_000);
    lim.close();
  });

  it("rejects a bad table with a typed error", () => {
    const bad = {
      ...small,
      buckets: { ...small.buckets, order: { capacity: 2, windowMs: 10, cancelReserve: 2 } },
    };
    expect(() => new RateLimiter({ table: bad })).toThrow(LimitConfigError);
  });

  it("keeps the last tokens for cancels and reports credit", () => {
    const { lim } = mk();
    expect(lim.credit("spot.create")).toBe(8);
    expect(lim.credit("spot.cancel")).toBe(10);
    for (let i = 0; i < 8; i++) expect(lim.acquire("spot.create").status).toBe("granted");
    const r = lim.acquire("spot.create") as Rejected;
    expect(r.status).toBe("rejected");
    expect(r.reason).toBe("RATE_LIMITED");
    expect(r.retryAfterMs).toBe(1000);
    expect(lim.credit("spot.create")).toBe(0);
    expect(lim.credit("spot.cancel")).toBe(2);
    expect(lim.acquire("spot.cancel").status).toBe("granted");
    expect(lim.acquire("hft.cancel").status).toBe("granted"); // shares the bucket in this table
    expect(lim.acquire("spot.cancel").status).toBe("rejected");
  });

  it("refills as the window slides", () => {
    const { clock, lim } = mk();
    for (let i = 0; i < 5; i++) {
      lim.acquire("spot.tds");
      clock.advance(100);
    }
    expect(lim.acquire("spot.tds").status).toBe("rejected");
    clock.advance(500); // t = 1000: the grant at 0 leaves the window
    expect(lim.credit("spot.tds")).toBe(1);
    expect(lim.acquire("spot.tds").status).toBe("granted");
    expect(lim.acquire("spot.tds").status).toBe("rejected");
  });

  it("serves queued cancels before queued creates and never starves cancels under a create flood", async () => {
    const { clock, lim } = mk();
    const order: string[] = [];
    const track = (label: string, r: ReturnType<RateLimiter["acquire"]>) => {
      if (r.status === "granted") order.push(label);
      else if (r.status === "queued") void r.done.then((x) => x.status === "granted" && order.push(label));
    };
    for (let i = 0; i < 10; i++) track(`c${i}`, lim.acquire("spot.create", "create", 5000));
    for (let i = 0; i < 3; i++) track(`x${i}`, lim.acquire("spot.cancel", "cancel", 5000));
    for (let i = 10; i < 20; i++) track(`c${i}`, lim.acquire("spot.create", "create", 5000));
    await Promise.resolve();
    // 8 creates now, then the reserve holds 2 cancels; the third cancel waits for the window.
    expect(order).toEqual(["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "x0", "x1"]);
    clock.advance(1000);
    await new Promise((r) => setImmediate(r));
    expect(order.slice(10, 12)).toEqual(["x2", "c8"]);
    expect(order.filter((l) => l.startsWith("x"))).toHaveLength(3);
    // Creates keep their arrival order.
    const creates = order.filter((l) => l.startsWith("c")).map((l) => Number(l.slice(1)));
    expect(creates).toEqual([...creates].sort((a, b) => a - b));
    lim.close();
  });

  it("a fresh cancel jumps queued creates", () => {
    const { lim } = mk();
    for (let i = 0; i < 8; i++) lim.acquire("spot.create");
    const q = lim.acquire("spot.create", "create", 5000);
    expect(q.status).toBe("queued");
    expect(lim.acquire("spot.cancel").status).toBe("granted");
    lim.close();
  });

  it("rejects queued work that misses its deadline instead of sending it late", async () => {
    const { clock, lim } = mk();
    for (let i = 0; i < 5; i++) {
      lim.acquire("spot.tds");
      clock.advance(100);
    }
    // t = 500. Room comes at t=1000; a 300 ms deadline can never make it: rejected at once.
    const early = lim.acquire("spot.tds", "query", 300) as Rejected;
    expect(early.reason).toBe("RATE_LIMITED");
    expect(early.retryAfterMs).toBe(500);
    const a = lim.acquire("spot.tds", "query", 600);
    expect(a.status).toBe("queued");
    const b = lim.acquire("spot.tds", "query", 550);
    expect(b.status).toBe("queued");
    clock.advance(500);
    const ra = await (a as { done: Promise<Granted | Rejected> }).done;
    expect(ra.status).toBe("granted");
    // One slot frees at t=1000; b's deadline (1050) passes before the next one (t=1100).
    clock.advance(60);
    const rb = (await (b as { done: Promise<Granted | Rejected> }).done) as Rejected;
    expect(rb.reason).toBe("DEADLINE");
    lim.close();
  });

  it("bounds the queue", () => {
    const clock = new ManualClock();
    const lim = new RateLimiter({ table: small, marginMs: 0, clock, timers: clock, maxQueue: 2 });
    for (let i = 0; i < 5; i++) lim.acquire("spot.tds");
    expect(lim.acquire("spot.tds", "query", 5000).status).toBe("queued");
    expect(lim.acquire("spot.tds", "query", 5000).status).toBe("queued");
    expect((lim.acquire("spot.tds", "query", 5000) as Rejected).reason).toBe("RATE_LIMITED");
    lim.close();
  });

  it("opens a circuit on 429 with exponential back-off, probes half-open, closes on success", () => {
    const states: string[] = [];
    const clock = new ManualClock();
    const lim = new RateLimiter({
      table: small,
      marginMs: 0,
      clock,
      timers: clock,
      random: () => 1,
      circuit: { baseMs: 100, maxMs: 1000, jitter: 0.5, probeTimeoutMs: 500 },
      onCircuit: (c, s, ms) => states.push(`${c}:${s}:${ms}`),
    });
    lim.reportOutcome("spot.create", 429);
    expect(lim.circuitState("spot.create")).toBe("open");
    expect(lim.circuitState("spot.cancel")).toBe("closed");
    const r = lim.acquire("spot.create") as Rejected;
    expect(r.reason).toBe("CIRCUIT_OPEN");
    expect(r.retryAfterMs).toBe(100);
    expect(lim.credit("spot.create")).toBe(0);
    clock.advance(100);
    expect(lim.acquire("spot.create").status).toBe("granted"); // the probe
    expect(lim.circuitState("spot.create")).toBe("halfOpen");
    expect((lim.acquire("spot.create") as Rejected).reason).toBe("CIRCUIT_OPEN");
    lim.reportOutcome("spot.create", 429); // probe failed: back-off doubles
    const r2 = lim.acquire("spot.create") as Rejected;
    expect(r2.retryAfterMs).toBe(200);
    clock.advance(200);
    expect(lim.acquire("spot.create").status).toBe("granted");
    lim.reportOutcome("spot.create", 200);
    expect(lim.circuitState("spot.create")).toBe("closed");
    expect(lim.acquire("spot.create").status).toBe("granted");
    // After closing, the back-off starts from the base again.
    lim.report429("spot.create");
    expect((lim.acquire("spot.create") as Rejected).retryAfterMs).toBe(100);
    expect(states[0]).toBe("spot.create:open:100");
    expect(states).toContain("spot.create:halfOpen:0");
    expect(states).toContain("spot.create:closed:0");
    lim.close();
  });

  it("applies jitter from the injected RNG, caps back-off, honours a longer retry-after", () => {
    const { lim } = mk({ random: () => 0 });
    lim.report429("spot.create");
    expect((lim.acquire("spot.create") as Rejected).retryAfterMs).toBe(50); // 100 * (1 - 0.5)
    const { lim: lim2, clock } = mk({ random: () => 0.5 });
    for (let i = 0; i < 10; i++) {
      lim2.report429("hft.create");
      clock.advance(2000);
      lim2.acquire("hft.create"); // probe, then fail again
    }
    lim2.report429("hft.create");
    expect((lim2.acquire("hft.create") as Rejected).retryAfterMs).toBeLessThanOrEqual(1000);
    const { lim: lim3 } = mk();
    lim3.report429("spot.tds", 5000);
    expect((lim3.acquire("spot.tds") as Rejected).retryAfterMs).toBe(5000);
  });

  it("a lost probe is retried after the probe timeout; 429s for old requests do not extend an open circuit", () => {
    const { clock, lim } = mk({ random: () => 1 });
    lim.report429("spot.create");
    lim.report429("spot.create"); // late answer to an earlier request: ignored while open
    clock.advance(100);
    expect(lim.acquire("spot.create").status).toBe("granted");
    clock.advance(499);
    expect(lim.acquire("spot.create").status).toBe("rejected");
    clock.advance(1);
    expect(lim.acquire("spot.create").status).toBe("granted");
    lim.reportOutcome("spot.create", 0); // unknown outcome: next call may probe
    expect(lim.acquire("spot.create").status).toBe("granted");
  });

  it("fails queued work of a class whose circuit opens", async () => {
    const { lim } = mk();
    for (let i = 0; i < 8; i++) lim.acquire("spot.create");
    const q = lim.acquire("spot.create", "create", 5000) as { done: Promise<Granted | Rejected> };
    lim.report429("spot.create");
    const r = (await q.done) as Rejected;
    expect(r.reason).toBe("CIRCUIT_OPEN");
    expect(r.retryAfterMs).toBeGreaterThan(0);
  });

  it("close rejects waiters and clears timers", async () => {
    const { clock, lim } = mk();
    for (let i = 0; i < 5; i++) lim.acquire("spot.tds");
    const q = lim.acquire("spot.tds", "query", 5000) as { done: Promise<Granted | Rejected> };
    expect(clock.timers).toBe(1);
    lim.close();
    expect(((await q.done) as Rejected).reason).toBe("CLOSED");
    expect(clock.timers).toBe(0);
    expect((lim.acquire("spot.tds") as Rejected).reason).toBe("CLOSED");
  });
});

describe("withdrawing queued work", () => {
  it("frees the place in the queue and settles with WITHDRAWN", async () => {
    const clock = new ManualClock();
    const lim = new RateLimiter({ table: small, marginMs: 0, clock, timers: clock });
    for (let i = 0; i < 5; i++) lim.acquire("spot.tds");
    const a = lim.acquire("spot.tds", "query", 5000);
    const b = lim.acquire("spot.tds", "query", 5000);
    if (a.status !== "queued" || b.status !== "queued") throw new Error("expected queued");
    expect(a.withdraw()).toBe(true);
    expect(a.withdraw()).toBe(false);
    expect(((await a.done) as Rejected).reason).toBe("WITHDRAWN");
    clock.advance(1000);
    expect((await b.done).status).toBe("granted");
    expect(b.withdraw()).toBe(false);
    expect(lim.credit("spot.tds")).toBe(4);
    lim.close();
  });
});
