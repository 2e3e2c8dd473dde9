/**
 * The HFT public market data subjects of docs/venue-api.md §6.4, published by the simulator from its books
 * through the same NATS publisher as the private streams (`publish`): every public trade of an HFT
 * book on `v1.f.public.futures.ltp.<BASE/QUOTE>`, the top of book on `...depth-update.<m>` (a full
 * top-5 snapshot: at every market step, and after any order change that moved the top), and 24 h
 * stats on `v1.f.ex1.public.futures.ticker.<m>` at every market step. Payload fields are [assumed]
 * (the venue's are not published, §11 q9); docs/simulator.md lists them.
 */
import type { Book, PublicTrade } from "../book.js";
import type { Exchange } from "../exchange.js";
import { priceStr, qtyStr } from "../instruments.js";

export const LTP_SUBJECT = "v1.f.public.futures.ltp";
export const DEPTH_SUBJECT = "v1.f.public.futures.depth-update";
export const TICKER_SUBJECT = "v1.f.ex1.public.futures.ticker";
const DEPTH_LEVELS = 5;

/** Publishes one message; false when it could not go out (no connection, paused). */
export type NatsPublish = (subject: string, payload: string) => boolean;

export interface SimNatsPublicCounters {
  ltp: number;
  depth: number;
  ticker: number;
  /** Messages that could not be published (server down, paused). */
  lost: number;
}

export class SimNatsPublic {
  readonly counters: SimNatsPublicCounters = { ltp: 0, depth: 0, ticker: 0, lost: 0 };
  /** Last published top per book (`bidTicks:bidLots:askTicks:askLots`). */
  private readonly lastTop = new Map<Book, string>();

  constructor(
    private readonly exchange: Exchange,
    private readonly publish: NatsPublish,
  ) {}

  trade(b: Book, t: PublicTrade): void {
    // Linear only: the subjects name a market (`BTC/USDT`), not a category; options would collide.
    if (b.inst.surface !== "hft" || b.inst.venue !== "linear") return;
    const inst = b.inst;
    this.send("ltp", `${LTP_SUBJECT}.${market(b)}`, {
      s: market(b),
      p: priceStr(inst, t.priceTicks),
      q: qtyStr(inst, t.lots),
      S: t.takerBuy ? "Buy" : "Sell",
      E: t.time,
      id: String(t.id),
    });
  }

  /** After an order change on an HFT book: a depth message if its top moved. */
  bookChanged(b: Book): void {
    if (b.inst.surface === "hft" && b.inst.venue === "linear") this.depth(b, false);
  }

  marketStep(): void {
    for (const b of this.exchange.hftBooks) {
      this.depth(b, true);
      this.ticker(b);
    }
  }

  private depth(b: Book, always: boolean): void {
    const bids = b.levels(true, DEPTH_LEVELS);
    const asks = b.levels(false, DEPTH_LEVELS);
    const top = `${bids[0]?.[0]}:${bids[0]?.[1]}:${asks[0]?.[0]}:${asks[0]?.[1]}`;
    if (!always && this.lastTop.get(b) === top) return;
    this.lastTop.set(b, top);
    const inst = b.inst;
    const side = (l: Array<[number, number]>) => l.map(([p, q]) => [priceStr(inst, p), qtyStr(inst, q)]);
    this.send("depth", `${DEPTH_SUBJECT}.${market(b)}`, {
      s: market(b),
      E: this.exchange.clock.now(),
      b: side(bids),
      a: side(asks),
    });
  }

  private ticker(b: Book): void {
    const inst = b.inst;
    const now = this.exchange.clock.now();
    let high = 0;
    let low = 0;
    let vol = 0;
    for (const c of b.candles) {
      if (c.start < now - 86_400_000) continue;
      high = high === 0 ? c.h : Math.max(high, c.h);
      low = low === 0 ? c.l : Math.min(low, c.l);
      vol += c.v;
    }
    const bb = b.levels(true, 1)[0];
    const ba = b.levels(false, 1)[0];
    this.send("ticker", `${TICKER_SUBJECT}.${market(b)}`, {
      t: 0,
      e: "COINSWITCHX",
      s: market(b),
      E: now,
      lastPrice: priceStr(inst, b.lastTicks),
      bid1Price: bb ? priceStr(inst, bb[0]) : "",
      ask1Price: ba ? priceStr(inst, ba[0]) : "",
      highPrice24h: high.toFixed(inst.priceDecimals),
      lowPrice24h: low.toFixed(inst.priceDecimals),
      volume24h: vol.toFixed(inst.qtyDecimals),
      fundingRate: "0.0001",
    });
  }

  private send(kind: "ltp" | "depth" | "ticker", subject: string, body: unknown): void {
    if (this.publish(subject, JSON.stringify(body))) this.counters[kind]++;
    else this.counters.lost++;
  }
}

/** The subject's market token: `BTC/USDT` for `BTCUSDT`. */
function market(b: Book): string {
  return `${b.inst.base}/${b.inst.quote}`;
}
