/**
 * Reference prices for the risk gate (price band, market-order value cap), from the market data the
 * venue offers: Spot public order-book and trade streams (Socket.IO, exchange-api §6.1) and, for HFT,
 * `GET /v5/market/tickers` polled at a modest interval (§3.10; one request covers every symbol) until
 * the NATS public feeds exist. A price is the newest of the last trade and the two-sided mid; the gate
 * ages it out after `risk.referenceMaxAgeMs`, so a feed that stops never leaves a stale band behind.
 */
import type { Logger } from "pino";
import type { RateLimiter } from "../limits/limiter.js";
import type { RestClient } from "../rest/client.js";
import type { RiskGate } from "../risk/riskGate.js";
import { MarketData, type Top, TopOfBook, topKey } from "../streams/marketData.js";
import type { InstrumentBook, InstrumentEntry } from "./instruments.js";

export interface ReferencePricesOptions {
  risk: RiskGate;
  instruments: InstrumentBook;
  client: RestClient;
  /** The account-wide limiter: a tickers poll takes an `hft.other` token or is skipped. */
  limiter: RateLimiter | undefined;
  log: Logger;
  /** Origin of the Spot public streams (the simulator's URL for venue `sim`). */
  streamBaseUrl: string;
  /** Subscribe the Spot public streams of every loaded Spot instrument. */
  spotStream: boolean;
  hftCategory: string;
  /** HFT tickers poll interval (ms); 0 = no HFT reference prices. */
  hftPollMs: number;
  /** Silence after which a Spot public stream reconnects (engine.io pings count). */
  staleMs?: number;
}

/** One row of `/v5/market/tickers` [assumed, Bybit-v5 model; the fields the simulator serves]. */
interface TickerRow {
  symbol?: unknown;
  lastPrice?: unknown;
  bid1Price?: unknown;
  ask1Price?: unknown;
}

const positive = (v: unknown): number => {
  const n = typeof v === "string" && v !== "" ? Number(v) : typeof v === "number" ? v : Number.NaN;
  return Number.isFinite(n) && n > 0 ? n : 0;
};

export class ReferencePrices {
  readonly market: MarketData | undefined;
  readonly stats = { spotUpdates: 0, hftPolls: 0, hftUpdates: 0, hftSkipped: 0, hftFailed: 0 };
  private readonly o: ReferencePricesOptions;
  /** `exchange:PAIR` (TopOfBook keys) → Spot instrument. */
  private readonly spotByKey = new Map<string, InstrumentEntry>();
  private readonly hftBySymbol = new Map<string, InstrumentEntry>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private stopped = false;
  private failureLogged = false;

  constructor(o: ReferencePricesOptions) {
    this.o = o;
    const pairs: Record<string, string[]> = {};
    for (const inst of o.instruments.all()) {
      const e = o.instruments.byId(inst.id)!;
      if (inst.surface === "spot") {
        const pair = `${inst.base},${inst.quote}`;
        this.spotByKey.set(topKey(inst.venue, pair), e);
        const list = pairs[inst.venue] ?? [];
        list.push(pair);
        pairs[inst.venue] = list;
      } else if (inst.venue === o.hftCategory) {
        this.hftBySymbol.set(inst.symbol, e);
      }
    }
    if (o.spotStream && this.spotByKey.size > 0) {
      this.market = new MarketData({
        baseUrl: o.streamBaseUrl,
        pairs,
        book: new TopOfBook((t) => this.onSpot(t)),
        feeds: { book: true, trades: true, candles: false },
        staleMs: o.staleMs,
      });
    }
  }

  /** Opens the Spot streams and makes the first HFT poll (awaited, so orders see it from the start). */
  async start(): Promise<void> {
    this.market?.start();
    if (this.o.hftPollMs > 0 && this.hftBySymbol.size > 0) {
      await this.pollHft();
      this.schedule();
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.market?.stop();
  }

  private onSpot(t: Readonly<Top>): void {
    const e = this.spotByKey.get(t.key);
    if (e === undefined) return;
    const twoSided = t.bid > 0 && t.ask > 0;
    // The newer of the last trade and the mid: a quiet pair's old print must not outlive its book. A
    // snapshot stamped the same millisecond as a print is the book after it, so the mid wins a tie.
    const useMid = twoSided && t.bookTs >= t.lastTs;
    const px = useMid ? (t.bid + t.ask) / 2 : t.lastTs > 0 ? t.last : 0;
    if (!(px > 0)) return;
    this.o.risk.setReferencePrice(e.inst.id, px / e.grid.tickNum);
    this.stats.spotUpdates++;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.pollHft().finally(() => this.schedule());
    }, this.o.hftPollMs);
    this.timer.unref();
  }

  /** One tickers request for the category; rows of unknown symbols are ignored. */
  async pollHft(): Promise<void> {
    if (this.polling || this.stopped) return;
    const lim = this.o.limiter?.acquire("hft.other", "query", 0);
    if (lim !== undefined && lim.status !== "granted") {
      // No room now (deadline 0 never queues): skip this round rather than compete with orders.
      this.stats.hftSkipped++;
      return;
    }
    this.polling = true;
    this.stats.hftPolls++;
    try {
      const res = await this.o.client.call<{ list?: unknown }>("hft.tickers", [
        ["category", this.o.hftCategory],
      ]);
      this.o.limiter?.reportOutcome("hft.other", 200);
      const list = Array.isArray(res?.list) ? (res.list as TickerRow[]) : [];
      for (const row of list) {
        const e = typeof row?.symbol === "string" ? this.hftBySymbol.get(row.symbol) : undefined;
        if (e === undefined) continue;
        const bid = positive(row.bid1Price);
        const ask = positive(row.ask1Price);
        const px = positive(row.lastPrice) || (bid > 0 && ask > 0 ? (bid + ask) / 2 : 0);
        if (px === 0) continue;
        this.o.risk.setReferencePrice(e.inst.id, px / e.grid.tickNum);
        this.stats.hftUpdates++;
      }
      this.failureLogged = false;
    } catch (err) {
      this.o.limiter?.reportOutcome("hft.other", (err as { status?: number }).status ?? 0);
      this.stats.hftFailed++;
      // Once per failure streak: the gate ages the old prices out by itself.
      if (!this.failureLogged) this.o.log.warn({ err: (err as Error).message }, "HFT tickers poll failed");
      this.failureLogged = true;
    } finally {
      this.polling = false;
    }
  }
}
