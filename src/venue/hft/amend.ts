/**
 * How an HFT order is amended in place: [assumed, Bybit-v5 style] `POST /v5/order/amend` (the path is
 * `venue.hftAmendPath`) with `{category, symbol, orderId | orderLinkId, qty?, price?}`: `qty` is the
 * new total, each value only when it changes. Signed inline (not pre-signed); it spends the create's
 * rate class. The texts come from the instrument's grid (the engine formats them), so no field is
 * checked again here.
 */
import type { PreparedRequest, RestClient } from "../../rest/client.js";

export interface HftAmendParams {
  category: string;
  symbol: string;
  /** The order as the body names it (venue.hftAmendBy [assumed]: `orderId` by default). */
  by: "orderId" | "orderLinkId";
  orderId: string;
  orderLinkId: string;
  qty: string | undefined;
  price: string | undefined;
}

/** The amend body, in the venue's field order. */
export function hftAmendBody(p: HftAmendParams): string {
  const body: Record<string, string> = { category: p.category, symbol: p.symbol };
  if (p.by === "orderId") body.orderId = p.orderId;
  else body.orderLinkId = p.orderLinkId;
  if (p.qty !== undefined) body.qty = p.qty;
  if (p.price !== undefined) body.price = p.price;
  return JSON.stringify(body);
}

/** The signed amend, ready for the wire. */
export function prepareHftAmend(rest: RestClient, p: HftAmendParams): PreparedRequest {
  return rest.prepare("hft.amendOrder", [], hftAmendBody(p));
}
