/**
 * The one event shape every producer feeds the store with: the engine (REST outcomes), the stream
 * consumers, the realtime poller and the reconciler. A fixed shape with sentinel values (-1, "") keeps
 * the hot path monomorphic; producers may reuse one object (the store copies what it keeps).
 */
import { EVENT_COUNT, Ev, type Status, VENUE_EVENT_FOR_STATUS } from "./status.js";

export const Source = {
  /** The engine's own REST request outcome. */
  Rest: 0,
  /** A push stream (Socket.IO, NATS). */
  Stream: 1,
  /** The realtime poller. */
  Poll: 2,
  /** A targeted query or the reconciler's snapshot: authoritative. */
  Query: 3,
} as const;
export type Source = (typeof Source)[keyof typeof Source];

export interface OrderEvent {
  kind: Ev;
  source: Source;
  /** Our client id when the message carries it, else "". */
  clientId: string;
  /** Exchange order id when known, else "". */
  exchangeId: string;
  /** Monotonic ns when the gateway received it. */
  tsNs: number;
  /** Venue timestamp (ms), -1 when absent. */
  venueMs: number;
  /** Venue records: cumulative filled lots, -1 when the record has none. */
  cumLots: number;
  /** Venue records: average fill price in ticks (float), -1 when absent. */
  avgPxTicks: number;
  /** Venue records: cumulative fee; Fill: this execution's fee. -1 when absent. */
  fee: number;
  /** Fill: execution id ("" = synthesize from exchange id + cumulative qty). */
  execId: string;
  /** Fill: lots and price in ticks of this execution. */
  lots: number;
  pxTicks: number;
  /** Rejects: reason text. */
  reason: string;
  /**
   * Fill: maker or taker as the execution record says (`LIQUIDITY`); travels with the event into the
   * store's fill report, so the Fill sent to the strategy carries it without any side channel.
   */
  liquidity: number;
}

/** Values of `OrderEvent.liquidity` (the protocol's Liquidity codes). */
export const LIQUIDITY = { Unknown: 0, Maker: 1, Taker: 2 } as const;

export function newEvent(kind: Ev = Ev.VenueNew): OrderEvent {
  return {
    kind,
    source: 0,
    clientId: "",
    exchangeId: "",
    tsNs: 0,
    venueMs: -1,
    cumLots: -1,
    avgPxTicks: -1,
    fee: -1,
    execId: "",
    lots: 0,
    pxTicks: 0,
    reason: "",
    liquidity: 0,
  };
}

export function copyEvent(e: OrderEvent): OrderEvent {
  return { ...e };
}

/** Resets a reusable event to its sentinels. */
export function resetEvent(e: OrderEvent, kind: Ev): OrderEvent {
  e.kind = kind;
  e.source = 0;
  e.clientId = "";
  e.exchangeId = "";
  e.tsNs = 0;
  e.venueMs = -1;
  e.cumLots = -1;
  e.avgPxTicks = -1;
  e.fee = -1;
  e.execId = "";
  e.lots = 0;
  e.pxTicks = 0;
  e.reason = "";
  e.liquidity = 0;
  return e;
}

/** The engine's own REST outcome for an order, written into a reused event (see OrderStore.markSent etc.). */
export function restEvent(
  e: OrderEvent,
  kind: Ev,
  clientId: string,
  exchangeId: string,
  reason: string,
  ts: number,
): OrderEvent {
  resetEvent(e, kind);
  e.source = Source.Rest;
  e.clientId = clientId;
  e.exchangeId = exchangeId;
  e.reason = reason;
  e.tsNs = ts;
  return e;
}

/** Cheap shape checks: producers are ours, but a bug upstream must not corrupt an order. */
export function validEvent(ev: OrderEvent): boolean {
  const k = ev.kind;
  if (!(k >= 0 && k < EVENT_COUNT) || (k | 0) !== k) return false;
  if (k === Ev.Fill) return Number.isSafeInteger(ev.lots) && ev.lots > 0 && ev.pxTicks >= 0;
  const c = ev.cumLots;
  return c === -1 || (Number.isSafeInteger(c) && c >= 0);
}

/** The venue-status event kind for a unified status; throws for local-only statuses. */
export function venueEvent(status: Status): Ev {
  const e = VENUE_EVENT_FOR_STATUS[status]!;
  if (e < 0) throw new RangeError(`status ${status} is local-only and has no venue event`);
  return e as Ev;
}
