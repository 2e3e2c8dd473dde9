/**
 * Every REST endpoint the gateway knows, as data: method, path, surface, auth, rate-limit class
 * (names as in docs/venue-api.md §9), with the signed prefix and request-line head computed once.
 * Endpoints not in the published docs are flagged `assumed`; their paths can be overridden.
 */
import type { Surface } from "../domain/types.js";

export type HttpMethod = "GET" | "POST" | "DELETE" | "PUT";

/** Rate-limit classes mirroring the exchange's published buckets (§9). */
export type RateClass =
  | "spot.create"
  | "spot.listOrders"
  | "spot.portfolio"
  | "spot.tds"
  | "spot.other"
  | "hft.all"
  // Futures: each endpoint has its own bucket of the size named here (§9, per 60 s).
  | "futures.place"
  | "futures.cancel"
  | "futures.account"
  | "futures.margin"
  | "futures.market"
  | "futures.klines";

/** Every endpoint id: computed from the rows below, so the table is the only list. */
export type EndpointId = (typeof ROWS)[number]["id"];

/** One row as written in the table (the id is any string; `EndpointId` is the union of them). */
interface RowSpec {
  readonly id: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly surface: Surface;
  readonly signed: boolean;
  readonly rate: RateClass;
  /** Not in the published reference; path is our assumption and configurable. */
  readonly assumed?: boolean;
  /** Response is a bare object, not `{data}` / the v5 envelope. */
  readonly bare?: boolean;
  /** The REST client's keep-warm GET for this endpoint's origin (the first such row per origin). */
  readonly warm?: boolean;
  /** The answer is the envelope's `result` with the envelope's `time` beside it. */
  readonly envelopeTime?: boolean;
}

export interface EndpointRow extends RowSpec {
  readonly id: EndpointId;
}

export interface Endpoint extends EndpointRow {
  /** METHOD + path: the signed message's prefix when there is no query. */
  readonly signedPrefix: string;
  /** `METHOD path` for building a request line (raw HTTP). */
  readonly requestLineHead: string;
  /** Index into the pre-signer's prefixes, or -1 when not pre-signed. */
  readonly presignId: number;
  /** Safe to pipeline / retry blindly. */
  readonly idempotent: boolean;
}

// [assumed] the Spot cancel shares the order bucket with create, as third-party limiters assume (§4.3).
const ROWS = [
  {
    id: "spot.time",
    method: "GET",
    path: "/trade/api/v2/time",
    surface: "spot",
    signed: false,
    rate: "spot.other",
    warm: true,
  },
  {
    id: "spot.ping",
    method: "GET",
    path: "/trade/api/v2/ping",
    surface: "spot",
    signed: true,
    rate: "spot.other",
  },
  {
    id: "spot.validateKeys",
    method: "GET",
    path: "/trade/api/v2/validate/keys",
    surface: "spot",
    signed: true,
    rate: "spot.other",
  },
  {
    id: "spot.createOrder",
    method: "POST",
    path: "/trade/api/v2/order",
    surface: "spot",
    signed: true,
    rate: "spot.create",
  },
  {
    id: "spot.cancelOrder",
    method: "DELETE",
    path: "/trade/api/v2/order",
    surface: "spot",
    signed: true,
    rate: "spot.create",
  },
  {
    id: "spot.getOrder",
    method: "GET",
    path: "/trade/api/v2/order",
    surface: "spot",
    signed: true,
    rate: "spot.other",
  },
  {
    id: "spot.listOrders",
    method: "GET",
    path: "/trade/api/v2/orders",
    surface: "spot",
    signed: true,
    rate: "spot.listOrders",
  },
  {
    id: "spot.portfolio",
    method: "GET",
    path: "/trade/api/v2/user/portfolio",
    surface: "spot",
    signed: true,
    rate: "spot.portfolio",
  },
  {
    id: "spot.exchangePrecision",
    method: "POST",
    path: "/trade/api/v2/exchangePrecision",
    surface: "spot",
    signed: true,
    rate: "spot.other",
  },
  {
    id: "spot.tradeInfo",
    method: "GET",
    path: "/trade/api/v2/tradeInfo",
    surface: "spot",
    signed: true,
    rate: "spot.other",
  },
  {
    id: "spot.tradingFee",
    method: "GET",
    path: "/trade/api/v2/tradingFee",
    surface: "spot",
    signed: true,
    rate: "spot.other",
  },
  {
    id: "spot.tds",
    method: "GET",
    path: "/trade/api/v2/tds",
    surface: "spot",
    signed: true,
    rate: "spot.tds",
  },
  {
    id: "spot.coins",
    method: "GET",
    path: "/trade/api/v2/coins",
    surface: "spot",
    signed: true,
    rate: "spot.other",
  },
  {
    id: "spot.depth",
    method: "GET",
    path: "/trade/api/v2/depth",
    surface: "spot",
    signed: true,
    rate: "spot.other",
  },
  {
    id: "spot.trades",
    method: "GET",
    path: "/trade/api/v2/trades",
    surface: "spot",
    signed: true,
    rate: "spot.other",
  },
  {
    id: "spot.ticker24h",
    method: "GET",
    path: "/trade/api/v2/24hr/ticker",
    surface: "spot",
    signed: true,
    rate: "spot.other",
  },
  {
    id: "spot.tickerAll24h",
    method: "GET",
    path: "/trade/api/v2/24hr/all-pairs/ticker",
    surface: "spot",
    signed: true,
    rate: "spot.other",
  },
  {
    id: "spot.candles",
    method: "GET",
    path: "/trade/api/v2/candles",
    surface: "spot",
    signed: true,
    rate: "spot.other",
  },
  // HFT: market-data endpoints are signed like the recipes do it [assumed].
  {
    id: "hft.marketTime",
    method: "GET",
    path: "/v5/market/time",
    surface: "hft",
    signed: true,
    rate: "hft.all",
    warm: true,
    envelopeTime: true,
  },
  {
    id: "hft.instruments",
    method: "GET",
    path: "/v5/market/instruments-info",
    surface: "hft",
    signed: true,
    rate: "hft.all",
  },
  {
    id: "hft.tickers",
    method: "GET",
    path: "/v5/market/tickers",
    surface: "hft",
    signed: true,
    rate: "hft.all",
  },
  {
    id: "hft.orderbook",
    method: "GET",
    path: "/v5/market/orderbook",
    surface: "hft",
    signed: true,
    rate: "hft.all",
  },
  {
    id: "hft.createOrder",
    method: "POST",
    path: "/v5/order/create",
    surface: "hft",
    signed: true,
    rate: "hft.all",
  },
  {
    id: "hft.cancelOrder",
    method: "POST",
    path: "/v5/order/cancel",
    surface: "hft",
    signed: true,
    rate: "hft.all",
    assumed: true,
  },
  {
    id: "hft.amendOrder",
    method: "POST",
    path: "/v5/order/amend",
    surface: "hft",
    signed: true,
    rate: "hft.all",
    assumed: true,
  },
  {
    id: "hft.realtime",
    method: "GET",
    path: "/v5/order/realtime",
    surface: "hft",
    signed: true,
    rate: "hft.all",
  },
  {
    id: "hft.executions",
    method: "GET",
    path: "/v5/execution/list",
    surface: "hft",
    signed: true,
    rate: "hft.all",
  },
  {
    id: "hft.positions",
    method: "GET",
    path: "/v5/position/list",
    surface: "hft",
    signed: true,
    rate: "hft.all",
  },
  {
    id: "hft.setLeverage",
    method: "POST",
    path: "/v5/position/set-leverage",
    surface: "hft",
    signed: true,
    rate: "hft.all",
  },
  {
    id: "hft.switchMode",
    method: "POST",
    path: "/v5/position/switch-mode",
    surface: "hft",
    signed: true,
    rate: "hft.all",
  },
  {
    id: "hft.walletBalance",
    method: "GET",
    path: "/v5/account/wallet-balance",
    surface: "hft",
    signed: true,
    rate: "hft.all",
    assumed: true,
  },
  {
    id: "hft.fundsTransfer",
    method: "POST",
    path: "/dma/api/v1/funds/transfer",
    surface: "hft",
    signed: true,
    rate: "hft.all",
  },
  {
    id: "hft.socketSignature",
    method: "GET",
    path: "/dma/api/v1/socket/signature",
    surface: "hft",
    signed: true,
    rate: "hft.all",
    bare: true,
  },
  // Futures v2 (§5): place order and get order by client id are in the docs; the other paths are the
  // ones third-party clients use [assumed]. The cancel mirrors Spot's DELETE on the order path [assumed].
  {
    id: "futures.createOrder",
    method: "POST",
    path: "/trade/api/v2/futures/order",
    surface: "futures",
    signed: true,
    rate: "futures.place",
  },
  {
    id: "futures.cancelOrder",
    method: "DELETE",
    path: "/trade/api/v2/futures/order",
    surface: "futures",
    signed: true,
    rate: "futures.cancel",
    assumed: true,
  },
  {
    id: "futures.cancelAll",
    method: "POST",
    path: "/trade/api/v2/futures/cancel_all",
    surface: "futures",
    signed: true,
    rate: "futures.cancel",
    assumed: true,
  },
  {
    id: "futures.getOrder",
    method: "GET",
    path: "/trade/api/v2/futures/order",
    surface: "futures",
    signed: true,
    rate: "futures.account",
  },
  {
    id: "futures.openOrders",
    method: "GET",
    path: "/trade/api/v2/futures/open_orders",
    surface: "futures",
    signed: true,
    rate: "futures.account",
    assumed: true,
  },
  {
    id: "futures.closedOrders",
    method: "GET",
    path: "/trade/api/v2/futures/closed_orders",
    surface: "futures",
    signed: true,
    rate: "futures.account",
    assumed: true,
  },
  {
    id: "futures.positions",
    method: "GET",
    path: "/trade/api/v2/futures/positions",
    surface: "futures",
    signed: true,
    rate: "futures.account",
    assumed: true,
  },
  {
    id: "futures.leverage",
    method: "GET",
    path: "/trade/api/v2/futures/leverage",
    surface: "futures",
    signed: true,
    rate: "futures.account",
    assumed: true,
  },
  {
    id: "futures.updateLeverage",
    method: "POST",
    path: "/trade/api/v2/futures/update_leverage",
    surface: "futures",
    signed: true,
    rate: "futures.margin",
    assumed: true,
  },
  {
    id: "futures.addMargin",
    method: "POST",
    path: "/trade/api/v2/futures/add_margin",
    surface: "futures",
    signed: true,
    rate: "futures.margin",
    assumed: true,
  },
  {
    id: "futures.walletBalance",
    method: "GET",
    path: "/trade/api/v2/futures/wallet_balance",
    surface: "futures",
    signed: true,
    rate: "futures.account",
    assumed: true,
  },
  {
    id: "futures.transactions",
    method: "GET",
    path: "/trade/api/v2/futures/transactions",
    surface: "futures",
    signed: true,
    rate: "futures.account",
    assumed: true,
  },
  {
    id: "futures.instruments",
    method: "GET",
    path: "/trade/api/v2/futures/instrument_info",
    surface: "futures",
    signed: true,
    rate: "futures.market",
    assumed: true,
  },
  {
    id: "futures.depth",
    method: "GET",
    path: "/trade/api/v2/futures/depth",
    surface: "futures",
    signed: true,
    rate: "futures.market",
    assumed: true,
  },
  {
    id: "futures.ticker",
    method: "GET",
    path: "/trade/api/v2/futures/ticker",
    surface: "futures",
    signed: true,
    rate: "futures.market",
    assumed: true,
  },
  {
    id: "futures.tickerAll",
    method: "GET",
    path: "/trade/api/v2/futures/all_pairs_ticker",
    surface: "futures",
    signed: true,
    rate: "futures.market",
    assumed: true,
  },
  {
    id: "futures.klines",
    method: "GET",
    path: "/trade/api/v2/futures/klines",
    surface: "futures",
    signed: true,
    rate: "futures.klines",
    assumed: true,
  },
  {
    id: "futures.trades",
    method: "GET",
    path: "/trade/api/v2/futures/trades",
    surface: "futures",
    signed: true,
    rate: "futures.market",
    assumed: true,
  },
] as const satisfies readonly RowSpec[];

export type Catalogue = Readonly<Record<EndpointId, Endpoint>>;

/**
 * Builds the catalogue once. `pathOverrides` replaces assumed paths (e.g. a different v5 cancel path);
 * `presignPrefixes` is the pre-signer's prefix list, so hot endpoints learn their ring index.
 */
export function buildCatalogue(
  presignPrefixes: readonly string[] = [],
  pathOverrides: Partial<Record<EndpointId, string>> = {},
): Catalogue {
  const out = {} as Record<EndpointId, Endpoint>;
  for (const row of ROWS) {
    const path = pathOverrides[row.id] ?? row.path;
    const signedPrefix = row.method + path;
    out[row.id] = {
      ...row,
      path,
      signedPrefix,
      requestLineHead: `${row.method} ${path}`,
      presignId: row.signed ? presignPrefixes.indexOf(signedPrefix) : -1,
      idempotent: row.method === "GET",
    };
  }
  return out;
}

export const ENDPOINT_ROWS: readonly EndpointRow[] = ROWS;
