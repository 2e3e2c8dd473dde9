/**
 * Market data for strategies (PROTOCOL.md §3 Market data): per connection, Subscribe / Unsubscribe
 * by instrument; the gateway holds one hub subscription per instrument for every connection (the hub
 * holds one venue subscription for every holder). Each update is encoded once and sent to every
 * subscribed connection with only its session id and send time patched in. Market data is
 * unsequenced and never journaled, so it never waits on the journal nor touches the order path's
 * frames; a connection whose unsent bytes pass `maxBufferedBytes` has its market data paused (status
 * SlowConsumer) and gets a fresh snapshot once it has drained below half of it, so market data never
 * makes the gateway close a connection that the order traffic alone would keep.
 */
import type { MdKindValue, MdListener, MdState } from "../marketdata/types.js";
import { MdKind } from "../marketdata/types.js";
import { monoNs } from "../protocol/clock.js";
import { encodeG2C, patchSendNs } from "../protocol/codec.js";
import { type Body, CODES, type CodeName, MdFlags, MdStatus } from "../protocol/schema.js";

/** What the fan-out needs of the market data hub (src/marketdata/hub.ts). */
export interface MarketDataSource {
  available(id: number): boolean;
  acquire(id: number, l: MdListener): boolean;
  release(id: number, l: MdListener): void;
  state(id: number): Readonly<MdState> | undefined;
}

/** What the fan-out needs of the gateway's connections. */
export interface MdLinkIo<L> {
  /** Sends one unsequenced frame (the gateway copies or writes it at once). */
  send(l: L, frame: Uint8Array): void;
  /** Runs `fn` with the link's socket corked (a snapshot leaves in one write). */
  cork(l: L, fn: () => void): void;
  buffered(l: L): number;
  sessionId(l: L): number;
}

export interface MdFanoutConfig {
  maxSubscriptions: number;
  maxBufferedBytes: number;
}

interface LinkMd {
  readonly ids: Set<number>;
  paused: boolean;
}

const HDR = { sessionId: 0, seq: 0, recvNs: 0, sendNs: 0 };

export class MarketDataFanout<L> implements MdListener {
  readonly stats = { frames: 0, snapshots: 0, pauses: 0, subscribes: 0, rejects: 0 };
  /** Subscribed links per instrument, in subscription order. */
  private readonly byInst = new Map<number, L[]>();
  private readonly byLink = new Map<L, LinkMd>();
  // Scratch bodies: no allocation per update.
  private readonly top: Body<"TopOfBook"> = {
    instrumentId: 0,
    mdSeq: 0,
    flags: 0,
    bidPriceTicks: 0,
    bidQtyLots: 0,
    askPriceTicks: 0,
    askQtyLots: 0,
    venueTimeMs: 0,
  };
  private readonly trade: Body<"Trade"> = {
    instrumentId: 0,
    mdSeq: 0,
    flags: 0,
    priceTicks: 0,
    qtyLots: 0,
    aggressor: 0,
    venueTimeMs: 0,
  };
  private readonly candle: Body<"Candle"> = {
    instrumentId: 0,
    mdSeq: 0,
    flags: 0,
    startMs: 0,
    openTicks: 0,
    highTicks: 0,
    lowTicks: 0,
    closeTicks: 0,
    volumeLots: 0,
    trades: 0,
  };
  private readonly status: Body<"MarketDataStatus"> = { requestId: 0, instrumentId: 0, mdSeq: 0, status: 0 };

  constructor(
    private readonly source: MarketDataSource | undefined,
    private readonly io: MdLinkIo<L>,
    private readonly cfg: MdFanoutConfig,
  ) {}

  /** Instruments a link is subscribed to (tests). */
  subscriptions(l: L): number {
    return this.byLink.get(l)?.ids.size ?? 0;
  }

  subscribe(l: L, requestId: number, id: number, recvNs: number): void {
    const src = this.source;
    if (src === undefined || !src.available(id)) {
      this.reject(l, requestId, id, "MarketDataUnavailable", recvNs);
      return;
    }
    let md = this.byLink.get(l);
    if (md === undefined) {
      md = { ids: new Set(), paused: false };
      this.byLink.set(l, md);
    }
    if (!md.ids.has(id)) {
      if (md.ids.size >= this.cfg.maxSubscriptions) {
        this.reject(l, requestId, id, "TooManySubscriptions", recvNs);
        return;
      }
      md.ids.add(id);
      let links = this.byInst.get(id);
      if (links === undefined) {
        links = [];
        this.byInst.set(id, links);
      }
      links.push(l);
      if (links.length === 1 && !src.acquire(id, this)) {
        this.remove(l, id);
        this.reject(l, requestId, id, "MarketDataUnavailable", recvNs);
        return;
      }
    }
    this.stats.subscribes++;
    // A repeated Subscribe is a request for a fresh snapshot.
    const s = src.state(id);
    if (md.paused) this.sendStatus(l, requestId, id, s?.seq ?? 0, MdStatus.SlowConsumer, recvNs);
    else if (s?.live === true) this.snapshot(l, s, requestId, recvNs);
    else this.sendStatus(l, requestId, id, s?.seq ?? 0, MdStatus.Stale, recvNs);
  }

  unsubscribe(l: L, requestId: number, id: number, recvNs: number): void {
    this.remove(l, id);
    this.sendStatus(l, requestId, id, this.source?.state(id)?.seq ?? 0, MdStatus.Unsubscribed, recvNs);
  }

  /** The connection ended: its subscriptions go (the venue's with the last holder). */
  dropLink(l: L): void {
    const md = this.byLink.get(l);
    if (md === undefined) return;
    for (const id of [...md.ids]) this.remove(l, id);
    this.byLink.delete(l);
  }

  /** Resumes paused connections that drained (called from the gateway's sweep). */
  sweep(): void {
    for (const [l, md] of this.byLink) {
      if (!md.paused || this.io.buffered(l) > this.cfg.maxBufferedBytes / 2) continue;
      md.paused = false;
      for (const id of md.ids) {
        const s = this.source?.state(id);
        if (s?.live === true) this.snapshot(l, s, 0, 0);
        else this.sendStatus(l, 0, id, s?.seq ?? 0, MdStatus.Stale, 0);
      }
    }
  }

  // ---- MdListener ----

  onUpdate(s: Readonly<MdState>, kind: MdKindValue): void {
    if (!s.live || kind === MdKind.Ticker) return;
    const links = this.byInst.get(s.instrumentId);
    if (links === undefined || links.length === 0) return;
    const frame = this.encode(s, kind, 0, s.recvNs);
    for (let i = 0; i < links.length; i++) {
      const l = links[i]!;
      const md = this.byLink.get(l)!;
      if (md.paused) continue;
      if (this.io.buffered(l) > this.cfg.maxBufferedBytes) {
        this.pause(l, md);
        continue;
      }
      frame.writeUInt32LE(this.io.sessionId(l), 4);
      patchSendNs(frame, monoNs());
      this.io.send(l, frame);
      this.stats.frames++;
    }
  }

  onStatus(s: Readonly<MdState>): void {
    const links = this.byInst.get(s.instrumentId);
    if (links === undefined) return;
    for (const l of links) {
      if (this.byLink.get(l)!.paused) continue;
      if (s.live) this.snapshot(l, s, 0, 0);
      else this.sendStatus(l, 0, s.instrumentId, s.seq, MdStatus.Stale, 0);
    }
  }

  // ---- inside ----

  private remove(l: L, id: number): void {
    const md = this.byLink.get(l);
    if (md === undefined || !md.ids.delete(id)) return;
    const links = this.byInst.get(id);
    if (links === undefined) return;
    const i = links.indexOf(l);
    if (i >= 0) links.splice(i, 1);
    if (links.length === 0) {
      this.byInst.delete(id);
      this.source?.release(id, this);
    }
  }

  private pause(l: L, md: LinkMd): void {
    md.paused = true;
    this.stats.pauses++;
    for (const id of md.ids)
      this.sendStatus(l, 0, id, this.source?.state(id)?.seq ?? 0, MdStatus.SlowConsumer, 0);
  }

  /** The instrument's state as snapshot messages, then `MarketDataStatus` Live (one write). */
  private snapshot(l: L, s: Readonly<MdState>, requestId: number, recvNs: number): void {
    this.stats.snapshots++;
    const sid = this.io.sessionId(l);
    this.io.cork(l, () => {
      if (s.bookTs > 0) this.out(l, sid, this.encode(s, MdKind.Book, MdFlags.Snapshot, recvNs));
      if (s.tradeTs > 0) this.out(l, sid, this.encode(s, MdKind.Trade, MdFlags.Snapshot, recvNs));
      if (s.candle !== undefined) this.out(l, sid, this.encode(s, MdKind.Candle, MdFlags.Snapshot, recvNs));
      this.sendStatus(l, requestId, s.instrumentId, s.seq, MdStatus.Live, recvNs);
    });
  }

  private out(l: L, sid: number, frame: Buffer): void {
    frame.writeUInt32LE(sid, 4);
    patchSendNs(frame, monoNs());
    this.io.send(l, frame);
    this.stats.frames++;
  }

  private encode(s: Readonly<MdState>, kind: MdKindValue, flags: number, recvNs: number): Buffer {
    HDR.recvNs = recvNs;
    if (kind === MdKind.Book) {
      const b = this.top;
      b.instrumentId = s.instrumentId;
      b.mdSeq = s.seq;
      b.flags = flags;
      b.bidPriceTicks = s.bidTicks;
      b.bidQtyLots = s.bidLots;
      b.askPriceTicks = s.askTicks;
      b.askQtyLots = s.askLots;
      b.venueTimeMs = s.bookTs;
      return encodeG2C("TopOfBook", HDR, b);
    }
    if (kind === MdKind.Trade) {
      const b = this.trade;
      b.instrumentId = s.instrumentId;
      b.mdSeq = s.seq;
      b.flags = flags;
      b.priceTicks = s.tradeTicks;
      b.qtyLots = s.tradeLots;
      b.aggressor = s.tradeAggressor;
      b.venueTimeMs = s.tradeTs;
      return encodeG2C("Trade", HDR, b);
    }
    const c = s.candle!;
    const b = this.candle;
    b.instrumentId = s.instrumentId;
    b.mdSeq = s.seq;
    b.flags = flags | c.flags;
    b.startMs = c.startMs;
    b.openTicks = c.open;
    b.highTicks = c.high;
    b.lowTicks = c.low;
    b.closeTicks = c.close;
    b.volumeLots = c.volume;
    b.trades = c.trades;
    return encodeG2C("Candle", HDR, b);
  }

  private sendStatus(l: L, requestId: number, id: number, seq: number, status: number, recvNs: number): void {
    const b = this.status;
    b.requestId = requestId;
    b.instrumentId = id;
    b.mdSeq = seq;
    b.status = status;
    HDR.recvNs = recvNs;
    this.out(l, this.io.sessionId(l), encodeG2C("MarketDataStatus", HDR, b));
  }

  private reject(l: L, requestId: number, id: number, code: CodeName, recvNs: number): void {
    this.stats.rejects++;
    const c = CODES[code];
    HDR.recvNs = recvNs;
    this.out(
      l,
      this.io.sessionId(l),
      encodeG2C("SubscribeReject", HDR, { requestId, instrumentId: id, code: c.code, text: c.text }),
    );
  }

  /** Rejects a Subscribe for an instrument the gateway does not know (the gateway checks it). */
  unknownInstrument(l: L, requestId: number, id: number, recvNs: number): void {
    this.reject(l, requestId, id, "UnknownInstrument", recvNs);
  }
}
