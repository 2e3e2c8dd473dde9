/**
 * Reference prices for the risk gate (price band, market-order value cap), from the venue's market
 * data through the market data hub: the Spot public order-book and trade streams (Socket.IO,
 * docs/venue-api.md §6.1) and the HFT public NATS subjects `ltp`, `depth-update` and `ticker` (§6.4). For
 * HFT, `GET /v5/market/tickers` (§3.10; one request covers every symbol) is the fallback: polled
 * while any HFT instrument has no live public feed (no NATS, connection down, or its book silent past
 * the hub's stale window), skipped while every one is live. A price is the newest of the last trade,
 * the two-sided mid and the ticker's last price; the gate ages it out after `risk.referenceMaxAgeMs`,
 * so a feed that stops never leaves a stale band behind.
 */
import type { Logger } from "pino";
import type { RateLimiter } from "../limits/limiter.js";
import type { MarketDataHub } from "../marketdata/hub.js";
import { MdKind, type MdKindValue, type MdListener, type MdState } from "../marketdata/types.js";
import type { RestClient } from "../rest/client.js";
import type { RiskGate } from "../risk/riskGate.js";
import type { InstrumentBook, InstrumentEntry } from "./instruments.js";

export interface ReferencePricesOptions {
  risk: RiskGate;
  instruments: InstrumentBook;
  client: RestClient;
  /** The account-wide limiter: a tickers poll takes an `hft.other` token or is skipped. */
  limiter: RateLimiter | undefined;
  log: Logger;
  hub: MarketDataHub;
  /** Hold the Spot public streams of every loaded Spot instrument. */
  spotStream: boolean;
  /** Hold the HFT public subjects of every HFT instrument the hub covers. */
  hftStream: boolean;
  hftCategory: string;
  /** HFT tickers poll interval (ms) while the public feed is not live; 0 = no HFT fallback. */
  hftPollMs: number;
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

export class ReferencePrices implements MdListener {
  readonly stats = {
    spotUpdates: 0,
    hftStreamUpdates: 0,
    hftPolls: 0,
    hftUpdates: 0,
    hftSkipped: 0,
    hftFailed: 0,
    /** Poll rounds not made because every HFT instrument's public feed was live. */
    hftStreamLive: 0,
  };
  private readonly o: ReferencePricesOptions;
  private readonly held: number[] = [];
  private readonly hftBySymbol = new Map<string, InstrumentEntry>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private stopped = false;
  private failureLogged = false;

  constructor(o: ReferencePricesOptions) {
    this.o = o;
    for (const inst of o.instruments.all()) {
      if (inst.surface === "hft" && inst.venue === o.hftCategory)
        this.hftBySymbol.set(inst.symbol, o.instruments.byId(inst.id)!);
    }
  }

  /** Holds the streams and makes the first HFT poll (awaited, so orders see it from the start). */
  async start(): Promise<void> {
    for (const inst of this.o.instruments.all()) {
      const want = inst.surface === "spot" ? this.o.spotStream : this.o.hftStream;
      if (want && this.o.hub.acquire(inst.id, this)) this.held.push(inst.id);
    }
    if (this.o.hftPollMs > 0 && this.hftBySymbol.size > 0) {
      await this.pollHft();
      this.schedule();
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const id of this.held) this.o.hub.release(id, this);
    this.held.length = 0;
  }

  /** Every HFT instrument has a live public feed (the poll is not needed). */
  hftStreamLive(): boolean {
    for (const e of this.hftBySymbol.values()) if (this.o.hub.state(e.inst.id)?.live !== true) return false;
    return this.hftBySymbol.size > 0;
  }

  onUpdate(s: Readonly<MdState>, _kind: MdKindValue): void {
    // The newest of the last trade, the ticker's last price and the mid: a quiet pair's old print must
    // not outlive its book. A book stamped the same millisecond as a print is the book after it.
    const twoSided = s.bidTicks > 0 && s.askTicks > 0;
    let px = 0;
    let ts = -1;
    if (s.tradeTs > 0) {
      px = s.tradeTicks;
      ts = s.tradeTs;
    }
    if (s.tickerTs > ts && s.tickerTicks > 0) {
      px = s.tickerTicks;
      ts = s.tickerTs;
    }
    if (twoSided && s.bookTs >= ts) px = (s.bidTicks + s.askTicks) / 2;
    if (!(px > 0)) return;
    this.o.risk.setReferencePrice(s.instrumentId, px);
    if (this.o.instruments.byId(s.instrumentId)?.inst.surface === "spot") this.stats.spotUpdates++;
    else this.stats.hftStreamUpdates++;
  }

  onStatus(s: Readonly<MdState>): void {
    if (s.live) this.onUpdate(s, MdKind.Book);
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
    if (this.hftStreamLive()) {
      this.stats.hftStreamLive++;
      return;
    }
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
        // A live stream's price is newer than a poll that raced it.
        if (this.o.hub.state(e.inst.id)?.live === true) continue;
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
