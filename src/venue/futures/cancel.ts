/**
 * How a Futures order is cancelled: [assumed, mirrors Spot] `DELETE /trade/api/v2/futures/order` with
 * `{exchange, order_id}` in the body (path `venue.futuresCancelPath`). [assumed] The answer is the
 * order record.
 */
import type { PreparedRequest, RestClient } from "../../rest/client.js";
import { isOrderId, refuse } from "../orderFields.js";
import { FUTURES_EXCHANGE } from "./fields.js";

/** Validates and builds the cancel body. */
export function futuresCancelBody(orderId: string): string {
  if (!isOrderId(orderId)) refuse("futures.cancelOrder", "order_id", "must be an order id");
  return `{"exchange":"${FUTURES_EXCHANGE}","order_id":"${orderId}"}`;
}

/** The signed cancel of the order with this venue id, ready for the wire. */
export function prepareFuturesCancel(rest: RestClient, orderId: string): PreparedRequest {
  return rest.prepareBody("futures.cancelOrder", futuresCancelBody(orderId));
}
