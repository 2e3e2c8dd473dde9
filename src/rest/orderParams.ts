/**
 * Order parameters, validated once at the REST boundary and turned into the exact JSON body by string
 * concatenation (every value is checked to be JSON-safe first, so no escaping is needed). Invalid
 * input throws InvalidRequestError and nothing is sent.
 */
import type { OrderType, PositionIdx, Side, TimeInForce } from "../domain/types.js";
import { type Dec, formatDec, isMultipleOf, tryParseDec } from "../util/decimal.js";
import type { EndpointId } from "./catalogue.js";
import { InvalidRequestError } from "./errors.js";

/** Price and quantity grid of one instrument, parsed once. */
export interface OrderGrid {
  readonly tickSize: Dec;
  readonly qtyStep: Dec;
}

export function makeGrid(tickSize: string, qtyStep: string): OrderGrid {
  const t = tryParseDec(tickSize);
  const q = tryParseDec(qtyStep);
  if (t === undefined || t.m <= 0n)
    throw new InvalidRequestError(`tickSize must be a positive decimal`, undefined, "tickSize");
  if (q === undefined || q.m <= 0n)
    throw new InvalidRequestError(`qtyStep must be a positive decimal`, undefined, "qtyStep");
  return { tickSize: t, qtyStep: q };
}

export interface SpotCreateParams {
  /** `BASE/QUOTE`, e.g. `BTC/INR`. */
  symbol: string;
  side: Side;
  price: string;
  quantity: string;
  /** `coinswitchx` | `c2c1` | `c2c2` (case-insensitive). */
  exchange: string;
  clientOrderId?: string;
  /** Order time-to-live in seconds (exchange default 90). */
  expirySeconds?: number;
}

export interface HftCreateParams {
  /** `linear` | `option`. */
  category: string;
  /** `BTCUSDT`. */
  symbol: string;
  side: Side;
  orderType: OrderType;
  qty: string;
  /** Required for limit orders; ignored (not sent) for market orders. */
  price?: string;
  positionIdx: PositionIdx;
  timeInForce?: TimeInForce;
  orderLinkId?: string;
}

export const SPOT_EXCHANGES = ["coinswitchx", "c2c1", "c2c2"] as const;
export const HFT_CATEGORIES = ["linear", "option"] as const;
const SIDES = ["buy", "sell"];
const TIFS = ["GTC", "IOC", "FOK"];

const SPOT_SYMBOL = /^[A-Za-z0-9]{1,20}\/[A-Za-z0-9]{1,20}$/;
const HFT_SYMBOL = /^[A-Za-z0-9]{2,40}$/;
// Printable ASCII without `"` and `\`: JSON-safe as-is, and at most 36 characters (exchange limit).
const CLIENT_ID = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,36}$/;
const ORDER_ID = /^[A-Za-z0-9_\-:.]{1,64}$/;

function bad(endpoint: EndpointId, field: string, why: string): never {
  throw new InvalidRequestError(`${field}: ${why}`, endpoint, field);
}

/** A positive decimal on the grid, in canonical text (valid as both a JSON number and a string). */
function gridValue(endpoint: EndpointId, field: string, text: unknown, step: Dec, stepName: string): string {
  if (typeof text !== "string") bad(endpoint, field, "must be a decimal string");
  const d = tryParseDec(text);
  if (d === undefined) bad(endpoint, field, "must be a plain decimal number");
  if (d.m <= 0n) bad(endpoint, field, "must be positive");
  if (!isMultipleOf(d, step)) bad(endpoint, field, `must be a multiple of ${stepName} ${formatDec(step)}`);
  return formatDec(d);
}

function clientId(endpoint: EndpointId, field: string, v: unknown): string {
  if (typeof v !== "string" || !CLIENT_ID.test(v)) {
    bad(endpoint, field, "must be 1-36 printable ASCII characters without quotes or backslashes");
  }
  return v;
}

/** Validates and builds the POST /trade/api/v2/order body. */
export function spotCreateBody(p: SpotCreateParams, grid: OrderGrid): string {
  const ep: EndpointId = "spot.createOrder";
  if (typeof p.symbol !== "string" || !SPOT_SYMBOL.test(p.symbol))
    bad(ep, "symbol", "must look like BASE/QUOTE");
  if (!SIDES.includes(p.side)) bad(ep, "side", "must be buy or sell");
  const exchange = typeof p.exchange === "string" ? p.exchange.toLowerCase() : "";
  if (!(SPOT_EXCHANGES as readonly string[]).includes(exchange))
    bad(ep, "exchange", `must be one of ${SPOT_EXCHANGES.join(", ")}`);
  const price = gridValue(ep, "price", p.price, grid.tickSize, "tickSize");
  const qty = gridValue(ep, "quantity", p.quantity, grid.qtyStep, "qtyStep");
  let s = `{"side":"${p.side}","symbol":"${p.symbol}","type":"limit","price":${price},"quantity":${qty},"exchange":"${exchange}"`;
  if (p.clientOrderId !== undefined)
    s += `,"client_order_id":"${clientId(ep, "client_order_id", p.clientOrderId)}"`;
  if (p.expirySeconds !== undefined) {
    if (!Number.isInteger(p.expirySeconds) || p.expirySeconds <= 0)
      bad(ep, "expiry_period", "must be a positive integer (seconds)");
    s += `,"expiry_period":${p.expirySeconds}`;
  }
  return `${s}}`;
}

/** Validates and builds the DELETE /trade/api/v2/order body. */
export function spotCancelBody(orderId: string): string {
  if (typeof orderId !== "string" || !ORDER_ID.test(orderId))
    bad("spot.cancelOrder", "order_id", "must be an order id");
  return `{"order_id":"${orderId}"}`;
}

const V5_SIDE: Record<string, string> = { buy: "Buy", sell: "Sell" };
const V5_TYPE: Record<string, string> = { limit: "Limit", market: "Market" };

/** Validates and builds the POST /v5/order/create body. */
export function hftCreateBody(p: HftCreateParams, grid: OrderGrid): string {
  const ep: EndpointId = "hft.createOrder";
  if (!(HFT_CATEGORIES as readonly string[]).includes(p.category))
    bad(ep, "category", "must be linear or option");
  if (typeof p.symbol !== "string" || !HFT_SYMBOL.test(p.symbol)) bad(ep, "symbol", "must look like BTCUSDT");
  const side = V5_SIDE[p.side];
  if (side === undefined) bad(ep, "side", "must be buy or sell");
  const type = V5_TYPE[p.orderType];
  if (type === undefined) bad(ep, "orderType", "must be limit or market");
  if (p.positionIdx !== 0 && p.positionIdx !== 1 && p.positionIdx !== 2)
    bad(ep, "positionIdx", "must be 0, 1 or 2");
  const qty = gridValue(ep, "qty", p.qty, grid.qtyStep, "qtyStep");
  let s = `{"category":"${p.category}","symbol":"${p.symbol}","side":"${side}","orderType":"${type}","qty":"${qty}"`;
  if (p.orderType === "limit") {
    if (p.price === undefined) bad(ep, "price", "is required for a limit order");
    s += `,"price":"${gridValue(ep, "price", p.price, grid.tickSize, "tickSize")}"`;
  }
  s += `,"positionIdx":${p.positionIdx}`;
  if (p.timeInForce !== undefined) {
    if (!TIFS.includes(p.timeInForce)) bad(ep, "timeInForce", "must be GTC, IOC or FOK");
    s += `,"timeInForce":"${p.timeInForce}"`;
  }
  if (p.orderLinkId !== undefined) s += `,"orderLinkId":"${clientId(ep, "orderLinkId", p.orderLinkId)}"`;
  return `${s}}`;
}

export interface HftCancelParams {
  category: string;
  symbol: string;
  orderId?: string;
  orderLinkId?: string;
}

/** Validates and builds the [assumed] POST /v5/order/cancel body: exactly one of orderId / orderLinkId. */
export function hftCancelBody(p: HftCancelParams): string {
  const ep: EndpointId = "hft.cancelOrder";
  if (!(HFT_CATEGORIES as readonly string[]).includes(p.category))
    bad(ep, "category", "must be linear or option");
  if (typeof p.symbol !== "string" || !HFT_SYMBOL.test(p.symbol)) bad(ep, "symbol", "must look like BTCUSDT");
  if ((p.orderId === undefined) === (p.orderLinkId === undefined))
    bad(ep, "orderId", "give exactly one of orderId, orderLinkId");
  const s = `{"category":"${p.category}","symbol":"${p.symbol}"`;
  if (p.orderId !== undefined) {
    if (!ORDER_ID.test(p.orderId)) bad(ep, "orderId", "must be an order id");
    return `${s},"orderId":"${p.orderId}"}`;
  }
  return `${s},"orderLinkId":"${clientId(ep, "orderLinkId", p.orderLinkId)}"}`;
}
