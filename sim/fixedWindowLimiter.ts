/** Fixed-window request buckets per API key (docs/venue-api.md §9; window semantics [assumed] fixed). */
import type { RateBucket } from "./config.js";

interface Window {
  start: number;
  count: number;
}

export class FixedWindowLimiter {
  enabled: boolean;
  private readonly buckets: Record<string, RateBucket>;
  private readonly windows = new Map<string, Window>();

  constructor(enabled: boolean, buckets: Record<string, RateBucket>) {
    this.enabled = enabled;
    this.buckets = buckets;
  }

  /** True when the request may proceed (and counts it). */
  take(bucket: string, apiKey: string, now: number): boolean {
    if (!this.enabled) return true;
    const b = this.buckets[bucket];
    if (b === undefined) return true;
    const k = bucket + ":" + apiKey;
    let w = this.windows.get(k);
    if (w === undefined) {
      w = { start: now, count: 0 };
      this.windows.set(k, w);
    }
    if (now - w.start >= b.windowMs) {
      w.start = now;
      w.count = 0;
    }
    if (w.count >= b.limit) return false;
    w.count++;
    return true;
  }

  reset(): void {
    this.windows.clear();
  }
}
