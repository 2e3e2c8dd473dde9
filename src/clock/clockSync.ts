/**
 * Server-clock offset from `GET /trade/api/v2/time` (`{"serverTime": ms}`).
 *
 * Each sync takes several samples and keeps the one with the smallest round trip
 * (offset = serverTime - (t0 + t1) / 2): a single slow sample never wins against a fast one, and a
 * round whose best sample is still slower than `maxRttMs` is discarded so the offset stays put.
 * Above `warnMs` (the exchange's 5,000 ms tolerance) a warning is raised; above `refuseMs` (60,000 ms,
 * where the exchange answers 401) signing is refused with a ClockError until a resync is in bounds.
 */

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
  /** Called with a human-readable warning (no secrets involved). Default: process.emitWarning. */
  onWarn?: (message: string, offsetMs: number) => void;
}

export type ClockState = "unsynced" | "ok" | "warn" | "refuse";

export class ClockSync {
  offsetMs = 0;
  state: ClockState = "unsynced";
  last: ClockSample | undefined;
  syncs = 0;
  /** Rounds discarded because even their fastest sample was too slow, or every sample failed. */
  discarded = 0;
  private readonly opts: Required<Omit<ClockOptions, "onWarn">> & Pick<ClockOptions, "onWarn">;
  private timer: NodeJS.Timeout | undefined;

  constructor(opts: ClockOptions) {
    this.opts = {
      now: Date.now,
      samples: 5,
      maxRttMs: 1_000,
      resyncMs: 60_000,
      warnMs: 5_000,
      refuseMs: 60_000,
      onWarn: (message: string) => process.emitWarning(message, "ClockWarning"),
      ...opts,
    };
  }

  /** Offset getter suitable for EpochSource. */
  readonly offset = (): number => this.offsetMs;

  /** Takes `samples` samples and applies the fastest one if it is fast enough. Returns it (or undefined). */
  async sync(): Promise<ClockSample | undefined> {
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
    if (best === undefined || best.rttMs > this.opts.maxRttMs) {
      this.discarded++;
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
    if (abs > this.opts.refuseMs) {
      this.state = "refuse";
      this.opts.onWarn?.(
        `clock offset ${sample.offsetMs} ms exceeds ${this.opts.refuseMs} ms: signed requests refused until resynced`,
        sample.offsetMs,
      );
    } else if (abs > this.opts.warnMs) {
      this.state = "warn";
      this.opts.onWarn?.(
        `clock offset ${sample.offsetMs} ms exceeds the exchange's ${this.opts.warnMs} ms tolerance (corrected in epochs)`,
        sample.offsetMs,
      );
    } else {
      this.state = "ok";
    }
  }

  /** Throws ClockError while the offset is beyond the refuse bound. Called before every signature. */
  assertCanSign(): void {
    if (this.state === "refuse") {
      throw new ClockError(
        `refusing to sign: clock offset ${this.offsetMs} ms exceeds ${this.opts.refuseMs} ms; fix the host clock or resync`,
        this.offsetMs,
      );
    }
  }

  /** First sync plus the periodic resync timer (unref'd so it never holds the process open). */
  async start(): Promise<void> {
    await this.sync();
    if (this.opts.resyncMs > 0 && this.timer === undefined) {
      this.timer = setInterval(() => void this.sync(), this.opts.resyncMs);
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
