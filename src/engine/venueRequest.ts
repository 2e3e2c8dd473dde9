/** What the create and cancel paths share when a venue answer comes back. */

import { REFUSED_LOCALLY } from "../journal/records.js";
import type { Journal } from "../journal/writer.js";
import type { LimitClass, RateLimiter } from "../limits/index.js";
import {
  newEvent,
  type Order,
  type OrderEvent,
  type OrderStore,
  Source,
  monoNs as storeNs,
} from "../orders/index.js";
import { monoNs } from "../protocol/clock.js";
import {
  NetworkError,
  OutcomeUnknownError,
  RateLimitedError,
  ResponseShapeError,
  RestError,
  ValidationError,
} from "../rest/errors.js";
import type { VenueSurface } from "../venue/surface.js";
import type { InstrumentBook } from "./instruments.js";
import type { EngineMetrics } from "./metrics.js";

/**
 * A create, cancel or amend the venue answered with 200: the limiter learns the outcome and the journal
 * records the answer (with its round trip) before the caller applies it.
 */
export function recordAnswer(
  limiter: RateLimiter | undefined,
  journal: Journal | undefined,
  o: Order,
  op: "create" | "cancel" | "amend",
  cls: LimitClass,
  res: unknown,
  rttNs: number,
): void {
  limiter?.reportOutcome(cls, 200);
  journal?.response({
    clientId: o.clientId,
    op,
    status: 200,
    latencyUs: Math.round(rttNs / 1000),
    body: JSON.stringify(res),
  });
}

/** The text a failed request is reported with: the venue's own message when it gave one. */
export function failureText(err: unknown): string {
  return err instanceof ValidationError
    ? err.exchangeMessage || err.message
    : String((err as Error)?.message);
}

/**
 * A create or cancel that failed: the limiter learns the outcome of a sent request (a 429 opens its
 * circuit) and the journal records the answer, before the caller decides what the failure means and
 * tells the strategy. A request that never reached the venue (local validation, the clock guard, a
 * connect error) is journaled as REFUSED_LOCALLY, so replay rebuilds it as refused and never sends it.
 * `sentNs` 0 = not sent (or, for an ambiguous error, its 200 answer is already journaled).
 */
export function recordFailure(
  limiter: RateLimiter | undefined,
  journal: Journal | undefined,
  o: Order,
  op: "create" | "cancel" | "amend",
  cls: LimitClass,
  err: unknown,
  sentNs: number,
): void {
  const ambiguous = err instanceof OutcomeUnknownError || err instanceof ResponseShapeError;
  // An unsent cancel left no request in the journal: nothing for replay to undo.
  if (sentNs <= 0 && (ambiguous || op === "cancel")) return;
  const status = err instanceof RestError ? err.status : 0;
  if (sentNs > 0)
    limiter?.reportOutcome(cls, status, err instanceof RateLimitedError ? err.retryAfterMs : undefined);
  const refused = sentNs <= 0 || err instanceof NetworkError;
  journal?.response({
    clientId: o.clientId,
    op,
    status: refused ? REFUSED_LOCALLY : status,
    latencyUs: sentNs > 0 ? Math.round((monoNs() - sentNs) / 1000) : 0,
    body: err instanceof ValidationError ? err.exchangeMessage : String((err as Error)?.message ?? err),
  });
}

/** A create the gateway's own rate limiter refused: journaled as the create's answer before it is told. */
export function recordThrottled(journal: Journal | undefined, o: Order, reason: string): void {
  journal?.response({
    clientId: o.clientId,
    op: "create",
    status: REFUSED_LOCALLY,
    latencyUs: 0,
    body: reason,
  });
}

/** Applies the Spot order record a create or cancel answer carries (it may already show fills). */
/** A record carried by a create or cancel answer (Spot), applied as a REST outcome. */
export class AnswerRecordApplier {
  private readonly ev: OrderEvent = newEvent();
  constructor(
    private readonly book: InstrumentBook,
    private readonly store: OrderStore,
    private readonly metrics: EngineMetrics,
  ) {}

  apply(o: Order, surface: VenueSurface, rec: unknown): void {
    const e = this.book.byId(o.instrumentId);
    if (e === undefined) return;
    try {
      surface.normalize(rec, e.grid, Source.Rest, storeNs(), this.ev);
    } catch {
      this.metrics.invalidEvents.inc();
      return;
    }
    this.store.apply(this.ev);
  }
}
