/**
 * How an HFT order is created: `POST /v5/order/create`, its body validated once and built by
 * concatenation (quantity and price as strings, v5 enum spellings), signed from the pre-signer's ring.
 * The answer is the v5 ack: ids only (`{orderId, orderLinkId}`).
 */
import type { OrderType, PositionIdx, Side, TimeInForce } from "../../domain/types.js";
import type { EndpointId } from "../../rest/catalogue.js";
import type { PreparedRequest, RestClient } from "../../rest/client.js";
import { clientIdText, gridValue, type OrderGrid, refuse, TIFS } from "../orderFields.js";
import { checkCategorySymbol } from "./fields.js";

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

const V5_SIDE: Record<string, string> = { buy: "Buy", sell: "Sell" };
const V5_TYPE: Record<string, string> = { limit: "Limit", market: "Market" };

/** Validates and builds the POST /v5/order/create body. */
export function hftCreateBody(p: HftCreateParams, grid: OrderGrid): string {
  const ep: EndpointId = "hft.createOrder";
  checkCategorySymbol(ep, p.category, p.symbol);
  const side = V5_SIDE[p.side];
  if (side === undefined) refuse(ep, "side", "must be buy or sell");
  const type = V5_TYPE[p.orderType];
  if (type === undefined) refuse(ep, "orderType", "must be limit or market");
  if (p.positionIdx !== 0 && p.positionIdx !== 1 && p.positionIdx !== 2)
    refuse(ep, "positionIdx", "must be 0, 1 or 2");
  const qty = gridValue(ep, "qty", p.qty, grid, false);
  let s = `{"category":"${p.category}","symbol":"${p.symbol}","side":"${side}","orderType":"${type}","qty":"${qty}"`;
  if (p.orderType === "limit") {
    if (p.price === undefined) refuse(ep, "price", "is required for a limit order");
    s += `,"price":"${gridValue(ep, "price", p.price, grid, true)}"`;
  }
  s += `,"positionIdx":${p.positionIdx}`;
  if (p.timeInForce !== undefined) {
    if (!TIFS.includes(p.timeInForce)) refuse(ep, "timeInForce", "must be GTC, IOC or FOK");
    s += `,"timeInForce":"${p.timeInForce}"`;
  }
  if (p.orderLinkId !== undefined) s += `,"orderLinkId":"${clientIdText(ep, "orderLinkId", p.orderLinkId)}"`;
  return `${s}}`;
}

/** The signed create, ready for the wire (throws InvalidRequestError, or the clock guard's error). */
export function prepareHftCreate(rest: RestClient, p: HftCreateParams, grid: OrderGrid): PreparedRequest {
  return rest.prepareBody("hft.createOrder", hftCreateBody(p, grid));
}
