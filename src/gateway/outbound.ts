/**
 * What leaves for a connection: sequenced frames (seq, replay ring, journal, drop-copy tap), unsequenced
 * ones and market data; the journal-before-socket hold, one write per turn, back-pressure, ending a link.
 */
import { monoNs } from "../protocol/clock.js";
import { encodeG2C } from "../protocol/codec.js";
import {
  type Body,
  CODES,
  type CodeName,
  CodPolicy,
  type G2CName,
  RejectSource,
} from "../protocol/schema.js";
import { DurableGate, type SessionJournal } from "./durableGate.js";
import type { DisconnectReason, EngineMessage, GatewayEngine, SessionInfo } from "./engineApi.js";
import { CLOSE, type Link, type Session } from "./link.js";
import { MarketDataFanout } from "./marketData.js";
import type { GatewayConfig, GatewayLogger, GatewaySettings, GatewayStats } from "./options.js";
import type { SessionTable } from "./sessions.js";

/**
 * Sees every sequenced frame once (src/bus's drop copy): per session, and an account-wide broadcast once
 * with `session` undefined (header sessionId 0, seq 0). The frame is valid only during the call.
 */
export type FrameTap = (session: SessionInfo | undefined, name: G2CName, frame: Uint8Array) => void;

/** First size of a link's held-frames buffer (grows by doubling). */
const HELD_MIN = 4096;
/** Held bytes that are written at once rather than at the turn's end (about uWS's cork buffer). */
const HELD_FLUSH = 16 * 1024;

/** Scratch header for sequenced frames (no allocation per message); the codec copies it at once. */
const SEQ_HDR = { sessionId: 0, seq: 0, recvNs: 0, sendNs: 0 };
/** Scratch header for unsequenced frames (seq 0); the codec copies it into the frame at once. */
const UNSEQ_HDR = { sessionId: 0, seq: 0, recvNs: 0, sendNs: 0 };

export class Outbound {
  /** Drop-copy tap; undefined (one check per frame) unless the bus is configured. */
  tap: FrameTap | undefined = undefined;
  private broadcasting = false;
  /** Dropped at close: disconnects reported while the transport shuts down are not journaled. */
  private journal: SessionJournal | undefined;
  /** The journal-before-socket rule (durableGate.ts). */
  private readonly gate: DurableGate<Link>;
  /** Market data subscriptions and their fan-out (kept off the order path: src/gateway/marketData.ts). */
  readonly md: MarketDataFanout<Link>;
  private readonly turnLinks: Link[] = [];
  private turnScheduled = false;
  /** A strategy's command is being handled: sequenced frames wait for its end (holdFrames). */
  private holding = false;
  private readonly heldByCommand: Link[] = [];
  private readonly endTurnCb = (): void => this.endTurn();

  constructor(
    private readonly engine: GatewayEngine,
    private readonly table: SessionTable<Link>,
    config: GatewayConfig,
    private readonly cfg: GatewaySettings,
    private readonly log: GatewayLogger,
    private readonly stats: GatewayStats,
  ) {
    this.journal = config.journal;
    this.gate = new DurableGate<Link>(config.journal, (l) => this.release(l));
    this.md = new MarketDataFanout<Link>(
      config.marketData,
      {
        send: (l, f) => this.transmitMd(l, f),
        cork: (l, fn) => (l.closed ? fn() : l.conn.cork(fn)),
        buffered: (l) => (l.closed ? 0 : l.conn.buffered()),
        sessionId: (l) => l.session?.sessionId ?? 0,
      },
      {
        maxSubscriptions: config.marketDataLimits?.maxSubscriptionsPerSession ?? 64,
        maxBufferedBytes: config.marketDataLimits?.maxBufferedBytes ?? 256 * 1024,
      },
    );
  }

  /** The gateway is closing and the journal closes after it: nothing is journaled or waits for it. */
  detachJournal(): void {
    this.journal = undefined;
    this.gate.detach();
  }

  broadcast<N extends EngineMessage>(name: N, body: Body<N>): number {
    if (this.tap !== undefined) return this.broadcastTapped(name, body);
    for (const s of this.table.values()) this.sendSeq(s, name, body, 0);
    return this.table.size;
  }

  /** A broadcast with the tap on: the tap sees it once (also with no session), not once per session. */
  private broadcastTapped<N extends EngineMessage>(name: N, body: Body<N>): number {
    const h = UNSEQ_HDR;
    h.sessionId = 0;
    h.recvNs = 0;
    h.sendNs = monoNs();
    this.tap!(undefined, name, encodeG2C(name, h, body));
    this.broadcasting = true;
    try {
      for (const s of this.table.values()) this.sendSeq(s, name, body, 0);
    } finally {
      this.broadcasting = false;
    }
    return this.table.size;
  }

  cork(sessionId: number, fn: () => void): void {
    const l = this.table.get(sessionId)?.link;
    if (l && !l.closed) l.conn.cork(fn);
    else fn();
  }

  sendSeq<N extends G2CName>(s: Session, name: N, body: Body<N>, recvNs: number): number {
    const seq = s.nextSeq++;
    const h = SEQ_HDR;
    h.sessionId = s.sessionId;
    h.seq = seq;
    h.recvNs = recvNs;
    h.sendNs = monoNs();
    const frame = encodeG2C(name, h, body);
    if (this.tap !== undefined && !this.broadcasting) this.tap(s, name, frame);
    s.ring.push(seq, frame);
    if (s.journaled && this.journal !== undefined) this.journal.out(s.name, frame);
    if (s.link) this.transmit(s.link, frame);
    else if (s.awaitingLogon && s.undeliveredFrom === 0) s.undeliveredFrom = seq;
    return seq;
  }

  /**
   * HeartbeatOut. While the journal cannot write, sequenced frames wait but heartbeats still go out
   * (unsequenced, nothing to journal), so the strategy sees a live gateway that owes it answers and
   * its connection, and cancel-on-disconnect, do not end on silence.
   */
  heartbeat(l: Link, echo: number, recvNs: number): void {
    if (!l.ackOut || l.closed || !this.gate.failing) {
      this.sendUnseq(l, "HeartbeatOut", { echo }, recvNs);
      return;
    }
    const h = UNSEQ_HDR;
    h.sessionId = l.session?.sessionId ?? 0;
    h.recvNs = recvNs;
    h.sendNs = monoNs();
    l.lastSendMs = Date.now();
    if (l.conn.send(encodeG2C("HeartbeatOut", h, { echo })) === 2) this.slowConsumer(l);
  }

  sendUnseq<N extends G2CName>(l: Link, name: N, body: Body<N>, recvNs: number): void {
    const h = UNSEQ_HDR;
    h.sessionId = l.session?.sessionId ?? 0;
    h.recvNs = recvNs;
    h.sendNs = monoNs();
    this.transmit(l, encodeG2C(name, h, body));
  }

  /** Error for a bad frame: sequenced when a session exists, seq 0 before logon. */
  sendError(l: Link, code: CodeName, offendingType: number, recvNs: number): void {
    this.stats.errors++;
    const c = CODES[code];
    const body = { code: c.code, offendingType, text: c.text };
    if (l.session) this.sendSeq(l.session, "Error", body, recvNs);
    else this.sendUnseq(l, "Error", body, recvNs);
  }

  reject(s: Session, clOrdNo: number, code: CodeName, recvNs: number): void {
    this.stats.rejects++;
    const c = CODES[code];
    this.sendSeq(
      s,
      "Reject",
      { clOrdNo, code: c.code, source: RejectSource[c.source], retryable: c.retryable ? 1 : 0, text: c.text },
      recvNs,
    );
  }

  /**
   * The first frame of an event-loop turn for a link goes out at once (no added latency); further
   * frames of the same turn outside a cork (acks of HTTP answers read in one poll) are held and
   * written together at the turn's end: one syscall instead of one per ack. Order is kept.
   */
  transmit(l: Link, frame: Uint8Array): void {
    if (l.closed) return;
    l.lastSendMs = Date.now();
    if (this.holding && l.session !== undefined) {
      if (this.heldByCommand.indexOf(l) < 0) this.heldByCommand.push(l);
      this.hold(l, frame);
      return;
    }
    if (l.heldLens.length > 0 || (l.sentTurn && !l.conn.corked())) {
      this.hold(l, frame);
      return;
    }
    if (l.session !== undefined && !this.gate.durable()) {
      this.hold(l, frame);
      this.gate.wait(l);
      return;
    }
    if (!l.sentTurn) {
      l.sentTurn = true;
      this.turnLinks.push(l);
      if (!this.turnScheduled) {
        this.turnScheduled = true;
        setImmediate(this.endTurnCb);
      }
    }
    const r = l.conn.send(frame);
    if (r === 2 || l.conn.buffered() > this.cfg.maxBufferedBytes) this.slowConsumer(l);
  }

  /**
   * Market data: not journaled, so it never waits for the journal; behind frames already held it
   * queues (one order on the socket), else it goes out at once. Back-pressure as for every frame.
   */
  private transmitMd(l: Link, frame: Uint8Array): void {
    if (l.closed) return;
    l.lastSendMs = Date.now();
    if (l.heldLens.length > 0) {
      this.hold(l, frame);
      return;
    }
    const r = l.conn.send(frame);
    if (r === 2 || l.conn.buffered() > this.cfg.maxBufferedBytes) this.slowConsumer(l);
  }

  /** Copies a frame into the link's held bytes (the codec reuses its buffers). */
  private hold(l: Link, frame: Uint8Array): void {
    let b = l.heldBuf;
    const need = l.heldOff + frame.length;
    if (b === undefined || need > b.length) {
      const nb = Buffer.allocUnsafe(Math.max(HELD_MIN, need * 2));
      if (b !== undefined) b.copy(nb, 0, 0, l.heldOff);
      l.heldBuf = b = nb;
    }
    b.set(frame, l.heldOff);
    l.heldOff = need;
    l.heldLens.push(frame.length);
    // A burst goes out in bounded writes, and back-pressure is still seen while it is being sent.
    if (need >= HELD_FLUSH) this.release(l);
    // Waiting for a journal that cannot write is bounded like a slow consumer: the frames stay in the
    // ring (and the journal's memory) for a resume once it can.
    if (need > this.cfg.maxBufferedBytes && !l.closed && this.gate.failing) {
      this.stats.journalHeldCloses++;
      this.drop(l, "slow-consumer", CLOSE.JournalHeld, "journal cannot write: resume later", true);
    }
  }

  /**
   * From here until releaseFrames, sequenced frames are held (a strategy command is being handled).
   * A cancel's or an amend's PendingCancel / PendingReplace update then reaches the journal in the same
   * write as the venue request, which leaves first; the frames follow in one batch once the journal
   * holds them (journal before socket and the frames' order are unchanged).
   */
  holdFrames(): void {
    this.holding = true;
  }

  /** The command was handled: the frames it produced go out (or wait for the journal) in order. */
  releaseFrames(): void {
    this.holding = false;
    const links = this.heldByCommand;
    if (links.length === 0) return;
    for (let i = 0; i < links.length; i++) this.release(links[i]!);
    links.length = 0;
  }

  private endTurn(): void {
    this.turnScheduled = false;
    const links = this.turnLinks;
    for (let i = 0; i < links.length; i++) {
      const l = links[i]!;
      l.sentTurn = false;
      this.release(l);
    }
    links.length = 0;
  }

  /** Writes a link's held frames in one corked batch (before it ends, and at the turn's end). */
  release(l: Link): void {
    const n = l.heldLens.length;
    if (n === 0) return;
    if (l.closed) {
      l.heldLens.length = 0;
      l.heldOff = 0;
      return;
    }
    if (l.session !== undefined && !this.gate.durable()) {
      this.gate.wait(l); // still held; they stay in the ring for a resume if the link ends first
      return;
    }
    this.relLink = l;
    this.relWorst = 1;
    l.conn.cork(this.releaseCb);
    this.relLink = undefined;
    l.heldLens.length = 0;
    l.heldOff = 0;
    if (l.session !== undefined) l.ackOut = true; // the LogonAck was among them (or went before)
    if (this.relWorst === 2 || l.conn.buffered() > this.cfg.maxBufferedBytes) this.slowConsumer(l);
  }
  private relLink: Link | undefined;
  private relWorst = 1;
  private readonly releaseCb = (): void => {
    const l = this.relLink!;
    const b = l.heldBuf!;
    let off = 0;
    for (let i = 0; i < l.heldLens.length; i++) {
      const len = l.heldLens[i]!;
      if (l.conn.send(b.subarray(off, off + len)) === 2) this.relWorst = 2;
      off += len;
    }
  };

  private slowConsumer(l: Link): void {
    this.stats.slowConsumers++;
    this.log.warn(
      { sessionId: l.session?.sessionId, buffered: l.conn.buffered() },
      "closing slow consumer (messages kept for resume)",
    );
    // Detected inside a send (often the engine's own sink.send): tell the engine after it returns.
    this.drop(l, "slow-consumer", CLOSE.SlowConsumer, "slow consumer", true);
  }

  /** Ends a link: frames held this turn first, then its close frame; its session is told gone. */
  drop(l: Link, reason: DisconnectReason, code: number, text: string, deferEngine = false): void {
    if (l.closed) return;
    l.closeReason = reason;
    this.release(l); // frames held this turn go out before the close frame
    l.closed = true; // nothing more is sent on it
    this.md.dropLink(l);
    this.detach(l, deferEngine);
    l.conn.end(code, text);
  }

  /** Unbinds the link from its session once and tells the engine. */
  detach(l: Link, deferEngine = false): void {
    const s = l.session;
    if (!s || s.link !== l) return;
    s.link = undefined;
    const done = () => {
      this.notifyDisconnect(s, l.closeReason);
      if (s.link === undefined) this.table.disconnected(s, Date.now()); // (unless it logged on again meanwhile)
    };
    if (deferEngine) queueMicrotask(done);
    else done();
  }

  private notifyDisconnect(s: Session, reason: DisconnectReason): void {
    try {
      this.engine.onDisconnect(s, reason, s.codPolicy === CodPolicy.CancelOnDisconnect);
    } catch (err) {
      this.log.warn({ sessionId: s.sessionId, err: String(err) }, "engine.onDisconnect threw");
    }
  }
}
