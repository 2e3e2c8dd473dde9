/**
 * The vocabulary of the market data hub: one instrument's state in integer ticks and lots, what the
 * venue adapters feed in (`MdSink`), what a holder of the feed hears (`MdListener`), and what an
 * adapter offers the hub (`MdUpstream`: one venue subscription per instrument, refcounted by the hub).
 */

/** Which part of an instrument's state an update changed. */
export const MdKind = { Book: 1, Trade: 2, Candle: 3, Ticker: 4 } as const;
export type MdKindValue = (typeof MdKind)[keyof typeof MdKind];

/** One closed one-minute candle. `flags` uses the protocol's MdFlags bits (Built, Incomplete). */
export interface CandleRec {
  startMs: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  /** Prints counted (0 when the venue's candle does not say). */
  trades: number;
  flags: number;
}

export interface MdState {
  readonly instrumentId: number;
  /** Sequence of this instrument's updates (book change, trade, candle), gateway-wide; 0 = none yet. */
  seq: number;
  /** The upstream is connected and a book arrived since it (re)connected and within the stale window. */
  live: boolean;
  /** Best bid/ask in ticks and lots; 0 = that side empty or unknown. */
  bidTicks: number;
  bidLots: number;
  askTicks: number;
  askLots: number;
  /** Venue ms of the book; 0 = none yet. */
  bookTs: number;
  tradeTicks: number;
  tradeLots: number;
  tradeAggressor: number;
  /** Venue ms of the last trade; 0 = none yet. */
  tradeTs: number;
  /** Last closed candle. */
  candle: CandleRec | undefined;
  /** Last price of the venue's ticker (ticks) and its venue ms; 0 = none. */
  tickerTicks: number;
  tickerTs: number;
  /** Gateway receive time (monotonic ns) of the venue message behind the latest update. */
  recvNs: number;
}

/** Holders of an instrument's feed (the command API's fan-out, the risk reference prices). */
export interface MdListener {
  /** The state changed (`kind` says what); called for every venue message applied. */
  onUpdate(s: Readonly<MdState>, kind: MdKindValue): void;
  /** `s.live` changed: false = stale (feed down or silent), true = live again (send a new snapshot). */
  onStatus(s: Readonly<MdState>): void;
}

/** What a venue adapter feeds into the hub (integer ticks and lots, normalised at the adapter). */
export interface MdSink {
  book(id: number, bidTicks: number, bidLots: number, askTicks: number, askLots: number, ts: number): void;
  trade(id: number, ticks: number, lots: number, aggressor: number, ts: number): void;
  /** A candle the venue built (Spot's candlestick socket). */
  venueCandle(id: number, c: CandleRec): void;
  ticker(id: number, lastTicks: number, ts: number): void;
  /** The adapter's connection for these instruments went down (true) or came back (false). */
  feedDown(ids: Iterable<number>): void;
  feedUp(ids: Iterable<number>): void;
}

/** A venue adapter: holds the venue subscription of an instrument while the hub asks for it. */
export interface MdUpstream {
  readonly name: string;
  /** Venue candles (true) or candles built by the gateway from trades (false). */
  readonly venueCandles: boolean;
  acquire(id: number): void;
  release(id: number): void;
  /** Connected (instruments may still wait for their first book). */
  readonly up: boolean;
  stop(): Promise<void> | void;
}
