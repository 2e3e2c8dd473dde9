/**
 * The venue-health side of the trading state: per surface, since when it has had neither a trusted
 * order stream nor a working poll (what the `streamLoss` trigger counts), the last sign of venue
 * trouble, and the heal rule. A state set by a venue-health trigger (`unknownOutcomes`, `streamLoss`)
 * returns to active once no order outcome is open, every surface is covered, and the venue has answered
 * normally for `healAfterMs` since the last trouble.
 */

/** What the gateway knows about the venue right now (read by the heal rule, about once a second). */
export interface VenueProbe {
  /** Orders whose outcome is still open (unknown, or unanswered past their deadline). */
  unresolved(): number;
  /** Wall-clock ms of the last normal venue answer (0 = none yet). */
  lastOkMs(): number;
  /** Wall-clock ms of the last failed venue request (timeout, reset, 5xx; 0 = none). */
  lastFailMs(): number;
}

export class VenueHealth {
  /** Surfaces with neither a trusted stream nor a working poll, and since when (risk clock, ms). */
  private readonly uncoveredSince = new Map<string, number>();
  /** Last trouble seen here: an unknown outcome, a surface losing or regaining its cover. */
  private troubleMs = 0;
  probe: VenueProbe | undefined;

  /** Surfaces not covered now (read on the order path: a field, no map walk). */
  uncovered = 0;

  /** A surface's cover changed; false when it did not. */
  setCovered(surface: string, covered: boolean, now: number): boolean {
    const was = !this.uncoveredSince.has(surface);
    if (was === covered) return false;
    // Losing the cover and getting it back both start the quiet period again.
    this.troubleMs = now;
    if (covered) this.uncoveredSince.delete(surface);
    else this.uncoveredSince.set(surface, now);
    this.uncovered = this.uncoveredSince.size;
    return true;
  }

  noteTrouble(now: number): void {
    this.troubleMs = now;
  }

  /** The surface uncovered longest and for how long (ms), or undefined when all are covered. */
  longestUncovered(now: number): { surface: string; ms: number } | undefined {
    let out: { surface: string; ms: number } | undefined;
    for (const [surface, since] of this.uncoveredSince) {
      const ms = now - since;
      if (out === undefined || ms > out.ms) out = { surface, ms };
    }
    return out;
  }

  /**
   * Why a venue-health state may end now, or undefined while it may not. Without a probe nothing is
   * known about open outcomes or venue answers: no heal.
   */
  healReason(now: number, healAfterMs: number): string | undefined {
    const p = this.probe;
    if (p === undefined || healAfterMs <= 0 || this.uncovered > 0) return undefined;
    if (p.unresolved() > 0) {
      this.troubleMs = now;
      return undefined;
    }
    const trouble = Math.max(this.troubleMs, p.lastFailMs());
    if (now - trouble < healAfterMs || p.lastOkMs() <= trouble) return undefined;
    return `every order outcome resolved, every surface covered, venue answering normally for ${Math.round(now - trouble)} ms`;
  }
}
