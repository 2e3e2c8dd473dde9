/**
 * The HFT public market data subjects of docs/venue-api.md §6.4 over NATS: `v1.f.public.futures.ltp.<m>`
 * (every public trade), `v1.f.public.futures.depth-update.<m>` (a full top-of-book snapshot each
 * message) and `v1.f.ex1.public.futures.ticker.<m>` (24 h stats), where `<m>` is the market as
 * `BASE/QUOTE` (`BTC/USDT`). Public: one connection without a credential [assumed], separate from the
 * private one so market data never waits on the socket signature. Subjects follow the instruments
 * the hub holds (subscribed and dropped at run time). Payloads are not published (§11 q9): the
 * fields read are [assumed] (docs/streams.md lists them with the aliases accepted) and everything is
 * normalised here, at the boundary, to integer ticks and lots; a malformed message is counted and
 * dropped.
 */
import type { Instrument } from "../domain/types.js";
import { type Grid, gridOf } from "../orders/normalize.js";
import { Aggressor } from "../protocol/schema.js";
import { NatsStream } from "../streams/nats/natsStream.js";
import type { BackoffOptions, StreamStateListener } from "../streams/socketStream.js";
import { onGrid } from "./grid.js";
import type { MdSink, MdUpstream } from "./types.js";

export const LTP_PREFIX = "v1.f.public.futures.ltp";
export const DEPTH_PREFIX = "v1.f.public.futures.depth-update";
export const TICKER_PREFIX = "v1.f.ex1.public.futures.ticker";

/** The three subjects of one market (`BTC/USDT`). */
export function publicSubjects(market: string): string[] {
  return [`${LTP_PREFIX}.${market}`, `${DEPTH_PREFIX}.${market}`, `${TICKER_PREFIX}.${market}`];
}

export interface HftPublicOptions {
  url: string;
  /** HFT instruments that may be held (the market is `base/quote`). */
  instruments: readonly Instrument[];
  sink: MdSink;
  listener?: StreamStateListener;
  staleMs?: number;
  backoff?: BackoffOptions;
  onError?: (err: Error) => void;
}

export interface HftPublicStats {
  ltp: number;
  depth: number;
  ticker: number;
  malformed: number;
  /** Venue timestamp → receipt (ms), last message that had one. */
  lastLagMs: number;
}

interface Mkt {
  readonly id: number;
  readonly grid: Grid;
  readonly market: string;
}

type Rec = Record<string, unknown>;

export class HftPublicStream implements MdUpstream {
  readonly name = "hft.public";
  readonly venueCandles = false;
  readonly stats: HftPublicStats = { ltp: 0, depth: 0, ticker: 0, malformed: 0, lastLagMs: 0 };
  readonly transport: NatsStream;
  private readonly byMarket = new Map<string, Mkt>();
  private readonly byId = new Map<number, Mkt>();
  private readonly held = new Set<number>();
  private readonly dec = new TextDecoder();
  private started = false;

  constructor(private readonly o: HftPublicOptions) {
    for (const inst of o.instruments) {
      const m: Mkt = { id: inst.id, grid: gridOf(inst), market: `${inst.base}/${inst.quote}` };
      this.byMarket.set(m.market, m);
      this.byId.set(m.id, m);
    }
    this.transport = new NatsStream({
      name: this.name,
      url: o.url,
      subjects: [],
      onMessage: (subject, data) => this.onMessage(subject, data),
      listener: {
        onUp: (n, r) => {
          o.sink.feedUp(this.held);
          o.listener?.onUp(n, r);
        },
        onDown: (n, reason) => {
          o.sink.feedDown(this.held);
          o.listener?.onDown(n, reason);
        },
      },
      staleMs: o.staleMs,
      backoff: o.backoff,
      onError: o.onError,
    });
  }

  /** Instruments this stream can serve. */
  covers(id: number): boolean {
    return this.byId.has(id);
  }

  get up(): boolean {
    return this.transport.up;
  }

  acquire(id: number): void {
    if (!this.byId.has(id) || this.held.has(id)) return;
    this.held.add(id);
    this.resubscribe();
    if (!this.started) {
      this.started = true;
      this.transport.start();
    }
  }

  release(id: number): void {
    if (!this.held.delete(id)) return;
    this.resubscribe();
  }

  async stop(): Promise<void> {
    this.started = false;
    await this.transport.stop();
  }

  private resubscribe(): void {
    const subjects: string[] = [];
    for (const id of this.held) subjects.push(...publicSubjects(this.byId.get(id)!.market));
    this.transport.setSubjects(subjects);
  }

  private onMessage(subject: string, data: Uint8Array): void {
    // The market is everything after the feed's prefix (it may itself contain dots? not for BASE/QUOTE).
    let kind: 0 | 1 | 2;
    let market: string;
    if (subject.startsWith(`${LTP_PREFIX}.`)) {
      kind = 0;
      market = subject.slice(LTP_PREFIX.length + 1);
    } else if (subject.startsWith(`${DEPTH_PREFIX}.`)) {
      kind = 1;
      market = subject.slice(DEPTH_PREFIX.length + 1);
    } else if (subject.startsWith(`${TICKER_PREFIX}.`)) {
      kind = 2;
      market = subject.slice(TICKER_PREFIX.length + 1);
    } else return;
    const m = this.byMarket.get(market);
    if (m === undefined || !this.held.has(m.id)) return;
    let payload: unknown;
    try {
      payload = JSON.parse(this.dec.decode(data));
    } catch {
      this.stats.malformed++;
      return;
    }
    const body = isRec(payload) && payload.data !== undefined ? payload.data : payload;
    const list = Array.isArray(body) ? body : [body];
    for (const r of list) {
      const ok = kind === 0 ? this.ltp(m, r) : kind === 1 ? this.depth(m, r) : this.ticker(m, r);
      if (!ok) this.stats.malformed++;
    }
  }

  /** `{p, q, S, E}` [assumed]; aliases price/ltp/lastPrice, qty/size/v, side/m (buyer maker), T/ts/t/time. */
  private ltp(m: Mkt, r: unknown): boolean {
    if (!isRec(r)) return false;
    const ticks = onGrid(pick(r, PRICE_KEYS), m.grid.tickNum);
    const rawQty = pick(r, QTY_KEYS);
    const lots = rawQty === undefined ? 0 : onGrid(rawQty, m.grid.stepNum);
    const ts = timeOf(r);
    if (!(ticks > 0) || !(lots >= 0) || ts === 0) return false;
    this.lag(ts);
    this.stats.ltp++;
    this.o.sink.trade(m.id, ticks, lots, aggressorOf(r), ts);
    return true;
  }

  /** `{b: [[p, q], ...], a: [...], E}` [assumed]; aliases bids/asks; full top-of-book snapshot [docs]. */
  private depth(m: Mkt, r: unknown): boolean {
    if (!isRec(r)) return false;
    const bid = level(r.b ?? r.bids, m.grid);
    const ask = level(r.a ?? r.asks, m.grid);
    const ts = timeOf(r);
    if (bid === undefined || ask === undefined || ts === 0) return false;
    this.lag(ts);
    this.stats.depth++;
    this.o.sink.book(m.id, bid[0], bid[1], ask[0], ask[1], ts);
    return true;
  }

  /** `{lastPrice, E}` [assumed] (the documented sample begins `{"t": 0, "e": "COINSWIT...`). */
  private ticker(m: Mkt, r: unknown): boolean {
    if (!isRec(r)) return false;
    const ticks = onGrid(pick(r, LAST_KEYS), m.grid.tickNum);
    const ts = timeOf(r);
    if (!(ticks > 0) || ts === 0) return false;
    this.stats.ticker++;
    this.o.sink.ticker(m.id, ticks, ts);
    return true;
  }

  private lag(ts: number): void {
    this.stats.lastLagMs = Date.now() - ts;
  }
}

const PRICE_KEYS = ["p", "price", "ltp", "lastPrice"] as const;
const QTY_KEYS = ["q", "qty", "size", "v"] as const;
const LAST_KEYS = ["lastPrice", "c", "ltp", "p"] as const;
const TIME_KEYS = ["E", "T", "ts", "time", "t"] as const;

function isRec(v: unknown): v is Rec {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function pick(r: Rec, keys: readonly string[]): unknown {
  for (const k of keys) if (r[k] !== undefined) return r[k];
  return undefined;
}

/** Venue ms of a message; 0 when absent or not a plausible ms time (the ticker's `t: 0` is skipped). */
function timeOf(r: Rec): number {
  for (const k of TIME_KEYS) {
    const v = r[k];
    const n = typeof v === "string" ? Number(v) : v;
    if (typeof n === "number" && Number.isFinite(n) && n > 1e11) return Math.floor(n);
  }
  return 0;
}

/** Best level of a side as [ticks, lots]; [0, 0] for an empty side; undefined when malformed. */
function level(side: unknown, g: Grid): [number, number] | undefined {
  if (!Array.isArray(side)) return undefined;
  if (side.length === 0) return [0, 0];
  const l = side[0];
  const p = Array.isArray(l) ? l[0] : isRec(l) ? (l.p ?? l.price) : undefined;
  const q = Array.isArray(l) ? l[1] : isRec(l) ? (l.q ?? l.qty ?? l.size) : undefined;
  const t = onGrid(p, g.tickNum);
  const n = onGrid(q, g.stepNum);
  return t > 0 && n >= 0 ? [t, n] : undefined;
}

function aggressorOf(r: Rec): number {
  const s = r.S ?? r.side;
  if (typeof s === "string") {
    const x = s.toLowerCase();
    if (x === "buy") return Aggressor.Buy;
    if (x === "sell") return Aggressor.Sell;
  }
  // `m` = the buyer was the maker, so the taker sold.
  if (typeof r.m === "boolean") return r.m ? Aggressor.Sell : Aggressor.Buy;
  return Aggressor.Unknown;
}
