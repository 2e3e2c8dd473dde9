/**
 * Endpoint classes and the exchange's request buckets, as data. The REST catalogue tags each
 * endpoint with one `LimitClass`; this table maps every class to the bucket it draws from.
 * Figures are from docs/venue-api.md §9; rows marked [assumed] are not published by the exchange.
 */

export type LimitClass =
  | "spot.create"
  | "spot.cancel"
  | "spot.listOrders"
  | "spot.portfolio"
  | "spot.tds"
  | "spot.other"
  | "hft.create"
  | "hft.cancel"
  | "hft.query"
  | "hft.other"
  | "futures.create"
  | "futures.cancel"
  | "futures.query"
  | "futures.list"
  | "futures.other";

export const LIMIT_CLASSES: readonly LimitClass[] = [
  "spot.create",
  "spot.cancel",
  "spot.listOrders",
  "spot.portfolio",
  "spot.tds",
  "spot.other",
  "hft.create",
  "hft.cancel",
  "hft.query",
  "hft.other",
  "futures.create",
  "futures.cancel",
  "futures.query",
  "futures.list",
  "futures.other",
];

/** What a request does; decides queue priority and whether the cancel reserve may be used. */
export type RequestKind = "cancel" | "query" | "create";

/** Priority order: lower index is served first. */
export const KIND_PRIORITY: Readonly<Record<RequestKind, number>> = { cancel: 0, query: 1, create: 2 };

export interface BucketSpec {
  /** Requests allowed in any window of `windowMs`. */
  readonly capacity: number;
  readonly windowMs: number;
  /** Tokens only cancels may use: creates and queries stop at `capacity - cancelReserve`. */
  readonly cancelReserve: number;
}

export interface LimitTable {
  readonly buckets: Readonly<Record<string, BucketSpec>>;
  /** Class -> bucket id. Several classes may share one bucket. */
  readonly classes: Readonly<Record<LimitClass, string>>;
}

/**
 * Default table. Spot cancel shares the create bucket [assumed]: the exchange publishes no cancel
 * figure and a shared bucket is the conservative reading. HFT publishes no number at all; 50/s per
 * class [assumed] until an allocation is agreed with the exchange. Unlisted Spot endpoints share a
 * 100/10 s "other" bucket [assumed]. Futures buckets are per endpoint and per 60 s (§9): place 20,
 * cancel 10, order status 20, open orders 20, market data 100; a cancel never waits behind a create
 * because they are separate buckets at the venue.
 */
export const DEFAULT_LIMIT_TABLE: LimitTable = {
  buckets: {
    "spot.order": { capacity: 100, windowMs: 10_000, cancelReserve: 10 },
    "spot.listOrders": { capacity: 10_000, windowMs: 10_000, cancelReserve: 0 },
    "spot.portfolio": { capacity: 5_000, windowMs: 10_000, cancelReserve: 0 },
    "spot.tds": { capacity: 25, windowMs: 10_000, cancelReserve: 0 },
    "spot.other": { capacity: 100, windowMs: 10_000, cancelReserve: 0 },
    "hft.order": { capacity: 50, windowMs: 1_000, cancelReserve: 5 },
    "hft.query": { capacity: 50, windowMs: 1_000, cancelReserve: 0 },
    "hft.other": { capacity: 50, windowMs: 1_000, cancelReserve: 0 },
    "futures.place": { capacity: 20, windowMs: 60_000, cancelReserve: 0 },
    "futures.cancel": { capacity: 10, windowMs: 60_000, cancelReserve: 0 },
    "futures.status": { capacity: 20, windowMs: 60_000, cancelReserve: 0 },
    "futures.openOrders": { capacity: 20, windowMs: 60_000, cancelReserve: 0 },
    "futures.market": { capacity: 100, windowMs: 60_000, cancelReserve: 0 },
  },
  classes: {
    "spot.create": "spot.order",
    "spot.cancel": "spot.order",
    "spot.listOrders": "spot.listOrders",
    "spot.portfolio": "spot.portfolio",
    "spot.tds": "spot.tds",
    "spot.other": "spot.other",
    "hft.create": "hft.order",
    "hft.cancel": "hft.order",
    "hft.query": "hft.query",
    "hft.other": "hft.other",
    "futures.create": "futures.place",
    "futures.cancel": "futures.cancel",
    "futures.query": "futures.status",
    "futures.list": "futures.openOrders",
    "futures.other": "futures.market",
  },
};

/** Mapping point for the REST catalogue: the kind a class implies when the caller gives none. */
export const CLASS_KIND: Readonly<Record<LimitClass, RequestKind>> = {
  "spot.create": "create",
  "spot.cancel": "cancel",
  "spot.listOrders": "query",
  "spot.portfolio": "query",
  "spot.tds": "query",
  "spot.other": "query",
  "hft.create": "create",
  "hft.cancel": "cancel",
  "hft.query": "query",
  "hft.other": "query",
  "futures.create": "create",
  "futures.cancel": "cancel",
  "futures.query": "query",
  "futures.list": "query",
  "futures.other": "query",
};

export function isLimitClass(s: string): s is LimitClass {
  return (LIMIT_CLASSES as readonly string[]).includes(s);
}
