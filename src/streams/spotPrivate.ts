/**
 * The Spot private user streams of docs/venue-api.md §6.2: order updates and balance updates, each its own
 * Socket.IO connection (own handshake path and namespace), subscribed with
 * `{"event":"subscribe","apikey":<api key>}` on every (re)connect. Order records go through the order
 * feed into the store; balance snapshots into the balance book (newest timestamp wins).
 */
import { type BalanceBook, Source } from "../orders/index.js";
import { isSpotBalanceUpdate, type OrderFeed } from "./feed.js";
import { type BackoffOptions, SocketStream, type StreamStateListener } from "./socketStream.js";

export const SPOT_ORDER_STREAM = {
  path: "/pro/realtime-rates-socket/spot/order-updates",
  namespace: "/orderupdates",
  event: "FETCH_ORDER_UPDATES",
} as const;

export const SPOT_BALANCE_STREAM = {
  path: "/pro/realtime-rates-socket/spot/balance-updates",
  namespace: "/balanceupdates",
  event: "FETCH_BALANCE_UPDATES",
} as const;

/** The real venue's socket origin; the simulator serves the same paths on its HTTP port. */
export const SPOT_SOCKET_URL = "https://ws.coinswitch.co";

export interface PrivateStreamOptions {
  baseUrl: string;
  apiKey: string;
  listener?: StreamStateListener;
  staleMs?: number;
  backoff?: BackoffOptions;
  connectTimeoutMs?: number;
  /** Overrides of the documented path (e.g. a proxy). */
  path?: string;
}

export interface BalanceStreamStats {
  applied: number;
  stale: number;
  malformed: number;
}

/** `FETCH_ORDER_UPDATES` → OrderFeed.spotOrder(…, Source.Stream). */
export function spotOrderStream(o: PrivateStreamOptions, feed: OrderFeed): SocketStream {
  const sub = { event: "subscribe", apikey: o.apiKey };
  return new SocketStream({
    name: "spot.orders",
    baseUrl: o.baseUrl,
    path: o.path ?? SPOT_ORDER_STREAM.path,
    namespace: SPOT_ORDER_STREAM.namespace,
    subscriptions: [[SPOT_ORDER_STREAM.event, sub]],
    sinks: {
      [SPOT_ORDER_STREAM.event]: (p) => feed.spotOrder(p, Source.Stream) !== undefined,
    },
    listener: o.listener,
    staleMs: o.staleMs,
    backoff: o.backoff,
    connectTimeoutMs: o.connectTimeoutMs,
  });
}

/** `FETCH_BALANCE_UPDATES` → BalanceBook.applySnapshot (stale snapshots ignored by the book). */
export function spotBalanceStream(
  o: PrivateStreamOptions,
  book: BalanceBook,
  stats: BalanceStreamStats = { applied: 0, stale: 0, malformed: 0 },
  onApplied?: (book: BalanceBook) => void,
): SocketStream {
  const sub = { event: "subscribe", apikey: o.apiKey };
  const sink = (p: unknown): boolean => {
    if (!isSpotBalanceUpdate(p)) {
      stats.malformed++;
      return false;
    }
    let ok: boolean;
    try {
      ok = book.applySnapshot(p);
    } catch {
      // A value the decimal parser refuses: the book parses every row first, so nothing changed.
      stats.malformed++;
      return false;
    }
    if (ok) {
      stats.applied++;
      onApplied?.(book);
    } else stats.stale++;
    return true;
  };
  return new SocketStream({
    name: "spot.balances",
    baseUrl: o.baseUrl,
    path: o.path ?? SPOT_BALANCE_STREAM.path,
    namespace: SPOT_BALANCE_STREAM.namespace,
    subscriptions: [[SPOT_BALANCE_STREAM.event, sub]],
    sinks: { [SPOT_BALANCE_STREAM.event]: sink },
    listener: o.listener,
    staleMs: o.staleMs,
    backoff: o.backoff,
    connectTimeoutMs: o.connectTimeoutMs,
  });
}
