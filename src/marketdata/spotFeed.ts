/**
 * The Spot public market data (docs/venue-api.md §6.1) as a hub adapter: one Socket.IO connection per
 * exchange namespace, opened at the first instrument held on it; per held pair the order book, trades
 * and candlestick events are subscribed (`{"event":"subscribe","pair":"BTC,INR"}`) and, at its
 * release, left with `unsubscribe` [inferred-3p]. Payloads are normalised here to ticks and lots:
 * books are full snapshots (top level kept), trades `{E, p, q, s, m?}`, candles `{o,h,l,c,v,t,...}`
 * [assumed, as the futures klines]; the venue builds Spot candles, so the gateway relays them.
 */
import type { Instrument } from "../domain/types.js";
import { type Grid, gridOf } from "../orders/normalize.js";
import { Aggressor } from "../protocol/schema.js";
import { BOOK_EVENT, CANDLE_EVENT, SPOT_PUBLIC_PATH, TRADES_EVENT } from "../streams/marketData.js";
import { type BackoffOptions, SocketStream, type StreamStateListener } from "../streams/socketStream.js";
import { onGrid } from "./grid.js";
import type { MdSink, MdUpstream } from "./types.js";

export interface SpotFeedOptions {
  baseUrl: string;
  instruments: readonly Instrument[];
  sink: MdSink;
  listener?: StreamStateListener;
  staleMs?: number;
  backoff?: BackoffOptions;
}

interface Pair {
  readonly id: number;
  readonly exchange: string;
  /** `BTC,INR` as on the wire. */
  readonly pair: string;
  readonly grid: Grid;
  readonly subs: ReadonlyArray<readonly [string, unknown]>;
  readonly leave: ReadonlyArray<readonly [string, unknown]>;
}

type Rec = Record<string, unknown>;
const EVENTS = [BOOK_EVENT, TRADES_EVENT, CANDLE_EVENT];

export class SpotFeed implements MdUpstream {
  readonly name = "spot.public";
  readonly venueCandles = true;
  readonly stats = { books: 0, trades: 0, candles: 0, malformed: 0 };
  private readonly byId = new Map<number, Pair>();
  /** `exchange:PAIR` → pair. */
  private readonly byKey = new Map<string, Pair>();
  private readonly streams = new Map<string, SocketStream>();
  private readonly held = new Map<string, Set<number>>();

  constructor(private readonly o: SpotFeedOptions) {
    for (const inst of o.instruments) {
      if (inst.surface !== "spot") continue;
      const pair = `${inst.base},${inst.quote}`.toUpperCase();
      const p: Pair = {
        id: inst.id,
        exchange: inst.venue,
        pair,
        grid: gridOf(inst),
        subs: EVENTS.map((e) => [e, { event: "subscribe", pair }] as const),
        leave: EVENTS.map((e) => [e, { event: "unsubscribe", pair }] as const),
      };
      this.byId.set(p.id, p);
      this.byKey.set(`${p.exchange}:${pair}`, p);
    }
  }

  covers(id: number): boolean {
    return this.byId.has(id);
  }

  get up(): boolean {
    for (const s of this.streams.values()) if (!s.up) return false;
    return this.streams.size > 0;
  }

  acquire(id: number): void {
    const p = this.byId.get(id);
    if (p === undefined) return;
    let ids = this.held.get(p.exchange);
    if (ids === undefined) {
      ids = new Set();
      this.held.set(p.exchange, ids);
    }
    if (ids.has(id)) return;
    ids.add(id);
    this.stream(p.exchange).subscribe(p.subs);
  }

  release(id: number): void {
    const p = this.byId.get(id);
    if (p === undefined || this.held.get(p.exchange)?.delete(id) !== true) return;
    this.streams.get(p.exchange)?.unsubscribe(p.subs, p.leave);
  }

  stop(): void {
    for (const s of this.streams.values()) s.stop();
  }

  /** The exchange's connection (tests: drop it). */
  streamOf(exchange: string): SocketStream | undefined {
    return this.streams.get(exchange);
  }

  private stream(exchange: string): SocketStream {
    let s = this.streams.get(exchange);
    if (s !== undefined) return s;
    const ids = this.held.get(exchange)!;
    const o = this.o;
    s = new SocketStream({
      name: `spot.market.${exchange}`,
      baseUrl: o.baseUrl,
      path: `${SPOT_PUBLIC_PATH}/${exchange}`,
      namespace: `/${exchange}`,
      subscriptions: [],
      sinks: {
        [BOOK_EVENT]: (m) => this.book(exchange, m),
        [TRADES_EVENT]: (m) => this.trades(exchange, m),
        [CANDLE_EVENT]: (m) => this.candle(exchange, m),
      },
      listener: {
        onUp: (n, r) => {
          o.sink.feedUp(ids);
          o.listener?.onUp(n, r);
        },
        onDown: (n, reason) => {
          o.sink.feedDown(ids);
          o.listener?.onDown(n, reason);
        },
      },
      staleMs: o.staleMs,
      backoff: o.backoff,
    });
    this.streams.set(exchange, s);
    s.start();
    return s;
  }

  private pairOf(exchange: string, s: unknown): Pair | undefined {
    if (typeof s !== "string") return undefined;
    // Candle pairs may carry an interval suffix (`BTC,INR_1`); pairs are `BTC,INR` (or `BTC/INR`).
    const i = s.indexOf("_");
    const pair = (i < 0 ? s : s.slice(0, i)).toUpperCase().replace("/", ",");
    return this.byKey.get(`${exchange}:${pair}`);
  }

  /** `{s, timestamp, bids: [[p, q], ...], asks}`: a full snapshot, top level kept. */
  private book(exchange: string, m: unknown): boolean {
    if (!isRec(m) || typeof m.timestamp !== "number") return this.bad();
    const p = this.pairOf(exchange, m.s);
    if (p === undefined) return this.bad();
    const b = top(m.bids, p.grid);
    const a = top(m.asks, p.grid);
    if (b === undefined || a === undefined) return this.bad();
    this.stats.books++;
    this.o.sink.book(p.id, b[0], b[1], a[0], a[1], m.timestamp);
    return true;
  }

  /** One print `{E, p, q, s, m?}` or a `{data: [...]}` batch. */
  private trades(exchange: string, m: unknown): boolean {
    if (isRec(m) && Array.isArray(m.data)) {
      let ok = true;
      for (const x of m.data) ok = this.trades(exchange, x) && ok;
      return ok;
    }
    if (!isRec(m) || typeof m.E !== "number") return this.bad();
    const p = this.pairOf(exchange, m.s);
    if (p === undefined) return this.bad();
    const ticks = onGrid(m.p, p.grid.tickNum);
    const lots = onGrid(m.q, p.grid.stepNum);
    if (!(ticks > 0) || !(lots >= 0)) return this.bad();
    this.stats.trades++;
    // `m` = the buyer was the maker [assumed, as Binance-style prints]: the taker sold.
    const aggr = typeof m.m === "boolean" ? (m.m ? Aggressor.Sell : Aggressor.Buy) : Aggressor.Unknown;
    this.o.sink.trade(p.id, ticks, lots, aggr, m.E);
    return true;
  }

  /** `{o, h, l, c, v, s, t}` [assumed]; only closed candles are relayed (`x` false = still forming). */
  private candle(exchange: string, m: unknown): boolean {
    if (!isRec(m) || typeof m.t !== "number") return this.bad();
    const p = this.pairOf(exchange, m.s);
    if (p === undefined) return this.bad();
    if (m.x === false) return true;
    const t = p.grid.tickNum;
    const open = onGrid(m.o, t);
    const high = onGrid(m.h, t);
    const low = onGrid(m.l, t);
    const close = onGrid(m.c, t);
    const volume = onGrid(m.v, p.grid.stepNum);
    if (!(open > 0 && high > 0 && low > 0 && close > 0 && volume >= 0)) return this.bad();
    this.stats.candles++;
    this.o.sink.venueCandle(p.id, { startMs: m.t, open, high, low, close, volume, trades: 0, flags: 0 });
    return true;
  }

  private bad(): false {
    this.stats.malformed++;
    return false;
  }
}

function isRec(v: unknown): v is Rec {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function top(side: unknown, g: Grid): [number, number] | undefined {
  if (!Array.isArray(side)) return undefined;
  if (side.length === 0) return [0, 0];
  const l = side[0];
  if (!Array.isArray(l) || l.length < 2) return undefined;
  const t = onGrid(l[0], g.tickNum);
  const n = onGrid(l[1], g.stepNum);
  return t > 0 && n >= 0 ? [t, n] : undefined;
}
