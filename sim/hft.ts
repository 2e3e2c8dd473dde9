/** HFT `/v5` and `/dma/api/v1` endpoints (docs/venue-api.md §3), Bybit-v5-style envelope. */
import { createHash, createHmac } from "node:crypto";
import type { V5Instrument } from "../src/rest/wire.js";
import { V5_RET } from "../src/venue/hft/retCodes.js";
import type { Book } from "./book.js";
import { INSTRUMENTS, priceStr, qtyStr, toSteps } from "./instruments.js";
import type { SimTif } from "./order.js";
import { isV5Open } from "./order.js";
import { num, v5ExecutionRecord, v5PositionRecord, v5Record } from "./records.js";
import {
  type Handler,
  type Reply,
  type Req,
  type RouteDef,
  reqNumber,
  reqString,
  v5Err,
  v5Ok,
} from "./reply.js";

const HFT_INSTRUMENTS = INSTRUMENTS.filter((i) => i.surface === "hft");
const MAX_LINK_ID = 36;
/** [assumed] codes for cases the docs leave open (see docs/simulator.md). */
const RET_SWITCH_MODE_BLOCKED = 110025;
const RET_TRANSFER = 131001;

function p(req: Req, msg: string): Reply {
  return v5Err(V5_RET.PARAM, msg, req.serverNow);
}

/**
 * `category` is required on every order, position and market endpoint: `linear`, or `option` when the
 * key is allowlisted. Without the allowlist an options call is an error, not an empty list (§3.3);
 * option market data (`marketData`) is served to every key [assumed].
 */
function category(
  req: Req,
  src: Record<string, unknown> | Map<string, string>,
  marketData = false,
): Reply | undefined {
  const c = reqString(src, "category", true);
  if (!c.ok)
    return p(
      req,
      c.ok === false && c.msg.endsWith("missing")
        ? "category is missing (required parameter)"
        : "category must be a string",
    );
  if (c.v === "option") {
    if (marketData || req.exchange.opts.hft.optionsAllowlisted) return undefined;
    return v5Err(
      V5_RET.NOT_ALLOWLISTED,
      "permission denied: category option is not enabled for this API key (options allowlist)",
      req.serverNow,
    );
  }
  if (c.v !== "linear") return p(req, `category invalid: ${c.v}`);
  return undefined;
}

/** The (validated) category of a request. */
function catOf(src: Record<string, unknown> | Map<string, string>): string {
  const v = src instanceof Map ? src.get("category") : src.category;
  return v === "option" ? "option" : "linear";
}

function bookOf(req: Req, cat: string, symbol: string | undefined): Book | undefined {
  return symbol === undefined ? undefined : req.exchange.book("hft", cat, symbol);
}

/** `category` plus a known `symbol`: the symbol's book, or the error reply naming what is wrong. */
function bookParam(
  req: Req,
  src: Record<string, unknown> | Map<string, string>,
  marketData = false,
): { book: Book; reply?: undefined } | { book?: undefined; reply: Reply } {
  const cat = category(req, src, marketData);
  if (cat !== undefined) return { reply: cat };
  const sym = reqString(src, "symbol", true);
  if (!sym.ok) return { reply: p(req, "symbol is missing (required parameter)") };
  const book = bookOf(req, catOf(src), sym.v);
  if (book === undefined) return { reply: p(req, `symbol invalid: ${sym.v}`) };
  return { book };
}

const SIDES: Record<string, boolean> = { Buy: true, Sell: false };
const TIFS = new Set(["GTC", "IOC", "FOK"]);

const createOrder: Handler = (req) => {
  const b = req.body;
  const found = bookParam(req, b);
  if (found.reply !== undefined) return found.reply;
  const book = found.book;
  const inst = book.inst;
  const side = reqString(b, "side", true);
  if (!side.ok) return p(req, "side is missing (required parameter)");
  const buy = SIDES[side.v!];
  if (buy === undefined) return p(req, "side invalid: expected Buy or Sell");
  const ot = reqString(b, "orderType", true);
  if (!ot.ok) return p(req, "orderType is missing (required parameter)");
  if (ot.v !== "Limit" && ot.v !== "Market") return p(req, "orderType invalid: expected Limit or Market");
  const market = ot.v === "Market";
  const qty = reqNumber(b, "qty", true);
  if (!qty.ok)
    return p(
      req,
      qty.msg.endsWith("missing") ? "qty is missing (required parameter)" : "qty invalid: not a number",
    );
  const lots = toSteps(qty.v!, inst.step);
  if (lots === undefined || lots <= 0)
    return p(req, `qty invalid: must be a positive multiple of qtyStep ${inst.qtyStep}`);
  if (lots < inst.minLots || lots > inst.maxLots)
    return p(req, `qty out of range: ${inst.minQty} to ${inst.maxQty}`);
  let ticks = 0;
  if (!market) {
    const price = reqNumber(b, "price", true);
    if (!price.ok)
      return p(
        req,
        price.msg.endsWith("missing")
          ? "price is missing (required for Limit orders)"
          : "price invalid: not a number",
      );
    const t = toSteps(price.v!, inst.tick);
    if (t === undefined || t <= 0)
      return p(req, `price invalid: must be a positive multiple of tickSize ${inst.tickSize}`);
    ticks = t;
    if (t * inst.tick * lots * inst.step < inst.minNotional)
      return p(req, `order value below minNotionalValue ${inst.minNotional}`);
  }
  let positionIdx: 0 | 1 | 2 = 0;
  const pi = b.positionIdx;
  if (pi === undefined || pi === null) {
    if (req.exchange.opts.hft.requirePositionIdx)
      return p(req, "positionIdx is missing (required parameter)");
  } else if (pi === 0 || pi === 1 || pi === 2 || pi === "0" || pi === "1" || pi === "2") {
    positionIdx = Number(pi) as 0 | 1 | 2;
  } else return p(req, "positionIdx invalid: expected 0, 1 or 2");
  let tif: SimTif = "GTC";
  const tf = reqString(b, "timeInForce", false);
  if (!tf.ok) return p(req, "timeInForce invalid");
  if (tf.v !== undefined) {
    if (!TIFS.has(tf.v)) return p(req, "timeInForce invalid: expected GTC, IOC or FOK");
    tif = tf.v as SimTif;
  }
  const link = reqString(b, "orderLinkId", false);
  if (!link.ok) return p(req, "orderLinkId invalid: must be a string");
  if (link.v !== undefined && link.v.length > MAX_LINK_ID)
    return p(req, `orderLinkId too long (max ${MAX_LINK_ID})`);
  const r = req.exchange.hftCreate(req.account!, {
    symbol: inst.symbol,
    buy,
    market,
    priceTicks: ticks,
    lots,
    tif,
    positionIdx,
    clientId: link.v ?? "",
  });
  if (!r.ok) return v5Err(r.code, r.message, req.serverNow);
  return v5Ok({ orderId: r.value.id, orderLinkId: r.value.clientId }, req.serverNow);
};

const cancelOrder: Handler = (req) => {
  const b = req.body;
  const cat = category(req, b);
  if (cat !== undefined) return cat;
  const sym = reqString(b, "symbol", true);
  if (!sym.ok) return p(req, "symbol is missing (required parameter)");
  const id = reqString(b, "orderId", false);
  const link = reqString(b, "orderLinkId", false);
  if (!id.ok || !link.ok) return p(req, "orderId / orderLinkId must be strings");
  if (id.v === undefined && link.v === undefined) return p(req, "orderId or orderLinkId is required");
  const r = req.exchange.hftCancel(req.account!, sym.v!.toUpperCase(), id.v ?? "", link.v ?? "");
  if (!r.ok) return v5Err(r.code, r.message, req.serverNow);
  return v5Ok({ orderId: r.value.id, orderLinkId: r.value.clientId }, req.serverNow);
};

/** [assumed, Bybit-style] POST /v5/order/amend `{category, symbol, orderId | orderLinkId, qty?, price?}`. */
const amendOrder: Handler = (req) => {
  const b = req.body;
  const found = bookParam(req, b);
  if (found.reply !== undefined) return found.reply;
  const book = found.book;
  const inst = book.inst;
  const id = reqString(b, "orderId", false);
  const link = reqString(b, "orderLinkId", false);
  if (!id.ok || !link.ok) return p(req, "orderId / orderLinkId must be strings");
  if (id.v === undefined && link.v === undefined) return p(req, "orderId or orderLinkId is required");
  const qty = reqNumber(b, "qty", false);
  if (!qty.ok) return p(req, "qty invalid: not a number");
  const price = reqNumber(b, "price", false);
  if (!price.ok) return p(req, "price invalid: not a number");
  if (qty.v === undefined && price.v === undefined) return p(req, "qty or price is required");
  let lots: number | undefined;
  if (qty.v !== undefined) {
    lots = toSteps(qty.v, inst.step);
    if (lots === undefined || lots <= 0)
      return p(req, `qty invalid: must be a positive multiple of qtyStep ${inst.qtyStep}`);
    if (lots < inst.minLots || lots > inst.maxLots)
      return p(req, `qty out of range: ${inst.minQty} to ${inst.maxQty}`);
  }
  let ticks: number | undefined;
  if (price.v !== undefined) {
    ticks = toSteps(price.v, inst.tick);
    if (ticks === undefined || ticks <= 0)
      return p(req, `price invalid: must be a positive multiple of tickSize ${inst.tickSize}`);
  }
  const r = req.exchange.hftAmend(req.account!, inst.symbol, id.v ?? "", link.v ?? "", lots, ticks);
  if (!r.ok) return v5Err(r.code, r.message, req.serverNow);
  return v5Ok({ orderId: r.value.id, orderLinkId: r.value.clientId }, req.serverNow);
};

/** [assumed, Bybit-v5 model; third parties report it on this host] GET /v5/account/wallet-balance. */
const walletBalance: Handler = (req) => {
  const accountType = req.query.get("accountType") ?? "UNIFIED";
  const coin = req.query.get("coin");
  if (coin !== undefined && coin.toUpperCase() !== "USDT")
    return v5Ok({ list: [{ accountType, coin: [] }] }, req.serverNow);
  const a = req.account!;
  const stepOf = (s: string) => req.exchange.hftBook(s)!.inst.step;
  let upnl = 0;
  let positionIM = 0;
  for (const pos of a.positions.values()) {
    const bk = req.exchange.hftBook(pos.symbol)!;
    upnl += pos.lots * bk.inst.step * (bk.lastTicks * bk.inst.tick - pos.avgPrice);
    positionIM += (Math.abs(pos.lots) * bk.inst.step * pos.avgPrice) / pos.leverage;
  }
  const wallet = String(num(a.margin));
  const avail = String(num(a.availableMargin(stepOf)));
  const equity = String(num(a.margin + upnl));
  const row = {
    coin: "USDT",
    walletBalance: wallet,
    equity,
    availableToWithdraw: avail,
    unrealisedPnl: String(num(upnl)),
    totalOrderIM: String(num(a.orderMargin)),
    totalPositionIM: String(num(positionIM)),
  };
  const list = [
    {
      accountType,
      totalEquity: equity,
      totalWalletBalance: wallet,
      totalAvailableBalance: avail,
      coin: [row],
    },
  ];
  return v5Ok({ list }, req.serverNow);
};

function pageLimit(req: Req): number | Reply {
  const l = reqNumber(req.query, "limit", false);
  const max = req.exchange.opts.hft.pageSize;
  if (!l.ok) return p(req, "limit invalid");
  if (l.v === undefined) return max;
  if (!Number.isInteger(l.v) || l.v < 1) return p(req, "limit invalid: must be a positive integer");
  return Math.min(l.v, max);
}

/** Cursor = sequence number of the last row returned; rows are newest first. */
function cursorOf(req: Req): number | Reply {
  const c = req.query.get("cursor");
  if (c === undefined || c === "") return Number.MAX_SAFE_INTEGER;
  if (!/^[0-9]{1,15}$/.test(c)) return p(req, "cursor invalid");
  return Number(c);
}

const realtime: Handler = (req) => {
  const q = req.query;
  const cat = category(req, q);
  if (cat !== undefined) return cat;
  const limit = pageLimit(req);
  if (typeof limit !== "number") return limit;
  const cursor = cursorOf(req);
  if (typeof cursor !== "number") return cursor;
  const symbol = q.get("symbol")?.toUpperCase();
  const orderId = q.get("orderId");
  const linkId = q.get("orderLinkId");
  const acct = req.account!;
  const cutoff = req.exchange.clock.now() - req.exchange.opts.hft.closedVisibleMs;
  const list = [];
  let next = "";
  let last = 0;
  const src = acct.hftList;
  const cat_ = catOf(q);
  for (let i = src.length - 1; i >= 0; i--) {
    const o = src[i]!;
    if (o.seq >= cursor) continue;
    if (o.inst.venue !== cat_) continue;
    if (symbol !== undefined && o.inst.symbol !== symbol) continue;
    if (orderId !== undefined && o.id !== orderId) continue;
    if (linkId !== undefined && o.clientId !== linkId) continue;
    if (!isV5Open(o.v5Status) && o.closedAt < cutoff) continue;
    if (list.length === limit) {
      next = String(last);
      break;
    }
    list.push(v5Record(o));
    last = o.seq;
  }
  return v5Ok({ category: cat_, list, nextPageCursor: next }, req.serverNow);
};

const executions: Handler = (req) => {
  const q = req.query;
  const cat = category(req, q);
  if (cat !== undefined) return cat;
  const limit = pageLimit(req);
  if (typeof limit !== "number") return limit;
  const cursor = cursorOf(req);
  if (typeof cursor !== "number") return cursor;
  const start = reqNumber(q, "startTime", false);
  const end = reqNumber(q, "endTime", false);
  if (!start.ok || !end.ok) return p(req, "startTime / endTime invalid");
  const symbol = q.get("symbol")?.toUpperCase();
  const orderId = q.get("orderId");
  const linkId = q.get("orderLinkId");
  const src = req.account!.executions;
  const cat_ = catOf(q);
  const list = [];
  let next = "";
  let last = 0;
  for (let i = src.length - 1; i >= 0; i--) {
    const e = src[i]!;
    if (e.seq >= cursor) continue;
    if (e.order.inst.venue !== cat_) continue;
    if (start.v !== undefined && e.time < start.v) break;
    if (end.v !== undefined && e.time > end.v) continue;
    if (symbol !== undefined && e.order.inst.symbol !== symbol) continue;
    if (orderId !== undefined && e.order.id !== orderId) continue;
    if (linkId !== undefined && e.order.clientId !== linkId) continue;
    if (list.length === limit) {
      next = String(last);
      break;
    }
    list.push(v5ExecutionRecord(e));
    last = e.seq;
  }
  return v5Ok({ category: cat_, list, nextPageCursor: next }, req.serverNow);
};

const INSTRUMENT_ROWS: Array<[string, V5Instrument, string]> = HFT_INSTRUMENTS.map((i) => [
  i.symbol,
  {
    symbol: i.symbol,
    status: "Trading",
    baseCoin: i.base,
    quoteCoin: i.quote,
    lotSizeFilter: {
      qtyStep: i.qtyStep,
      minOrderQty: i.minQty,
      maxOrderQty: i.maxQty,
      minNotionalValue: String(i.minNotional),
    },
    priceFilter: { tickSize: i.tickSize, minPrice: i.tickSize, maxPrice: String(i.startMid * 20) },
    leverageFilter: { minLeverage: "1", maxLeverage: String(i.maxLeverage), leverageStep: "0.01" },
  },
  i.venue,
]);

const instruments: Handler = (req) => {
  const cat = category(req, req.query, true);
  if (cat !== undefined) return cat;
  const cat_ = catOf(req.query);
  const s = req.query.get("symbol")?.toUpperCase();
  const list = INSTRUMENT_ROWS.filter(([sym, , v]) => v === cat_ && (s === undefined || sym === s)).map(
    ([, row]) => row,
  );
  return v5Ok({ category: cat_, list, nextPageCursor: "" }, req.serverNow);
};

const tickers: Handler = (req) => {
  const cat = category(req, req.query, true);
  if (cat !== undefined) return cat;
  const cat_ = catOf(req.query);
  const s = req.query.get("symbol")?.toUpperCase();
  const now = req.exchange.clock.now();
  const list = [];
  for (const b of cat_ === "option" ? req.exchange.optionBooks : req.exchange.hftBooks) {
    if (s !== undefined && b.inst.symbol !== s) continue;
    const inst = b.inst;
    const bb = b.levels(true, 1)[0];
    const ba = b.levels(false, 1)[0];
    let open = 0;
    let high = 0;
    let low = 0;
    let vol = 0;
    let turnover = 0;
    for (const c of b.candles) {
      if (c.start < now - 86_400_000) continue;
      if (open === 0) {
        open = c.o;
        high = c.h;
        low = c.l;
      }
      high = Math.max(high, c.h);
      low = Math.min(low, c.l);
      vol += c.v;
      turnover += c.q;
    }
    const last = b.lastTicks * inst.tick;
    if (open === 0) open = high = low = last;
    list.push({
      symbol: inst.symbol,
      lastPrice: priceStr(inst, b.lastTicks),
      bid1Price: bb ? priceStr(inst, bb[0]) : "",
      bid1Size: bb ? qtyStr(inst, bb[1]) : "",
      ask1Price: ba ? priceStr(inst, ba[0]) : "",
      ask1Size: ba ? qtyStr(inst, ba[1]) : "",
      prevPrice24h: open.toFixed(inst.priceDecimals),
      price24hPcnt: ((last - open) / open).toFixed(6),
      highPrice24h: high.toFixed(inst.priceDecimals),
      lowPrice24h: low.toFixed(inst.priceDecimals),
      volume24h: vol.toFixed(inst.qtyDecimals),
      turnover24h: turnover.toFixed(2),
      markPrice: priceStr(inst, b.midTicks),
      indexPrice: priceStr(inst, b.midTicks),
      fundingRate: "0.0001",
    });
  }
  if (s !== undefined && list.length === 0) return p(req, `symbol invalid: ${s}`);
  return v5Ok({ category: cat_, list }, req.serverNow);
};

const orderbook: Handler = (req) => {
  const found = bookParam(req, req.query, true);
  if (found.reply !== undefined) return found.reply;
  const b = found.book;
  const lim = reqNumber(req.query, "limit", false);
  if (!lim.ok || (lim.v !== undefined && (!Number.isInteger(lim.v) || lim.v < 1 || lim.v > 500)))
    return p(req, "limit invalid: 1 to 500");
  const n = lim.v ?? 25;
  const fmt = (lv: Array<[number, number]>) => lv.map(([pt, l]) => [priceStr(b.inst, pt), qtyStr(b.inst, l)]);
  const now = req.exchange.clock.now();
  return v5Ok(
    { s: b.inst.symbol, b: fmt(b.levels(true, n)), a: fmt(b.levels(false, n)), ts: now, u: b.trades.length },
    req.serverNow,
  );
};

const marketTime: Handler = (req) =>
  v5Ok(
    { timeSecond: String(Math.floor(req.serverNow / 1000)), timeNano: `${req.serverNow}000000` },
    req.serverNow,
  );

const positions: Handler = (req) => {
  const cat = category(req, req.query);
  if (cat !== undefined) return cat;
  const s = req.query.get("symbol")?.toUpperCase();
  const list = [];
  const cat_ = catOf(req.query);
  for (const pos of req.account!.positions.values()) {
    if (s !== undefined && pos.symbol !== s) continue;
    const book = req.exchange.hftBook(pos.symbol)!;
    if (book.inst.venue !== cat_) continue;
    list.push(v5PositionRecord(pos, book));
  }
  return v5Ok({ category: cat_, list, nextPageCursor: "" }, req.serverNow);
};

const setLeverage: Handler = (req) => {
  const b = req.body;
  const found = bookParam(req, b);
  if (found.reply !== undefined) return found.reply;
  const book = found.book;
  const bl = reqNumber(b, "buyLeverage", true);
  if (!bl.ok) return p(req, "buyLeverage is missing (required parameter)");
  const sl = reqNumber(b, "sellLeverage", true);
  if (!sl.ok) return p(req, "sellLeverage is missing (required parameter)");
  const max = book.inst.maxLeverage;
  for (const [name, v] of [
    ["buyLeverage", bl.v!],
    ["sellLeverage", sl.v!],
  ] as const) {
    if (v < 1 || v > max || toSteps(v, 0.01) === undefined)
      return p(req, `${name} invalid: 1 to ${max} in steps of 0.01`);
  }
  const acct = req.account!;
  if (acct.positionMode === 0 && bl.v !== sl.v)
    return p(req, "buyLeverage must equal sellLeverage in one-way mode");
  acct.leverage.set(book.inst.symbol, { buy: bl.v!, sell: sl.v! });
  return v5Ok({}, req.serverNow);
};

const switchMode: Handler = (req) => {
  const b = req.body;
  const cat = category(req, b);
  if (cat !== undefined) return cat;
  const coin = reqString(b, "coin", true);
  if (!coin.ok) return p(req, "coin is missing (required parameter)");
  if (coin.v!.toUpperCase() !== "USDT") return p(req, `coin invalid: ${coin.v}`);
  const mode = b.mode;
  if (mode === undefined || mode === null) return p(req, "mode is missing (required parameter)");
  if (mode !== 0 && mode !== 3 && mode !== "0" && mode !== "3")
    return p(req, "mode invalid: expected 0 (one-way) or 3 (hedge)");
  const acct = req.account!;
  if (req.exchange.hftHasOpen(acct)) {
    return v5Err(
      RET_SWITCH_MODE_BLOCKED,
      "cannot switch position mode with open orders or positions",
      req.serverNow,
    );
  }
  acct.positionMode = Number(mode) as 0 | 3;
  return v5Ok({}, req.serverNow);
};

const transfer: Handler = (req) => {
  const b = req.body;
  const dir = reqString(b, "direction", true);
  if (!dir.ok) return p(req, "direction is missing (required parameter)");
  if (dir.v !== "IN" && dir.v !== "OUT") return p(req, "direction invalid: expected IN or OUT");
  const amt = reqNumber(b, "amount", true);
  if (!amt.ok) return p(req, "amount is missing (required parameter)");
  if (amt.v! <= 0) return p(req, "amount must be greater than 0");
  const qa = reqString(b, "quote_asset", false);
  if (!qa.ok) return p(req, "quote_asset invalid");
  if ((qa.v ?? "USDT").toUpperCase() !== "USDT")
    return v5Err(RET_TRANSFER, "account settlement currency is USDT", req.serverNow);
  const txn = reqString(b, "client_txn_id", false);
  if (!txn.ok) return p(req, "client_txn_id invalid");
  const acct = req.account!;
  if (txn.v !== undefined && acct.transferIds.has(txn.v))
    return v5Err(RET_TRANSFER, "duplicate client_txn_id", req.serverNow);
  const wallet = acct.balance("USDT");
  const amount = amt.v!;
  if (dir.v === "IN") {
    if (wallet.available + 1e-9 < amount)
      return v5Err(RET_TRANSFER, "Amount is more than available balance", req.serverNow);
    wallet.available -= amount;
    acct.margin += amount;
  } else {
    const free = acct.availableMargin((s) => req.exchange.hftBook(s)!.inst.step);
    if (free + 1e-9 < amount)
      return v5Err(RET_TRANSFER, "Amount is more than available balance", req.serverNow);
    acct.margin -= amount;
    wallet.available += amount;
  }
  if (txn.v !== undefined) acct.transferIds.add(txn.v);
  acct.hftFunded = true;
  // [assumed] enveloped like /v5; the docs show no response.
  return v5Ok(
    {
      direction: dir.v,
      amount: String(amount),
      quote_asset: "USDT",
      client_txn_id: txn.v ?? "",
      status: "SUCCESS",
      balance: String(num(acct.margin)),
    },
    req.serverNow,
  );
};

const SOCKET_SECRET = "hftgate-sim-socket";

const socketSignature: Handler = (req) => {
  const e = reqNumber(req.query, "expires_in_seconds", false);
  if (!e.ok || (e.v !== undefined && (!Number.isInteger(e.v) || e.v < 1 || e.v > 86_400))) {
    return p(req, "expires_in_seconds invalid: 1 to 86400");
  }
  const asked = (e.v ?? 300) * 1000;
  const cap = req.exchange.socketTtlCapMs;
  const expires = req.serverNow + (cap > 0 ? Math.min(cap, asked) : asked);
  // One WebSocket key per issuance [assumed]: the NATS server holds each credential as its own user.
  const wsKey = createHash("sha256").update(`${req.account!.apiKey}:${expires}`).digest("hex").slice(0, 32);
  const signature = createHmac("sha256", SOCKET_SECRET).update(`${wsKey}${expires}`).digest("hex");
  // Bare object, not enveloped [docs].
  const body = JSON.stringify({ api_key: wsKey, expires, signature });
  const ready = req.exchange.socketGrant?.(req.account!, wsKey, signature, expires);
  return { status: 200, body, ready };
};

export function hftRoutes(cancelEnabled: boolean): RouteDef[] {
  const r: RouteDef[] = [
    { method: "GET", path: "/v5/market/time", handler: marketTime, bucket: "hft", auth: "optional" },
    {
      method: "GET",
      path: "/v5/market/instruments-info",
      handler: instruments,
      bucket: "hft",
      auth: "optional",
    },
    { method: "GET", path: "/v5/market/tickers", handler: tickers, bucket: "hft", auth: "optional" },
    { method: "GET", path: "/v5/market/orderbook", handler: orderbook, bucket: "hft", auth: "optional" },
    { method: "POST", path: "/v5/order/create", handler: createOrder, bucket: "hft", auth: "required" },
    { method: "GET", path: "/v5/order/realtime", handler: realtime, bucket: "hft", auth: "required" },
    { method: "GET", path: "/v5/execution/list", handler: executions, bucket: "hft", auth: "required" },
    { method: "GET", path: "/v5/position/list", handler: positions, bucket: "hft", auth: "required" },
    {
      method: "POST",
      path: "/v5/position/set-leverage",
      handler: setLeverage,
      bucket: "hft",
      auth: "required",
    },
    {
      method: "POST",
      path: "/v5/position/switch-mode",
      handler: switchMode,
      bucket: "hft",
      auth: "required",
    },
    {
      method: "POST",
      path: "/dma/api/v1/funds/transfer",
      handler: transfer,
      bucket: "hft",
      auth: "required",
    },
    {
      method: "GET",
      path: "/dma/api/v1/socket/signature",
      handler: socketSignature,
      bucket: "hft",
      auth: "required",
    },
  ];
  if (cancelEnabled) {
    r.push({
      method: "POST",
      path: "/v5/order/cancel",
      handler: cancelOrder,
      bucket: "hft",
      auth: "required",
    });
    r.push({ method: "POST", path: "/v5/order/amend", handler: amendOrder, bucket: "hft", auth: "required" });
  }
  r.push({
    method: "GET",
    path: "/v5/account/wallet-balance",
    handler: walletBalance,
    bucket: "hft",
    auth: "required",
  });
  return r;
}
