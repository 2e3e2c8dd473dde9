/**
 * Order parameters, validated once at the REST boundary and turned into the exact JSON body by string
 * concatenation (every value is checked to be JSON-safe first, so no escaping is needed). Invalid
 * input throws InvalidRequestError and nothing is sent.
 */
import type { OrderType, PositionIdx, Side, TimeInForce } from "../domain/types.js";
import type { EndpointId } from "../rest/catalogue.js";
import { InvalidRequestError } from "../rest/errors.js";
import { type Dec, formatDec, isMultipleOf, tryParseDec } from "../util/decimal.js";

/** Price and quantity grid of one instrument, parsed once. */
export interface OrderGrid {
  readonly tickSize: Dec;
  readonly qtyStep: Dec;
  /** The steps as (JS-number mantissa, scale) for the allocation-free fast check. */
  readonly tickM: number;
  readonly tickS: number;
  readonly qtyM: number;
  readonly qtyS: number;
}

export function makeGrid(tickSize: string, qtyStep: string): OrderGrid {
  const t = tryParseDec(tickSize);
  const q = tryParseDec(qtyStep);
  if (t === undefined || t.m <= 0n)
    throw new InvalidRequestError(`tickSize must be a positive decimal`, undefined, "tickSize");
  if (q === undefined || q.m <= 0n)
    throw new InvalidRequestError(`qtyStep must be a positive decimal`, undefined, "qtyStep");
  return { tickSize: t, qtyStep: q, tickM: Number(t.m), tickS: t.s, qtyM: Number(q.m), qtyS: q.s };
}

/**
 * Fast grid check on the text itself (no regex, no BigInt): returns the canonical decimal text when
 * `text` is a plain positive decimal that is a multiple of `stepM * 10^-stepS`, "" when it is
 * definitely not, and undefined when it cannot decide cheaply (too many digits): use the exact path.
 */
function fastGrid(text: string, stepM: number, stepS: number): string | undefined {
  const n = text.length;
  if (n === 0 || n > 30 || stepM > 2 ** 40) return undefined;
  let m = 0;
  let digits = 0;
  let dot = -1;
  let lastNonZeroFrac = -1;
  let firstSig = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (dot !== -1 || i === 0 || i === n - 1) return "";
      dot = i;
      continue;
    }
    if (c < 48 || c > 57) return "";
    if (dot !== -1) {
      if (c !== 48) lastNonZeroFrac = i;
      // Beyond the step's scale only zeros may follow.
      if (i - dot > stepS) {
        if (c !== 48) return "";
        continue;
      }
    }
    if (firstSig === -1 && c !== 48) firstSig = i;
    m = m * 10 + (c - 48);
    if (firstSig !== -1 && ++digits > 15) return undefined;
  }
  const fracLen = dot === -1 ? 0 : Math.min(n - dot - 1, stepS);
  for (let k = fracLen; k < stepS; k++) m *= 10;
  if (m > Number.MAX_SAFE_INTEGER) return undefined;
  if (m === 0 || m % stepM !== 0) return "";
  // Canonical already (no leading zero before a digit, no trailing fractional zero)? Return as is.
  const leadingZero = text.charCodeAt(0) === 48 && n > 1 && text.charCodeAt(1) !== 46;
  const trailing = dot !== -1 && lastNonZeroFrac !== n - 1;
  if (!leadingZero && !trailing) return text;
  return undefined;
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
// Linear `BTCUSDT`; options `BTC-26DEC26-70000-C` [assumed Bybit-style].
const HFT_SYMBOL = /^[A-Za-z0-9][A-Za-z0-9-]{1,39}$/;
// Printable ASCII without `"` and `\`: JSON-safe as-is, and at most 36 characters (exchange limit).
const CLIENT_ID = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,36}$/;
const ORDER_ID = /^[A-Za-z0-9_\-:.]{1,64}$/;

function bad(endpoint: EndpointId, field: string, why: string): never {
  throw new InvalidRequestError(`${field}: ${why}`, endpoint, field);
}

/** A positive decimal on the grid, in canonical text (valid as both a JSON number and a string). */
function gridValue(
  endpoint: EndpointId,
  field: string,
  text: unknown,
  grid: OrderGrid,
  tick: boolean,
): string {
  const step = tick ? grid.tickSize : grid.qtyStep;
  const stepName = tick ? "tickSize" : "qtyStep";
  if (typeof text !== "string") bad(endpoint, field, "must be a decimal string");
  // Common case decided without allocation; anything else (including every error) takes the exact path.
  const fast = tick ? fastGrid(text, grid.tickM, grid.tickS) : fastGrid(text, grid.qtyM, grid.qtyS);
  if (fast !== undefined && fast !== "") return fast;
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
  const price = gridValue(ep, "price", p.price, grid, true);
  const qty = gridValue(ep, "quantity", p.quantity, grid, false);
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
  const qty = gridValue(ep, "qty", p.qty, grid, false);
  let s = `{"category":"${p.category}","symbol":"${p.symbol}","side":"${side}","orderType":"${type}","qty":"${qty}"`;
  if (p.orderType === "limit") {
    if (p.price === undefined) bad(ep, "price", "is required for a limit order");
    s += `,"price":"${gridValue(ep, "price", p.price, grid, true)}"`;
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

export interface FuturesCreateParams {
  /** `BTCUSDT` (quote always USDT). */
  symbol: string;
  side: Side;
  orderType: OrderType;
  /** Base quantity on the step grid. */
  quantity: string;
  /** Required for limit orders; not sent for market orders. */
  price?: string;
  timeInForce?: TimeInForce;
  reduceOnly?: boolean;
  clientOrderId?: string;
}

/** The only Futures exchange id; sent on every Futures request (§5). */
export const FUTURES_EXCHANGE = "EXCHANGE_2";
const FUTURES_SYMBOL = /^[A-Za-z0-9]{2,30}USDT$/i;
const FUTURES_TYPE: Record<string, string> = { limit: "LIMIT", market: "MARKET" };

/**
 * Validates and builds the POST /trade/api/v2/futures/order body. Price and quantity go out as JSON
 * numbers in canonical decimal text (the docs type them as numbers; answers carry strings).
 */
export function futuresCreateBody(p: FuturesCreateParams, grid: OrderGrid): string {
  const ep: EndpointId = "futures.createOrder";
  if (typeof p.symbol !== "string" || !FUTURES_SYMBOL.test(p.symbol))
    bad(ep, "symbol", "must look like BTCUSDT");
  if (!SIDES.includes(p.side)) bad(ep, "side", "must be buy or sell");
  const type = FUTURES_TYPE[p.orderType];
  if (type === undefined) bad(ep, "order_type", "must be limit or market");
  const qty = gridValue(ep, "quantity", p.quantity, grid, false);
  let s = `{"exchange":"${FUTURES_EXCHANGE}","symbol":"${p.symbol.toUpperCase()}","side":"${p.side === "buy" ? "BUY" : "SELL"}","order_type":"${type}","quantity":${qty}`;
  if (p.orderType === "limit") {
    if (p.price === undefined) bad(ep, "price", "is required for a limit order");
    s += `,"price":${gridValue(ep, "price", p.price, grid, true)}`;
  }
  if (p.timeInForce !== undefined) {
    if (!TIFS.includes(p.timeInForce)) bad(ep, "time_in_force", "must be GTC, IOC or FOK");
    s += `,"time_in_force":"${p.timeInForce}"`;
  }
  if (p.reduceOnly !== undefined) {
    if (typeof p.reduceOnly !== "boolean") bad(ep, "reduce_only", "must be a boolean");
    s += `,"reduce_only":${p.reduceOnly}`;
  }
  if (p.clientOrderId !== undefined)
    s += `,"client_order_id":"${clientId(ep, "client_order_id", p.clientOrderId)}"`;
  return `${s}}`;
}

/** Validates and builds the [assumed] DELETE /trade/api/v2/futures/order body. */
export function futuresCancelBody(orderId: string): string {
  if (typeof orderId !== "string" || !ORDER_ID.test(orderId))
    bad("futures.cancelOrder", "order_id", "must be an order id");
  return `{"exchange":"${FUTURES_EXCHANGE}","order_id":"${orderId}"}`;
}
