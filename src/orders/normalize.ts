/**
 * The boundary between the exchange's JSON records and the store's integer events: decimal strings
 * (v5) and JSON numbers (Spot) become lots and ticks of the instrument once, here. Bad input raises a
 * typed NormalizeError and produces no event, so nothing in the store changes.
 */
import type { Instrument, Side, TimeInForce } from "../domain/types.js";
import type { FuturesOrderRecord, SpotOrderRecord, V5Execution, V5OrderRecord } from "../rest/wire.js";
import { type Dec, decToNumber, parseDec, stepsOf, tryParseDec } from "../util/decimal.js";
import { LIQUIDITY, newEvent, type OrderEvent, resetEvent, type Source } from "./event.js";
import {
  Ev,
  statusFromFutures,
  statusFromSpot,
  statusFromV5,
  UnknownVenueStatusError,
  VENUE_EVENT_FOR_STATUS,
} from "./status.js";

export class NormalizeError extends Error {
  override readonly name = "NormalizeError";
}

/** Parsed grid of an instrument (cached per Instrument object). */
export interface Grid {
  readonly tick: Dec;
  readonly step: Dec;
  readonly tickNum: number;
  readonly stepNum: number;
}

const grids = new WeakMap<Instrument, Grid>();
export function gridOf(inst: Pick<Instrument, "tickSize" | "qtyStep">): Grid {
  let g = grids.get(inst as Instrument);
  if (g === undefined) {
    const tick = parseDec(inst.tickSize);
    const step = parseDec(inst.qtyStep);
    g = { tick, step, tickNum: decToNumber(tick), stepNum: decToNumber(step) };
    grids.set(inst as Instrument, g);
  }
  return g;
}

/** A decimal-string quantity in whole lots; off-grid or malformed is an error. */
const PLAIN_DEC = /^\d+(?:\.\d+)?$/;

export function lotsOf(text: string, g: Grid): number {
  // Fast path: a float division that lands within a billionth of a step of a whole number is that
  // number; anything else (off-grid, or too many digits for a double) takes the exact decimal path.
  if (PLAIN_DEC.test(text)) {
    const v = Number(text);
    const n = Math.round(v / g.stepNum);
    if (Number.isSafeInteger(n) && Math.abs(v - n * g.stepNum) <= g.stepNum * 1e-9) return n;
  }
  const d = tryParseDec(text);
  if (d === undefined) throw new NormalizeError(`bad quantity ${JSON.stringify(text.slice(0, 40))}`);
  const n = stepsOf(d, g.step);
  if (n === undefined) throw new NormalizeError(`quantity ${text} is not a multiple of the step`);
  return Number(n);
}

/** A JSON-number quantity in lots (Spot). Tolerates binary noise below a millionth of a step. */
export function lotsOfNumber(v: number, g: Grid): number {
  if (!Number.isFinite(v) || v < 0) throw new NormalizeError("bad quantity");
  const n = Math.round(v / g.stepNum);
  if (Math.abs(v - n * g.stepNum) > g.stepNum * 1e-6)
    throw new NormalizeError(`quantity ${v} is not a multiple of the step`);
  return n;
}

/** A price in ticks as a float (averages need not sit on the grid); "" or "0" → -1 (absent). */
export function ticksOf(text: string, g: Grid): number {
  if (text === "" || text === "0") return -1;
  const v = Number(text);
  if (!Number.isFinite(v) || v < 0)
    throw new NormalizeError(`bad price ${JSON.stringify(text.slice(0, 40))}`);
  return v / g.tickNum;
}

/** A limit price in whole ticks (an order adopted from the venue); off the grid or malformed is an error. */
export function ticksOnGrid(text: string, g: Grid): number {
  return lotsOf(text, tickGrid(g));
}

/** A JSON-number limit price in whole ticks (Spot); tolerates binary noise below a millionth of a tick. */
export function ticksOnGridNumber(v: number, g: Grid): number {
  return lotsOfNumber(v, tickGrid(g));
}

/** The grid with the tick as its step (the quantity helpers then count ticks). */
function tickGrid(g: Grid): Grid {
  return { ...g, step: g.tick, stepNum: g.tickNum };
}

/** A record's side in any case (`BUY`, `Buy`); anything else is an error. */
export function sideOf(text: unknown): Side {
  const t = typeof text === "string" ? text.toLowerCase() : "";
  if (t === "buy" || t === "sell") return t;
  throw new NormalizeError(`bad side ${JSON.stringify(String(text).slice(0, 16))}`);
}

/** A record's time in force; absent means GTC, anything else unknown is an error. */
export function tifOf(text: unknown): TimeInForce {
  if (text === undefined || text === null || text === "") return "GTC";
  if (text === "GTC" || text === "IOC" || text === "FOK") return text;
  throw new NormalizeError(`bad time in force ${JSON.stringify(String(text).slice(0, 16))}`);
}

function venueKind(status: number): Ev {
  return VENUE_EVENT_FOR_STATUS[status]! as Ev;
}

/** One row of `/v5/order/realtime` (or an HFT order stream message) → a venue-status event. */
export function eventFromV5Order(
  rec: V5OrderRecord,
  g: Grid,
  source: Source,
  tsNs: number,
  out: OrderEvent = newEvent(),
): OrderEvent {
  let kind: Ev;
  try {
    kind = venueKind(statusFromV5(rec.orderStatus));
  } catch (e) {
    throw e instanceof UnknownVenueStatusError ? new NormalizeError(e.message) : e;
  }
  resetEvent(out, kind);
  out.source = source;
  out.clientId = rec.orderLinkId ?? "";
  out.exchangeId = rec.orderId ?? "";
  out.tsNs = tsNs;
  out.venueMs = rec.updatedTime ? Number(rec.updatedTime) : -1;
  out.cumLots = lotsOf(rec.cumExecQty || "0", g);
  out.avgPxTicks = ticksOf(rec.avgPrice ?? "", g);
  const fee = Number(rec.cumExecFee);
  out.fee = Number.isFinite(fee) && rec.cumExecFee !== "" ? fee : -1;
  if (kind === Ev.VenueRejected) out.reason = rec.rejectReason ?? "";
  return out;
}

/** A Spot order record (REST or FETCH_ORDER_UPDATES) → a venue-status event with the cumulative qty. */
export function eventFromSpotOrder(
  rec: SpotOrderRecord,
  g: Grid,
  source: Source,
  tsNs: number,
  out: OrderEvent = newEvent(),
): OrderEvent {
  let kind: Ev;
  try {
    kind = venueKind(statusFromSpot(rec.status));
  } catch (e) {
    throw e instanceof UnknownVenueStatusError ? new NormalizeError(e.message) : e;
  }
  resetEvent(out, kind);
  out.source = source;
  out.clientId = rec.client_order_id ?? "";
  out.exchangeId = rec.order_id ?? "";
  out.tsNs = tsNs;
  out.venueMs = typeof rec.updated_time === "number" ? rec.updated_time : -1;
  out.cumLots = lotsOfNumber(rec.executed_qty ?? 0, g);
  out.avgPxTicks = rec.average_price > 0 ? rec.average_price / g.tickNum : -1;
  if (kind === Ev.VenueRejected) out.reason = "DISCARDED";
  return out;
}

/** A Futures order record (REST answer, get order, open orders): numbers are decimal strings. */
export function eventFromFuturesOrder(
  rec: FuturesOrderRecord,
  g: Grid,
  source: Source,
  tsNs: number,
  out: OrderEvent = newEvent(),
): OrderEvent {
  const cum = typeof rec.executed_quantity === "string" ? rec.executed_quantity : "";
  let kind: Ev;
  try {
    kind = venueKind(statusFromFutures(rec.status, cum !== "" && Number(cum) > 0));
  } catch (e) {
    throw e instanceof UnknownVenueStatusError ? new NormalizeError(e.message) : e;
  }
  resetEvent(out, kind);
  out.source = source;
  out.clientId = rec.client_order_id ?? "";
  out.exchangeId = rec.order_id ?? "";
  out.tsNs = tsNs;
  const t = Number(rec.updated_at);
  out.venueMs = rec.updated_at && Number.isFinite(t) ? t : -1;
  out.cumLots = lotsOf(cum || "0", g);
  out.avgPxTicks = ticksOf(typeof rec.avg_price === "string" ? rec.avg_price : "", g);
  return out;
}

/** One HFT execution (`/v5/execution/list` row or `.trade` message) → a Fill event. */
export function eventFromV5Execution(
  x: V5Execution,
  g: Grid,
  source: Source,
  tsNs: number,
  out: OrderEvent = newEvent(),
): OrderEvent {
  if (typeof x.execId !== "string" || x.execId === "") throw new NormalizeError("execution without execId");
  resetEvent(out, Ev.Fill);
  out.source = source;
  out.clientId = x.orderLinkId ?? "";
  out.exchangeId = x.orderId ?? "";
  out.tsNs = tsNs;
  out.venueMs = x.execTime ? Number(x.execTime) : -1;
  out.execId = x.execId;
  out.lots = lotsOf(x.execQty, g);
  if (out.lots <= 0) throw new NormalizeError("execution with zero quantity");
  out.pxTicks = ticksOf(x.execPrice, g);
  const fee = Number(x.execFee);
  out.fee = Number.isFinite(fee) ? fee : -1;
  out.liquidity =
    x.isMaker === true ? LIQUIDITY.Maker : x.isMaker === false ? LIQUIDITY.Taker : LIQUIDITY.Unknown;
  return out;
}
