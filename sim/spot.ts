/** Spot v2 endpoints (docs/venue-api.md §4): validation at the edge, then the exchange. */
import type { SpotOrderRecord } from "../src/rest/wire.js";
import type { Book } from "./book.js";
import type { Exchange } from "./exchange.js";
import { INSTRUMENTS, priceStr, qtyStr, type SimInstrument, toSteps } from "./instruments.js";
import { isSpotTerminal, type SimOrder } from "./order.js";
import { num, portfolioRows, spotRecord } from "./records.js";
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

export const SPOT_EXCHANGES = ["coinswitchx", "c2c1", "c2c2"] as const;
const SPOT_INSTRUMENTS = INSTRUMENTS.filter((i) => i.surface === "spot");
const MAX_CLIENT_ID = 64;

function bad(req: Req, msg: string): Reply {
  return message(req.exchange.opts.spot.validationStatus, msg);
}

function exchangeOf(req: Req, v: string | undefined, required: boolean): string | Reply {
  if (v === undefined) return required ? bad(req, "Input exchange is missing") : "";
  const e = v.toLowerCase();
  if (!(SPOT_EXCHANGES as readonly string[]).includes(e)) return bad(req, `Input exchange is invalid: ${v}`);
  return e;
}

/** Resolves exchange + symbol query parameters to a book. */
function bookOf(req: Req): Book | Reply {
  const ex = reqString(req.query, "exchange", true);
  if (!ex.ok) return bad(req, ex.msg);
  const sym = reqString(req.query, "symbol", true);
  if (!sym.ok) return bad(req, sym.msg);
  const e = exchangeOf(req, ex.v, true);
  if (typeof e !== "string") return e;
  const b = req.exchange.book("spot", e, sym.v!);
  return b ?? bad(req, `Input symbol is invalid: ${sym.v} is not traded on ${e}`);
}

const createOrder: Handler = (req) => {
  const b = req.body;
  const side = reqString(b, "side", true);
  if (!side.ok) return bad(req, side.msg);
  const s = side.v!.toLowerCase();
  if (s !== "buy" && s !== "sell") return bad(req, "Input side is invalid: expected buy or sell");
  const type = reqString(b, "type", true);
  if (!type.ok) return bad(req, type.msg);
  if (type.v!.toLowerCase() !== "limit")
    return bad(req, "Input type is invalid: only LIMIT orders are supported");
  const exch = reqString(b, "exchange", true);
  if (!exch.ok) return bad(req, exch.msg);
  const e = exchangeOf(req, exch.v, true);
  if (typeof e !== "string") return e;
  const sym = reqString(b, "symbol", true);
  if (!sym.ok) return bad(req, sym.msg);
  const book = req.exchange.book("spot", e, sym.v!);
  if (book === undefined) return bad(req, `Input symbol is invalid: ${sym.v} is not traded on ${e}`);
  const inst = book.inst;
  const price = reqNumber(b, "price", true);
  if (!price.ok) return bad(req, price.msg);
  const qty = reqNumber(b, "quantity", true);
  if (!qty.ok) return bad(req, qty.msg);
  if (price.v! <= 0) return bad(req, "Input price must be greater than 0");
  if (qty.v! <= 0) return bad(req, "Input quantity must be greater than 0");
  const ticks = toSteps(price.v!, inst.tick);
  if (ticks === undefined)
    return bad(req, `Input price has too many decimals: at most ${inst.priceDecimals} for ${inst.symbol}`);
  const lots = toSteps(qty.v!, inst.step);
  if (lots === undefined)
    return bad(req, `Input quantity has too many decimals: at most ${inst.qtyDecimals} for ${inst.symbol}`);
  if (lots < inst.minLots || lots > inst.maxLots) {
    return bad(req, `Input quantity is out of range: ${inst.minQty} to ${inst.maxQty} for ${inst.symbol}`);
  }
  const notional = price.v! * qty.v!;
  if (notional < inst.minNotional || notional > inst.maxNotional) {
    return bad(req, `Order value is out of range: ${inst.minNotional} to ${inst.maxNotional} ${inst.quote}`);
  }
  const cid = reqString(b, "client_order_id", false);
  if (!cid.ok) return bad(req, cid.msg);
  if (cid.v !== undefined && cid.v.length > MAX_CLIENT_ID)
    return bad(req, `Input client_order_id is too long (max ${MAX_CLIENT_ID})`);
  const exp = reqNumber(b, "expiry_period", false);
  if (!exp.ok) return bad(req, exp.msg);
  const spot = req.exchange.opts.spot;
  const expirySec = exp.v ?? spot.defaultExpirySec;
  if (!Number.isInteger(expirySec) || expirySec < 1 || expirySec > spot.maxExpirySec) {
    return bad(
      req,
      `Input expiry_period must be an integer number of seconds between 1 and ${spot.maxExpirySec}`,
    );
  }
  const r = req.exchange.spotCreate(req.account!, {
    exchange: e,
    symbol: inst.symbol,
    buy: s === "buy",
    priceTicks: ticks,
    lots,
    clientId: cid.v ?? "",
    expirySec,
  });
  return r.ok ? spotOk(spotRecord(r.value)) : message(r.status, r.message);
};

const cancelOrder: Handler = (req) => {
  const id = reqString(req.body, "order_id", true);
  if (!id.ok) return bad(req, id.msg);
  const r = req.exchange.spotCancel(req.account!, id.v!);
  return r.ok ? spotOk(spotRecord(r.value)) : message(r.status, r.message);
};

const getOrder: Handler = (req) => {
  const id = reqString(req.query, "order_id", false);
  const cid = reqString(req.query, "client_order_id", false);
  if (!id.ok) return bad(req, id.msg);
  if (!cid.ok) return bad(req, cid.msg);
  if (id.v === undefined && cid.v === undefined)
    return bad(req, "Input order_id is missing (or give client_order_id)");
  const a = req.account!;
  const o = id.v !== undefined ? a.spotOrders.get(id.v) : a.spotByClient.get(cid.v!);
  // [assumed] an unknown order is 404 so a reconciler can tell "not placed" from a bad request.
  if (o === undefined || (cid.v !== undefined && id.v !== undefined && o.clientId !== cid.v))
    return message(404, "Order not found");
  return spotOk(spotRecord(o));
};

function csvSet(v: string | undefined, lower: boolean): Set<string> | undefined {
  if (v === undefined) return undefined;
  return new Set(
    v
      .split(",")
      .map((x) => (lower ? x.trim().toLowerCase() : x.trim().toUpperCase()))
      .filter((x) => x !== ""),
  );
}

const listOrders: Handler = (req) => {
  const q = req.query;
  const open = reqString(q, "open", true);
  if (!open.ok) return bad(req, open.msg);
  const ov = open.v!.toLowerCase();
  if (ov !== "true" && ov !== "false") return bad(req, "Input open must be true or false");
  const isOpen = ov === "true";
  const count = reqNumber(q, "count", false);
  if (!count.ok) return bad(req, count.msg);
  if (count.v !== undefined && (!Number.isInteger(count.v) || count.v < 1))
    return bad(req, "Input count must be a positive integer");
  // Closed lists are capped at the latest 500 [docs]; open lists [assumed] the same cap.
  const limit = Math.min(count.v ?? (isOpen ? 25 : 500), 500);
  const from = reqNumber(q, "from_time", false);
  const to = reqNumber(q, "to_time", false);
  if (!from.ok) return bad(req, from.msg);
  if (!to.ok) return bad(req, to.msg);
  const sideQ = q.get("side")?.toUpperCase();
  if (sideQ !== undefined && sideQ !== "BUY" && sideQ !== "SELL")
    return bad(req, "Input side is invalid: expected buy or sell");
  const symbols = csvSet(q.get("symbols"), false);
  const exchanges = csvSet(q.get("exchanges"), true);
  const typeQ = q.get("type");
  if (typeQ !== undefined && typeQ.toUpperCase() !== "LIMIT") return spotOk({ orders: [] });
  const status = q.get("status")?.toUpperCase();
  const list = req.account!.spotList;
  const out: SpotOrderRecord[] = [];
  // Newest first [assumed].
  for (let i = list.length - 1; i >= 0 && out.length < limit; i--) {
    const o = list[i]!;
    if (isSpotTerminal(o.spotStatus) === isOpen) continue;
    if (!matches(o, from.v, to.v, sideQ, symbols, exchanges, status)) continue;
    out.push(spotRecord(o));
  }
  return spotOk({ orders: out });
};

function matches(
  o: SimOrder,
  from: number | undefined,
  to: number | undefined,
  side: string | undefined,
  symbols: Set<string> | undefined,
  exchanges: Set<string> | undefined,
  status: string | undefined,
): boolean {
  if (from !== undefined && o.createdAt < from) return false;
  if (to !== undefined && o.createdAt > to) return false;
  if (side !== undefined && (side === "BUY") !== o.buy) return false;
  if (symbols !== undefined && !symbols.has(o.inst.symbol)) return false;
  if (exchanges !== undefined && !exchanges.has(o.inst.venue)) return false;
  if (status !== undefined && o.spotStatus !== status) return false;
  return true;
}

/** Last price of `coin` in INR via the coinswitchx book (0 when not listed). */
export function inrRate(exchange: Exchange, coin: string): number {
  const b = exchange.book("spot", "coinswitchx", `${coin}/INR`);
  return b === undefined ? 0 : b.lastTicks * b.inst.tick;
}

const portfolio: Handler = (req) => spotOk(portfolioRows(req.account!, (c) => inrRate(req.exchange, c)));

function precisionOf(i: SimInstrument): { base: number; quote: number; limit: number } {
  return { base: i.qtyDecimals, quote: i.priceDecimals, limit: 0 };
}

function byExchange<T>(
  exchange: string,
  symbol: string | undefined,
  f: (i: SimInstrument) => T,
): Record<string, Record<string, T>> {
  const out: Record<string, Record<string, T>> = {};
  for (const i of SPOT_INSTRUMENTS) {
    if (exchange !== "" && i.venue !== exchange) continue;
    if (symbol !== undefined && i.symbol !== symbol.toUpperCase()) continue;
    const row = out[i.venue] ?? {};
    row[i.symbol] = f(i);
    out[i.venue] = row;
  }
  return out;
}

const exchangePrecision: Handler = (req) => {
  const ex = reqString(req.body, "exchange", true);
  if (!ex.ok) return bad(req, ex.msg);
  const e = exchangeOf(req, ex.v, true);
  if (typeof e !== "string") return e;
  const sym = reqString(req.body, "symbol", false);
  if (!sym.ok) return bad(req, sym.msg);
  return spotOk(byExchange(e, sym.v, precisionOf));
};

const tradeInfo: Handler = (req) => {
  // [assumed] exchange optional (the current docs return all coins in one call).
  const e = exchangeOf(req, req.query.get("exchange") || undefined, false);
  if (typeof e !== "string") return e;
  return spotOk(
    byExchange(e, req.query.get("symbol") || undefined, (i) => ({
      quote: { min: String(i.minNotional), max: String(i.maxNotional) },
      precision: precisionOf(i),
      active: true,
    })),
  );
};

const tradingFee: Handler = (req) => {
  const e = exchangeOf(req, req.query.get("exchange") || undefined, true);
  if (typeof e !== "string") return e;
  const f = req.exchange.opts.spot.fees;
  const ts = Math.floor(req.serverNow / 1000);
  const coins: Record<string, unknown> = {};
  for (const i of SPOT_INSTRUMENTS) {
    if (i.venue !== e) continue;
    coins[i.base] = {
      maker_fee: f.maker,
      taker_fee: f.taker,
      maker_discount_percentage: 0,
      taker_discount_percentage: 0,
      maker_fee_after_discount: f.maker,
      taker_fee_after_discount: f.taker,
      timestamp: ts,
    };
  }
  return spotOk({ [e]: coins });
};

function financialYear(ms: number): string {
  const d = new Date(ms);
  const y = d.getUTCMonth() >= 3 ? d.getUTCFullYear() : d.getUTCFullYear() - 1;
  return `${y}-${String((y + 1) % 100).padStart(2, "0")}`;
}

const tds: Handler = (req) =>
  spotOk({ total_tds_amount: num(req.account!.tdsTotal, 2), financial_year: financialYear(req.serverNow) });

const coins: Handler = (req) => {
  const e = exchangeOf(req, req.query.get("exchange") || undefined, true);
  if (typeof e !== "string") return e;
  return spotOk({ [e]: SPOT_INSTRUMENTS.filter((i) => i.venue === e).map((i) => i.symbol) });
};

export function depthLevels(book: Book, buy: boolean, n: number): string[][] {
  return book.levels(buy, n).map(([p, l]) => [priceStr(book.inst, p), qtyStr(book.inst, l)]);
}

const depth: Handler = (req) => {
  const b = bookOf(req);
  if (!("inst" in b)) return b;
  return spotOk({
    symbol: b.inst.symbol,
    timestamp: req.exchange.clock.now(),
    bids: depthLevels(b, true, 50),
    asks: depthLevels(b, false, 50),
  });
};

const trades: Handler = (req) => {
  const b = bookOf(req);
  if (!("inst" in b)) return b;
  const out = [];
  for (let i = b.trades.length - 1; i >= 0 && out.length < 100; i--) {
    const t = b.trades[i]!;
    // [assumed] fields E, p, q, s as on the trades socket, plus m (taker was the seller).
    out.push({
      E: t.time,
      p: priceStr(b.inst, t.priceTicks),
      q: qtyStr(b.inst, t.lots),
      s: b.inst.symbol,
      m: !t.takerBuy,
    });
  }
  return spotOk(out);
};

/** 24 h statistics from the book's one-minute candles [assumed field list, strings]. */
export function tickerRow(b: Book, now: number): Record<string, string | number> {
  const since = now - 86_400_000;
  const inst = b.inst;
  const last = b.lastTicks * inst.tick;
  let open = 0;
  let high = 0;
  let low = 0;
  let vol = 0;
  let qv = 0;
  for (const c of b.candles) {
    if (c.start < since) continue;
    if (open === 0) {
      open = c.o;
      high = c.h;
      low = c.l;
    }
    if (c.h > high) high = c.h;
    if (c.l < low) low = c.l;
    vol += c.v;
    qv += c.q;
  }
  if (open === 0) open = high = low = last;
  const bid = b.bestBid();
  const ask = b.bestAsk();
  return {
    symbol: inst.symbol,
    openPrice: open.toFixed(inst.priceDecimals),
    highPrice: high.toFixed(inst.priceDecimals),
    lowPrice: low.toFixed(inst.priceDecimals),
    lastPrice: last.toFixed(inst.priceDecimals),
    baseVolume: vol.toFixed(inst.qtyDecimals),
    quoteVolume: qv.toFixed(2),
    percentageChange: open === 0 ? "0" : (((last - open) / open) * 100).toFixed(2),
    bidPrice: bid === undefined ? "" : priceStr(inst, bid),
    askPrice: ask === undefined ? "" : priceStr(inst, ask),
    at: now,
  };
}

const ticker: Handler = (req) => {
  const b = bookOf(req);
  if (!("inst" in b)) return b;
  return spotOk({ [b.inst.symbol]: tickerRow(b, req.exchange.clock.now()) });
};

const allTicker: Handler = (req) => {
  const e = exchangeOf(req, req.query.get("exchange") || undefined, true);
  if (typeof e !== "string") return e;
  const now = req.exchange.clock.now();
  const out: Record<string, unknown> = {};
  for (const b of req.exchange.spotBooks) if (b.inst.venue === e) out[b.inst.symbol] = tickerRow(b, now);
  return spotOk(out);
};

const candles: Handler = (req) => {
  const b = bookOf(req);
  if (!("inst" in b)) return b;
  const iv = reqNumber(req.query, "interval", true);
  const st = reqNumber(req.query, "start_time", true);
  const et = reqNumber(req.query, "end_time", true);
  for (const f of [iv, st, et]) if (!f.ok) return bad(req, f.msg);
  const minutes = iv.ok ? iv.v! : 0;
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > 10_080)
    return bad(req, "Input interval must be a number of minutes (1 to 10080)");
  const start = st.ok ? st.v! : 0;
  const end = et.ok ? et.v! : 0;
  const span = minutes * 60_000;
  const out: Array<Record<string, string>> = [];
  let cur: { s: number; o: number; h: number; l: number; c: number; v: number } | undefined;
  const d = b.inst.priceDecimals;
  const flush = () => {
    if (cur === undefined) return;
    out.push({
      o: cur.o.toFixed(d),
      h: cur.h.toFixed(d),
      l: cur.l.toFixed(d),
      c: cur.c.toFixed(d),
      interval: String(minutes),
      symbol: b.inst.symbol,
      close_time: String(cur.s + span),
      volume: cur.v.toFixed(b.inst.qtyDecimals),
      start_time: String(cur.s),
    });
  };
  for (const c of b.candles) {
    if (c.start < start || c.start > end) continue;
    const s = c.start - (c.start % span);
    if (cur === undefined || cur.s !== s) {
      flush();
      cur = { s, o: c.o, h: c.h, l: c.l, c: c.c, v: c.v };
    } else {
      cur.h = Math.max(cur.h, c.h);
      cur.l = Math.min(cur.l, c.l);
      cur.c = c.c;
      cur.v += c.v;
    }
  }
  flush();
  return spotOk(out);
};

const time: Handler = (req) => ({ status: 200, body: `{"serverTime":${req.serverNow}}` });
const ping: Handler = () => message(200, "OK");
const validateKeys: Handler = () => message(200, "Valid Access");

const P = "/trade/api/v2";

export const SPOT_ROUTES: RouteDef[] = [
  { method: "GET", path: `${P}/time`, handler: time, bucket: "", auth: "none" },
  { method: "GET", path: `${P}/ping`, handler: ping, bucket: "spotOther", auth: "required" },
  { method: "GET", path: `${P}/validate/keys`, handler: validateKeys, bucket: "spotOther", auth: "required" },
  { method: "POST", path: `${P}/order`, handler: createOrder, bucket: "spotOrder", auth: "required" },
  // [assumed, as third-party limiters do] cancel shares the 100/10 s order bucket.
  { method: "DELETE", path: `${P}/order`, handler: cancelOrder, bucket: "spotOrder", auth: "required" },
  { method: "GET", path: `${P}/order`, handler: getOrder, bucket: "spotOrders", auth: "required" },
  { method: "GET", path: `${P}/orders`, handler: listOrders, bucket: "spotOrders", auth: "required" },
  {
    method: "GET",
    path: `${P}/user/portfolio`,
    handler: portfolio,
    bucket: "spotPortfolio",
    auth: "required",
  },
  {
    method: "POST",
    path: `${P}/exchangePrecision`,
    handler: exchangePrecision,
    bucket: "spotOther",
    auth: "required",
  },
  { method: "GET", path: `${P}/tradeInfo`, handler: tradeInfo, bucket: "spotOther", auth: "required" },
  { method: "GET", path: `${P}/tradingFee`, handler: tradingFee, bucket: "spotOther", auth: "required" },
  { method: "GET", path: `${P}/tds`, handler: tds, bucket: "spotTds", auth: "required" },
  { method: "GET", path: `${P}/coins`, handler: coins, bucket: "spotOther", auth: "required" },
  { method: "GET", path: `${P}/depth`, handler: depth, bucket: "spotOther", auth: "required" },
  { method: "GET", path: `${P}/trades`, handler: trades, bucket: "spotOther", auth: "required" },
  { method: "GET", path: `${P}/24hr/ticker`, handler: ticker, bucket: "spotOther", auth: "required" },
  {
    method: "GET",
    path: `${P}/24hr/all-pairs/ticker`,
    handler: allTicker,
    bucket: "spotOther",
    auth: "required",
  },
  { method: "GET", path: `${P}/candles`, handler: candles, bucket: "spotOther", auth: "required" },
];
