/** A clock and timer set driven by the test: time moves only when `advance` is called. */
export class ManualClock {
  t = 0;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.t;
  }
  set(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { at: this.t + ms, fn });
    return id;
  }
  clear(h: unknown): void {
    this.pending.delete(h as number);
  }
  get timers(): number {
    return this.pending.size;
  }
  /** Moves time forward, firing due timers in time order at their own instants. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let best: number | undefined;
      let bestAt = Number.POSITIVE_INFINITY;
      for (const [id, p] of this.pending) {
        if (p.at <= end && p.at < bestAt) {
          best = id;
          bestAt = p.at;
        }
      }
      if (best === undefined) break;
      const p = this.pending.get(best)!;
      this.pending.delete(best);
      this.t = Math.max(this.t, p.at);
      p.fn();
    }
    this.t = end;
  }
}
