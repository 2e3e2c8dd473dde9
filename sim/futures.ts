/**
 * Futures v2 endpoints (docs/venue-api.md §5, §7.2, §9): `/trade/api/v2/futures/...`, `exchange:
 * "EXCHANGE_2"` on every request, `{data}` bodies with numbers as strings, `{message}` errors.
 * Signatures are checked by the front like Spot's. Paths other than place order and get order are
 * the [assumed] ones third-party clients use.
 */
import type { FuturesInstrument, FuturesOrderRecord } from "../src/rest/wire.js";
import type { Book } from "./book.js";
import { INSTRUMENTS, priceStr, qtyStr, toSteps } from "./instruments.js";
import { isFuturesOpen, type SimTif } from "./order.js";
import { futuresRecord } from "./records.js";
import {
  type Handler,
  message,
  type Reply,
  type Req,
  type RouteDef,
  reqNumber,
  reqString,
  spotOk,
} from "./reply.js";

const FUTURES_INSTRUMENTS = INSTRUMENTS.filter((i) => i.surface === "futures");
const MAX_CLIENT_ID = 64;
const SIDES: Record<string, boolean> = { BUY: true, SELL: false };
const TIFS = new Set(["GTC", "IOC", "FOK"]);
const BASE = "/trade/api/v2/futures";

function bad(msg: string): Reply {
  return message(400, msg);
}

/** `exchange` must be EXCHANGE_2 (case-insensitive) on every Futures request. */
function exchangeOf(src: Record<string, unknown> | Map<string, string>): Reply | undefined {
  const e = reqString(src, "exchange", true);
  if (!e.ok) return bad(e.msg);
  if (e.v!.toUpperCase() !== "EXCHANGE_2") return bad(`Input exchange is invalid: ${e.v}`);
  return undefined;
}

function bookOf(req: Req, symbol: string): Book | undefined {
  return req.exchange.book("futures", "EXCHANGE_2", symbol);
}

const createOrder: Handler = (req) => {
  const b = req.body;
  const ex = exchangeOf(b);
  if (ex !== undefined) return ex;
  const sym = reqString(b, "symbol", true);
  if (!sym.ok) return bad(sym.msg);
  const book = bookOf(req, sym.v!);
  if (book === undefined) return bad(`Input symbol is invalid: ${sym.v}`);
  const inst = book.inst;
  const side = reqString(b, "side", true);
  if (!side.ok) return bad(side.msg);
  const buy = SIDES[side.v!.toUpperCase()];
  if (buy === undefined) return bad("Input side is invalid: expected BUY or SELL");
  const ot = reqString(b, "order_type", true);
  if (!ot.ok) return bad(ot.msg);
  const type = ot.v!.toUpperCase();
  if (type === "TAKE_PROFIT_MARKET" || type === "STOP_MARKET")
    return bad(`Input order_type ${type} is not supported by the simulator`);
  if (type !== "LIMIT" && type !== "MARKET")
    return bad("Input order_type is invalid: expected MARKET, LIMIT, TAKE_PROFIT_MARKET or STOP_MARKET");
  const market = type === "MARKET";
  const qty = reqNumber(b, "quantity", true);
  if (!qty.ok) return bad(qty.msg);
  const lots = toSteps(qty.v!, inst.step);
  if (lots === undefined || lots <= 0)
    return bad(`Input quantity is invalid: must be a positive multiple of ${inst.qtyStep}`);
  if (lots < inst.minLots || lots > inst.maxLots)
    return bad(`Input quantity is out of range: ${inst.minQty} to ${inst.maxQty} for ${inst.symbol}`);
  let ticks = 0;
  if (!market) {
    const price = reqNumber(b, "price", true);
    if (!price.ok) return bad(price.msg);
    const t = toSteps(price.v!, inst.tick);
    if (t === undefined || t <= 0)
      return bad(`Input price is invalid: must be a positive multiple of ${inst.tickSize}`);
    ticks = t;
    if (t * inst.tick * lots * inst.step < inst.minNotional)
      return bad(`Order value is below the minimum ${inst.minNotional} USDT`);
  }
  let tif: SimTif = "GTC";
  const tf = reqString(b, "time_in_force", false);
  if (!tf.ok) return bad(tf.msg);
  if (tf.v !== undefined) {
    if (!TIFS.has(tf.v.toUpperCase())) return bad("Input time_in_force is invalid: expected GTC, IOC or FOK");
    tif = tf.v.toUpperCase() as SimTif;
  }
  const ro = b.reduce_only;
  if (ro !== undefined && typeof ro !== "boolean") return bad("Input reduce_only must be a boolean");
  const cid = reqString(b, "client_order_id", false);
  if (!cid.ok) return bad(cid.msg);
  if (cid.v !== undefined && cid.v.length > MAX_CLIENT_ID)
    return bad(`Input client_order_id is too long (max ${MAX_CLIENT_ID})`);
  const r = req.exchange.futuresCreate(req.account!, {
    symbol: inst.symbol,
    buy,
    market,
    priceTicks: ticks,
    lots,
    tif,
    reduceOnly: ro === true,
    clientId: cid.v ?? "",
  });
  return r.ok ? spotOk(futuresRecord(r.value)) : message(r.status, r.message);
};

const cancelOrder: Handler = (req) => {
  const ex = exchangeOf(req.body);
  if (ex !== undefined) return ex;
  const id = reqString(req.body, "order_id", true);
  if (!id.ok) return bad(id.msg);
  const r = req.exchange.futuresCancel(req.account!, id.v!);
  return r.ok ? spotOk(futuresRecord(r.value)) : message(r.status, r.message);
};

const getOrder: Handler = (req) => {
  const ex = exchangeOf(req.query);
  if (ex !== undefined) return ex;
  const id = reqString(req.query, "order_id", false);
  const cid = reqString(req.query, "client_order_id", false);
  if (!id.ok) return bad(id.msg);
  if (!cid.ok) return bad(cid.msg);
  if (id.v === undefined && cid.v === undefined)
    return bad("Input order_id is missing (or give client_order_id)");
  const a = req.account!;
  const o = id.v !== undefined ? a.futOrders.get(id.v) : a.futByClient.get(cid.v!);
  // [assumed] as on Spot: an unknown order is 404, so "never placed" differs from a bad request.
  if (o === undefined || (cid.v !== undefined && id.v !== undefined && o.clientId !== cid.v))
    return message(404, "Order not found");
  return spotOk(futuresRecord(o));
};

/** Open (or closed) orders, newest first, `limit` at most 500 [assumed]. */
function listOrders(open: boolean): Handler {
  return (req) => {
    const ex = exchangeOf(req.query);
    if (ex !== undefined) return ex;
    const lim = reqNumber(req.query, "limit", false);
    if (!lim.ok) return bad(lim.msg);
    if (lim.v !== undefined && (!Number.isInteger(lim.v) || lim.v < 1))
      return bad("Input limit must be a positive integer");
    const limit = Math.min(lim.v ?? 100, 500);
    const symbol = req.query.get("symbol")?.toUpperCase();
    const list = req.account!.futList;
    const out: FuturesOrderRecord[] = [];
    for (let i = list.length - 1; i >= 0 && out.length < limit; i--) {
      const o = list[i]!;
      if (isFuturesOpen(o.futStatus) !== open) continue;
      if (symbol !== undefined && o.inst.symbol !== symbol) continue;
      out.push(futuresRecord(o));
    }
    return spotOk({ orders: out });
  };
}

const INSTRUMENT_ROWS: FuturesInstrument[] = FUTURES_INSTRUMENTS.map((i) => ({
  symbol: i.symbol,
  base_asset: i.base,
  quote_asset: i.quote,
  tick_size: i.tickSize,
  quantity_step: i.qtyStep,
  min_quantity: i.minQty,
  max_quantity: i.maxQty,
  min_notional: String(i.minNotional),
  max_leverage: String(i.maxLeverage),
  status: "TRADING",
}));

const instrumentInfo: Handler = (req) => {
  const ex = exchangeOf(req.query);
  if (ex !== undefined) return ex;
  const s = req.query.get("symbol")?.toUpperCase();
  return spotOk(INSTRUMENT_ROWS.filter((r) => s === undefined || r.symbol === s));
};

/** [assumed shape] 24 h ticker rows with the last price and top of book, numbers as strings. */
const ticker: Handler = (req) => {
  const ex = exchangeOf(req.query);
  if (ex !== undefined) return ex;
  const s = req.query.get("symbol")?.toUpperCase();
  const out: Record<string, unknown> = {};
  for (const b of req.exchange.futuresBooks) {
    if (s !== undefined && b.inst.symbol !== s) continue;
    const bb = b.levels(true, 1)[0];
    const ba = b.levels(false, 1)[0];
    out[b.inst.symbol] = {
      symbol: b.inst.symbol,
      last_price: priceStr(b.inst, b.lastTicks),
      best_bid_price: bb ? priceStr(b.inst, bb[0]) : "",
      best_bid_qty: bb ? qtyStr(b.inst, bb[1]) : "",
      best_ask_price: ba ? priceStr(b.inst, ba[0]) : "",
      best_ask_qty: ba ? qtyStr(b.inst, ba[1]) : "",
      mark_price: priceStr(b.inst, b.midTicks),
    };
  }
  if (s !== undefined && Object.keys(out).length === 0) return bad(`Input symbol is invalid: ${s}`);
  return spotOk(out);
};

export const FUTURES_ROUTES: RouteDef[] = [
  { method: "POST", path: `${BASE}/order`, handler: createOrder, bucket: "futuresPlace", auth: "required" },
  {
    method: "DELETE",
    path: `${BASE}/order`,
    handler: cancelOrder,
    bucket: "futuresCancel",
    auth: "required",
  },
  { method: "GET", path: `${BASE}/order`, handler: getOrder, bucket: "futuresStatus", auth: "required" },
  {
    method: "GET",
    path: `${BASE}/open_orders`,
    handler: listOrders(true),
    bucket: "futuresOpenOrders",
    auth: "required",
  },
  {
    method: "GET",
    path: `${BASE}/closed_orders`,
    handler: listOrders(false),
    bucket: "futuresOpenOrders",
    auth: "required",
  },
  {
    method: "GET",
    path: `${BASE}/instrument_info`,
    handler: instrumentInfo,
    bucket: "futuresMarket",
    auth: "required",
  },
  { method: "GET", path: `${BASE}/ticker`, handler: ticker, bucket: "futuresMarket", auth: "required" },
];
