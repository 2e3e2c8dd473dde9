/**
 * The X-AUTH-EPOCH source: `now() + clockOffset`, with the same-millisecond policy chosen by config.
 *
 * - `clock`: requests in the same millisecond share the epoch (and so the pre-signed signature).
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
  /** Wall-clock source in ms (injectable for tests). Default Date.now. */
  now?: () => number;
  /** Current server-minus-local offset in ms (from the clock sync). Default 0. */
  offset?: () => number;
}

export class EpochSource {
  readonly policy: EpochPolicy;
  readonly maxAheadMs: number;
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
      this.last = now;
      return now;
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
