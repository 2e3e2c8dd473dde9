/**
 * The strategy-facing gateway: sessions over the binary protocol (src/protocol/PROTOCOL.md §3),
 * validation before anything reaches the engine, sequencing with a replay ring, heartbeats,
 * cancel-on-disconnect, back-pressure. Transport-neutral: runs on uWebSockets.js or on `ws`.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Instrument } from "../domain/types.js";
import { monoNs } from "../protocol/clock.js";
import { type C2GMessage, decodeC2G, encodeG2C } from "../protocol/codec.js";
import {
  AmendRejectReason,
  type Body,
  CancelAllScope,
  CancelRejectReason,
  CODES,
  type CodeName,
  CodPolicy,
  type G2CName,
  INSTRUMENTS_PER_FRAME,
  type InstrumentRecordMsg,
  OrdType,
  QueryScope,
  RejectSource,
  TradingStateValue,
  Surface as WireSurface,
  WS_PATH,
} from "../protocol/schema.js";
import { DurableGate, type SessionJournal } from "./durableGate.js";
import type {
  DisconnectReason,
  EngineMessage,
  GatewayEngine,
  HttpHooks,
  HttpReply,
  SessionInfo,
  SessionSink,
} from "./engineApi.js";
import { MarketDataFanout, type MarketDataSource } from "./marketData.js";
import { detectUws, type UwsReport } from "./native.js";
import { frameSeq, type RestoreResult } from "./restore.js";
import { type Session as GatewaySession, SessionTable } from "./sessions.js";
import {
  type Conn,
  type HttpRoute,
  type RunningTransport,
  startUwsTransport,
  startWsTransport,
  type TransportHandlers,
} from "./transport.js";

export interface GatewayLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface GatewayConfig {
  /** Required logon token; when omitted, the HFTGATE_TOKEN environment variable. */
  token?: string | null;
  /** Token for privileged sessions (SessionInfo.admin = true); HFTGATE_ADMIN_TOKEN when omitted; none if unset. */
  adminToken?: string | null;
  host?: string;
  /** 7700 by default; 0 picks an ephemeral port (tests). */
  port?: number;
  /** "auto" uses native uWebSockets.js when it loads, else `ws`; "ws" forces the pure-JS server. */
  transport?: "auto" | "uws" | "ws";
  /** Delay before answering a bad token (slows guessing); 500 ms, as the `gateway.badTokenDelayMs` knob. */
  badTokenDelayMs?: number;
  /** Default heartbeat interval when Logon asks for 0; 1000 ms. */
  heartbeatMs?: number;
  /** Intervals without inbound traffic before the connection is dropped; 3. */
  missedHeartbeats?: number;
  /** A connection that has not logged on within this time is closed; 5000 ms. */
  logonTimeoutMs?: number;
  /** Sequenced frames kept per session for resume; 4096. */
  resumeRing?: number;
  /** Unsent bytes per connection before it is closed as a slow consumer; 1 MiB. */
  maxBufferedBytes?: number;
  /** A disconnected named session is kept for resume this long, then released; 24 h. */
  sessionRetentionMs?: number;
  /** Disconnected named sessions kept for resume; beyond this the longest idle one is released; 256. */
  maxRetainedSessions?: number;
  /**
   * Journal for restart = resume: every sequenced frame of a named session and every session event is
   * appended to it, and no sequenced frame reaches a socket before the journal holds it durably.
   */
  journal?: SessionJournal;
  /** Named sessions of earlier runs (rebuilt from the journal) that this gateway continues. */
  restored?: RestoreResult;
  http?: HttpHooks;
  logger?: GatewayLogger;
  /** Market data for Subscribe (the hub, src/marketdata); without it Subscribe gets SubscribeReject 120. */
  marketData?: MarketDataSource;
  /** Instruments one connection may subscribe; 64. */
  marketDataMaxSubscriptions?: number;
  /** Unsent bytes above which a connection's market data pauses; 256 KiB. */
  marketDataMaxBufferedBytes?: number;
}

export type { SessionJournal };

/**
 * Sees every sequenced frame once (src/bus's drop copy): per session, and an account-wide broadcast once
 * with `session` undefined (header sessionId 0, seq 0). The frame is valid only during the call.
 */
export type FrameTap = (session: SessionInfo | undefined, name: G2CName, frame: Uint8Array) => void;

/** Starts one more transport on the gateway's handlers (src/bus's NATS sessions). */
export type TransportStarter = <L>(h: TransportHandlers<L>) => Promise<RunningTransport>;

/** Session-map figures (/health, tests): every session object the gateway holds is in one of these. */
export interface SessionCounts {
  /** Sessions in the maps (connected + retained). */
  sessions: number;
  connected: number;
  /** Disconnected named sessions kept for resume. */
  retained: number;
  /** Open connections (logged on or not). */
  links: number;
}

export const CLOSE = {
  Normal: 1000,
  Shutdown: 1001,
  LogonRejected: 4001,
  MissedHeartbeats: 4002,
  SlowConsumer: 4008,
  /** More frames wait for a journal that cannot write than a connection may hold (PROTOCOL.md §3). */
  JournalHeld: 1011,
};

const stderrLogger: GatewayLogger = {
  info: () => {},
  warn: (obj, msg) => process.stderr.write(`hftgate gateway WARN: ${msg} ${JSON.stringify(obj)}\n`),
};

type Session = GatewaySession<Link>;

interface Link {
  readonly conn: Conn;
  session: Session | undefined;
  openedMs: number;
  lastRecvMs: number;
  lastSendMs: number;
  closed: boolean;
  /** A logon is being answered (bad-token delay running). */
  logonPending: boolean;
  /** Its LogonAck has reached the connection (heartbeats may go out while frames wait for the journal). */
  ackOut: boolean;
  closeReason: DisconnectReason;
  timer: NodeJS.Timeout | undefined;
  /** A frame went to the socket this event-loop turn: later ones wait for the turn's end (one write). */
  sentTurn: boolean;
  /** Frames held for the end of the turn, copied back to back into `heldBuf`; their lengths. */
  heldBuf: Buffer | undefined;
  heldOff: number;
  readonly heldLens: number[];
}

/** First size of a link's held-frames buffer (grows by doubling). */
const HELD_MIN = 4096;
/** Held bytes that are written at once rather than at the turn's end (about uWS's cork buffer). */
const HELD_FLUSH = 16 * 1024;

/** Scratch header for sequenced frames (no allocation per message); the codec copies it at once. */
const SEQ_HDR = { sessionId: 0, seq: 0, recvNs: 0, sendNs: 0 };
/** Scratch header for unsequenced frames (seq 0); the codec copies it into the frame at once. */
const UNSEQ_HDR = { sessionId: 0, seq: 0, recvNs: 0, sendNs: 0 };

function sha256(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

/** Surface enum values on the wire (PROTOCOL.md §5). */
const SURFACE_WIRE: Readonly<Record<Instrument["surface"], number>> = {
  spot: WireSurface.Spot,
  hft: WireSurface.Hft,
  futures: WireSurface.Futures,
};

function toRecord(i: Instrument): InstrumentRecordMsg {
  return {
    instrumentId: i.id,
    surface: SURFACE_WIRE[i.surface],
    active: i.active ? 1 : 0,
    symbol: i.symbol,
    venue: i.venue,
    tickSize: i.tickSize,
    qtyStep: i.qtyStep,
    minQty: i.minQty,
    maxQty: i.maxQty,
    minNotional: i.minNotional,
  };
}

export class Gateway implements SessionSink {
  readonly uws: UwsReport;
  private transport: RunningTransport | undefined;
  private readonly table: SessionTable<Link>;
  /** Dropped at close: disconnects reported while the transport shuts down are not journaled. */
  private journal: SessionJournal | undefined;
  private readonly links = new Set<Link>();
  private instArr: readonly Instrument[] | undefined;
  private instById = new Map<number, Instrument>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly tokenDigest: Buffer;
  private readonly adminDigest: Buffer | undefined;
  private readonly cfg: Required<
    Omit<
      GatewayConfig,
      | "http"
      | "logger"
      | "token"
      | "adminToken"
      | "journal"
      | "restored"
      | "marketData"
      | "marketDataMaxSubscriptions"
      | "marketDataMaxBufferedBytes"
    >
  > & {
    token: string;
    adminToken: string;
  };
  private readonly log: GatewayLogger;
  /** Transports added with `addTransport` (closed with the gateway). */
  private readonly extra: RunningTransport[] = [];
  /** Drop-copy tap; undefined (one check per frame) unless the bus is configured. */
  tap: FrameTap | undefined = undefined;
  private broadcasting = false;
  private readonly handlers: TransportHandlers<Link> = {
    open: (conn) => this.onOpen(conn),
    message: (link, data, isBinary) => this.onFrame(link, data, isBinary),
    close: (link) => this.onClose(link),
    http: (route, authorization) => this.onHttp(route, authorization),
    venue: (name, query, auth) => this.onVenueRead(name, query, auth),
  };
  /** Counters for /metrics and tests. */
  readonly stats = {
    framesIn: 0,
    errors: 0,
    rejects: 0,
    slowConsumers: 0,
    badTokens: 0,
    /** Connections closed (1011) holding more than a connection may while the journal cannot write. */
    journalHeldCloses: 0,
  };

  constructor(
    private readonly engine: GatewayEngine,
    config: GatewayConfig,
  ) {
    const token = config.token || process.env.HFTGATE_TOKEN;
    if (!token) throw new Error("gateway token is required (config gateway.token or HFTGATE_TOKEN)");
    const adminToken = config.adminToken || process.env.HFTGATE_ADMIN_TOKEN || "";
    this.cfg = {
      token,
      adminToken,
      host: config.host ?? "127.0.0.1",
      port: config.port ?? 7700,
      transport: config.transport ?? "auto",
      badTokenDelayMs: config.badTokenDelayMs ?? 500,
      heartbeatMs: config.heartbeatMs ?? 1000,
      missedHeartbeats: config.missedHeartbeats ?? 3,
      logonTimeoutMs: config.logonTimeoutMs ?? 5000,
      resumeRing: config.resumeRing ?? 4096,
      maxBufferedBytes: config.maxBufferedBytes ?? 1 << 20,
      sessionRetentionMs: config.sessionRetentionMs ?? 86_400_000,
      maxRetainedSessions: config.maxRetainedSessions ?? 256,
    };
    this.journal = config.journal;
    this.gate = new DurableGate<Link>(config.journal, (l) => this.release(l));
    this.table = new SessionTable<Link>({
      ring: this.cfg.resumeRing,
      retentionMs: this.cfg.sessionRetentionMs,
      maxRetained: this.cfg.maxRetainedSessions,
      journal: config.journal,
      onRelease: (s) => this.released(s),
      logInfo: (o, m) => this.log.info(o, m),
    });
    if (config.restored) this.table.restore(config.restored);
    this.http = config.http ?? {};
    this.log = config.logger ?? stderrLogger;
    this.tokenDigest = sha256(token);
    this.adminDigest = adminToken ? sha256(adminToken) : undefined;
    this.uws = detectUws();
    this.md = new MarketDataFanout<Link>(
      config.marketData,
      {
        send: (l, f) => this.transmitMd(l, f),
        cork: (l, fn) => (l.closed ? fn() : l.conn.cork(fn)),
        buffered: (l) => (l.closed ? 0 : l.conn.buffered()),
        sessionId: (l) => l.session?.sessionId ?? 0,
      },
      {
        maxSubscriptions: config.marketDataMaxSubscriptions ?? 64,
        maxBufferedBytes: config.marketDataMaxBufferedBytes ?? 256 * 1024,
      },
    );
  }
  /** Market data subscriptions and their fan-out (kept off the order path: src/gateway/marketData.ts). */
  readonly md: MarketDataFanout<Link>;
  private readonly http: HttpHooks;

  get port(): number {
    return this.transport?.port ?? 0;
  }
  /** "uws-native" or "ws" once started. */
  get transportKind(): string {
    return this.transport?.kind ?? "stopped";
  }
  get url(): string {
    return `ws://${this.cfg.host}:${this.port}${WS_PATH}`;
  }

  async start(): Promise<this> {
    const opts = {
      host: this.cfg.host,
      port: this.cfg.port,
      maxPayload: 64 * 1024,
      maxBackpressure: this.cfg.maxBufferedBytes * 2,
    };
    const handlers = this.handlers;
    const wantNative = this.cfg.transport !== "ws";
    if (wantNative && this.uws.native) this.transport = await startUwsTransport(opts, handlers);
    else {
      if (wantNative) {
        this.log.warn(
          { binary: this.uws.binary, reason: this.uws.reason },
          "!!! uWebSockets.js native binary NOT available: falling back to the pure-JS `ws` server (slower) !!!",
        );
      } else this.log.warn({}, "gateway running on the pure-JS `ws` server (transport=ws configured)");
      this.transport = await startWsTransport(opts, handlers);
    }
    this.sweeper = setInterval(() => this.sweep(), 50);
    this.sweeper.unref();
    this.log.info({ url: this.url, transport: this.transport.kind, uws: this.uws }, "gateway listening");
    if (!/^(127\.|::1$|localhost$)/.test(this.cfg.host)) {
      this.log.warn({ host: this.cfg.host }, "gateway command API is listening beyond loopback");
    }
    return this;
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    for (const l of this.links) {
      this.release(l);
      l.closeReason = "shutdown";
      if (l.timer) clearTimeout(l.timer);
    }
    await this.transport?.close();
    this.transport = undefined;
    for (const t of this.extra.splice(0)) await t.close();
    this.journal = undefined;
    this.gate.detach();
    this.table.detachJournal();
  }

  /**
   * The end of a drain: every connection, on every transport, gets the frames it is owed that the
   * journal holds, then its close with 1001 (going away); named sessions stay resumable. Resolves with
   * how many were closed once the peers have answered, or after `waitMs`.
   */
  async goAway(waitMs: number): Promise<number> {
    const open = [...this.links].filter((l) => !l.closed);
    for (const l of open) this.drop(l, "shutdown", CLOSE.Shutdown, "gateway shutting down");
    const until = Date.now() + waitMs;
    while (this.links.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    return open.length;
  }

  /** Serves the same sessions over one more transport (same rules: logon, seq, resume, heartbeats, COD). */
  async addTransport(start: TransportStarter): Promise<RunningTransport> {
    const t = await start(this.handlers);
    this.extra.push(t);
    return t;
  }

  // ---- SessionSink ----

  send<N extends EngineMessage>(sessionId: number, name: N, body: Body<N>, recvNs = 0): number {
    const s = this.table.get(sessionId);
    return s ? this.sendSeq(s, name, body, recvNs) : 0;
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

  session(sessionId: number): SessionInfo | undefined {
    return this.table.get(sessionId);
  }

  sessions(): readonly SessionInfo[] {
    return [...this.table.values()];
  }

  /** Id of the session with this name that is still held (connected or kept for resume), else 0. */
  sessionIdOf(name: string): number {
    return this.table.named(name)?.sessionId ?? 0;
  }

  counts(): SessionCounts {
    let connected = 0;
    for (const s of this.table.values()) if (s.link !== undefined) connected++;
    return { sessions: this.table.size, connected, retained: this.table.retained, links: this.links.size };
  }

  /** The session table let a session go: the engine unbinds it. */
  private released(s: SessionInfo): void {
    try {
      this.engine.onRelease?.(s);
    } catch (err) {
      this.log.warn({ sessionId: s.sessionId, err: String(err) }, "engine.onRelease threw");
    }
  }

  // ---- sending ----

  private sendSeq<N extends G2CName>(s: Session, name: N, body: Body<N>, recvNs: number): number {
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
  private heartbeat(l: Link, echo: number, recvNs: number): void {
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

  private sendUnseq<N extends G2CName>(l: Link, name: N, body: Body<N>, recvNs: number): void {
    const h = UNSEQ_HDR;
    h.sessionId = l.session?.sessionId ?? 0;
    h.recvNs = recvNs;
    h.sendNs = monoNs();
    this.transmit(l, encodeG2C(name, h, body));
  }

  /**
   * The first frame of an event-loop turn for a link goes out at once (no added latency); further
   * frames of the same turn outside a cork (acks of HTTP answers read in one poll) are held and
   * written together at the turn's end: one syscall instead of one per ack. Order is kept.
   */
  private transmit(l: Link, frame: Uint8Array): void {
    if (l.closed) return;
    l.lastSendMs = Date.now();
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

  private readonly turnLinks: Link[] = [];
  private turnScheduled = false;
  private readonly endTurnCb = (): void => this.endTurn();

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

  /** The journal-before-socket rule (durableGate.ts). */
  private readonly gate: DurableGate<Link>;

  /** Writes a link's held frames in one corked batch (before it ends, and at the turn's end). */
  private release(l: Link): void {
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

  private drop(l: Link, reason: DisconnectReason, code: number, text: string, deferEngine = false): void {
    if (l.closed) return;
    l.closeReason = reason;
    this.release(l); // frames held this turn go out before the close frame
    l.closed = true; // nothing more is sent on it
    this.md.dropLink(l);
    this.detach(l, deferEngine);
    l.conn.end(code, text);
  }

  /** Error for a bad frame: sequenced when a session exists, seq 0 before logon. */
  private sendError(l: Link, code: CodeName, offendingType: number, recvNs: number): void {
    this.stats.errors++;
    const c = CODES[code];
    const body = { code: c.code, offendingType, text: c.text };
    if (l.session) this.sendSeq(l.session, "Error", body, recvNs);
    else this.sendUnseq(l, "Error", body, recvNs);
  }

  private reject(s: Session, clOrdNo: number, code: CodeName, recvNs: number): void {
    this.stats.rejects++;
    const c = CODES[code];
    this.sendSeq(
      s,
      "Reject",
      { clOrdNo, code: c.code, source: RejectSource[c.source], retryable: c.retryable ? 1 : 0, text: c.text },
      recvNs,
    );
  }

  // ---- transport events ----

  private onOpen(conn: Conn): Link {
    const now = Date.now();
    const l: Link = {
      conn,
      session: undefined,
      openedMs: now,
      lastRecvMs: now,
      lastSendMs: now,
      closed: false,
      logonPending: false,
      ackOut: false,
      closeReason: "closed",
      timer: undefined,
      sentTurn: false,
      heldBuf: undefined,
      heldOff: 0,
      heldLens: [],
    };
    this.links.add(l);
    return l;
  }

  private onClose(l: Link): void {
    this.links.delete(l);
    this.md.dropLink(l);
    if (l.timer) clearTimeout(l.timer);
    l.closed = true;
    this.detach(l);
  }

  /** Unbinds the link from its session once and tells the engine. */
  private detach(l: Link, deferEngine = false): void {
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

  /**
   * A venue read: the caller shows the logon token (`Authorization: Bearer <token>`, user or admin);
   * a bad one waits the bad-token delay and gets 401, and nothing reaches the venue.
   */
  private async onVenueRead(name: string, query: string, auth: string | undefined): Promise<HttpReply> {
    const hook = this.http.venue;
    if (hook === undefined) return { status: 404, body: "not found\n" };
    const token = auth?.startsWith("Bearer ") ? auth.slice(7) : "";
    const given = sha256(token);
    const isUser = timingSafeEqual(given, this.tokenDigest);
    const isAdmin = this.adminDigest ? timingSafeEqual(given, this.adminDigest) : false;
    if (!isUser && !isAdmin) {
      this.stats.badTokens++;
      await new Promise((r) => setTimeout(r, this.cfg.badTokenDelayMs));
      return {
        status: 401,
        contentType: "application/json",
        body: '{"error":{"kind":"BadToken","message":"Authorization: Bearer <gateway token> required"}}',
      };
    }
    return hook(name, new URLSearchParams(query));
  }

  private onHttp(route: HttpRoute, authorization?: string): HttpReply {
    if (route === "admin") return this.http.admin?.(authorization) ?? { status: 404, body: "not found\n" };
    const hook = this.http[route];
    if (hook) return hook();
    if (route === "health") {
      return {
        contentType: "application/json",
        body: JSON.stringify({ status: "ok", transport: this.transportKind, ...this.counts() }),
      };
    }
    return { body: "" };
  }

  private onFrame(l: Link, data: Buffer, isBinary: boolean): void {
    const recvNs = monoNs();
    l.lastRecvMs = Date.now();
    this.stats.framesIn++;
    if (l.closed) return;
    if (!isBinary) {
      this.sendError(l, "TextFrame", 0, recvNs);
      return;
    }
    const m = decodeC2G(data);
    if (m.name === undefined) {
      this.sendError(l, m.error, m.type, recvNs);
      return;
    }
    const s = l.session;
    if (m.name === "Logon") {
      this.onLogon(l, m.body, recvNs);
      return;
    }
    if (!s) {
      this.sendError(l, "NotLoggedOn", m.type, recvNs);
      return;
    }
    // The one guard at the engine boundary: an engine bug must not take the gateway (or other sessions) down.
    try {
      this.dispatch(l, s, m, recvNs);
    } catch (err) {
      this.engineFault(l, s, m, err, recvNs);
    }
  }

  private engineFault(l: Link, s: Session, m: C2GMessage, err: unknown, recvNs: number): void {
    this.log.warn(
      { sessionId: s.sessionId, type: m.name, err: String(err) },
      "engine threw while handling a command",
    );
    if (m.name === "NewOrder") this.reject(s, m.body.clOrdNo, "Internal", recvNs);
    else this.sendError(l, "Internal", m.type, recvNs);
  }

  private dispatch(l: Link, s: Session, m: C2GMessage, recvNs: number): void {
    switch (m.name) {
      case "NewOrder":
        this.onNewOrder(s, m.body, recvNs);
        return;
      case "Cancel": {
        const b = m.body;
        if (b.clOrdNo > s.lastClOrdNo || (b.clOrdNo === 0 && b.exchangeOrderId === "")) {
          this.sendSeq(
            s,
            "CancelReject",
            {
              clOrdNo: b.clOrdNo,
              reason: CancelRejectReason.UnknownOrder,
              exchangeOrderId: b.exchangeOrderId,
              text: "unknown order",
            },
            recvNs,
          );
          return;
        }
        this.engine.onCancel(s, b, recvNs);
        return;
      }
      case "Amend":
        this.onAmend(l, s, m.body, m.type, recvNs);
        return;
      case "CancelAll": {
        const b = m.body;
        if (b.scope === CancelAllScope.SessionInstrument && !this.instrument(b.instrumentId)) {
          this.sendError(l, "UnknownInstrument", m.type, recvNs);
          return;
        }
        this.engine.onCancelAll(s, b, recvNs);
        return;
      }
      case "Query":
        this.onQuery(s, m.body, recvNs);
        return;
      case "InstrumentsRequest":
        this.onInstruments(s, m.body.requestId, recvNs);
        return;
      case "Kill":
      case "SetTradingState":
        this.onAdmin(l, s, m, recvNs);
        return;
      case "Subscribe":
        if (this.instrument(m.body.instrumentId) === undefined)
          this.md.unknownInstrument(l, m.body.requestId, m.body.instrumentId, recvNs);
        else this.md.subscribe(l, m.body.requestId, m.body.instrumentId, recvNs);
        return;
      case "Unsubscribe":
        if (this.instrument(m.body.instrumentId) === undefined)
          this.md.unknownInstrument(l, m.body.requestId, m.body.instrumentId, recvNs);
        else this.md.unsubscribe(l, m.body.requestId, m.body.instrumentId, recvNs);
        return;
      case "Heartbeat":
        if (m.body.echo !== 0) this.heartbeat(l, m.body.echo, recvNs);
        return;
      case "Logout":
        this.drop(l, "logout", CLOSE.Normal, "logout");
        return;
    }
  }

  private onNewOrder(s: Session, b: Body<"NewOrder">, recvNs: number): void {
    if (b.clOrdNo <= s.lastClOrdNo || b.clOrdNo === 0) {
      this.reject(s, b.clOrdNo, "ClOrdNoNotIncreasing", recvNs);
      return;
    }
    s.lastClOrdNo = b.clOrdNo;
    const inst = this.instrument(b.instrumentId);
    if (!inst) {
      this.reject(s, b.clOrdNo, "UnknownInstrument", recvNs);
      return;
    }
    if (!inst.active) {
      this.reject(s, b.clOrdNo, "InstrumentInactive", recvNs);
      return;
    }
    if (b.qtyLots === 0) {
      this.reject(s, b.clOrdNo, "BadQuantity", recvNs);
      return;
    }
    if (b.ordType === OrdType.Limit && b.priceTicks === 0) {
      this.reject(s, b.clOrdNo, "BadPrice", recvNs);
      return;
    }
    this.engine.onNewOrder(s, b, recvNs);
  }

  /**
   * Amend: the numbers are checked here as for NewOrder / Cancel (an order number the session never used
   * is unknown; a replacement number must increase and is used up); the engine decides the rest.
   */
  private onAmend(l: Link, s: Session, b: Body<"Amend">, type: number, recvNs: number): void {
    const e = this.engine;
    if (!e.onAmend) {
      this.sendError(l, "UnknownType", type, recvNs);
      return;
    }
    let reason = 0;
    if (b.clOrdNo === 0 || b.clOrdNo > s.lastClOrdNo) reason = AmendRejectReason.UnknownOrder;
    else if (b.newClOrdNo !== 0 && b.newClOrdNo <= s.lastClOrdNo) reason = AmendRejectReason.BadNewClOrdNo;
    if (reason !== 0) {
      const text = reason === AmendRejectReason.UnknownOrder ? "unknown order" : "newClOrdNo not increasing";
      this.sendSeq(s, "AmendReject", { ...b, reason, exchangeOrderId: "", text }, recvNs);
      return;
    }
    if (b.newClOrdNo !== 0) s.lastClOrdNo = b.newClOrdNo;
    e.onAmend(s, b, recvNs);
  }

  /** Admin commands: refused (nothing reaches the engine) unless the session logged on as admin. */
  private onAdmin(
    l: Link,
    s: Session,
    m: Extract<C2GMessage, { name: "Kill" | "SetTradingState" }>,
    recvNs: number,
  ): void {
    if (!s.admin) {
      this.sendError(l, "NotAdmin", m.type, recvNs);
      return;
    }
    const e = this.engine;
    if (m.name === "Kill" && e.onKill) e.onKill(s, m.body, recvNs);
    else if (m.name === "SetTradingState" && e.onSetTradingState) e.onSetTradingState(s, m.body, recvNs);
    else this.sendError(l, "UnknownType", m.type, recvNs);
  }

  private onQuery(s: Session, b: Body<"Query">, recvNs: number): void {
    const rows = b.scope === QueryScope.One && b.clOrdNo > s.lastClOrdNo ? [] : this.engine.onQuery(s, b);
    const cork = () => {
      for (const r of rows) this.sendSeq(s, "OrderUpdate", { ...r, requestId: b.requestId }, recvNs);
      this.sendSeq(s, "QueryEnd", { requestId: b.requestId, count: rows.length }, recvNs);
    };
    if (rows.length > 0) this.cork(s.sessionId, cork);
    else this.sendSeq(s, "QueryEnd", { requestId: b.requestId, count: 0 }, recvNs);
  }

  private onInstruments(s: Session, requestId: number, recvNs: number): void {
    const all = this.engine.instruments();
    let i = 0;
    do {
      const page = all.slice(i, i + INSTRUMENTS_PER_FRAME).map(toRecord);
      i += INSTRUMENTS_PER_FRAME;
      const more = i < all.length ? 1 : 0;
      this.sendSeq(
        s,
        "InstrumentsResponse",
        { requestId, more, count: page.length, instruments: page },
        recvNs,
      );
    } while (i < all.length);
  }

  private instrument(id: number): Instrument | undefined {
    const arr = this.engine.instruments();
    if (arr !== this.instArr) {
      this.instArr = arr;
      this.instById = new Map(arr.map((x) => [x.id, x]));
    }
    return this.instById.get(id);
  }

  // ---- logon ----

  private onLogon(l: Link, b: Body<"Logon">, recvNs: number): void {
    if (l.session || l.logonPending) {
      this.sendError(l, "AlreadyLoggedOn", 0x01, recvNs);
      return;
    }
    const given = sha256(b.token);
    // Both comparisons always run, in constant time, so timing says nothing about which token matched.
    const isUser = timingSafeEqual(given, this.tokenDigest);
    const isAdmin = this.adminDigest ? timingSafeEqual(given, this.adminDigest) : false;
    if (!isUser && !isAdmin) {
      this.stats.badTokens++;
      l.logonPending = true;
      l.timer = setTimeout(() => this.logonReject(l, "BadToken", recvNs), this.cfg.badTokenDelayMs);
      return;
    }
    const existing = this.table.named(b.sessionName);
    if (existing?.link) {
      this.logonReject(l, "SessionInUse", recvNs);
      return;
    }
    const from = b.resumeFromSeq;
    if (from > 0) {
      const next = existing ? existing.nextSeq : 1;
      const oldest = existing ? existing.ring.oldestSeq() || next : 1;
      if (from > next || from < oldest) {
        this.logonReject(l, "ResumeOutOfRange", recvNs);
        return;
      }
    }
    if (existing && existing.admin !== isAdmin) {
      this.logonReject(l, "SessionInUse", recvNs); // a session name belongs to one privilege level
      return;
    }
    const s = existing ?? this.table.create(b.sessionName, isAdmin);
    this.table.loggedOn(s);
    s.lastClOrdNo = Math.max(s.lastClOrdNo, this.engineLastClOrdNo(s));
    s.codPolicy = b.codPolicy;
    s.heartbeatMs =
      b.heartbeatMs === 0 ? this.cfg.heartbeatMs : Math.min(60_000, Math.max(100, b.heartbeatMs));
    s.link = l;
    l.session = s;
    // Without a resume, what was sequenced for it since the restart (before this logon) still goes out.
    const replayFrom = from > 0 ? from : s.undeliveredFrom;
    s.awaitingLogon = false;
    s.undeliveredFrom = 0;
    const replay = replayFrom > 0 ? [...s.ring.from(replayFrom)] : [];
    const resumed = existing !== undefined;
    l.conn.cork(() => {
      this.sendUnseq(
        l,
        "LogonAck",
        {
          nextSeq: s.nextSeq,
          replayFromSeq: replay.length > 0 ? frameSeq(replay[0]!) : 0,
          replayCount: replay.length,
          lastClOrdNo: s.lastClOrdNo,
          heartbeatMs: s.heartbeatMs,
          wallClockMs: Date.now(),
          tradingState: this.engine.tradingState?.() ?? TradingStateValue.Active,
          resumed: resumed ? 1 : 0,
        },
        recvNs,
      );
      l.ackOut = l.heldLens.length === 0; // else it waits for the journal with the frames after it
      for (const f of replay) this.transmit(l, f);
    });
    try {
      this.engine.onLogon(s, resumed);
    } catch (err) {
      this.log.warn({ sessionId: s.sessionId, err: String(err) }, "engine.onLogon threw");
    }
  }

  /** What the engine remembers of the session's numbering (e.g. from before a restart); 0 on failure. */
  private engineLastClOrdNo(s: Session): number {
    try {
      const n = this.engine.lastClOrdNo?.(s.name) ?? 0;
      return Number.isSafeInteger(n) && n > 0 ? n : 0;
    } catch (err) {
      this.log.warn({ sessionId: s.sessionId, err: String(err) }, "engine.lastClOrdNo threw");
      return 0;
    }
  }

  private logonReject(l: Link, code: CodeName, recvNs: number): void {
    l.timer = undefined;
    if (l.closed) return;
    const c = CODES[code];
    this.sendUnseq(l, "LogonReject", { code: c.code, text: c.text }, recvNs);
    this.release(l);
    l.closed = true;
    l.conn.end(CLOSE.LogonRejected, c.text);
  }

  // ---- timers ----

  private sweep(): void {
    const now = Date.now();
    this.table.expire(now);
    this.md.sweep();
    for (const l of this.links) {
      if (l.closed) continue;
      const s = l.session;
      if (!s) {
        if (!l.logonPending && now - l.openedMs > this.cfg.logonTimeoutMs) {
          this.release(l);
          l.closed = true;
          l.conn.end(CLOSE.LogonRejected, "no logon");
        }
        continue;
      }
      if (now - l.lastRecvMs > s.heartbeatMs * this.cfg.missedHeartbeats) {
        this.drop(l, "missed-heartbeats", CLOSE.MissedHeartbeats, "missed heartbeats");
      } else if (now - l.lastSendMs >= s.heartbeatMs) {
        this.heartbeat(l, 0, 0);
      }
    }
  }
}

/** Creates and starts a gateway. The caller should log `gateway.uws` (native or fallback). */
export async function startGateway(engine: GatewayEngine, config: GatewayConfig): Promise<Gateway> {
  return new Gateway(engine, config).start();
}
