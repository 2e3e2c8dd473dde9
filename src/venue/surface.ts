/**
 * One venue surface behind one interface: how an order is prepared, how its answers are read, how it
 * is asked about by client id and listed, which rate class each operation spends, and how a venue
 * record becomes an `OrderEvent`. The engine's command path and the venue-sync module (resolver,
 * poller, reconciler) speak to this interface only; Spot, HFT and Futures v2 are its three
 * implementations, each in its own folder with its requests (src/venue/{spot,hft,futures}/; a further
 * venue API is a fourth folder, not a branch in each caller).
 */
import type { OrderType, PositionIdx, Side, Surface, TimeInForce } from "../domain/types.js";
import type { LimitClass } from "../limits/index.js";
import type { Grid, Order, OrderEvent, Source, Status } from "../orders/index.js";
import type { EndpointId } from "../rest/catalogue.js";
import type { PreparedRequest } from "../rest/client.js";
import { ValidationError } from "../rest/errors.js";
import type { OrderGrid, OrderRef } from "./orderFields.js";

/** The operations that spend rate-limit credit, each mapped to its class by the surface. */
export type SurfaceOp = "create" | "cancel" | "query" | "list";

/**
 * How a venue changes a working order's price or quantity: `native` in place (prepareAmend), a
 * `cancelReplace` by the engine (cancel, then a new create once the cancel is confirmed), or `none`.
 */
export type AmendMode = "native" | "cancelReplace" | "none";

/** An order's price and total quantity as a venue record shows them, on the order's grid. */
export interface AmendState {
  priceTicks: number;
  qtyLots: number;
}

/** Where a venue order record's order trades: the instrument's symbol and venue (exchange, category). */
export interface RecordPlace {
  symbol: string;
  /** Spot exchange (`coinswitchx`), HFT category (`linear`), Futures `EXCHANGE_2`; "" when the record names none. */
  venue: string;
}

/** A venue order record's terms on its instrument's grid (an order the gateway adopts). */
export interface RecordTerms {
  side: Side;
  type: OrderType;
  tif: TimeInForce;
  positionIdx: PositionIdx;
  /** 0 for a market order. */
  priceTicks: number;
  /** The ordered total, filled included. */
  qtyLots: number;
}

/**
 * Client ids the store gives orders it adopted from the venue (open there, placed by no session of
 * the gateway, or by one whose journal record is gone): `orphan:<exchange id>`. Never sent to the
 * venue; such an order is asked about, cancelled and listed by its exchange id.
 */
export const ORPHAN_ID_PREFIX = "orphan:";

export function isOrphan(o: { clientId: string }): boolean {
  return o.clientId.startsWith(ORPHAN_ID_PREFIX);
}

/** How a by-id read names an order: by our client id, or an orphan (none of ours) by its venue id. */
export function orderRef(o: { clientId: string; exchangeId: string }): OrderRef {
  return isOrphan(o) ? { orderId: o.exchangeId } : { clientOrderId: o.clientId };
}

/**
 * A v2 get-order read (Spot, Futures) whose 404 is the venue's authoritative "never placed"
 * [assumed]: undefined then; any other failure is thrown.
 */
export async function unlessNotFound<R>(read: Promise<R>): Promise<R | undefined> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof ValidationError && err.status === 404) return undefined;
    throw err;
  }
}

/** What the venue answered to a create (or a cancel) that came back 2xx. */
export interface CreateAnswer<R> {
  /** The venue's order id; "" when the answer did not carry one (a malformed answer). */
  exchangeId: string;
  /** A full order record when the answer is one and says more than "accepted" (Spot fills at once). */
  record: R | undefined;
}

/** One page of the venue's open orders; `complete` false when more exist than were read. */
export interface OpenList<R> {
  rows: R[];
  complete: boolean;
}

export interface VenueSurface<R = unknown> {
  readonly kind: Surface;
  /** Rate-limit class each operation spends. */
  classOf(op: SurfaceOp): LimitClass;
  /** Journal `evt.source` prefix of this surface's order records (`spot`, `hft`). */
  readonly journalTag: string;
  /** The create endpoint (named in errors about its answers). */
  readonly createEndpoint: EndpointId;
  /**
   * The create's answer carries ids only (no fill state): an order that may have traded at once is
   * asked about right after its ack rather than at the next poll.
   */
  readonly queryAfterAck: boolean;
  /**
   * A surface with no push stream polls its open list on this cadence (ms), whether or not other
   * surfaces' streams are trusted; undefined = the venue sync's common poll / audit schedule.
   */
  readonly pollEveryMs?: number;
  /** How this venue amends (a surface that does not say has no amend: AmendReject Unsupported). */
  readonly amend?: AmendMode;

  // ---- the command path ----
  /** Signs and builds the create with the order's client id (throws a typed error on bad input). */
  prepareCreate(
    o: Order,
    priceText: string,
    qtyText: string,
    grid: OrderGrid,
    venue: string,
  ): PreparedRequest;
  /** Builds the cancel of an acked order. */
  prepareCancel(o: Order): PreparedRequest;
  /** Builds the in-place amend (`amend` = native); undefined texts are left unchanged. */
  prepareAmend?(o: Order, priceText: string | undefined, qtyText: string | undefined): PreparedRequest;
  /** Reads a 2xx create answer. */
  parseCreate(res: unknown): CreateAnswer<R>;
  /** Reads a 2xx cancel answer: the record when it is one worth applying. */
  parseCancel(res: unknown): R | undefined;

  // ---- asking the venue ----
  /**
   * The order with this client id (an orphan: with its exchange id), or undefined when the venue says
   * it has none; throws otherwise.
   */
  queryByClientId(o: Order): Promise<R | undefined>;
  /**
   * The account's open orders on this surface: a poll round's few pages, or with `full` (a
   * reconciliation, the orphan check) every page up to the configured bound; `complete` is false
   * when pages were left.
   */
  listOpen(full?: boolean): Promise<OpenList<R>>;
  /** Cancels a working order the gateway does not hold (kill switch sweep). */
  cancelRecord(r: R): Promise<unknown>;

  // ---- records ----
  clientIdOf(r: R): string;
  exchangeIdOf(r: R): string;
  /** The record's status in the store's terms. */
  statusOf(r: R): Status;
  /** Status, cumulative quantity and update time: equal prints mean nothing changed. */
  printOf(r: R): string;
  /** The record's price and total quantity (native amend: did an unanswered amend take?); throws if malformed. */
  amendStateOf?(r: R, grid: Grid): AmendState;
  /** Normalizes the record into `ev` (throws NormalizeError on a malformed one). */
  normalize(r: R, grid: Grid, source: Source, tsNs: number, ev: OrderEvent): void;
  /** Where the record's order trades (adopting an orphan finds its instrument by it). */
  placeOf(r: R): RecordPlace;
  /** The record's side, type, price and quantity on `grid` (throws NormalizeError on a malformed one). */
  termsOf(r: R, grid: Grid): RecordTerms;

  /** Fills listed apart from the orders, each with its own id (HFT executions); undefined = none. */
  readonly fills?: FillList;
}

/**
 * A surface's fill list: each row one fill with its id (maker/taker, fee), applied once by id. The
 * poller reads it after the open list, from the newest fill it has seen.
 */
export interface FillList<X = unknown> {
  /** Journal `evt.source` prefix of these rows (`hftx`: the order replay reads them back as executions). */
  readonly journalTag: string;
  /** Fills since `sinceMs` (venue time, inclusive), bounded pages. */
  list(sinceMs: number): Promise<OpenList<X>>;
  clientIdOf(x: X): string;
  exchangeIdOf(x: X): string;
  /** The fill's venue time (ms). */
  timeOf(x: X): number;
  /** The fill's id: a row already applied is skipped. */
  printOf(x: X): string;
  normalize(x: X, grid: Grid, source: Source, tsNs: number, ev: OrderEvent): void;
}

/**
 * How one kind of venue record becomes an OrderEvent, and the tag it is journaled under: what the
 * venue ingest (src/venue/ingest.ts) needs to apply it. A surface is one (its order records), its fill
 * list another; a stream message and a replayed record name theirs.
 */
export interface RecordNormalizer<R = unknown> {
  /** Journal `evt.source` prefix (`spot`, `hft`, `hftx`, `futures`). */
  readonly journalTag: string;
  /** Normalizes the record into `ev` (throws NormalizeError on a malformed one). */
  normalize(r: R, grid: Grid, source: Source, tsNs: number, ev: OrderEvent): void;
}

/** What the ingest needs of a record of a known order from a poll or a query: also its print. */
export type RecordReader = Pick<VenueSurface, "journalTag" | "printOf" | "normalize">;

/** One implementation per surface kind. */
export type Surfaces = Readonly<Record<Surface, VenueSurface>>;

export function surfaceOf(s: Surfaces, o: { surface: Surface }): VenueSurface {
  return s[o.surface];
}
