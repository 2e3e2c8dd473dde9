/**
 * TypeScript client for the hftgate binary protocol (src/protocol/PROTOCOL.md), over the gateway's
 * WebSocket (default) or the NATS bus (`natsTransport`, docs/bus.md).
 * `placeOrder()` returns the client order number at once; answers arrive as typed events. Tracks the
 * session's seq (gap/duplicate detection), resumes from the last seen seq on reconnect (also after a
 * gateway restart: named sessions continue from the gateway's journal), sends heartbeats and keeps a
 * latency trace per order.
 */
import { EventEmitter } from "node:events";
import { monoNs } from "../protocol/clock.js";
import {
  type DecodeFailure,
  decodeG2C,
  encodeC2G,
  type G2CHeader,
  type G2CMessage,
} from "../protocol/codec.js";
import {
  AmendFlags,
  type Body,
  type C2GName,
  CancelAllScope,
  CODES,
  CodPolicy,
  type InstrumentRecordMsg,
  LogonOptions,
  MdFlags,
  MdStatus,
  OrdType,
  QueryScope,
  Tif,
  WS_PATH,
} from "../protocol/schema.js";
import { type ClientLink, type ClientTransport, wsTransport } from "./link.js";

export interface ClientOptions {
  /** ws://host:port/v1/ws, or just ws://host:port (the path is added). Ignored when `transport` is given. */
  url?: string;
  /** How to reach the gateway; default the WebSocket at `url` (`natsTransport` for the bus). */
  transport?: ClientTransport;
  token: string;
  /** Session identity; the same name resumes the same session. */
  sessionName: string;
  heartbeatMs?: number;
  /** 0 none (default), 1 cancel this session's live orders on disconnect. */
  codPolicy?: number;
  /**
   * LogonOptions bits (default 0). NoPendingUpdates: no OrderUpdate acknowledging this session's own
   * Cancel or Amend (PendingCancel, PendingReplace); the outcome still comes.
   */
  logonOptions?: number;
  /** Reconnect (and resume) automatically after an unexpected close. */
  autoReconnect?: boolean;
  reconnectDelayMs?: number;
  /** Max orders kept in the latency trace map. */
  traceCapacity?: number;
  /**
   * Seq of the last message an earlier run of this strategy received on this session (kept by the
   * strategy): the first logon resumes from it + 1. Default 0 (no resume on the first logon).
   */
  lastSeq?: number;
}

export interface OrderParams {
  instrumentId: number;
  side: number;
  ordType?: number;
  tif?: number;
  priceTicks?: number;
  qtyLots: number;
  positionIdx?: number;
  flags?: number;
}

/** Per-order latency trace. Client times and gateway times are the same host monotonic clock (ns). */
export interface OrderTrace {
  clOrdNo: number;
  sendNs: number;
  /** When the first answer (Ack, Reject or OutcomeUnknown) arrived. */
  answerNs: number;
  answer: "" | "Ack" | "Reject" | "OutcomeUnknown";
  gwRecvNs: number;
  gwSendNs: number;
}

type Ev<N extends G2CMessage["name"]> = [body: Body<N>, header: G2CHeader];
export interface ClientEvents {
  logon: [ack: Body<"LogonAck">];
  ack: Ev<"Ack">;
  reject: Ev<"Reject">;
  update: Ev<"OrderUpdate">;
  fill: Ev<"Fill">;
  cancelReject: Ev<"CancelReject">;
  amendReject: Ev<"AmendReject">;
  unknown: Ev<"OutcomeUnknown">;
  balance: Ev<"BalanceUpdate">;
  position: Ev<"PositionUpdate">;
  tradingState: Ev<"TradingState">;
  credit: Ev<"Credit">;
  protocolError: Ev<"Error">;
  /** Sequence gap: messages expected..got-1 were never seen (should not happen with resume). */
  gap: [expected: number, got: number];
  /** Market data (after `subscribe`): best bid/ask, a public print, a closed one-minute candle. */
  topOfBook: Ev<"TopOfBook">;
  trade: Ev<"Trade">;
  candle: Ev<"Candle">;
  /** Live (snapshot complete), Stale, Unsubscribed, SlowConsumer (PROTOCOL.md §3 Market data). */
  marketDataStatus: Ev<"MarketDataStatus">;
  subscribeReject: Ev<"SubscribeReject">;
  /** An instrument's mdSeq skipped outside a snapshot (the gateway never does this; a bug if seen). */
  mdGap: [instrumentId: number, expected: number, got: number];
  /** Any decoded message, after the specific event. */
  message: [msg: G2CMessage];
  close: [code: number, reason: string];
  /**
   * A reconnect could not resume: the gateway no longer holds the missed messages (older than its
   * retention, also across a gateway restart). The client logged on without replay; `query()` the
   * live orders to rebuild state.
   */
  resumeLost: [lastSeq: number];
}

export class LogonRejectedError extends Error {
  override readonly name = "LogonRejectedError";
  constructor(
    readonly code: number,
    text: string,
  ) {
    super(`logon rejected (${code}): ${text}`);
  }
}

const EVENT_OF: Partial<Record<G2CMessage["name"], keyof ClientEvents>> = {
  Ack: "ack",
  Reject: "reject",
  OrderUpdate: "update",
  Fill: "fill",
  CancelReject: "cancelReject",
  AmendReject: "amendReject",
  OutcomeUnknown: "unknown",
  BalanceUpdate: "balance",
  PositionUpdate: "position",
  TradingState: "tradingState",
  Credit: "credit",
  Error: "protocolError",
  TopOfBook: "topOfBook",
  Trade: "trade",
  Candle: "candle",
  MarketDataStatus: "marketDataStatus",
  SubscribeReject: "subscribeReject",
};

/** A Subscribe / Unsubscribe refused by the gateway (SubscribeReject). */
export class SubscribeRejectedError extends Error {
  override readonly name = "SubscribeRejectedError";
  constructor(
    readonly instrumentId: number,
    readonly code: number,
    text: string,
  ) {
    super(`market data for instrument ${instrumentId} refused (${code}): ${text}`);
  }
}

type MdAnswer = { done: (b: Body<"MarketDataStatus">) => void; fail: (e: Error) => void };

export class GatewayClient extends EventEmitter<ClientEvents> {
  private ws: ClientLink | undefined;
  /** Highest seq seen in this session; resume asks for lastSeq + 1. */
  lastSeq = 0;
  /**
   * Highest client order number this session has used; after logon at least `LogonAck.lastClOrdNo`
   * (the gateway's, which survives gateway restarts via the journal). `placeOrder` continues above it.
   */
  lastClOrdNo = 0;
  sessionId = 0;
  duplicates = 0;
  private lastSendMs = 0;
  private lastRecvMs = 0;
  private hbTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closing = false;
  private nextRequestId = 1;
  private nextEcho = 1;
  private readonly traces = new Map<number, OrderTrace>();
  private readonly queries = new Map<
    number,
    { rows: Body<"OrderUpdate">[]; done: (r: Body<"OrderUpdate">[]) => void }
  >();
  private readonly instReqs = new Map<
    number,
    { rows: InstrumentRecordMsg[]; done: (r: InstrumentRecordMsg[]) => void }
  >();
  private readonly pings = new Map<number, { t0: number; done: (rttNs: number) => void }>();
  /** Instruments subscribed (re-subscribed after a reconnect: subscriptions belong to a connection). */
  private readonly mdSubs = new Set<number>();
  /** Last mdSeq per instrument since its latest snapshot; absent = waiting for a snapshot. */
  private readonly mdSeqs = new Map<number, number>();
  private readonly mdAnswers = new Map<number, MdAnswer>();
  private readonly opts: Required<Omit<ClientOptions, "url" | "transport">>;
  private readonly transport: ClientTransport;
  private readonly wsUrl: string | undefined;

  /**
   * A venue account read answered by the gateway with its own keys (no second key holder):
   * `tradingFee` ({exchange}), `tradeInfo` ({exchange?, symbol?}), `tds`, `portfolio`. Resolves with
   * the venue's `data` as it answered; a refusal throws VenueReadError (status, kind, retryAfterMs).
   * Needs the gateway's URL (not the in-process transport).
   */
  async venueRead<T = unknown>(
    name: "tradingFee" | "tradeInfo" | "tds" | "portfolio",
    params: Record<string, string> = {},
    timeoutMs = 10_000,
  ): Promise<T> {
    if (this.wsUrl === undefined) throw new Error("venueRead needs the gateway's URL");
    const u = new URL(this.wsUrl);
    u.protocol = u.protocol === "wss:" ? "https:" : "http:";
    u.pathname = `/v1/venue/${name}`;
    u.search = new URLSearchParams(params).toString();
    const res = await fetch(u, {
      headers: { authorization: `Bearer ${this.opts.token}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await res.json().catch(() => ({}))) as {
      data?: T;
      error?: { kind?: string; message?: string; retryAfterMs?: number };
    };
    if (res.status !== 200 || body.error !== undefined) {
      const e = body.error ?? {};
      throw new VenueReadError(res.status, e.kind ?? "Error", e.message ?? res.statusText, e.retryAfterMs);
    }
    return body.data as T;
  }

  constructor(opts: ClientOptions) {
    super();
    if (opts.transport === undefined && opts.url === undefined)
      throw new Error("client needs a url or a transport");
    const url =
      opts.url === undefined || opts.url.endsWith(WS_PATH) ? opts.url : opts.url.replace(/\/?$/, WS_PATH);
    this.transport = opts.transport ?? wsTransport(url!);
    this.wsUrl = url;
    this.opts = {
      heartbeatMs: 1000,
      codPolicy: CodPolicy.None,
      logonOptions: LogonOptions.None,
      autoReconnect: false,
      reconnectDelayMs: 200,
      traceCapacity: 100_000,
      lastSeq: 0,
      ...opts,
    };
    this.lastSeq = this.opts.lastSeq;
  }

  get connected(): boolean {
    return this.ws?.open === true;
  }

  /** Opens the socket and logs on (resuming from lastSeq + 1 when this client saw messages before). */
  connect(): Promise<Body<"LogonAck">> {
    this.closing = false;
    return new Promise((resolve, reject) => {
      let loggedOn = false;
      const ws = this.transport({
        open: () => this.onOpen(),
        message: (data) => {
          this.lastRecvMs = Date.now();
          const m = decodeG2C(data);
          if (m.name === "LogonAck") {
            loggedOn = true;
            this.onLogonAck(m.header, m.body);
            resolve(m.body);
          } else if (m.name === "LogonReject") reject(new LogonRejectedError(m.body.code, m.body.text));
          this.onMessage(m);
        },
        error: (err) => {
          if (!loggedOn) reject(err);
        },
        close: (code, reason) => {
          if (this.ws === ws) this.ws = undefined;
          if (this.hbTimer) clearInterval(this.hbTimer);
          if (!loggedOn) reject(new Error(`connection closed before logon (${code})`));
          this.emit("close", code, reason);
          if (loggedOn && !this.closing && this.opts.autoReconnect) this.scheduleReconnect();
        },
      });
      this.ws = ws;
    });
  }

  private onOpen(): void {
    this.send("Logon", {
      token: this.opts.token,
      sessionName: this.opts.sessionName,
      heartbeatMs: this.opts.heartbeatMs,
      codPolicy: this.opts.codPolicy,
      resumeFromSeq: this.lastSeq > 0 ? this.lastSeq + 1 : 0,
      options: this.opts.logonOptions,
    });
  }

  private scheduleReconnect(): void {
    this.reconnectTimer = setTimeout(() => {
      this.connect().catch((err: unknown) => {
        if (this.closing) return;
        if (err instanceof LogonRejectedError) {
          if (err.code === CODES.ResumeOutOfRange.code) {
            const lost = this.lastSeq;
            this.lastSeq = 0;
            this.emit("resumeLost", lost);
          } else if (err.code === CODES.BadToken.code) return; // retrying cannot help
        }
        this.scheduleReconnect();
      });
    }, this.opts.reconnectDelayMs);
  }

  private onLogonAck(h: G2CHeader, ack: Body<"LogonAck">): void {
    this.sessionId = h.sessionId;
    if (ack.lastClOrdNo > this.lastClOrdNo) this.lastClOrdNo = ack.lastClOrdNo;
    // A fresh (non-resumed) logon starts a new seq space only if the gateway says so.
    if (!ack.resumed) this.lastSeq = 0;
    else if (ack.replayCount === 0 && this.lastSeq === 0) this.lastSeq = ack.nextSeq - 1;
    if (this.hbTimer) clearInterval(this.hbTimer);
    this.lastRecvMs = Date.now();
    const every = ack.heartbeatMs;
    this.hbTimer = setInterval(
      () => {
        const now = Date.now();
        // A gateway silent for 3 intervals is gone even if no close arrived: drop and (maybe) reconnect.
        if (now - this.lastRecvMs > 3 * every) this.ws?.terminate();
        else if (this.connected && now - this.lastSendMs >= every) this.send("Heartbeat", { echo: 0 });
      },
      Math.max(20, every / 2),
    );
    this.hbTimer.unref();
    this.emit("logon", ack);
    // Subscriptions end with a connection: ask again (each answer is a fresh snapshot).
    this.mdSeqs.clear();
    for (const id of this.mdSubs)
      this.send("Subscribe", { requestId: this.nextRequestId++, instrumentId: id });
  }

  private onMessage(m: G2CMessage | DecodeFailure): void {
    if (m.name === undefined) return; // the gateway never sends malformed frames; ignore defensively
    const seq = m.header.seq;
    if (seq !== 0) {
      if (seq <= this.lastSeq) {
        this.duplicates++;
        return;
      }
      if (seq !== this.lastSeq + 1 && this.lastSeq !== 0) this.emit("gap", this.lastSeq + 1, seq);
      this.lastSeq = seq;
    }
    switch (m.name) {
      case "Ack":
      case "Reject":
      case "OutcomeUnknown": {
        const t = this.traces.get(m.body.clOrdNo);
        if (t && t.answer === "") {
          t.answerNs = monoNs();
          t.answer = m.name;
          t.gwRecvNs = m.header.recvNs;
          t.gwSendNs = m.header.sendNs;
        }
        break;
      }
      case "OrderUpdate": {
        const q = m.body.requestId !== 0 ? this.queries.get(m.body.requestId) : undefined;
        if (q) q.rows.push(m.body);
        break;
      }
      case "QueryEnd": {
        const q = this.queries.get(m.body.requestId);
        if (q) {
          this.queries.delete(m.body.requestId);
          q.done(q.rows);
        }
        break;
      }
      case "InstrumentsResponse": {
        const r = this.instReqs.get(m.body.requestId);
        if (r) {
          r.rows.push(...m.body.instruments);
          if (!m.body.more) {
            this.instReqs.delete(m.body.requestId);
            r.done(r.rows);
          }
        }
        break;
      }
      case "TopOfBook":
      case "Trade":
      case "Candle": {
        const b = m.body;
        const last = this.mdSeqs.get(b.instrumentId);
        if ((b.flags & MdFlags.Snapshot) === 0 && last !== undefined && b.mdSeq !== last + 1)
          this.emit("mdGap", b.instrumentId, last + 1, b.mdSeq);
        this.mdSeqs.set(b.instrumentId, b.mdSeq);
        break;
      }
      case "MarketDataStatus": {
        const b = m.body;
        if (b.status === MdStatus.Live) this.mdSeqs.set(b.instrumentId, b.mdSeq);
        else this.mdSeqs.delete(b.instrumentId); // the next message is a snapshot
        const a = b.requestId !== 0 ? this.mdAnswers.get(b.requestId) : undefined;
        if (a) {
          this.mdAnswers.delete(b.requestId);
          a.done(b);
        }
        break;
      }
      case "SubscribeReject": {
        const b = m.body;
        this.mdSubs.delete(b.instrumentId);
        const a = this.mdAnswers.get(b.requestId);
        if (a) {
          this.mdAnswers.delete(b.requestId);
          a.fail(new SubscribeRejectedError(b.instrumentId, b.code, b.text));
        }
        break;
      }
      case "HeartbeatOut": {
        const p = m.body.echo !== 0 ? this.pings.get(m.body.echo) : undefined;
        if (p) {
          this.pings.delete(m.body.echo);
          p.done(monoNs() - p.t0);
        }
        break;
      }
    }
    const ev = EVENT_OF[m.name];
    if (ev) (this.emit as (e: string, b: unknown, h: G2CHeader) => boolean)(ev, m.body, m.header);
    this.emit("message", m);
  }

  private send<N extends C2GName>(name: N, body: Body<N>): void {
    const ws = this.ws;
    if (!ws?.open) throw new Error("not connected");
    ws.send(encodeC2G(name, body)); // the link copies (the codec reuses its buffer)
    this.lastSendMs = Date.now();
  }

  /** Sends a NewOrder and returns its client order number immediately. */
  placeOrder(o: OrderParams): number {
    const clOrdNo = ++this.lastClOrdNo;
    const sendNs = monoNs();
    this.send("NewOrder", {
      clOrdNo,
      instrumentId: o.instrumentId,
      side: o.side,
      ordType: o.ordType ?? OrdType.Limit,
      tif: o.tif ?? Tif.GTC,
      positionIdx: o.positionIdx ?? 0,
      priceTicks: o.priceTicks ?? 0,
      qtyLots: o.qtyLots,
      flags: o.flags ?? 0,
    });
    if (this.traces.size >= this.opts.traceCapacity) {
      this.traces.delete(this.traces.keys().next().value as number);
    }
    this.traces.set(clOrdNo, { clOrdNo, sendNs, answerNs: 0, answer: "", gwRecvNs: 0, gwSendNs: 0 });
    return clOrdNo;
  }

  /** Cancels by client order number, or by exchange order id when given a string. */
  cancel(order: number | string): void {
    if (typeof order === "number") this.send("Cancel", { clOrdNo: order, exchangeOrderId: "" });
    else this.send("Cancel", { clOrdNo: 0, exchangeOrderId: order });
  }

  /**
   * Amends a working order's price and/or total quantity (PROTOCOL.md §3 Amend). In place on HFT; on
   * Spot the gateway cancels and replaces it, so a new client order number is taken and returned (the
   * replacement's); `replace: false` (HFT) returns 0. Answers: `update` (PendingReplace, then the new
   * values) or `amendReject`.
   */
  amend(clOrdNo: number, change: { priceTicks?: number; qtyLots?: number }, replace = false): number {
    const flags =
      (change.priceTicks !== undefined ? AmendFlags.Price : 0) |
      (change.qtyLots !== undefined ? AmendFlags.Qty : 0);
    if (flags === 0) throw new RangeError("amend needs a price or a quantity");
    const newClOrdNo = replace ? ++this.lastClOrdNo : 0;
    this.send("Amend", {
      clOrdNo,
      newClOrdNo,
      flags,
      priceTicks: change.priceTicks ?? 0,
      qtyLots: change.qtyLots ?? 0,
    });
    return newClOrdNo;
  }

  /** Without an instrument: this session's live orders; with one: those on it; `account`: everything. */
  cancelAll(instrumentId?: number, account = false): void {
    const scope = account
      ? CancelAllScope.Account
      : instrumentId === undefined
        ? CancelAllScope.Session
        : CancelAllScope.SessionInstrument;
    this.send("CancelAll", { scope, instrumentId: instrumentId ?? 0 });
  }

  /**
   * Admin sessions only: halt trading and cancel every live order of the account. The answer is a
   * `tradingState` event (to every session); a non-admin session gets `protocolError` code 109.
   */
  kill(reason = ""): void {
    this.send("Kill", { reason });
  }

  /** Admin sessions only: `TradingStateValue` 1 active, 2 reducing, 3 halted. Answered as `kill`. */
  setTradingState(state: number, reason = ""): void {
    this.send("SetTradingState", { state, reason });
  }

  /** One order (by clOrdNo) or, without an argument, all live orders of the session. */
  query(clOrdNo?: number): Promise<Body<"OrderUpdate">[]> {
    const requestId = this.nextRequestId++;
    return new Promise((done) => {
      this.queries.set(requestId, { rows: [], done });
      this.send("Query", {
        requestId,
        scope: clOrdNo === undefined ? QueryScope.AllLive : QueryScope.One,
        clOrdNo: clOrdNo ?? 0,
      });
    });
  }

  instruments(): Promise<InstrumentRecordMsg[]> {
    const requestId = this.nextRequestId++;
    return new Promise((done) => {
      this.instReqs.set(requestId, { rows: [], done });
      this.send("InstrumentsRequest", { requestId });
    });
  }

  /**
   * Market data for an instrument: the snapshot arrives as `topOfBook` / `trade` / `candle` events
   * (flag Snapshot), then updates. Resolves with the answering `MarketDataStatus` (Live, or Stale when
   * the venue feed is not live yet: the snapshot follows); rejects with `SubscribeRejectedError`.
   * Kept across reconnects (subscribed again after each logon).
   */
  subscribe(instrumentId: number): Promise<Body<"MarketDataStatus">> {
    const requestId = this.nextRequestId++;
    this.mdSubs.add(instrumentId);
    return new Promise((done, fail) => {
      this.mdAnswers.set(requestId, { done, fail });
      this.send("Subscribe", { requestId, instrumentId });
    });
  }

  /** Ends an instrument's market data; resolves with `MarketDataStatus` Unsubscribed. */
  unsubscribe(instrumentId: number): Promise<Body<"MarketDataStatus">> {
    const requestId = this.nextRequestId++;
    this.mdSubs.delete(instrumentId);
    this.mdSeqs.delete(instrumentId);
    return new Promise((done, fail) => {
      this.mdAnswers.set(requestId, { done, fail });
      this.send("Unsubscribe", { requestId, instrumentId });
    });
  }

  /** Round trip through the gateway (Heartbeat with echo); resolves with the RTT in ns. */
  ping(): Promise<number> {
    const echo = this.nextEcho++;
    return new Promise((done) => {
      this.pings.set(echo, { t0: monoNs(), done });
      this.send("Heartbeat", { echo });
    });
  }

  trace(clOrdNo: number): OrderTrace | undefined {
    return this.traces.get(clOrdNo);
  }

  /** Sends raw bytes (tests and tools only). */
  sendRaw(frame: Uint8Array | string): void {
    this.ws?.sendRaw(frame);
  }

  /** Graceful logout; resolves when the socket has closed. */
  logout(): Promise<void> {
    this.closing = true;
    return new Promise((done) => {
      const ws = this.ws;
      if (!ws?.open) return done();
      this.once("close", () => done());
      this.send("Logout", {});
    });
  }

  /** Closes the socket without a Logout (the gateway sees a disconnect). */
  close(): Promise<void> {
    this.closing = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.hbTimer) clearInterval(this.hbTimer);
    return new Promise((done) => {
      const ws = this.ws;
      if (!ws) return done();
      this.once("close", () => done());
      ws.terminate();
    });
  }
}

/** A venue read the gateway refused or the venue answered with an error (`GatewayClient.venueRead`). */
export class VenueReadError extends Error {
  override readonly name = "VenueReadError";
  constructor(
    /** HTTP status: 400 bad parameter or venue refusal, 401 bad token, 429 rate limited, 503 venue unavailable. */
    readonly status: number,
    readonly kind: string,
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(`${kind}: ${message}`);
  }
}
