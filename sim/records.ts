/** Builds the wire records of src/rest/wire.ts from exchange state. */
import type {
  FuturesOrderRecord,
  SpotBalanceUpdate,
  SpotOrderRecord,
  SpotPortfolioRow,
  V5Execution,
  V5OrderRecord,
  V5Position,
} from "../src/rest/wire.js";
import type { Execution, SimAccount, SimPosition } from "./account.js";
import type { Book } from "./book.js";
import { priceStr, qtyStr } from "./instruments.js";
import type { SimOrder } from "./order.js";

/** Rounds away binary noise for JSON numbers (Spot returns numbers). */
export function num(x: number, decimals = 8): number {
  return Number(x.toFixed(decimals));
}

const COIN_NAMES: Record<string, string> = {
  INR: "Indian Rupee",
  USDT: "Tether",
  BTC: "Bitcoin",
  ETH: "Ethereum",
};

export function spotRecord(o: SimOrder): SpotOrderRecord {
  const inst = o.inst;
  const execQty = o.execLots * inst.step;
  return {
    order_id: o.id,
    client_order_id: o.clientId === "" ? null : o.clientId,
    symbol: inst.symbol,
    price: num(o.priceTicks * inst.tick, inst.priceDecimals),
    average_price: o.execLots === 0 ? 0 : num(o.cumValue / execQty, inst.priceDecimals + 2),
    orig_qty: num(o.origLots * inst.step, inst.qtyDecimals),
    executed_qty: num(execQty, inst.qtyDecimals),
    status: o.spotStatus,
    side: o.buy ? "BUY" : "SELL",
    type: "LIMIT",
    exchange: inst.venue,
    order_source: "API_TRADING",
    created_time: o.createdAt,
    updated_time: o.updatedAt,
  };
}

/** The [assumed] Futures order record: every number a decimal string, times as ms strings. */
export function futuresRecord(o: SimOrder): FuturesOrderRecord {
  const inst = o.inst;
  const execQty = o.execLots * inst.step;
  return {
    order_id: o.id,
    client_order_id: o.clientId === "" ? null : o.clientId,
    symbol: inst.symbol,
    side: o.buy ? "BUY" : "SELL",
    order_type: o.market ? "MARKET" : "LIMIT",
    status: o.futStatus,
    price: o.market ? "0" : priceStr(inst, o.priceTicks),
    avg_price: o.execLots === 0 ? "0" : (o.cumValue / execQty).toFixed(inst.priceDecimals + 2),
    quantity: qtyStr(inst, o.origLots),
    executed_quantity: qtyStr(inst, o.execLots),
    time_in_force: o.tif,
    reduce_only: o.reduceOnly,
    exchange: "EXCHANGE_2",
    created_at: String(o.createdAt),
    updated_at: String(o.updatedAt),
  };
}

export function v5Record(o: SimOrder): V5OrderRecord {
  const inst = o.inst;
  return {
    symbol: inst.symbol,
    orderId: o.id,
    orderLinkId: o.clientId,
    orderType: o.market ? "Market" : "Limit",
    orderStatus: o.v5Status,
    side: o.buy ? "Buy" : "Sell",
    qty: qtyStr(inst, o.origLots),
    price: o.market ? "0" : priceStr(inst, o.priceTicks),
    timeInForce: o.market && o.tif === "GTC" ? "IOC" : o.tif,
    leavesQty: qtyStr(inst, o.v5Status === "New" || o.v5Status === "PartiallyFilled" ? o.leavesLots : 0),
    cumExecQty: qtyStr(inst, o.execLots),
    cumExecValue: String(num(o.cumValue)),
    cumExecFee: String(num(o.cumFee)),
    avgPrice:
      o.execLots === 0 ? "" : String(num(o.cumValue / (o.execLots * inst.step), inst.priceDecimals + 2)),
    lastPriceOnCreated: o.lastPriceOnCreated,
    positionIdx: o.positionIdx,
    createdTime: String(o.createdAt),
    updatedTime: String(o.updatedAt),
    rejectReason: "EC_NoError",
  };
}

export function v5ExecutionRecord(e: Execution): V5Execution {
  const o = e.order;
  const inst = o.inst;
  return {
    symbol: inst.symbol,
    orderId: o.id,
    orderLinkId: o.clientId,
    side: o.buy ? "Buy" : "Sell",
    orderPrice: o.market ? "0" : priceStr(inst, o.priceTicks),
    orderQty: qtyStr(inst, o.origLots),
    execId: e.execId,
    execPrice: priceStr(inst, e.priceTicks),
    execQty: qtyStr(inst, e.lots),
    execValue: String(num(e.value)),
    execFee: String(num(e.fee)),
    execTime: String(e.time),
    isMaker: e.isMaker,
    leavesQty: qtyStr(inst, e.leavesLots),
  };
}

export function v5PositionRecord(p: SimPosition, book: Book): V5Position {
  const inst = book.inst;
  const size = Math.abs(p.lots);
  const mark = book.lastTicks * inst.tick;
  const upnl = p.lots * inst.step * (mark - p.avgPrice);
  return {
    symbol: p.symbol,
    positionIdx: p.positionIdx,
    side: p.lots > 0 ? "Buy" : p.lots < 0 ? "Sell" : "",
    size: qtyStr(inst, size),
    avgPrice: p.lots === 0 ? "0" : String(num(p.avgPrice, inst.priceDecimals + 2)),
    positionValue: String(num(size * inst.step * p.avgPrice)),
    leverage: String(p.leverage),
    unrealisedPnl: String(num(upnl)),
    cumRealisedPnl: String(num(p.realised)),
    updatedTime: String(p.updatedAt),
  };
}

/** Portfolio rows; `rate` gives the last price of a coin in INR (0 when unknown). */
export function portfolioRows(a: SimAccount, rate: (coin: string) => number): SpotPortfolioRow[] {
  const rows: SpotPortfolioRow[] = [];
  for (const [cur, b] of a.spot) {
    const r = cur === "INR" ? 1 : rate(cur);
    const total = b.available + b.blocked;
    // Reported quirk [inferred-3p]: crypto rows carry strings, the INR row numbers. Reproduced.
    const main = cur === "INR" ? num(b.available, 2) : num(b.available).toString();
    const blocked = cur === "INR" ? num(b.blocked, 2) : num(b.blocked).toString();
    rows.push({
      currency: cur,
      name: COIN_NAMES[cur] ?? cur,
      main_balance: main,
      blocked_balance_order: blocked,
      buy_average_price: 0,
      invested_value: 0,
      invested_value_excluding_fee: 0,
      current_value: num(total * r, 2),
      sell_rate: num(r, 2),
      buy_rate: num(r, 2),
      is_average_price_available: false,
      is_delisted_coin: false,
    });
  }
  return rows;
}

export function balanceUpdate(a: SimAccount, rate: (coin: string) => number, now: number): SpotBalanceUpdate {
  return { balances: portfolioRows(a, rate), timestamp: now };
}
