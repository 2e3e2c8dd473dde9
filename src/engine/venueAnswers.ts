/** What the create and cancel paths share when a venue answer comes back. */
import type { Journal } from "../journal/writer.js";
import type { LimitClass, RateLimiter } from "../limits/index.js";
import {
  eventFromSpotOrder,
  newEvent,
  type Order,
  type OrderEvent,
  type OrderStore,
  Source,
  monoNs as storeNs,
} from "../orders/index.js";
import { monoNs } from "../protocol/clock.js";
import { RateLimitedError, RestError, ValidationError } from "../rest/errors.js";
import type { SpotOrderRecord } from "../rest/wire.js";
import type { InstrumentBook } from "./instruments.js";
import type { EngineMetrics } from "./metrics.js";

/**
 * A create or cancel that failed after it was sent: the limiter learns the outcome (a 429 opens its
 * circuit) and the journal records the answer, before the caller decides what the failure means.
 */
export function recordFailure(
  limiter: RateLimiter | undefined,
  journal: Journal | undefined,
  o: Order,
  op: "create" | "cancel",
  cls: LimitClass,
  err: unknown,
  sentNs: number,
): void {
  if (sentNs <= 0) return;
  const status = err instanceof RestError ? err.status : 0;
  limiter?.reportOutcome(cls, status, err instanceof RateLimitedError ? err.retryAfterMs : undefined);
  journal?.response({
    clientId: o.clientId,
    op,
    status,
    latencyUs: Math.round((monoNs() - sentNs) / 1000),
    body: err instanceof ValidationError ? err.exchangeMessage : String((err as Error)?.message ?? err),
  });
}

/** Applies the Spot order record a create or cancel answer carries (it may already show fills). */
export class SpotRecordApplier {
  private readonly ev: OrderEvent = newEvent();
  constructor(
    private readonly book: InstrumentBook,
    private readonly store: OrderStore,
    private readonly metrics: EngineMetrics,
  ) {}

  apply(o: Order, rec: SpotOrderRecord): void {
    const e = this.book.byId(o.instrumentId);
    if (e === undefined) return;
    try {
      eventFromSpotOrder(rec, e.grid, Source.Rest, storeNs(), this.ev);
    } catch {
      this.metrics.invalidEvents.inc();
      return;
    }
    this.store.apply(this.ev);
  }
}
