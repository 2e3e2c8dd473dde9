/**
 * What the gateway reads from Futures v2: one order by id or client id (the docs' reconciliation
 * query), the open orders, the instruments. Every query carries `exchange=EXCHANGE_2`.
 */
import type { RestClient } from "../../rest/client.js";
import type { FuturesInstrument, FuturesOrderList, FuturesOrderRecord } from "../../rest/wire.js";
import { type OrderRef, orderRefQuery } from "../orderFields.js";
import { FUTURES_EXCHANGE } from "./fields.js";

/** One order by venue id or client id. */
export async function getFuturesOrder(rest: RestClient, by: OrderRef): Promise<FuturesOrderRecord> {
  return rest.call("futures.getOrder", [
    ["exchange", FUTURES_EXCHANGE],
    orderRefQuery("futures.getOrder", by),
  ]);
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
