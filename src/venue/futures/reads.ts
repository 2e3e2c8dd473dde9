/**
 * What the gateway reads from Futures v2: one order by id or client id (the docs' reconciliation
 * query), the open orders, the instruments. Every query carries `exchange=EXCHANGE_2`.
 */
import type { RestClient } from "../../rest/client.js";
import { InvalidRequestError } from "../../rest/errors.js";
import type { FuturesInstrument, FuturesOrderList, FuturesOrderRecord } from "../../rest/wire.js";
import { FUTURES_EXCHANGE } from "./fields.js";

/** One order by venue id or client id. */
export async function getFuturesOrder(
  rest: RestClient,
  by: { orderId: string } | { clientOrderId: string },
): Promise<FuturesOrderRecord> {
  const q: [string, string] =
    "orderId" in by ? ["order_id", by.orderId] : ["client_order_id", by.clientOrderId];
  if (typeof q[1] !== "string" || q[1] === "") {
    throw new InvalidRequestError(`${q[0]}: must be a non-empty string`, "futures.getOrder", q[0]);
  }
  return rest.call("futures.getOrder", [["exchange", FUTURES_EXCHANGE], q]);
}

export async function listFuturesOpen(
  rest: RestClient,
  f: { symbol?: string; limit?: number } = {},
): Promise<FuturesOrderList> {
  const q: [string, string][] = [["exchange", FUTURES_EXCHANGE]];
  if (f.symbol !== undefined) q.push(["symbol", f.symbol]);
  if (f.limit !== undefined) q.push(["limit", String(f.limit)]);
  return rest.call("futures.openOrders", q);
}

export async function futuresInstrumentInfo(rest: RestClient): Promise<FuturesInstrument[]> {
  return rest.call("futures.instruments", [["exchange", FUTURES_EXCHANGE]]);
}
