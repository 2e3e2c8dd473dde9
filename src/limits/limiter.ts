/**
 * The account-wide rate limiter. Every request that leaves the gateway first calls `acquire`.
 * It grants at once (the hot path: a few array reads, no allocation), queues the request with a
 * bounded wait (served strictly by priority: cancels, then queries, then creates), or rejects it
 * with a typed reason and a retry-after so the strategy can be told (never a silent, unbounded wait).
 * A 429 from the exchange opens a per-class circuit with exponential back-off and jitter; after the
 * back-off a single probe request is let through (half-open) and its outcome closes or re-opens it.
 */
import {
  type BucketSpec,
  CLASS_KIND,
  DEFAULT_LIMIT_TABLE,
  KIND_PRIORITY,
  LIMIT_CLASSES,
  type LimitClass,
  type LimitTable,
  type RequestKind,
} from "./classes.js";
import { SlidingLog } from "./window.js";

/** WITHDRAWN: the caller took back queued work (e.g. the order was cancelled before it was sent). */
export type LimitRejectReason = "RATE_LIMITED" | "CIRCUIT_OPEN" | "DEADLINE" | "CLOSED" | "WITHDRAWN";

export interface Granted {
  readonly status: "granted";
}
export interface Rejected {
  readonly status: "rejected";
  readonly cls: LimitClass;
  readonly reason: LimitRejectReason;
  /** Milliseconds after which a retry may succeed (a hint, >= 1 unless CLOSED). */
  readonly retryAfterMs: number;
}
export interface Queued {
  readonly status: "queued";
  /** Settles with a grant (send now) or a rejection (do not send). Never rejects as a promise. */
  readonly done: Promise<Granted | Rejected>;
  /** Takes the request out of the queue (settling `done` with WITHDRAWN); false if already settled. */
  withdraw(): boolean;
}
export type AcquireResult = Granted | Rejected | Queued;

/** The one grant object: the hot path allocates nothing. */
export const GRANTED: Granted = Object.freeze({ status: "granted" as const });

export type CircuitState = "closed" | "open" | "halfOpen";

export interface LimiterClock {
  now(): number;
}
export interface LimiterTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface CircuitConfig {
  /** First back-off after a 429. */
  readonly baseMs: number;
  readonly maxMs: number;
  /** Fraction of the back-off that is randomised (0 = none, 1 = full jitter). */
  readonly jitter: number;
  /** A half-open probe whose outcome is never reported is presumed lost after this long. */
  readonly probeTimeoutMs: number;
}

export interface LimiterOptions {
  readonly table?: LimitTable;
  /**
   * Added to every window: requests that leave us W ms apart may arrive closer together, and the
   * exchange's clock is not ours [assumed 50 ms].
   */
  readonly marginMs?: number;
  /** Most requests waiting per bucket; beyond this, RATE_LIMITED at once. */
  readonly maxQueue?: number;
  readonly circuit?: Partial<CircuitConfig>;
  readonly clock?: LimiterClock;
  readonly timers?: LimiterTimers;
  /** Uniform [0, 1); injectable so tests see deterministic jitter. */
  readonly random?: () => number;
  readonly onCircuit?: (cls: LimitClass, state: CircuitState, retryAfterMs: number) => void;
}

export const DEFAULT_CIRCUIT: CircuitConfig = {
  baseMs: 500,
  maxMs: 30_000,
  jitter: 0.5,
  probeTimeoutMs: 5_000,
};

export class LimitConfigError extends Error {
  override name = "LimitConfigError";
}

interface Waiter {
  readonly cls: LimitClass;
  readonly kind: RequestKind;
  readonly deadline: number;
  readonly resolve: (r: Granted | Rejected) => void;
}

interface Bucket {
  readonly id: string;
  readonly log: SlidingLog;
  /** Limit for creates and queries; cancels may use the full capacity. */
  readonly sharedLimit: number;
  /** One FIFO per priority (cancel, query, create). */
  readonly queues: [Waiter[], Waiter[], Waiter[]];
  queued: number;
  timer: unknown;
  timerAt: number;
}

interface Circuit {
  state: CircuitState;
  failures: number;
  openUntil: number;
  /** When the half-open probe was granted; 0 = no probe outstanding. */
  probeAt: number;
}

const perfClock: LimiterClock = { now: () => performance.now() };
const nodeTimers: LimiterTimers = {
  set: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

function validateSpec(id: string, s: BucketSpec): void {
  const ok =
    Number.isSafeInteger(s.capacity) &&
    s.capacity > 0 &&
    Number.isFinite(s.windowMs) &&
    s.windowMs > 0 &&
    Number.isSafeInteger(s.cancelReserve) &&
    s.cancelReserve >= 0 &&
    s.cancelReserve < s.capacity;
  if (!ok) throw new LimitConfigError(`bucket ${id}: need capacity > cancelReserve >= 0 and windowMs > 0`);
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly bucketOf: Record<string, Bucket> = {};
  private readonly circuits: Record<string, Circuit> = {};
  private readonly clock: LimiterClock;
  private readonly timers: LimiterTimers;
  private readonly random: () => number;
  private readonly circuitCfg: CircuitConfig;
  private readonly maxQueue: number;
  private readonly onCircuit: LimiterOptions["onCircuit"];
  private closed = false;

  constructor(opts: LimiterOptions = {}) {
    const table = opts.table ?? DEFAULT_LIMIT_TABLE;
    const margin = opts.marginMs ?? 50;
    this.clock = opts.clock ?? perfClock;
    this.timers = opts.timers ?? nodeTimers;
    this.random = opts.random ?? Math.random;
    this.circuitCfg = { ...DEFAULT_CIRCUIT, ...opts.circuit };
    this.maxQueue = opts.maxQueue ?? 1_000;
    this.onCircuit = opts.onCircuit;
    if (!(margin >= 0)) throw new LimitConfigError("marginMs must be >= 0");
    for (const [id, spec] of Object.entries(table.buckets)) {
      validateSpec(id, spec);
      this.buckets.set(id, {
        id,
        log: new SlidingLog(spec.capacity, spec.windowMs + margin),
        sharedLimit: spec.capacity - spec.cancelReserve,
        queues: [[], [], []],
        queued: 0,
        timer: undefined,
        timerAt: Number.POSITIVE_INFINITY,
      });
    }
    for (const cls of LIMIT_CLASSES) {
      const id = table.classes[cls];
      const b = id === undefined ? undefined : this.buckets.get(id);
      if (b === undefined) throw new LimitConfigError(`class ${cls} maps to unknown bucket ${String(id)}`);
      this.bucketOf[cls] = b;
      this.circuits[cls] = { state: "closed", failures: 0, openUntil: 0, probeAt: 0 };
    }
  }

  /**
   * Asks to send one request of `cls`. `deadlineMs` is how long (from now) the caller accepts to
   * wait; 0 means "now or reject". Grants are counted at once: call this right before sending.
   */
  acquire(cls: LimitClass, kind: RequestKind = CLASS_KIND[cls], deadlineMs = 0): AcquireResult {
    const b = this.bucketOf[cls]!;
    const c = this.circuits[cls]!;
    const now = this.clock.now();
    if (this.closed) return reject(cls, "CLOSED", 0);
    const limit = kind === "cancel" ? b.log.capacity : b.sharedLimit;
    if (c.state !== "closed") return this.acquireProbe(b, c, cls, limit, now);
    // Only what is not behind an equal-or-higher-priority waiter may go straight through.
    if ((b.queued === 0 || this.nothingAhead(b, KIND_PRIORITY[kind])) && b.log.canTake(limit, now)) {
      b.log.take(now);
      return GRANTED;
    }
    const readyAt = b.log.readyAt(limit, now);
    const wait = readyAt - now;
    if (deadlineMs <= 0 || wait > deadlineMs || b.queued >= this.maxQueue) {
      return reject(cls, "RATE_LIMITED", Math.max(1, Math.ceil(wait)));
    }
    let resolve!: (r: Granted | Rejected) => void;
    const done = new Promise<Granted | Rejected>((r) => {
      resolve = r;
    });
    const q = b.queues[KIND_PRIORITY[kind]]!;
    const w: Waiter = { cls, kind, deadline: now + deadlineMs, resolve };
    q.push(w);
    b.queued++;
    this.pump(b);
    const withdraw = (): boolean => {
      const i = q.indexOf(w);
      if (i === -1) return false;
      q.splice(i, 1);
      b.queued--;
      w.resolve(reject(cls, "WITHDRAWN", 0));
      this.pump(b);
      return true;
    };
    return { status: "queued", done, withdraw };
  }

  /** Tokens left for the class's own kind of request right now (0 while its circuit is not closed). */
  credit(cls: LimitClass): number {
    if (this.circuits[cls]!.state !== "closed") return 0;
    const b = this.bucketOf[cls]!;
    const limit = CLASS_KIND[cls] === "cancel" ? b.log.capacity : b.sharedLimit;
    return Math.max(0, limit - b.log.used(this.clock.now()) - b.queued);
  }

  circuitState(cls: LimitClass): CircuitState {
    return this.circuits[cls]!.state;
  }

  /** Feeds back the HTTP status of a request sent under `cls`; 0 = no response (timeout/reset). */
  reportOutcome(cls: LimitClass, httpStatus: number, retryAfterMs?: number): void {
    if (httpStatus === 429) this.report429(cls, retryAfterMs);
    else if (httpStatus >= 200 && httpStatus < 500) this.reportSuccess(cls);
    else {
      // Unknown outcome: the probe (if any) proves nothing; let another one go.
      const c = this.circuits[cls]!;
      if (c.state === "halfOpen") c.probeAt = 0;
    }
  }

  /** The exchange said 429: open (or re-open) the class's circuit and fail its queued work. */
  report429(cls: LimitClass, retryAfterMs?: number): void {
    const c = this.circuits[cls]!;
    const cfg = this.circuitCfg;
    const now = this.clock.now();
    if (c.state === "open" && now < c.openUntil) return; // responses to requests sent before the open
    c.failures++;
    const backoff = Math.min(cfg.maxMs, cfg.baseMs * 2 ** (c.failures - 1));
    let delay = backoff * (1 - cfg.jitter) + backoff * cfg.jitter * this.random();
    if (retryAfterMs !== undefined && retryAfterMs > delay) delay = retryAfterMs;
    c.state = "open";
    c.openUntil = now + delay;
    c.probeAt = 0;
    this.dropQueued(this.bucketOf[cls]!, cls, "CIRCUIT_OPEN", Math.ceil(delay));
    this.onCircuit?.(cls, "open", Math.ceil(delay));
  }

  /** A request of `cls` got a non-429 answer: a half-open circuit closes. */
  reportSuccess(cls: LimitClass): void {
    const c = this.circuits[cls]!;
    if (c.state !== "halfOpen") return;
    c.state = "closed";
    c.failures = 0;
    c.probeAt = 0;
    this.onCircuit?.(cls, "closed", 0);
  }

  /** Rejects everything queued with CLOSED and stops timers. */
  close(): void {
    this.closed = true;
    for (const b of this.buckets.values()) {
      if (b.timer !== undefined) this.timers.clear(b.timer);
      b.timer = undefined;
      for (const q of b.queues) {
        for (const w of q) w.resolve(reject(w.cls, "CLOSED", 0));
        q.length = 0;
      }
      b.queued = 0;
    }
  }

  private nothingAhead(b: Bucket, prio: number): boolean {
    for (let p = 0; p <= prio; p++) if (b.queues[p]!.length > 0) return false;
    return true;
  }

  /** Open or half-open: at most one probe, granted only if the bucket has room now. */
  private acquireProbe(b: Bucket, c: Circuit, cls: LimitClass, limit: number, now: number): AcquireResult {
    if (c.state === "open") {
      if (now < c.openUntil) return reject(cls, "CIRCUIT_OPEN", Math.max(1, Math.ceil(c.openUntil - now)));
      c.state = "halfOpen";
      c.probeAt = 0;
      this.onCircuit?.(cls, "halfOpen", 0);
    }
    const probeTimeout = this.circuitCfg.probeTimeoutMs;
    if (c.probeAt !== 0 && now - c.probeAt < probeTimeout) {
      return reject(cls, "CIRCUIT_OPEN", Math.max(1, Math.ceil(c.probeAt + probeTimeout - now)));
    }
    if (!b.log.canTake(limit, now)) {
      return reject(cls, "RATE_LIMITED", Math.max(1, Math.ceil(b.log.readyAt(limit, now) - now)));
    }
    b.log.take(now);
    c.probeAt = now;
    return GRANTED;
  }

  private dropQueued(b: Bucket, cls: LimitClass, reason: LimitRejectReason, retryAfterMs: number): void {
    if (b.queued === 0) return;
    for (const q of b.queues) {
      let j = 0;
      for (let i = 0; i < q.length; i++) {
        const w = q[i]!;
        if (w.cls === cls) {
          w.resolve(reject(cls, reason, retryAfterMs));
          b.queued--;
        } else q[j++] = w;
      }
      q.length = j;
    }
    this.pump(b);
  }

  /** Slow path: expire, grant in priority order, and arm the bucket's timer for the next event. */
  private pump(b: Bucket): void {
    const now = this.clock.now();
    let nextDeadline = Number.POSITIVE_INFINITY;
    for (const q of b.queues) {
      let j = 0;
      for (let i = 0; i < q.length; i++) {
        const w = q[i]!;
        if (w.deadline < now) {
          w.resolve(reject(w.cls, "DEADLINE", 1));
          b.queued--;
        } else {
          if (w.deadline < nextDeadline) nextDeadline = w.deadline;
          q[j++] = w;
        }
      }
      q.length = j;
    }
    let nextReady = Number.POSITIVE_INFINITY;
    outer: for (const q of b.queues) {
      while (q.length > 0) {
        const w = q[0]!;
        const limit = w.kind === "cancel" ? b.log.capacity : b.sharedLimit;
        if (!b.log.canTake(limit, now)) {
          // Strict priority: whatever waits behind this one needs at least as much room.
          nextReady = b.log.readyAt(limit, now);
          break outer;
        }
        b.log.take(now);
        q.shift();
        b.queued--;
        w.resolve(GRANTED);
      }
    }
    if (b.queued === 0) nextDeadline = Number.POSITIVE_INFINITY;
    const at = Math.min(nextReady, nextDeadline + 0.001);
    this.arm(b, at, now);
  }

  private arm(b: Bucket, at: number, now: number): void {
    if (at === b.timerAt && b.timer !== undefined) return;
    if (b.timer !== undefined) this.timers.clear(b.timer);
    b.timer = undefined;
    b.timerAt = at;
    if (at === Number.POSITIVE_INFINITY || this.closed) return;
    b.timer = this.timers.set(
      () => {
        b.timer = undefined;
        b.timerAt = Number.POSITIVE_INFINITY;
        this.pump(b);
      },
      Math.max(0, at - now),
    );
  }
}

function reject(cls: LimitClass, reason: LimitRejectReason, retryAfterMs: number): Rejected {
  return { status: "rejected", cls, reason, retryAfterMs };
}
