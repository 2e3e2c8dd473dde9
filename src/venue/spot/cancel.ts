/**
 * How a Spot order is cancelled: `DELETE /trade/api/v2/order` with `{"order_id"}` in the body, signed
 * from the pre-signer's ring. The venue reads a DELETE's body, so the connection is kept after it
 * (`HttpOptions.deleteBodyKeepAlive`). [assumed] The answer is the order record (`{data}`).
 */
import type { PreparedRequest, RestClient } from "../../rest/client.js";
import { isOrderId, refuse } from "../orderFields.js";

/** Validates and builds the DELETE /trade/api/v2/order body. */
export function spotCancelBody(orderId: string): string {
  if (!isOrderId(orderId)) refuse("spot.cancelOrder", "order_id", "must be an order id");
  return `{"order_id":"${orderId}"}`;
}

/** The signed cancel of the order with this venue id, ready for the wire. */
export function prepareSpotCancel(rest: RestClient, orderId: string): PreparedRequest {
  return rest.prepareBody("spot.cancelOrder", spotCancelBody(orderId));
}
