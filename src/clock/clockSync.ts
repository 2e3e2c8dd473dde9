/**
 * Server-clock offset from `GET /trade/api/v2/time` (`{"serverTime": ms}`), and whether signed
 * requests may leave (the state table in clockState.ts).
 *
 * Each sync takes several samples and keeps the one with the smallest round trip
 * (offset = serverTime - (t0 + t1) / 2): a single slow sample never wins against a fast one, and a
 * round whose best sample is still slower than `maxRttMs` is discarded so the offset stays put.
 * Above `warnMs` (the exchange's 5,000 ms tolerance) a warning is raised; above `refuseMs` (60,000 ms,
 * where the exchange answers 401) signing is refused with a ClockError until a resync is in bounds.
 *
 * The venue answers an epoch outside its window with the same `401 Invalid Access` as a bad key or
 * signature, so a 401 on a signed request (`unauthorized`) holds signing and re-syncs at once; the
 * fresh offset says whether the refused request's epoch was outside the window. While signing is
 * refused the clock re-syncs every `recheckMs` (doubling up to `recheckMaxMs`) and resumes by itself.
 */
import { type ClockEvent, type ClockState, NEXT, SIGNS } from "./clockState.js";

export type { ClockState } from "./clockState.js";

export class ClockError extends Error {
  override readonly name = "ClockError";
  constructor(
    message: string,
    readonly offsetMs: number,
  ) {
    super(message);
  }
}

export interface ClockSample {
  offsetMs: number;
  rttMs: number;
  /** Local time the sample's answer arrived. */
  at: number;
}

export interface ClockOptions {
  /** Returns the server time in ms (one request). Injectable; see `httpServerTime`. */
  serverTime: () => Promise<number>;
  /** Local wall clock in ms. Default Date.now. */
  now?: () => number;
  /** Samples per sync. Default 5. */
  samples?: number;
  /** Rounds whose best round trip exceeds this are discarded (ms). Default 1,000. */
  maxRttMs?: number;
  /** Periodic resync interval (ms); 0 disables. Default 60,000. */
  resyncMs?: number;
  /** Warn above this absolute offset (ms). Default 5,000. */
  warnMs?: number;
  /** Refuse to sign above this absolute offset (ms). Default 60,000. */
  refuseMs?: number;
  /**
   * The venue's epoch tolerance (ms): a 401 is put down to the clock when the epoch it carried was
   * further than this from the venue's time as the re-sync measures it. Default 5,000.
   */
  windowMs?: number;
  /**
   * The epoch grid (ms; `signing.epochStepMs`): a signed epoch is the clock floored to it, so the
   * request was signed up to step - 1 ms after the moment its epoch names. Default 1.
   */
  epochStepMs?: number;
  /** While signing is refused: first re-sync after this long (ms), doubling per round. Default 250. */
  recheckMs?: number;
  /** While signing is refused: the longest wait between re-syncs (ms). Default 1,000. */
  recheckMaxMs?: number;
  /** Called with a human-readable warning (no secrets involved). Default: process.emitWarning. */
  onWarn?: (message: string, offsetMs: number) => void;
  /** Called on every change of state, with why. */
  onState?: (state: ClockState, reason: string) => void;
}

/** What the order paths ask of the clock: may a signed request leave now, and when may it again. */
export interface ClockGate {
  readonly canSign: boolean;
  onResume(fn: () => void): void;
}

type Opts = Required<Omit<ClockOptions, "onWarn" | "onState">> & Pick<ClockOptions, "onWarn" | "onState">;

export class ClockSync implements ClockGate {
  offsetMs = 0;
  state: ClockState = "unsynced";
  last: ClockSample | undefined;
  syncs = 0;
  /** Rounds discarded because even their fastest sample was too slow, or every sample failed. */
  discarded = 0;
  /** 401s on signed requests reported, and those the clock explained (epoch outside the window). */
  readonly unauthorizedStats = { seen: 0, clock: 0 };
  /** Signatures refused (ClockError) because the state did not allow them. */
  refused = 0;
  private readonly opts: Opts;
  private timer: NodeJS.Timeout | undefined;
  private recheckTimer: NodeJS.Timeout | undefined;
  private recheckDelay: number;
  /** The sync in flight, and the generation it started in (a 401 starts a new generation). */
  private inflight: Promise<ClockSample | undefined> | undefined;
  private inflightGen = 0;
  private gen = 0;
  /** The check a 401 started, joined by every 401 that arrives while it runs. */
  private check: Promise<ClockSample | undefined> | undefined;
  private warnedOffset: number | undefined;
  private readonly resumeListeners: (() => void)[] = [];
  private stopped = false;

  constructor(opts: ClockOptions) {
    this.opts = {
      now: Date.now,
      samples: 5,
      maxRttMs: 1_000,
      resyncMs: 60_000,
      warnMs: 5_000,
      refuseMs: 60_000,
      windowMs: 5_000,
      epochStepMs: 1,
      recheckMs: 250,
      recheckMaxMs: 1_000,
      onWarn: (message: string) => process.emitWarning(message, "ClockWarning"),
      ...opts,
    };
    this.recheckDelay = this.opts.recheckMs;
  }

  /** Offset getter suitable for EpochSource. */
  readonly offset = (): number => this.offsetMs;

  /** False while signed requests are refused (a 401 being checked, or the clock known wrong). */
  get canSign(): boolean {
    return SIGNS[this.state];
  }

  /** Calls `fn` every time signing is allowed again after a refusal. */
  onResume(fn: () => void): void {
    this.resumeListeners.push(fn);
  }

  /**
   * Takes `samples` samples and applies the fastest one if it is fast enough. Returns it (or undefined).
   * Concurrent calls share one round, unless a 401 arrived since it began (its samples may predate it).
   */
  sync(): Promise<ClockSample | undefined> {
    if (this.inflight !== undefined && this.inflightGen === this.gen) return this.inflight;
    const gen = this.gen;
    const p = this.round(gen).finally(() => {
      if (this.inflight === p) this.inflight = undefined;
    });
    this.inflight = p;
    this.inflightGen = gen;
    return p;
  }

  private async round(gen: number): Promise<ClockSample | undefined> {
    const { now, samples, serverTime } = this.opts;
    let best: ClockSample | undefined;
    for (let i = 0; i < samples; i++) {
      const t0 = now();
      let server: number;
      try {
        server = await serverTime();
      } catch {
        continue;
      }
      const t1 = now();
      if (!Number.isFinite(server)) continue;
      const rtt = t1 - t0;
      if (best === undefined || rtt < best.rttMs) {
        best = { offsetMs: Math.round(server - (t0 + t1) / 2), rttMs: rtt, at: t1 };
      }
    }
    // A 401 arrived meanwhile: its own check decides (these samples may be from before the venue moved).
    if (gen !== this.gen) return undefined;
    if (best === undefined || best.rttMs > this.opts.maxRttMs) {
      this.discarded++;
      this.move("noSample", "no usable time sample from the venue");
      return undefined;
    }
    this.apply(best);
    return best;
  }

  /** Applies a sample directly (used by sync; exposed for tests and manual correction). */
  apply(sample: ClockSample): void {
    this.last = sample;
    this.offsetMs = sample.offsetMs;
    this.syncs++;
    const abs = Math.abs(sample.offsetMs);
    const { refuseMs, warnMs, windowMs } = this.opts;
    const event: ClockEvent = abs > refuseMs ? "beyondRefuse" : abs > warnMs ? "beyondWarn" : "inWindow";
    const before = this.state;
    this.move(event, `offset ${sample.offsetMs} ms`);
    if (event === "inWindow") {
      this.warnedOffset = undefined;
      return;
    }
    // Once per state, and again when the offset has moved by more than the venue's tolerance.
    if (
      before === this.state &&
      this.warnedOffset !== undefined &&
      Math.abs(sample.offsetMs - this.warnedOffset) <= windowMs
    )
      return;
    this.warnedOffset = sample.offsetMs;
    this.opts.onWarn?.(
      event === "beyondRefuse"
        ? `clock offset ${sample.offsetMs} ms exceeds ${refuseMs} ms: signed requests refused until resynced`
        : `clock offset ${sample.offsetMs} ms exceeds the exchange's ${warnMs} ms tolerance (corrected in epochs)`,
      sample.offsetMs,
    );
  }

  /** Throws ClockError while signing is refused. Called before every signature. */
  assertCanSign(): void {
    if (SIGNS[this.state]) return;
    this.refused++;
    throw new ClockError(
      this.state === "checking"
        ? "refusing to sign: the venue refused a signed request (401); re-syncing the clock"
        : `refusing to sign: clock known wrong (offset ${this.offsetMs} ms, bound ${this.opts.refuseMs} ms); re-syncing`,
      this.offsetMs,
    );
  }

  /**
   * The venue answered 401 to a signed request that carried `epochMs` (X-AUTH-EPOCH). Holds signing
   * and re-syncs (unless a sample taken after that request was signed already says), then resolves
   * true when the epoch window explains the 401: the epoch was further than `windowMs` from the venue's
   * time, or the venue's time could not be measured (the clock is then not trusted). False: the clock
   * was fine, so the 401 is about the key or the signature.
   */
  unauthorized(epochMs?: number): Promise<boolean> {
    this.unauthorizedStats.seen++;
    const at = this.opts.now();
    if (this.state === "refuse") return Promise.resolve(this.blamed(true));
    // The offset the request was signed with, as seen from now (its latency included).
    const signedOffset = epochMs === undefined ? this.offsetMs : epochMs - at;
    const last = this.last;
    // The last sample answers only if it was taken after the latest moment the request can have been
    // signed (its epoch floored to the grid names up to step - 1 ms before that moment).
    if (
      this.state !== "checking" &&
      epochMs !== undefined &&
      last !== undefined &&
      last.at - last.rttMs >= epochMs + this.opts.epochStepMs - 1 - this.offsetMs
    ) {
      return Promise.resolve(this.blamed(this.outside(last, signedOffset)));
    }
    if (this.check === undefined) {
      this.gen++;
      this.move("unauthorized", "the venue refused a signed request (401)");
      const c = this.sync().finally(() => {
        if (this.check === c) this.check = undefined;
      });
      this.check = c;
    }
    return this.check.then((s) => this.blamed(s === undefined || this.outside(s, signedOffset)));
  }

  private outside(s: ClockSample, signedOffset: number): boolean {
    return (
      Math.abs(s.offsetMs - signedOffset) > this.opts.windowMs || Math.abs(s.offsetMs) > this.opts.refuseMs
    );
  }

  private blamed(clock: boolean): boolean {
    if (clock) this.unauthorizedStats.clock++;
    return clock;
  }

  /** One step of the state table; arms or stops the re-syncs of a refusal, tells listeners. */
  private move(event: ClockEvent, reason: string): void {
    const prev = this.state;
    const next = NEXT[prev][event];
    if (!SIGNS[next]) this.armRecheck(prev === next);
    else if (this.recheckTimer !== undefined) {
      clearTimeout(this.recheckTimer);
      this.recheckTimer = undefined;
    }
    if (next === prev) return;
    this.state = next;
    if (SIGNS[next]) this.recheckDelay = this.opts.recheckMs;
    this.opts.onState?.(next, reason);
    if (!SIGNS[prev] && SIGNS[next]) for (const fn of this.resumeListeners) fn();
  }

  /** While refusing: the next re-sync (the delay doubles when a round left the state unchanged). */
  private armRecheck(again: boolean): void {
    if (this.stopped) return;
    if (this.recheckTimer !== undefined) clearTimeout(this.recheckTimer);
    if (again) this.recheckDelay = Math.min(this.recheckDelay * 2, this.opts.recheckMaxMs);
    this.recheckTimer = setTimeout(() => {
      this.recheckTimer = undefined;
      void this.sync();
    }, this.recheckDelay);
    this.recheckTimer.unref();
  }

  /** First sync plus the periodic resync timer (unref'd so it never holds the process open). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.sync();
    if (this.opts.resyncMs > 0 && this.timer === undefined) {
      this.timer = setInterval(() => void this.sync(), this.opts.resyncMs);
      this.timer.unref();
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.recheckTimer !== undefined) clearTimeout(this.recheckTimer);
    this.recheckTimer = undefined;
  }
}
