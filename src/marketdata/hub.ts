/**
 * The market data hub: one state per instrument in integer ticks and lots, fed by the venue adapters
 * (Spot Socket.IO public streams, HFT public NATS subjects), heard by the feed's holders (the command
 * API's fan-out to strategies, the risk reference prices). Each instrument's venue subscription is
 * held while at least one holder wants it: the adapter is asked once, whoever and however many hold
 * it (refcounted). Every applied update gets the instrument's next sequence number.
 */
import { monoNs } from "../protocol/clock.js";
import { CandleBuilder } from "./candles.js";
import {
  type CandleRec,
  MdKind,
  type MdListener,
  type MdSink,
  type MdState,
  type MdUpstream,
} from "./types.js";

export interface HubOptions {
  /** The adapter that serves an instrument, or undefined when no feed covers it. */
  upstreamFor(id: number): MdUpstream | undefined;
  /** No book for this long while live → stale (0 = never). */
  staleMs: number;
  /** Built candles close this long after their minute ended when no later print closed them. */
  candleGraceMs: number;
  now?: () => number;
}

interface Entry {
  readonly state: MdState;
  readonly upstream: MdUpstream;
  readonly listeners: MdListener[];
  /** Local ms of the last book (staleness). */
  lastBookMs: number;
  /** Candles built here (the adapter's venue gives none). */
  builder: CandleBuilder | undefined;
  /** The adapter reported this instrument's connection down and not back yet. */
  down: boolean;
}

export interface HubStats {
  books: number;
  trades: number;
  candles: number;
  tickers: number;
  staleTrips: number;
  /** Messages for instruments nobody holds (after a release, before the venue stops sending). */
  unheld: number;
}

export class MarketDataHub implements MdSink {
  readonly stats: HubStats = { books: 0, trades: 0, candles: 0, tickers: 0, staleTrips: 0, unheld: 0 };
  private readonly entries = new Map<number, Entry>();
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: HubOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Whether a feed covers the instrument (a subscription to it can be served). */
  available(id: number): boolean {
    return this.o.upstreamFor(id) !== undefined;
  }

  /** Starts holding the instrument's feed for `l`; false when no feed covers it. */
  acquire(id: number, l: MdListener): boolean {
    let e = this.entries.get(id);
    if (e === undefined) {
      const upstream = this.o.upstreamFor(id);
      if (upstream === undefined) return false;
      e = {
        state: blank(id),
        upstream,
        listeners: [],
        lastBookMs: 0,
        builder: upstream.venueCandles ? undefined : new CandleBuilder(this.o.candleGraceMs),
        down: false,
      };
      this.entries.set(id, e);
    }
    if (e.listeners.includes(l)) return true;
    e.listeners.push(l);
    if (e.listeners.length === 1) e.upstream.acquire(id);
    this.arm();
    return true;
  }

  /** Stops holding it for `l`; the venue subscription ends with the last holder. */
  release(id: number, l: MdListener): void {
    const e = this.entries.get(id);
    if (e === undefined) return;
    const i = e.listeners.indexOf(l);
    if (i < 0) return;
    e.listeners.splice(i, 1);
    if (e.listeners.length > 0) return;
    e.upstream.release(id);
    // The state stays (seq keeps counting up across holders) but is no longer live.
    if (e.state.live) e.state.live = false;
  }

  /** Holders of an instrument (tests, metrics). */
  holders(id: number): number {
    return this.entries.get(id)?.listeners.length ?? 0;
  }

  state(id: number): Readonly<MdState> | undefined {
    return this.entries.get(id)?.state;
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  // ---- MdSink: what the venue adapters feed in ----

  book(id: number, bidTicks: number, bidLots: number, askTicks: number, askLots: number, ts: number): void {
    const e = this.held(id);
    if (e === undefined) return;
    const s = e.state;
    if (ts < s.bookTs) return; // an older snapshot than the one held
    this.stats.books++;
    e.lastBookMs = this.now();
    s.bookTs = ts;
    const changed =
      s.bidTicks !== bidTicks || s.bidLots !== bidLots || s.askTicks !== askTicks || s.askLots !== askLots;
    s.bidTicks = bidTicks;
    s.bidLots = bidLots;
    s.askTicks = askTicks;
    s.askLots = askLots;
    if (!s.live && !e.down) {
      // First book since a (re)connect or a stale spell: the holders take a new snapshot.
      s.seq++;
      s.recvNs = monoNs();
      s.live = true;
      for (const l of e.listeners) l.onStatus(s);
      return;
    }
    if (!changed) return;
    s.seq++;
    s.recvNs = monoNs();
    this.emit(e, MdKind.Book);
  }

  trade(id: number, ticks: number, lots: number, aggressor: number, ts: number): void {
    const e = this.held(id);
    if (e === undefined) return;
    const s = e.state;
    this.stats.trades++;
    const recvNs = monoNs();
    const closed = e.builder?.trade(ticks, lots, ts);
    if (closed !== undefined) this.candle(e, closed, recvNs);
    if (ts < s.tradeTs) return; // a print older than the last one: counted in its candle only
    s.tradeTicks = ticks;
    s.tradeLots = lots;
    s.tradeAggressor = aggressor;
    s.tradeTs = ts;
    s.seq++;
    s.recvNs = recvNs;
    this.emit(e, MdKind.Trade);
  }

  venueCandle(id: number, c: CandleRec): void {
    const e = this.held(id);
    if (e === undefined) return;
    if (e.state.candle !== undefined && c.startMs <= e.state.candle.startMs) return; // repeat or older
    this.candle(e, c, monoNs());
  }

  ticker(id: number, lastTicks: number, ts: number): void {
    const e = this.held(id);
    if (e === undefined) return;
    const s = e.state;
    this.stats.tickers++;
    if (ts < s.tickerTs) return;
    s.tickerTicks = lastTicks;
    s.tickerTs = ts;
    // Not a strategy message (no sequence number): the ticker only feeds the risk reference price.
    for (const l of e.listeners) l.onUpdate(s, MdKind.Ticker);
  }

  feedDown(ids: Iterable<number>): void {
    const now = this.now();
    for (const id of ids) {
      const e = this.entries.get(id);
      if (e === undefined) continue;
      e.down = true;
      e.builder?.gap(now);
      this.stale(e);
    }
  }

  feedUp(ids: Iterable<number>): void {
    const now = this.now();
    for (const id of ids) {
      const e = this.entries.get(id);
      if (e === undefined) continue;
      e.down = false;
      // Prints of this minute before the reconnect are lost; live again at the next book.
      e.builder?.gap(now);
    }
  }

  // ---- inside ----

  private held(id: number): Entry | undefined {
    const e = this.entries.get(id);
    if (e === undefined || e.listeners.length === 0) {
      this.stats.unheld++;
      return undefined;
    }
    return e;
  }

  private candle(e: Entry, c: CandleRec, recvNs: number): void {
    const s = e.state;
    this.stats.candles++;
    s.candle = c;
    s.seq++;
    s.recvNs = recvNs;
    this.emit(e, MdKind.Candle);
  }

  private emit(e: Entry, kind: (typeof MdKind)[keyof typeof MdKind]): void {
    const ls = e.listeners;
    for (let i = 0; i < ls.length; i++) ls[i]!.onUpdate(e.state, kind);
  }

  private stale(e: Entry): void {
    if (!e.state.live) return;
    e.state.live = false;
    for (const l of e.listeners) l.onStatus(e.state);
  }

  /** One timer for staleness and built-candle closing, while anything is held. */
  private arm(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.tick(), 250);
    this.timer.unref();
  }

  private tick(): void {
    const now = this.now();
    for (const e of this.entries.values()) {
      if (e.listeners.length === 0) continue;
      if (this.o.staleMs > 0 && e.state.live && now - e.lastBookMs > this.o.staleMs) {
        this.stats.staleTrips++;
        this.stale(e);
      }
      const c = e.builder?.due(now);
      if (c !== undefined) this.candle(e, c, monoNs());
    }
  }
}

function blank(id: number): MdState {
  return {
    instrumentId: id,
    seq: 0,
    live: false,
    bidTicks: 0,
    bidLots: 0,
    askTicks: 0,
    askLots: 0,
    bookTs: 0,
    tradeTicks: 0,
    tradeLots: 0,
    tradeAggressor: 0,
    tradeTs: 0,
    candle: undefined,
    tickerTicks: 0,
    tickerTs: 0,
    recvNs: 0,
  };
}
