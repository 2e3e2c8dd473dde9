/**
 * Spot public market data (docs/venue-api.md §6.1): order-book snapshots, trades and one-minute candles per
 * exchange namespace, subscribed by pair (`BTC,INR`). They feed a small in-memory top of book per
 * instrument: best bid/ask (from the latest full snapshot), last trade, last closed candle. Risk uses
 * `referencePrice` (last trade, else mid); strategies can read `get`.
 */
import { SocketStream, type SocketStreamOptions, type StreamStateListener } from "./socketStream.js";

export const BOOK_EVENT = "FETCH_ORDER_BOOK_CS_PRO";
export const TRADES_EVENT = "FETCH_TRADES_CS_PRO";
export const CANDLE_EVENT = "FETCH_CANDLESTICK_CS_PRO";
export const SPOT_PUBLIC_PATH = "/pro/realtime-rates-socket/spot";

export interface Top {
  /** `coinswitchx:BTC,INR` */
  readonly key: string;
  /** Best bid/ask price and size; NaN when that side is empty or unknown. */
  bid: number;
  bidQty: number;
  ask: number;
  askQty: number;
  /** Venue ms of the book snapshot; 0 = none yet. */
  bookTs: number;
  last: number;
  lastQty: number;
  /** Venue ms of the last trade; 0 = none yet. */
  lastTs: number;
  /** Close of the newest candle and its start (ms); NaN / 0 = none. */
  candleClose: number;
  candleStart: number;
}

export interface TopOfBookStats {
  books: number;
  trades: number;
  candles: number;
  malformed: number;
}

/** Keys are `exchange:PAIR` with PAIR as on the wire (`BTC,INR`), upper case. */
export function topKey(exchange: string, pair: string): string {
  return `${exchange.toLowerCase()}:${pair.toUpperCase().replace("/", ",")}`;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";

/** A positive decimal (string or number) as a float; NaN when malformed. */
function num(v: unknown): number {
  const n = typeof v === "string" ? Number(v) : typeof v === "number" ? v : Number.NaN;
  return Number.isFinite(n) && n >= 0 ? n : Number.NaN;
}

function level(side: unknown): [number, number] | undefined {
  if (!Array.isArray(side)) return undefined;
  if (side.length === 0) return [Number.NaN, Number.NaN];
  const l = side[0];
  if (!Array.isArray(l) || l.length < 2) return undefined;
  const p = num(l[0]);
  const q = num(l[1]);
  return Number.isNaN(p) || Number.isNaN(q) ? undefined : [p, q];
}

export class TopOfBook {
  private readonly rows = new Map<string, Top>();
  readonly stats: TopOfBookStats = { books: 0, trades: 0, candles: 0, malformed: 0 };

  /** `onChange` hears every applied book snapshot and trade (e.g. to feed risk reference prices). */
  constructor(private readonly onChange?: (t: Readonly<Top>) => void) {}

  get(exchange: string, pair: string): Readonly<Top> | undefined {
    return this.rows.get(topKey(exchange, pair));
  }

  /** Last trade price, else the mid of a two-sided book, else undefined. */
  referencePrice(exchange: string, pair: string): number | undefined {
    const t = this.rows.get(topKey(exchange, pair));
    if (t === undefined) return undefined;
    if (t.lastTs > 0) return t.last;
    if (t.bid > 0 && t.ask > 0) return (t.bid + t.ask) / 2;
    return undefined;
  }

  private row(exchange: string, pair: string): Top {
    const k = topKey(exchange, pair);
    let t = this.rows.get(k);
    if (t === undefined) {
      t = {
        key: k,
        bid: Number.NaN,
        bidQty: Number.NaN,
        ask: Number.NaN,
        askQty: Number.NaN,
        bookTs: 0,
        last: Number.NaN,
        lastQty: Number.NaN,
        lastTs: 0,
        candleClose: Number.NaN,
        candleStart: 0,
      };
      this.rows.set(k, t);
    }
    return t;
  }

  /** `{s, timestamp, bids, asks}` full snapshot; an older snapshot than held is ignored. */
  onBook(exchange: string, m: unknown): boolean {
    if (!isObj(m) || typeof m.s !== "string" || typeof m.timestamp !== "number") return this.bad();
    const b = level(m.bids);
    const a = level(m.asks);
    if (b === undefined || a === undefined) return this.bad();
    const t = this.row(exchange, m.s);
    if (m.timestamp < t.bookTs) return true;
    t.bid = b[0];
    t.bidQty = b[1];
    t.ask = a[0];
    t.askQty = a[1];
    t.bookTs = m.timestamp;
    this.stats.books++;
    this.onChange?.(t);
    return true;
  }

  /** One trade print `{E, p, q, s}` (also tolerates `{data:[...]}` batches). */
  onTrade(exchange: string, m: unknown): boolean {
    if (isObj(m) && Array.isArray(m.data)) {
      let ok = true;
      for (const x of m.data) ok = this.onTrade(exchange, x) && ok;
      return ok;
    }
    if (!isObj(m) || typeof m.s !== "string") return this.bad();
    const p = num(m.p);
    const q = num(m.q);
    const ts = typeof m.E === "number" ? m.E : Number.NaN;
    if (Number.isNaN(p) || Number.isNaN(q) || !Number.isFinite(ts)) return this.bad();
    const t = this.row(exchange, m.s);
    if (ts < t.lastTs) return true;
    t.last = p;
    t.lastQty = q;
    t.lastTs = ts;
    this.stats.trades++;
    this.onChange?.(t);
    return true;
  }

  /** A candle `{o,h,l,c,v,s,t,...}` [assumed fields, as futures klines]. */
  onCandle(exchange: string, m: unknown): boolean {
    if (!isObj(m) || typeof m.s !== "string" || typeof m.t !== "number") return this.bad();
    const c = num(m.c);
    if (Number.isNaN(c)) return this.bad();
    const pair = m.s.includes("_") ? m.s.slice(0, m.s.indexOf("_")) : m.s;
    const t = this.row(exchange, pair);
    if (m.t < t.candleStart) return true;
    t.candleClose = c;
    t.candleStart = m.t;
    this.stats.candles++;
    return true;
  }

  private bad(): false {
    this.stats.malformed++;
    return false;
  }
}

export interface MarketDataOptions {
  baseUrl: string;
  /** Pairs per exchange, e.g. `{ coinswitchx: ["BTC,INR"] }`. */
  pairs: Readonly<Record<string, readonly string[]>>;
  book?: TopOfBook;
  /** Which feeds to subscribe (default all three). */
  feeds?: { book?: boolean; trades?: boolean; candles?: boolean };
  listener?: StreamStateListener;
  staleMs?: number;
  backoff?: SocketStreamOptions["backoff"];
  /** Handshake path per exchange; default `/pro/realtime-rates-socket/spot/{exchange}` (§6.1). */
  pathFor?: (exchange: string) => string;
}

/** One Socket.IO connection per exchange namespace, all feeding one TopOfBook. */
export class MarketData {
  readonly book: TopOfBook;
  readonly streams: SocketStream[] = [];

  constructor(o: MarketDataOptions) {
    this.book = o.book ?? new TopOfBook();
    const f = { book: true, trades: true, candles: true, ...o.feeds };
    for (const [exchange, pairs] of Object.entries(o.pairs)) {
      const subs: Array<readonly [string, unknown]> = [];
      for (const raw of pairs) {
        const pair = raw.toUpperCase().replace("/", ",");
        if (f.book) subs.push([BOOK_EVENT, { event: "subscribe", pair }]);
        if (f.trades) subs.push([TRADES_EVENT, { event: "subscribe", pair }]);
        if (f.candles) subs.push([CANDLE_EVENT, { event: "subscribe", pair }]);
      }
      const book = this.book;
      this.streams.push(
        new SocketStream({
          name: `spot.market.${exchange}`,
          baseUrl: o.baseUrl,
          path: o.pathFor?.(exchange) ?? `${SPOT_PUBLIC_PATH}/${exchange}`,
          namespace: `/${exchange}`,
          subscriptions: subs,
          sinks: {
            [BOOK_EVENT]: (m) => book.onBook(exchange, m),
            [TRADES_EVENT]: (m) => book.onTrade(exchange, m),
            [CANDLE_EVENT]: (m) => book.onCandle(exchange, m),
          },
          listener: o.listener,
          staleMs: o.staleMs,
          backoff: o.backoff,
        }),
      );
    }
  }

  start(): void {
    for (const s of this.streams) s.start();
  }

  stop(): void {
    for (const s of this.streams) s.stop();
  }

  get up(): boolean {
    return this.streams.every((s) => s.up);
  }
}
