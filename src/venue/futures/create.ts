/**
 * How a Futures order is created: `POST /trade/api/v2/futures/order` with `exchange: EXCHANGE_2`, its
 * body validated once and built by concatenation. Price and quantity go out as JSON numbers in
 * canonical decimal text (the docs type them as numbers; answers carry strings). Signed inline (20
 * creates a minute need no pre-signing). [assumed] The answer is the order record, like Spot's.
 */
import type { OrderType, Side, TimeInForce } from "../../domain/types.js";
import type { EndpointId } from "../../rest/catalogue.js";
import type { PreparedRequest, RestClient } from "../../rest/client.js";
import { clientIdText, gridValue, type OrderGrid, refuse, SIDES, TIFS } from "../orderFields.js";
import { FUTURES_EXCHANGE } from "./fields.js";

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

const FUTURES_SYMBOL = /^[A-Za-z0-9]{2,30}USDT$/i;
const FUTURES_TYPE: Record<string, string> = { limit: "LIMIT", market: "MARKET" };

/** Validates and builds the POST /trade/api/v2/futures/order body. */
export function futuresCreateBody(p: FuturesCreateParams, grid: OrderGrid): string {
  const ep: EndpointId = "futures.createOrder";
  if (typeof p.symbol !== "string" || !FUTURES_SYMBOL.test(p.symbol))
    refuse(ep, "symbol", "must look like BTCUSDT");
  if (!SIDES.includes(p.side)) refuse(ep, "side", "must be buy or sell");
  const type = FUTURES_TYPE[p.orderType];
  if (type === undefined) refuse(ep, "order_type", "must be limit or market");
  const qty = gridValue(ep, "quantity", p.quantity, grid, false);
  let s = `{"exchange":"${FUTURES_EXCHANGE}","symbol":"${p.symbol.toUpperCase()}","side":"${p.side === "buy" ? "BUY" : "SELL"}","order_type":"${type}","quantity":${qty}`;
  if (p.orderType === "limit") {
    if (p.price === undefined) refuse(ep, "price", "is required for a limit order");
    s += `,"price":${gridValue(ep, "price", p.price, grid, true)}`;
  }
  if (p.timeInForce !== undefined) {
    if (!TIFS.includes(p.timeInForce)) refuse(ep, "time_in_force", "must be GTC, IOC or FOK");
    s += `,"time_in_force":"${p.timeInForce}"`;
  }
  if (p.reduceOnly !== undefined) {
    if (typeof p.reduceOnly !== "boolean") refuse(ep, "reduce_only", "must be a boolean");
    s += `,"reduce_only":${p.reduceOnly}`;
  }
  if (p.clientOrderId !== undefined)
    s += `,"client_order_id":"${clientIdText(ep, "client_order_id", p.clientOrderId)}"`;
  return `${s}}`;
}

/** The signed create, ready for the wire (throws InvalidRequestError, or the clock guard's error). */
export function prepareFuturesCreate(
  rest: RestClient,
  p: FuturesCreateParams,
  grid: OrderGrid,
): PreparedRequest {
  return rest.prepareBody("futures.createOrder", futuresCreateBody(p, grid));
}
