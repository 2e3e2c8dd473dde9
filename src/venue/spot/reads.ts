/**
 * What the gateway reads from Spot v2 (`/trade/api/v2`): one order by id or client id, the order
 * lists, the portfolio, the trade info (instruments), the server time. Each is one signed GET through
 * the REST client's generic `call`; the answers are the wire records of src/rest/wire.ts.
 */
import type { RestClient } from "../../rest/client.js";
import { ResponseShapeError } from "../../rest/errors.js";
import type { SpotOrderList, SpotOrderRecord, SpotPortfolioRow, SpotTradeInfo } from "../../rest/wire.js";
import { type OrderRef, orderRefQuery } from "../orderFields.js";

/** The filters of GET /trade/api/v2/orders. */
export interface SpotOrderFilter {
  open: boolean;
  count?: number;
  fromTime?: number;
  toTime?: number;
  side?: "buy" | "sell";
  symbols?: string[];
  exchanges?: string[];
  type?: string;
  status?: string;
}

/** One order by venue id or client id. */
export async function getSpotOrder(rest: RestClient, by: OrderRef): Promise<SpotOrderRecord> {
  return rest.call("spot.getOrder", [orderRefQuery("spot.getOrder", by)]);
}

export async function listSpotOrders(rest: RestClient, f: SpotOrderFilter): Promise<SpotOrderList> {
  const q: [string, string][] = [["open", f.open ? "true" : "false"]];
  if (f.count !== undefined) q.push(["count", String(f.count)]);
  if (f.fromTime !== undefined) q.push(["from_time", String(f.fromTime)]);
  if (f.toTime !== undefined) q.push(["to_time", String(f.toTime)]);
  if (f.side !== undefined) q.push(["side", f.side]);
  if (f.symbols !== undefined) q.push(["symbols", f.symbols.join(",")]);
  if (f.exchanges !== undefined) q.push(["exchanges", f.exchanges.join(",")]);
  if (f.type !== undefined) q.push(["type", f.type]);
  if (f.status !== undefined) q.push(["status", f.status]);
  return rest.call("spot.listOrders", q);
}

export async function spotPortfolio(rest: RestClient): Promise<SpotPortfolioRow[]> {
  return rest.call("spot.portfolio");
}

export async function spotTradeInfo(
  rest: RestClient,
  f: { exchange?: string; symbol?: string } = {},
): Promise<Record<string, Record<string, SpotTradeInfo>>> {
  const q: [string, string][] = [];
  if (f.exchange !== undefined) q.push(["exchange", f.exchange]);
  if (f.symbol !== undefined) q.push(["symbol", f.symbol]);
  return rest.call("spot.tradeInfo", q);
}

/** Unauthenticated server time in ms (the clock sync's source). */
export async function spotTime(rest: RestClient): Promise<number> {
  const r = await rest.call<{ serverTime?: unknown }>("spot.time");
  if (typeof r?.serverTime !== "number")
    throw new ResponseShapeError("time: no numeric serverTime", "spot.time", 200);
  return r.serverTime;
}
