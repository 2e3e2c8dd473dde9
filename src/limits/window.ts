/**
 * A sliding request log: the timestamps of the last `capacity` grants in a ring. A grant is allowed
 * while fewer than `limit` grants fall inside the trailing window. This never allows more than
 * `capacity` requests in *any* window of `windowMs`, so it is safe whether the exchange counts in
 * sliding windows or fixed ones (a token bucket of the same size would allow up to 2x in a window).
 * All operations are O(1) amortised (eviction pops at most what was pushed).
 */
export class SlidingLog {
  private readonly ts: Float64Array;
  private head = 0;
  private size = 0;

  constructor(
    readonly capacity: number,
    readonly windowMs: number,
  ) {
    this.ts = new Float64Array(capacity);
  }

  private evict(now: number): void {
    const ts = this.ts;
    const cap = this.capacity;
    const w = this.windowMs;
    while (this.size > 0 && ts[this.head]! + w <= now) {
      this.head = this.head + 1 === cap ? 0 : this.head + 1;
      this.size--;
    }
  }

  /** Grants currently counted in the window. */
  used(now: number): number {
    this.evict(now);
    return this.size;
  }

  canTake(limit: number, now: number): boolean {
    this.evict(now);
    return this.size < limit;
  }

  /** Records a grant; the caller has checked `canTake`. */
  take(now: number): void {
    let i = this.head + this.size;
    if (i >= this.capacity) i -= this.capacity;
    this.ts[i] = now;
    this.size++;
  }

  /** Earliest time at which `canTake(limit)` becomes true if nothing else is granted meanwhile. */
  readyAt(limit: number, now: number): number {
    if (limit <= 0) return Number.POSITIVE_INFINITY;
    this.evict(now);
    if (this.size < limit) return now;
    let i = this.head + (this.size - limit);
    if (i >= this.capacity) i -= this.capacity;
    return this.ts[i]! + this.windowMs;
  }
}
