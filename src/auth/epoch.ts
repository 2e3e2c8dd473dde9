/**
 * The X-AUTH-EPOCH source: `now() + clockOffset`, with the same-millisecond policy chosen by config.
 *
 * - `clock`: the corrected clock floored to `stepMs` (default 1): requests in the same step share the
 *   epoch (and so the pre-signed signature). A step of a few ms keeps the epoch well inside the venue's
 *   5 s window while the pre-signer signs 1/step as many epochs [assumed: the venue checks the window
 *   and the signature, not that epochs differ; same-ms sharing already relies on that].
 * - `unique`: every call returns a strictly larger epoch than the last, but never more than `maxAheadMs`
 *   ahead of the corrected clock. When a burst would push past that bound the bound wins: the call
 *   returns `now + maxAheadMs` (which may repeat the previous epoch) and `capped` is counted. We do
 *   not spin-wait, because blocking the event loop costs more than a repeated epoch.
 */

export type EpochPolicy = "clock" | "unique";

export interface EpochOptions {
  policy?: EpochPolicy;
  /** `unique` only: how far the issued epoch may run ahead of the corrected clock (ms). Default 50. */
  maxAheadMs?: number;
  /** `clock` only: epochs are multiples of this many ms, never ahead of the clock. Default 1. */
  stepMs?: number;
  /** Wall-clock source in ms (injectable for tests). Default Date.now. */
  now?: () => number;
  /** Current server-minus-local offset in ms (from the clock sync). Default 0. */
  offset?: () => number;
}

export class EpochSource {
  readonly policy: EpochPolicy;
  readonly maxAheadMs: number;
  /** Epochs the pre-signer must cover are multiples of this (1 under `unique`). */
  readonly stepMs: number;
  /** `unique` calls that hit the max-ahead bound and returned it instead of last+1. */
  capped = 0;
  private readonly nowFn: () => number;
  private readonly offsetFn: () => number;
  private last = 0;
  // Cached decimal string of the last epoch: most calls in a burst reuse it.
  private lastStrMs = -1;
  private lastStr = "";

  constructor(opts: EpochOptions = {}) {
    this.policy = opts.policy ?? "clock";
    this.maxAheadMs = opts.maxAheadMs ?? 50;
    this.stepMs = this.policy === "clock" ? Math.max(1, Math.floor(opts.stepMs ?? 1)) : 1;
    this.nowFn = opts.now ?? Date.now;
    this.offsetFn = opts.offset ?? zero;
  }

  /** The corrected clock, without the policy applied (what the pre-signer fills ahead of). */
  clockMs(): number {
    return this.nowFn() + Math.round(this.offsetFn());
  }

  /** The next epoch to send, as a number of ms. */
  next(): number {
    const now = this.clockMs();
    if (this.policy === "clock") {
      const e = this.stepMs === 1 ? now : now - (now % this.stepMs);
      this.last = e;
      return e;
    }
    let e = this.last + 1;
    if (e < now) e = now;
    const bound = now + this.maxAheadMs;
    if (e > bound) {
      e = Math.max(bound, this.last);
      this.capped++;
    }
    this.last = e;
    return e;
  }

  /** Decimal string of an epoch, cached for the repeated-ms case. */
  toStr(ms: number): string {
    if (ms !== this.lastStrMs) {
      this.lastStrMs = ms;
      this.lastStr = String(ms);
    }
    return this.lastStr;
  }
}

function zero(): number {
  return 0;
}
