/**
 * How an HFT order is cancelled: [assumed, Bybit-v5 style] `POST /v5/order/cancel` (the path is the
 * catalogue's `hft.cancelOrder`, overridable) with `{category, symbol, orderId | orderLinkId}`, the
 * body validated and built by concatenation, signed from the pre-signer's ring. The answer carries
 * ids only; the final Cancelled comes from the stream, a poll or a query.
 *
 * The engine's cancel: CancelPath → VenueRequest (src/engine/venueRequest.ts: journal, send, answer)
 * → HftSurface.prepareCancel → prepareHftCancel here → RestClient.prepareBody (sign) → sendTo.
 */
import type { EndpointId } from "../../rest/catalogue.js";
import type { PreparedRequest, RestClient } from "../../rest/client.js";
import { clientIdText, isOrderId, refuse } from "../orderFields.js";
import { checkCategorySymbol } from "./fields.js";

export interface HftCancelParams {
  category: string;
  symbol: string;
  orderId?: string;
  orderLinkId?: string;
}

/** Validates and builds the cancel body: exactly one of orderId / orderLinkId. */
export function hftCancelBody(p: HftCancelParams): string {
  const ep: EndpointId = "hft.cancelOrder";
  checkCategorySymbol(ep, p.category, p.symbol);
  if ((p.orderId === undefined) === (p.orderLinkId === undefined))
    refuse(ep, "orderId", "give exactly one of orderId, orderLinkId");
  const s = `{"category":"${p.category}","symbol":"${p.symbol}"`;
  if (p.orderId !== undefined) {
    if (!isOrderId(p.orderId)) refuse(ep, "orderId", "must be an order id");
    return `${s},"orderId":"${p.orderId}"}`;
  }
  return `${s},"orderLinkId":"${clientIdText(ep, "orderLinkId", p.orderLinkId)}"}`;
}

/** The signed cancel, ready for the wire. */
export function prepareHftCancel(rest: RestClient, p: HftCancelParams): PreparedRequest {
  return rest.prepareBody("hft.cancelOrder", hftCancelBody(p));
}
