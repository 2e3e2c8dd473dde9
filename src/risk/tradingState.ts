/**
 * Account trading state. `active`: all checks apply. `reducing`: only orders that shrink the
 * position. `halted`: no new orders. Cancels pass in every state. Commands may move in any
 * direction; automatic triggers only escalate. A state a venue-health trigger set (unknown outcomes,
 * stream loss) heals by itself once the venue is healthy again (source `heal`); every other state
 * waits for a human.
 */
export type TradingState = "active" | "reducing" | "halted";

export type StateSource = "command" | "trigger" | "kill" | "heal";

export const STATE_RANK: Readonly<Record<TradingState, number>> = { active: 0, reducing: 1, halted: 2 };

export interface TradingStateChange {
  readonly from: TradingState;
  readonly to: TradingState;
  readonly source: StateSource;
  readonly reason: string;
  readonly at: number;
  /** Set by a venue-health trigger: the state it returns to by itself (journaled, so a restart keeps it). */
  readonly healsTo?: TradingState;
}

export interface RiskListener {
  onTradingState(change: TradingStateChange): void;
}

/** Fires when `count` events land within `windowMs` (ring of the last `count` timestamps). */
export class RateTrigger {
  private readonly ts: Float64Array;
  private i = 0;
  private n = 0;

  constructor(
    readonly count: number,
    readonly windowMs: number,
  ) {
    this.ts = new Float64Array(Math.max(1, count));
  }

  /** Records one event; true when this event completes `count` within the window. */
  hit(now: number): boolean {
    if (this.count <= 0) return false;
    this.ts[this.i] = now;
    this.i = this.i + 1 === this.count ? 0 : this.i + 1;
    if (this.n < this.count) this.n++;
    // After the write, slot i holds the oldest of the last `count` events.
    return this.n === this.count && now - this.ts[this.i]! < this.windowMs;
  }

  reset(): void {
    this.n = 0;
  }
}
