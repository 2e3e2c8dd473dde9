/**
 * Small helpers of the reconciler and the push streams: rate-limit tokens, outcome reporting, and
 * the one place that decides whether a REST failure is an authoritative "not found" (everything else,
 * timeouts, resets, 5xx, 429, auth, is no evidence about the order).
 */
import type { LimitClass, RateLimiter } from "../limits/index.js";
import { RateLimitedError, RestError, ValidationError } from "../rest/errors.js";

/**
 * One token of `cls`: `deadlineMs` 0 = now or never (the poller: skip the round rather than queue);
 * more = wait up to that long in the limiter's queue (the reconciler). No limiter = always granted.
 */
export async function takeToken(
  limiter: RateLimiter | undefined,
  cls: LimitClass,
  deadlineMs: number,
): Promise<boolean> {
  if (limiter === undefined) return true;
  const r = limiter.acquire(cls, "query", deadlineMs);
  if (r.status === "granted") return true;
  if (r.status === "rejected") return false;
  const done = await r.done;
  return done.status === "granted";
}

/** Tells the limiter how a request ended (a 429 opens that class's circuit). */
export function reportOutcome(limiter: RateLimiter | undefined, cls: LimitClass, err: unknown): void {
  if (limiter === undefined) return;
  if (err === undefined) {
    limiter.reportOutcome(cls, 200);
    return;
  }
  if (err instanceof RateLimitedError) limiter.reportOutcome(cls, 429, err.retryAfterMs);
  else if (err instanceof RestError && err.status > 0) limiter.reportOutcome(cls, err.status);
  else limiter.reportOutcome(cls, 0);
}

/** Spot `GET /trade/api/v2/order` answered 404: the venue says it has no such order [assumed 404]. */
export function isSpotNotFound(err: unknown): boolean {
  return err instanceof ValidationError && err.status === 404;
}

export function errText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
