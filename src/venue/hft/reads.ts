/**
 * What the gateway reads from HFT (v5): the realtime order list (one order by id or `orderLinkId`, or
 * the open orders page by page), the executions, the instruments, the positions, the server time.
 * Each is one signed GET through the REST client's generic `call`; empty filters are left out.
 */
import type { RestClient } from "../../rest/client.js";
import { ResponseShapeError } from "../../rest/errors.js";
import type { V5Execution, V5Instrument, V5List, V5OrderRecord, V5Position } from "../../rest/wire.js";

export interface HftOrderFilter {
  category: string;
  symbol?: string;
  orderId?: string;
  orderLinkId?: string;
  cursor?: string;
}

export interface HftExecutionFilter extends HftOrderFilter {
  limit?: number;
}

/** GET /v5/order/realtime. */
export async function hftRealtime(rest: RestClient, f: HftOrderFilter): Promise<V5List<V5OrderRecord>> {
  return rest.call("hft.realtime", v5Query(f, ["category", "symbol", "orderId", "orderLinkId", "cursor"]));
}

/** GET /v5/execution/list. */
export async function hftExecutions(rest: RestClient, f: HftExecutionFilter): Promise<V5List<V5Execution>> {
  return rest.call(
    "hft.executions",
    v5Query(f, ["category", "symbol", "orderId", "orderLinkId", "cursor", "limit"]),
  );
}

/** GET /v5/market/instruments-info. */
export async function hftInstrumentsInfo(
  rest: RestClient,
  f: { category: string; symbol?: string },
): Promise<V5List<V5Instrument>> {
  return rest.call("hft.instruments", v5Query(f, ["category", "symbol"]));
}

/** GET /v5/position/list. */
export async function hftPositions(
  rest: RestClient,
  f: { category: string; symbol?: string },
): Promise<V5List<V5Position>> {
  return rest.call("hft.positions", v5Query(f, ["category", "symbol"]));
}

/** Server time in ms from GET /v5/market/time: `result.timeNano`/`timeSecond` [assumed], else envelope `time`. */
export async function hftTime(rest: RestClient): Promise<number> {
  const r = await rest.call<{ timeSecond?: string; timeNano?: string; time?: number }>("hft.marketTime");
  if (r?.timeNano !== undefined) return Math.floor(Number(r.timeNano) / 1e6);
  if (r?.timeSecond !== undefined) return Number(r.timeSecond) * 1000;
  if (typeof r?.time === "number") return r.time;
  throw new ResponseShapeError("market time: no time field", "hft.marketTime", 200);
}

function v5Query<T extends object>(f: T, keys: readonly string[]): [string, string][] {
  const q: [string, string][] = [];
  const rec = f as Record<string, unknown>;
  for (const k of keys) {
    const v = rec[k];
    if (v !== undefined && v !== "") q.push([k, String(v)]);
  }
  return q;
}
