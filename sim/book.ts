/**
 * A price-time priority order book on integer ticks and lots. Sides are arrays kept sorted best
 * first (price, then arrival sequence); the books here are shallow, so binary-search insert and
 * splice beat a tree in practice.
 */
import type { SimInstrument } from "./instruments.js";
import type { SimOrder } from "./order.js";

export interface PublicTrade {
  time: number;
  priceTicks: number;
  lots: number;
  /** Taker side was buy. */
  takerBuy: boolean;
  id: number;
}

/** One-minute candle on quote prices (numbers) built from trades. */
export interface Candle {
  start: number;
  o: number;
  h: number;
  l: number;
  c: number;
  /** Base volume, quote volume. */
  v: number;
  q: number;
  lastTradeTime: number;
}

const TRADE_RING = 500;
const CANDLE_KEEP = 1440 * 2;

export class Book {
  readonly inst: SimInstrument;
  readonly bids: SimOrder[] = [];
  readonly asks: SimOrder[] = [];
  midTicks: number;
  lastTicks: number;
  readonly trades: PublicTrade[] = [];
  readonly candles: Candle[] = [];
  private tradeSeq = 0;
  /** Synthetic order size unit in lots. */
  readonly baseLots: number;

  constructor(inst: SimInstrument) {
    this.inst = inst;
    this.midTicks = Math.round(inst.startMid / inst.tick);
    this.lastTicks = this.midTicks;
    const unit = inst.quote === "INR" ? 50_000 : 600;
    this.baseLots = Math.max(inst.minLots, Math.round(unit / (inst.startMid * inst.step)));
  }

  side(buy: boolean): SimOrder[] {
    return buy ? this.bids : this.asks;
  }

  insert(o: SimOrder): void {
    const arr = o.buy ? this.bids : this.asks;
    // First index whose price is strictly worse than o's: equal prices keep arrival order.
    let lo = 0;
    let hi = arr.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const p = arr[mid]!.priceTicks;
      const worse = o.buy ? p < o.priceTicks : p > o.priceTicks;
      if (worse) hi = mid;
      else lo = mid + 1;
    }
    arr.splice(lo, 0, o);
    o.inBook = true;
  }

  remove(o: SimOrder): void {
    if (!o.inBook) return;
    const arr = o.buy ? this.bids : this.asks;
    const i = arr.indexOf(o);
    if (i !== -1) arr.splice(i, 1);
    o.inBook = false;
  }

  /** Removes every synthetic resting order (owner null). */
  clearSynthetic(): void {
    for (const arr of [this.bids, this.asks]) {
      let w = 0;
      for (let r = 0; r < arr.length; r++) {
        const o = arr[r]!;
        if (o.owner === null) o.inBook = false;
        else arr[w++] = o;
      }
      arr.length = w;
    }
  }

  /** Lots available to a taker up to a limit price (for FOK). */
  availableTo(buy: boolean, limitTicks: number, want: number): number {
    const arr = buy ? this.asks : this.bids;
    let sum = 0;
    for (let i = 0; i < arr.length && sum < want; i++) {
      const o = arr[i]!;
      if (buy ? o.priceTicks > limitTicks : o.priceTicks < limitTicks) break;
      sum += o.leavesLots;
    }
    return sum;
  }

  bestBid(): number | undefined {
    return this.bids[0]?.priceTicks;
  }

  bestAsk(): number | undefined {
    return this.asks[0]?.priceTicks;
  }

  recordTrade(time: number, priceTicks: number, lots: number, takerBuy: boolean): PublicTrade {
    const t = { time, priceTicks, lots, takerBuy, id: ++this.tradeSeq };
    if (this.trades.length >= TRADE_RING) this.trades.shift();
    this.trades.push(t);
    this.lastTicks = priceTicks;
    const price = priceTicks * this.inst.tick;
    const qty = lots * this.inst.step;
    const start = time - (time % 60_000);
    let c = this.candles[this.candles.length - 1];
    if (c === undefined || c.start !== start) {
      c = { start, o: price, h: price, l: price, c: price, v: 0, q: 0, lastTradeTime: time };
      if (this.candles.length >= CANDLE_KEEP) this.candles.shift();
      this.candles.push(c);
    }
    if (price > c.h) c.h = price;
    if (price < c.l) c.l = price;
    c.c = price;
    c.v += qty;
    c.q += qty * price;
    c.lastTradeTime = time;
    return t;
  }

  /** Aggregated levels `[price, qty]` best first, up to `depth` levels per side. */
  levels(buy: boolean, depth: number): Array<[number, number]> {
    const arr = buy ? this.bids : this.asks;
    const out: Array<[number, number]> = [];
    for (let i = 0; i < arr.length; i++) {
      const o = arr[i]!;
      const last = out[out.length - 1];
      if (last !== undefined && last[0] === o.priceTicks) last[1] += o.leavesLots;
      else {
        if (out.length >= depth) break;
        out.push([o.priceTicks, o.leavesLots]);
      }
    }
    return out;
  }
}
