/**
 * The order engine: the gateway's `GatewayEngine` (strategy commands in) and the order store's
 * `OrderListener` (state changes out to the owning session). Command path:
 *
 *   NewOrder -> instrument -> risk -> store.create (client id minted) -> journal -> rate limiter
 *            -> REST fast path (pre-signed) -> response -> store -> Ack / Reject / OutcomeUnknown
 *
 * Every status change, whatever its source (REST outcome, poll, stream, query), reaches strategies
 * through the one listener below, so what a strategy sees does not depend on which source won.
 */
import type { Logger } from "pino";
import { ClockError } from "../clock/clock.js";
import type {
  CancelAllCmd,
  CancelCmd,
  DisconnectReason,
  EngineMessage,
  GatewayEngine,
  KillCmd,
  NewOrderCmd,
  OrderUpdateBody,
  QueryCmd,
  SessionInfo,
  SessionSink,
  SetTradingStateCmd,
} from "../gateway/engineApi.js";
import type { Journal } from "../journal/writer.js";
import type { LimitClass, RateLimiter, Rejected } from "../limits/index.js";
import { DEFAULT_LIMIT_TABLE } from "../limits/index.js";
import {
  type ApplyResult,
  eventFromSpotOrder,
  type FillReport,
  newEvent,
  type Order,
  type OrderEvent,
  type OrderListener,
  OrderStore,
  Source,
  Status,
  monoNs as storeNs,
  TERMINAL,
} from "../orders/index.js";
import type { Ev } from "../orders/status.js";
import { Ev as EV } from "../orders/status.js";
import { monoNs } from "../protocol/clock.js";
import {
  type Body,
  CancelAllScope,
  CancelRejectReason,
  Liquidity,
  QueryScope,
  UnknownOp,
} from "../protocol/schema.js";
import type { RestClient } from "../rest/client.js";
import {
  InvalidRequestError,
  NetworkError,
  OutcomeUnknownError,
  RateLimitedError,
  ResponseShapeError,
  RestError,
  ValidationError,
} from "../rest/errors.js";
import type { SpotOrderRecord, V5OrderAck, V5Position } from "../rest/wire.js";
import type { RiskGate } from "../risk/riskGate.js";
import type { TradingStateChange } from "../risk/tradingState.js";
import type { InstrumentBook, InstrumentEntry } from "./instruments.js";
import type { EngineMetrics } from "./metrics.js";
import { Coalescer, PositionLedger } from "./pushes.js";
import {
  ackBody,
  balanceBody,
  CANCEL_REASON,
  cancelRejectBody,
  fillBody,
  RISK_TO_CODE,
  rejectBody,
  riskText,
  SIDE_FROM_WIRE,
  STATE_FROM_WIRE,
  STATE_TO_WIRE,
  TIF_FROM_WIRE,
  TYPE_FROM_WIRE,
  unknownBody,
  updateBody,
  WIRE_STATUS,
} from "./wireMap.js";

export interface EngineOptions {
  hftCategory: string;
  spotExpirySeconds: number;
  createWaitMs: number;
  cancelWaitMs: number;
  /** Query an HFT order right after its ack (see createAnswered). Default true. */
  hftQueryAfterAck?: boolean;
  /** BalanceUpdate / PositionUpdate: at most one per asset / position per this many ms (last wins); 100. */
  pushIntervalMs?: number;
  /** After an HFT fill, re-read `/v5/position/list` this many ms later (bursts share one read); 250. */
  positionRefreshMs?: number;
}

export interface EngineDeps {
  client: RestClient;
  instruments: InstrumentBook;
  risk: RiskGate;
  limiter: RateLimiter | undefined;
  journal: Journal | undefined;
  metrics: EngineMetrics;
  log: Logger;
  options: EngineOptions;
  /** Called when an order needs a targeted query soon (unknown outcome, refused cancel, ...). */
  resolveSoon?: (o: Order) => void;
}

/** Per-order engine context kept until the order's first answer (Ack / Reject) is sent. */
interface Pending {
  recvNs: number;
  unknownSent: boolean;
  /** Set when the engine already told the strategy why (throttle, local validation). */
  silent: boolean;
}

/** Query tokens that must be free before an HFT limit order is checked right after its ack. */
const EAGER_QUERY_CREDIT = 25;

/** Messages kept per owner while it has no session (see toOwner). */
const OUTBOX_MAX = 10_000;

const NOOP_SINK: SessionSink = {
  send: () => 0,
  broadcast: () => 0,
  cork: (_id, fn) => fn(),
  session: () => undefined,
  sessions: () => [],
};

export class Engine implements GatewayEngine, OrderListener {
  readonly store: OrderStore;
  private sink: SessionSink = NOOP_SINK;
  private readonly client: RestClient;
  private readonly book: InstrumentBook;
  private readonly risk: RiskGate;
  private readonly limiter: RateLimiter | undefined;
  private readonly journal: Journal | undefined;
  private readonly m: EngineMetrics;
  private readonly log: Logger;
  private readonly o: EngineOptions;
  private resolveSoon: (o: Order) => void;
  /** Session name → owner key (the store's `sessionId`); stable across reconnects and restarts. */
  private readonly ownerByName = new Map<string, number>();
  private readonly nameByOwner = new Map<number, string>();
  private readonly ownerToSession = new Map<number, number>();
  private readonly sessionToOwner = new Map<number, number>();
  private readonly pending = new Map<string, Pending>();
  private readonly updScratch = {} as Body<"OrderUpdate">;
  private accepting = true;
  /** True while the journal is replayed: no requests, no messages. */
  replaying = false;
  /** Event timestamp of the venue event being applied (0 = not a venue event), for stream latency. */
  private venueEventNs = 0;
  private venueEventSent = false;
  /** Set by a push feed's tap right before it applies a record (see noteVenueEvent). */
  private tapNs = 0;

  constructor(d: EngineDeps) {
    this.client = d.client;
    this.book = d.instruments;
    this.risk = d.risk;
    this.limiter = d.limiter;
    this.journal = d.journal;
    this.m = d.metrics;
    this.log = d.log;
    this.o = d.options;
    this.resolveSoon = d.resolveSoon ?? (() => {});
    this.store = new OrderStore({ listener: this });
    const every = this.o.pushIntervalMs ?? 100;
    this.balancePush = new Coalescer(every, (_k, b) => this.sink.broadcast("BalanceUpdate", b));
    this.positionPush = new Coalescer(every, (_k, b) => this.sink.broadcast("PositionUpdate", b));
    this.risk.addListener({ onTradingState: (c) => this.onTradingState(c) });
  }

  attach(sink: SessionSink): void {
    this.sink = sink;
  }

  /** Stops taking new orders (shutdown); cancels still pass. */
  stopAccepting(): void {
    this.accepting = false;
  }

  /** After shutdown: late REST answers are ignored (the journal and sockets are closed). */
  detach(): void {
    this.dead = true;
    this.sink = NOOP_SINK;
    this.balancePush.close();
    this.positionPush.close();
    if (this.refreshTimer !== undefined) clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
    for (const t of this.codTimers) clearTimeout(t);
    this.codTimers.clear();
  }
  private dead = false;

  setResolver(fn: (o: Order) => void): void {
    this.resolveSoon = fn;
  }

  // ---------------------------------------------------------------- owners

  ownerOf(name: string): number {
    let k = this.ownerByName.get(name);
    if (k === undefined) {
      k = this.ownerByName.size + 1;
      this.ownerByName.set(name, k);
      this.nameByOwner.set(k, name);
    }
    return k;
  }
  ownerName(owner: number): string {
    return this.nameByOwner.get(owner) ?? `owner-${owner}`;
  }
  /** Highest client order number an owner has used (orders created this run and replayed from the journal). */
  noteOrderNo(owner: number, clOrdNo: number): void {
    if (clOrdNo > (this.lastNo.get(owner) ?? 0)) this.lastNo.set(owner, clOrdNo);
  }
  private readonly lastNo = new Map<number, number>();
  private ownerOfSession(s: SessionInfo): number {
    return this.sessionToOwner.get(s.sessionId) ?? this.bind(s);
  }
  private bind(s: SessionInfo): number {
    const k = this.ownerOf(s.name);
    this.ownerToSession.set(k, s.sessionId);
    this.sessionToOwner.set(s.sessionId, k);
    return k;
  }
  /**
   * Sends an order's message to its owner's session; while the owner has no session (after a restart,
   * before it logs on again) the message is kept and delivered at its logon (bounded per owner).
   */
  private toOwner<N extends EngineMessage>(o: Order, name: N, body: Body<N>, recvNs = 0): void {
    const sid = this.sid(o);
    if (sid !== 0) {
      this.sink.send(sid, name, body, recvNs);
      return;
    }
    let box = this.outbox.get(o.sessionId);
    if (box === undefined) {
      box = [];
      this.outbox.set(o.sessionId, box);
    }
    if (box.length >= OUTBOX_MAX) box.shift();
    box.push({ name, body: { ...body } as unknown as Body<EngineMessage> });
  }
  private readonly outbox = new Map<number, { name: EngineMessage; body: Body<EngineMessage> }[]>();

  /** Gateway session id of an order's owner, 0 when that owner has not logged on (since a restart). */
  private sid(o: Order): number {
    return this.ownerToSession.get(o.sessionId) ?? 0;
  }

  // ---------------------------------------------------------------- GatewayEngine

  instruments() {
    return this.book.all();
  }

  lastClOrdNo(sessionName: string): number {
    const owner = this.ownerByName.get(sessionName);
    return owner === undefined ? 0 : (this.lastNo.get(owner) ?? 0);
  }

  tradingState(): number {
    return STATE_TO_WIRE[this.risk.state];
  }

  onLogon(session: SessionInfo, _resumed: boolean): void {
    const owner = this.bind(session);
    // The policy outlives this process: after a crash, replay re-arms cancel-on-disconnect from it.
    const hb = session.heartbeatMs ?? 1000;
    this.journal?.command({
      session: session.name,
      op: "logon",
      reason: `cod=${session.codPolicy};hb=${hb}`,
    });
    for (const b of this.balances.values()) this.sink.send(session.sessionId, "BalanceUpdate", b.body);
    for (const k of this.positions.keys()) {
      const body = this.positions.body(k, this.entryOf);
      if (body !== undefined) this.sink.send(session.sessionId, "PositionUpdate", body);
    }
    const box = this.outbox.get(owner);
    if (box !== undefined) {
      this.outbox.delete(owner);
      for (const m of box) this.sink.send(session.sessionId, m.name, m.body);
    }
    this.sendCredit(session.sessionId, this.book.all()[0]?.surface === "spot" ? "spot.create" : "hft.create");
  }

  onNewOrder(session: SessionInfo, cmd: NewOrderCmd, recvNs: number): void {
    const t0 = monoNs();
    this.m.decode.record(t0 - recvNs);
    const sid = session.sessionId;
    if (!this.accepting) {
      this.sink.send(
        sid,
        "Reject",
        rejectBody(cmd.clOrdNo, "VenueUnavailable", "gateway shutting down"),
        recvNs,
      );
      this.m.outcomes.rejected_engine.inc();
      return;
    }
    if (!this.readyGate()) {
      this.sink.send(
        sid,
        "Reject",
        rejectBody(cmd.clOrdNo, "VenueUnavailable", "reconciling with the venue; retry shortly"),
        recvNs,
      );
      this.m.outcomes.rejected_engine.inc();
      return;
    }
    const e = this.book.byId(cmd.instrumentId);
    if (e === undefined) {
      this.sink.send(sid, "Reject", rejectBody(cmd.clOrdNo, "UnknownInstrument"), recvNs);
      this.m.outcomes.rejected_risk.inc();
      return;
    }
    const inst = e.inst;
    const side = SIDE_FROM_WIRE[cmd.side]!;
    const type = TYPE_FROM_WIRE[cmd.ordType]!;
    const tif = TIF_FROM_WIRE[cmd.tif]!;
    if (inst.surface === "spot" && (type !== "limit" || tif !== "GTC")) {
      // [docs] Spot v2 takes limit orders only and has no time-in-force field.
      this.sink.send(
        sid,
        "Reject",
        rejectBody(cmd.clOrdNo, "VenueRejected", "spot accepts GTC limit orders only"),
        recvNs,
      );
      this.m.outcomes.rejected_risk.inc();
      return;
    }
    const owner = this.ownerOfSession(session);
    const intent = {
      sessionId: owner,
      instrumentId: inst.id,
      side,
      type,
      priceTicks: type === "market" ? 0 : cmd.priceTicks,
      qtyLots: cmd.qtyLots,
    };
    const code = this.risk.check(intent);
    const t1 = monoNs();
    this.m.risk.record(t1 - t0);
    if (code !== null) {
      this.sink.send(sid, "Reject", rejectBody(cmd.clOrdNo, RISK_TO_CODE[code], riskText(code)), recvNs);
      this.m.outcomes.rejected_risk.inc();
      return;
    }
    let order: Order;
    try {
      order = this.store.create({
        sessionId: owner,
        clientOrderNo: cmd.clOrdNo,
        instrumentId: inst.id,
        symbol: inst.symbol,
        surface: inst.surface,
        side,
        type,
        tif,
        positionIdx: (inst.surface === "hft" ? cmd.positionIdx : 0) as 0 | 1 | 2,
        priceTicks: intent.priceTicks,
        qtyLots: cmd.qtyLots,
      });
    } catch (err) {
      // Duplicate order number (e.g. reused after a restart) or bad numbers: nothing was created.
      this.sink.send(
        sid,
        "Reject",
        rejectBody(cmd.clOrdNo, "ClOrdNoNotIncreasing", (err as Error).message),
        recvNs,
      );
      this.m.outcomes.rejected_engine.inc();
      return;
    }
    this.noteOrderNo(owner, cmd.clOrdNo);
    this.risk.onOpen(order.clientId, intent);
    this.pending.set(order.clientId, { recvNs, unknownSent: false, silent: false });
    const priceText = type === "market" ? "" : e.price.format(intent.priceTicks);
    const qtyText = e.qty.format(cmd.qtyLots);
    this.journal?.command({
      session: this.ownerName(owner),
      op: "new",
      clientId: order.clientId,
      symbol: inst.symbol,
      side,
      type,
      price: priceText,
      qty: qtyText,
      tif,
      reason: `no=${cmd.clOrdNo};inst=${e.key};pos=${order.positionIdx}`,
    });
    const cls: LimitClass = inst.surface === "spot" ? "spot.create" : "hft.create";
    const lim = this.limiter?.acquire(cls, "create", this.o.createWaitMs);
    if (lim === undefined || lim.status === "granted") {
      this.sendCreate(order, e, priceText, qtyText, 1);
    } else if (lim.status === "rejected") {
      this.throttled(order, lim);
    } else {
      lim.done.then((r) => {
        if (r.status === "granted") this.sendCreate(order, e, priceText, qtyText, 1);
        else this.throttled(order, r);
      });
    }
  }

  /** Counts an order rebuilt from the journal in the risk gate's open-order ledger. */
  riskOpen(o: Order): void {
    this.risk.onOpen(o.clientId, {
      sessionId: o.sessionId,
      instrumentId: o.instrumentId,
      side: o.side,
      type: o.type,
      priceTicks: o.priceTicks,
      qtyLots: o.qtyLots,
    });
  }

  /** Same-id resend of a create (resolution found no order at the venue). */
  resendCreate(o: Order): void {
    const e = this.book.byId(o.instrumentId);
    if (e === undefined || this.dead) return;
    this.sendCreate(
      o,
      e,
      o.type === "market" ? "" : e.price.format(o.priceTicks),
      e.qty.format(o.qtyLots),
      o.sends + 1,
    );
  }

  /** New orders are refused (retryable) while this says the venue state is not trusted yet. */
  setReadyGate(fn: () => boolean): void {
    this.readyGate = fn;
  }
  private readyGate: () => boolean = () => true;

  private throttled(o: Order, r: Rejected): void {
    const p = this.pending.get(o.clientId);
    if (p) p.silent = true;
    const sid = this.sid(o);
    const code = r.reason === "CIRCUIT_OPEN" ? "CircuitOpen" : "RateLimited";
    this.toOwner(
      o,
      "Reject",
      rejectBody(o.clientOrderNo, code, `${r.reason.toLowerCase()}: retry in ${r.retryAfterMs} ms`, true),
      p?.recvNs ?? 0,
    );
    this.m.outcomes.rejected_throttle.inc();
    this.store.rejectCreate(o.clientId, `throttled: ${r.reason}`);
    this.sendCredit(sid, r.cls);
  }

  /** Builds and sends the create (attempt 1, or a same-id resend from resolution). */
  sendCreate(o: Order, e: InstrumentEntry, priceText: string, qtyText: string, attempt: number): void {
    const t0 = monoNs();
    let req: ReturnType<RestClient["prepareHftCreate"]>;
    try {
      req =
        o.surface === "hft"
          ? this.client.prepareHftCreate(
              {
                category: this.o.hftCategory,
                symbol: o.symbol,
                side: o.side,
                orderType: o.type,
                qty: qtyText,
                price: o.type === "limit" ? priceText : undefined,
                positionIdx: o.positionIdx,
                timeInForce: o.tif,
                orderLinkId: o.clientId,
              },
              e.orderGrid,
            )
          : this.client.prepareSpotCreate(
              {
                symbol: o.symbol,
                side: o.side,
                price: priceText,
                quantity: qtyText,
                exchange: e.inst.venue,
                clientOrderId: o.clientId,
                expirySeconds: this.o.spotExpirySeconds,
              },
              e.orderGrid,
            );
    } catch (err) {
      // Local validation or the clock guard: nothing was sent.
      this.createFailed(o, err, 0);
      return;
    }
    this.m.assembly.record(monoNs() - t0);
    this.journal?.request({
      clientId: o.clientId,
      op: "create",
      method: req.endpoint.method,
      path: req.path,
      attempt,
    });
    this.store.markSent(o.clientId);
    const sent = monoNs();
    this.client.send<V5OrderAck | SpotOrderRecord>(req).then(
      (res) => this.createAnswered(o, res, sent),
      (err) => this.createFailed(o, err, sent),
    );
  }

  private createAnswered(o: Order, res: V5OrderAck | SpotOrderRecord, sentNs: number): void {
    if (this.dead) return;
    this.tapNs = 0;
    const rtt = monoNs() - sentNs;
    this.m.exchangeRtt.record(rtt);
    const cls: LimitClass = o.surface === "spot" ? "spot.create" : "hft.create";
    this.limiter?.reportOutcome(cls, 200);
    this.journal?.response({
      clientId: o.clientId,
      op: "create",
      status: 200,
      latencyUs: Math.round(rtt / 1000),
      body: JSON.stringify(res),
    });
    if (o.surface === "hft") {
      const id = (res as V5OrderAck).orderId;
      if (typeof id !== "string" || id === "") {
        this.createFailed(o, new ResponseShapeError("create ack without orderId", "hft.createOrder", 200), 0);
        return;
      }
      this.store.ackCreate(o.clientId, id);
      // HFT has no push stream yet: an order that may have traded at once is asked about now rather
      // than at the next poll, when the query budget has room (IOC/FOK/market always do).
      if (
        this.o.hftQueryAfterAck !== false &&
        !TERMINAL[o.status] &&
        (o.tif !== "GTC" ||
          o.type === "market" ||
          (this.limiter?.credit("hft.query") ?? 50) >= EAGER_QUERY_CREDIT)
      ) {
        this.resolveSoon(o);
      }
      return;
    }
    const rec = res as SpotOrderRecord;
    if (typeof rec?.order_id !== "string" || rec.order_id === "") {
      this.createFailed(
        o,
        new ResponseShapeError("create answer without order_id", "spot.createOrder", 200),
        0,
      );
      return;
    }
    this.store.ackCreate(o.clientId, rec.order_id);
    if (rec.status !== "OPEN" || (rec.executed_qty ?? 0) > 0) this.applySpotRecord(o, rec);
  }

  private applySpotRecord(o: Order, rec: SpotOrderRecord): void {
    const e = this.book.byId(o.instrumentId);
    if (e === undefined) return;
    const ev = this.scratchEvent;
    try {
      eventFromSpot(rec, e, ev);
    } catch {
      this.m.invalidEvents.inc();
      return;
    }
    this.store.apply(ev);
  }
  private readonly scratchEvent: OrderEvent = newScratchEvent();

  /**
   * A create or cancel that failed after it was sent: the limiter learns the outcome (a 429 opens its
   * circuit) and the journal records the answer, before the caller decides what the failure means.
   */
  private recordFailure(
    o: Order,
    op: "create" | "cancel",
    cls: LimitClass,
    err: unknown,
    sentNs: number,
  ): void {
    if (sentNs <= 0) return;
    const status = err instanceof RestError ? err.status : 0;
    this.limiter?.reportOutcome(cls, status, err instanceof RateLimitedError ? err.retryAfterMs : undefined);
    this.journal?.response({
      clientId: o.clientId,
      op,
      status,
      latencyUs: Math.round((monoNs() - sentNs) / 1000),
      body: err instanceof ValidationError ? err.exchangeMessage : String((err as Error)?.message ?? err),
    });
  }

  private createFailed(o: Order, err: unknown, sentNs: number): void {
    if (this.dead) return;
    this.tapNs = 0;
    const cls: LimitClass = o.surface === "spot" ? "spot.create" : "hft.create";
    this.recordFailure(o, "create", cls, err, sentNs);
    if (err instanceof OutcomeUnknownError || err instanceof ResponseShapeError) {
      // Ambiguity is a state: resolve by client id, never report a rejection, never re-send under a new id.
      this.risk.recordUnknownOutcome();
      this.store.createUnknown(o.clientId);
      this.resolveSoon(o);
      return;
    }
    const p = this.pending.get(o.clientId);
    if (err instanceof RateLimitedError) {
      if (p) p.silent = true;
      this.toOwner(
        o,
        "Reject",
        rejectBody(o.clientOrderNo, "RateLimited", "exchange answered 429", true),
        p?.recvNs ?? 0,
      );
      this.m.outcomes.rejected_throttle.inc();
      this.store.rejectCreate(o.clientId, "429");
      return;
    }
    let code: "VenueRejected" | "VenueUnavailable" | "InsufficientBalance" | "BadPrice" = "VenueRejected";
    let text: string;
    if (err instanceof ValidationError) {
      text = err.exchangeMessage || err.message;
      if (/balance|margin/i.test(text)) code = "InsufficientBalance";
      this.risk.recordVenueReject();
    } else if (err instanceof NetworkError || err instanceof ClockError) {
      code = "VenueUnavailable";
      text = (err as Error).message;
    } else if (err instanceof InvalidRequestError) {
      code = "BadPrice";
      text = err.message;
    } else {
      text = (err as Error)?.message ?? String(err);
    }
    if (p) p.silent = true;
    this.toOwner(
      o,
      "Reject",
      rejectBody(o.clientOrderNo, code, text.slice(0, 64), code === "VenueUnavailable"),
      p?.recvNs ?? 0,
    );
    this.m.outcomes[code === "VenueUnavailable" ? "rejected_engine" : "rejected_venue"].inc();
    this.store.rejectCreate(o.clientId, text);
  }

  onCancel(session: SessionInfo, cmd: CancelCmd, recvNs: number): void {
    const owner = this.ownerOfSession(session);
    let o: Order | undefined;
    if (cmd.clOrdNo !== 0) o = this.store.bySessionOrder(owner, cmd.clOrdNo);
    else {
      o = this.store.byExchangeId(cmd.exchangeOrderId);
      if (o !== undefined && o.sessionId !== owner) o = undefined; // never someone else's order
    }
    if (o === undefined) {
      this.m.cancelRejects.inc();
      this.sink.send(
        session.sessionId,
        "CancelReject",
        cancelRejectBody(cmd.clOrdNo, CancelRejectReason.UnknownOrder, cmd.exchangeOrderId, "no such order"),
        recvNs,
      );
      return;
    }
    this.journal?.command({ session: session.name, op: "cancel", clientId: o.clientId });
    this.cancelOne(o, recvNs, true);
  }

  /** Runs the cancel guard; `tell` = answer a refusal with CancelReject (single cancels). */
  private cancelOne(o: Order, recvNs: number, tell: boolean): void {
    const d = this.store.requestCancel(o.clientId);
    if (d.kind === "send") this.sendCancel(o);
    else if (d.kind === "reject" && tell) {
      this.m.cancelRejects.inc();
      this.toOwner(
        o,
        "CancelReject",
        cancelRejectBody(o.clientOrderNo, CANCEL_REASON[d.code], o.exchangeId, d.message),
        recvNs,
      );
    }
    // "hold": sent by onCancelReleased once the create is acked.
  }

  private sendCancel(o: Order): void {
    if (this.replaying) return;
    const cls: LimitClass = o.surface === "spot" ? "spot.cancel" : "hft.cancel";
    const lim = this.limiter?.acquire(cls, "cancel", this.o.cancelWaitMs);
    if (lim === undefined || lim.status === "granted") this.doSendCancel(o, cls);
    else if (lim.status === "rejected") this.cancelThrottled(o, lim);
    else
      lim.done.then((r) => {
        if (r.status === "granted") this.doSendCancel(o, cls);
        else this.cancelThrottled(o, r);
      });
  }

  private cancelThrottled(o: Order, r: Rejected): void {
    this.store.cancelOutcome(o.clientId, EV.CancelRejected, undefined, `throttled: ${r.reason}`);
    this.m.cancelRejects.inc();
    this.toOwner(
      o,
      "CancelReject",
      cancelRejectBody(
        o.clientOrderNo,
        CancelRejectReason.Throttled,
        o.exchangeId,
        `throttled: retry in ${r.retryAfterMs} ms`,
      ),
    );
    this.sendCredit(this.sid(o), r.cls);
  }

  /** Sends one cancel request for an order already in PendingCancel (also the resolver's resend). */
  doSendCancel(o: Order, cls: LimitClass): void {
    let req: ReturnType<RestClient["prepareSpotCancel"]>;
    try {
      req =
        o.surface === "spot"
          ? this.client.prepareSpotCancel(o.exchangeId)
          : this.client.prepareHftCancel({
              category: this.o.hftCategory,
              symbol: o.symbol,
              orderId: o.exchangeId,
            });
    } catch (err) {
      this.cancelFailed(o, cls, err, 0);
      return;
    }
    this.journal?.request({
      clientId: o.clientId,
      op: "cancel",
      method: req.endpoint.method,
      path: req.path,
    });
    this.m.cancelsSent.inc();
    const sent = monoNs();
    this.client.send<V5OrderAck | SpotOrderRecord>(req).then(
      (res) => this.cancelAnswered(o, cls, res, sent),
      (err) => this.cancelFailed(o, cls, err, sent),
    );
  }

  private cancelAnswered(o: Order, cls: LimitClass, res: V5OrderAck | SpotOrderRecord, sentNs: number): void {
    if (this.dead) return;
    const rtt = monoNs() - sentNs;
    this.m.exchangeRtt.record(rtt);
    this.limiter?.reportOutcome(cls, 200);
    this.journal?.response({
      clientId: o.clientId,
      op: "cancel",
      status: 200,
      latencyUs: Math.round(rtt / 1000),
      body: JSON.stringify(res),
    });
    this.store.cancelOutcome(o.clientId, EV.CancelAcked);
    if (o.surface === "spot") {
      const rec = res as SpotOrderRecord;
      if (rec?.status !== "CANCELLATION_RAISED" || (rec.executed_qty ?? 0) > 0) this.applySpotRecord(o, rec);
    }
    // [assumed] the final Cancelled comes from the feed or a query; ask soon rather than wait a poll.
    if (!TERMINAL[o.status]) this.resolveSoon(o);
  }

  private cancelFailed(o: Order, cls: LimitClass, err: unknown, sentNs: number): void {
    if (this.dead) return;
    this.recordFailure(o, "cancel", cls, err, sentNs);
    if (err instanceof OutcomeUnknownError || err instanceof ResponseShapeError) {
      this.store.cancelOutcome(o.clientId, EV.CancelOutcomeUnknown);
      this.resolveSoon(o);
      return;
    }
    const text =
      err instanceof ValidationError ? err.exchangeMessage || err.message : String((err as Error)?.message);
    this.store.cancelOutcome(o.clientId, EV.CancelRejected, undefined, text);
    this.m.cancelRejects.inc();
    const reason =
      err instanceof RateLimitedError || err instanceof NetworkError
        ? CancelRejectReason.Throttled
        : CancelRejectReason.VenueRejected;
    this.toOwner(
      o,
      "CancelReject",
      cancelRejectBody(o.clientOrderNo, reason, o.exchangeId, text.slice(0, 64)),
    );
    // The venue refused: it may know something we do not (filled, expiring). Ask it.
    if (!TERMINAL[o.status]) this.resolveSoon(o);
  }

  onCancelAll(session: SessionInfo, cmd: CancelAllCmd, _recvNs: number): void {
    const owner = this.ownerOfSession(session);
    this.journal?.command({ session: session.name, op: "cancelAll", reason: `scope=${cmd.scope}` });
    if (cmd.scope === CancelAllScope.Account && session.admin) {
      this.kill(`kill switch from session ${session.name}`);
      return;
    }
    const list =
      cmd.scope === CancelAllScope.Session
        ? this.store.liveOrders(owner)
        : cmd.scope === CancelAllScope.SessionInstrument
          ? this.store.liveOrders(owner, cmd.instrumentId)
          : this.store.liveOrders();
    for (const o of list) this.cancelOne(o, 0, false);
  }

  /** Admin Kill: halt, cancel everything; TradingState to every session even if already halted. */
  onKill(session: SessionInfo, cmd: KillCmd, _recvNs: number): void {
    const reason = cmd.reason || `kill switch from session ${session.name}`;
    this.journal?.command({ session: session.name, op: "kill", reason });
    const wasHalted = this.risk.state === "halted";
    this.kill(reason);
    if (wasHalted) this.broadcastState(reason);
  }

  /** Admin SetTradingState; an unchanged state is still answered (one TradingState broadcast). */
  onSetTradingState(session: SessionInfo, cmd: SetTradingStateCmd, _recvNs: number): void {
    const to = STATE_FROM_WIRE[cmd.state];
    if (to === undefined) return; // the gateway validated the enum
    const reason = cmd.reason || `set by session ${session.name}`;
    this.journal?.command({ session: session.name, op: "tradingState", reason: `${to}: ${reason}` });
    if (!this.risk.setState(to, reason, "command")) this.broadcastState(reason);
  }

  /**
   * Start-up: sessions whose latest logon asked for cancel-on-disconnect (from the journal) lost their
   * connection with the previous process. `armRestartCod` gives each `graceMs` to log on again, then
   * cancels its live orders, as the gateway does after missed heartbeats.
   */
  noteRestartCod(sessionName: string, graceMs: number | undefined): void {
    if (graceMs === undefined) this.restartCod.delete(sessionName);
    else this.restartCod.set(sessionName, graceMs);
  }
  armRestartCod(): number {
    let armed = 0;
    for (const [name, graceMs] of this.restartCod) {
      const owner = this.ownerOf(name);
      if (this.store.liveOrders(owner).length === 0) continue;
      armed++;
      const t = setTimeout(() => {
        this.codTimers.delete(t);
        if (this.dead || this.ownerToSession.has(owner)) return; // it came back: its policy applies again
        const list = this.store.liveOrders(owner);
        this.log.info(
          { session: name, orders: list.length },
          "cancel on disconnect (not back after restart)",
        );
        this.journal?.command({ session: name, op: "cancelAll", reason: "cod after restart" });
        for (const o of list) this.cancelOne(o, 0, false);
      }, graceMs);
      t.unref();
      this.codTimers.add(t);
    }
    this.restartCod.clear();
    return armed;
  }
  private readonly restartCod = new Map<string, number>();
  private readonly codTimers = new Set<NodeJS.Timeout>();

  /** Start-up: the last trading state the journal holds (a halt is lifted only by an admin). */
  restoreTradingState(state: "active" | "reducing" | "halted"): void {
    this.risk.setState(state, "restored from the journal", "command");
  }

  private broadcastState(reason: string): void {
    this.sink.broadcast("TradingState", {
      state: STATE_TO_WIRE[this.risk.state],
      instrumentId: 0,
      text: reason.slice(0, 64),
    });
  }

  /** Halts trading and cancels every live order of the account. Returns how many cancels were asked. */
  kill(reason: string): number {
    this.risk.kill(reason);
    const list = this.store.liveOrders();
    for (const o of list) this.cancelOne(o, 0, false);
    // Orders live at the venue that the store does not hold (a journal tail lost to a power cut).
    this.venueSweep?.();
    return list.length;
  }
  /** Venue-side sweep run by the kill switch (set by the lifecycle). */
  venueSweep: (() => void) | undefined;

  /** Cancels every live order (shutdown); returns how many were live. */
  cancelEverything(): number {
    const list = this.store.liveOrders();
    for (const o of list) this.cancelOne(o, 0, false);
    return list.length;
  }

  onQuery(session: SessionInfo, cmd: QueryCmd): readonly OrderUpdateBody[] {
    const owner = this.ownerOfSession(session);
    if (cmd.scope === QueryScope.One) {
      const o = this.store.bySessionOrder(owner, cmd.clOrdNo);
      return o ? [updateBody(o, this.book.byId(o.instrumentId), 0, 0)] : [];
    }
    return this.store.liveOrders(owner).map((o) => updateBody(o, this.book.byId(o.instrumentId), 0, 0));
  }

  onDisconnect(session: SessionInfo, reason: DisconnectReason, cancelOrders: boolean): void {
    if (!cancelOrders) return;
    const owner = this.ownerOfSession(session);
    const list = this.store.liveOrders(owner);
    if (list.length > 0)
      this.log.info({ session: session.name, reason, orders: list.length }, "cancel on disconnect");
    for (const o of list) this.cancelOne(o, 0, false);
  }

  // ---------------------------------------------------------------- venue events

  /**
   * A feed is about to apply an execution record that says maker or taker (v5 `isMaker`): the Fill it
   * produces (same execId, synchronously inside the apply) carries it.
   */
  noteLiquidity(execId: string, isMaker: boolean): void {
    this.liqExecId = execId;
    this.liq = isMaker ? Liquidity.Maker : Liquidity.Taker;
  }
  private liqExecId = "";
  private liq = 0;

  /** A push feed is about to apply a venue record (its tap): the next message sent is timed from here. */
  noteVenueEvent(tsNs: number): void {
    this.tapNs = tsNs;
  }

  /** Applies one normalized venue event (poll, stream, query); measures event → strategy latency. */
  applyVenueEvent(ev: OrderEvent): ApplyResult {
    this.venueEventNs = ev.tsNs;
    this.venueEventSent = false;
    const r = this.store.apply(ev);
    if (this.venueEventSent) this.m.streamToStrategy.record(storeNs() - ev.tsNs);
    this.venueEventNs = 0;
    return r;
  }

  // ---------------------------------------------------------------- OrderListener

  onUpdate(o: Order, prev: Status, _cause: Ev): void {
    const st = o.status;
    if (TERMINAL[st] && !TERMINAL[prev]) {
      this.risk.onClosed(o.clientId);
      if (st === Status.Filled) this.m.outcomes.filled.inc();
      else if (st === Status.Cancelled) this.m.outcomes.cancelled.inc();
      else if (st === Status.Expired) this.m.outcomes.expired.inc();
    }
    if (this.replaying) {
      if (TERMINAL[st]) this.pending.delete(o.clientId);
      return;
    }
    const p = this.pending.get(o.clientId);
    if (p !== undefined) {
      if (st === Status.PendingNew) return;
      if (st === Status.Unknown) {
        if (!p.unknownSent) {
          p.unknownSent = true;
          this.m.outcomes.unknown.inc();
          this.toOwner(
            o,
            "OutcomeUnknown",
            unknownBody(o, UnknownOp.NewOrder, "create outcome unknown; resolving by client id"),
            p.recvNs,
          );
        }
        return;
      }
      this.pending.delete(o.clientId);
      if (st === Status.Rejected && o.exchangeId === "") {
        if (!p.silent) {
          this.m.outcomes.rejected_venue.inc();
          this.toOwner(
            o,
            "Reject",
            rejectBody(o.clientOrderNo, "VenueRejected", o.rejectReason.slice(0, 64) || undefined),
            p.recvNs,
          );
        }
        return;
      }
      this.m.outcomes.acked.inc();
      this.toOwner(o, "Ack", ackBody(o), p.recvNs);
      if (p.recvNs > 0) this.m.ackToStrategy.record(monoNs() - p.recvNs);
      if (st === Status.New) return;
    } else if (WIRE_STATUS[prev] === WIRE_STATUS[st]) {
      return; // CancellationRaised after PendingCancel: nothing new for the strategy
    }
    this.toOwner(o, "OrderUpdate", updateBody(o, this.book.byId(o.instrumentId), 0, 0, this.updScratch));
    if (this.venueEventNs > 0) this.venueEventSent = true;
    else if (this.tapNs > 0) {
      this.m.streamToStrategy.record(storeNs() - this.tapNs);
      this.tapNs = 0;
    }
  }

  onFill(o: Order, f: FillReport): void {
    this.risk.onFill(o.clientId, f.lots);
    if (this.replaying) return;
    const e = this.book.byId(o.instrumentId);
    const liq = f.execId === this.liqExecId ? this.liq : 0;
    this.liqExecId = "";
    this.toOwner(o, "Fill", fillBody(o, e?.inst.quote ?? "", f.execId, f.pxTicks, f.lots, f.fee, 0, liq));
    if (this.venueEventNs > 0) this.venueEventSent = true;
    else if (this.tapNs > 0) {
      this.m.streamToStrategy.record(storeNs() - this.tapNs);
      this.tapNs = 0;
    }
    if (o.surface === "hft" && e !== undefined) {
      this.pushPosition(this.positions.fill(e, o.positionIdx, o.side === "buy", f.lots, f.pxTicks));
      this.schedulePositionRefresh();
    }
  }

  onCancelReleased(o: Order): void {
    if (this.replaying) return;
    // Called inside store.apply: send after it returns so the store is never re-entered.
    queueMicrotask(() => this.sendCancel(o));
  }

  // ---------------------------------------------------------------- state, credit

  private onTradingState(c: TradingStateChange): void {
    // After shutdown the journal is closed (a late write failure can still report a state change).
    if (!this.dead) {
      this.journal?.note({ text: `trading state ${c.from} -> ${c.to} (${c.source}): ${c.reason}` });
      // The machine-readable record replay restores from (a halt survives a crash).
      this.journal?.command({ session: "engine", op: "state", reason: c.to });
    }
    this.log.warn({ from: c.from, to: c.to, source: c.source, reason: c.reason }, "trading state changed");
    this.broadcastState(c.reason);
  }

  private sendCredit(sid: number, cls: LimitClass): void {
    if (this.limiter === undefined || sid === 0) return;
    const spec = DEFAULT_LIMIT_TABLE.buckets[DEFAULT_LIMIT_TABLE.classes[cls]]!;
    this.sink.send(sid, "Credit", {
      bucket: cls.endsWith("cancel") ? 2 : 1,
      remaining: this.limiter.credit(cls),
      capacity: spec.capacity,
      resetInMs: spec.windowMs,
    });
  }

  /** Broadcasts the create credit of a class (circuit changes). */
  broadcastCredit(cls: LimitClass): void {
    for (const s of this.sink.sessions()) this.sendCredit(s.sessionId, cls);
  }

  /** Latest Spot balances (account-wide); sent to every session on change and to each at logon. */
  onBalances(rows: readonly { currency: string; available: string; blocked: string }[]): void {
    for (const r of rows) {
      const key = `${r.available}|${r.blocked}`;
      if (this.balances.get(r.currency)?.key === key) continue;
      const body = balanceBody(r.currency, r.available, r.blocked);
      if (body === undefined) continue;
      this.balances.set(r.currency, { key, body });
      this.balancePush.push(r.currency, body);
    }
  }
  private readonly balances = new Map<string, { key: string; body: Body<"BalanceUpdate"> }>();
  private readonly balancePush: Coalescer<Body<"BalanceUpdate">>;

  // ---------------------------------------------------------------- positions (HFT, account-wide)

  /** A `/v5/position/list` snapshot of the whole category: replaces the ledger, pushes what changed. */
  onPositions(rows: readonly V5Position[]): void {
    const cat = this.o.hftCategory;
    for (const k of this.positions.snapshot(rows, (sym) => this.book.find("hft", cat, sym)))
      this.pushPosition(k);
  }

  /** Latest PositionUpdate bodies (tests, health). */
  positionBodies(): Body<"PositionUpdate">[] {
    const out: Body<"PositionUpdate">[] = [];
    for (const k of this.positions.keys()) {
      const b = this.positions.body(k, this.entryOf);
      if (b !== undefined) out.push(b);
    }
    return out;
  }

  private pushPosition(key: string): void {
    const body = this.positions.body(key, this.entryOf);
    if (body !== undefined) this.positionPush.push(key, body);
  }

  private schedulePositionRefresh(): void {
    if (this.dead || this.replaying) return;
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    if (this.refreshTimer !== undefined) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      void this.refreshPositions();
    }, this.o.positionRefreshMs ?? 250);
    this.refreshTimer.unref();
  }

  /** Re-reads the venue's positions (rate-limited like any other HFT request; retried when refused). */
  private async refreshPositions(): Promise<void> {
    if (this.dead) return;
    // A read like the order queries (the venue counts them in one HFT bucket): only with budget to spare.
    if ((this.limiter?.credit("hft.query") ?? EAGER_QUERY_CREDIT) < EAGER_QUERY_CREDIT) {
      this.schedulePositionRefresh();
      return;
    }
    const lim = this.limiter?.acquire("hft.query", "query", 0);
    if (lim !== undefined && lim.status !== "granted") {
      if (lim.status === "queued") lim.withdraw();
      this.schedulePositionRefresh();
      return;
    }
    this.refreshing = true;
    try {
      const res = await this.client.positions({ category: this.o.hftCategory });
      this.limiter?.reportOutcome("hft.query", 200);
      if (!this.dead) this.onPositions(res.list ?? []);
    } catch (err) {
      this.limiter?.reportOutcome("hft.query", err instanceof RestError ? err.status : 0);
      this.log.debug({ err: (err as Error)?.message }, "position refresh failed");
    } finally {
      this.refreshing = false;
      if (this.refreshAgain) {
        this.refreshAgain = false;
        this.schedulePositionRefresh();
      }
    }
  }

  private readonly positions = new PositionLedger();
  private readonly entryOf = (id: number) => this.book.byId(id);
  private readonly positionPush: Coalescer<Body<"PositionUpdate">>;
  private refreshTimer: NodeJS.Timeout | undefined;
  private refreshing = false;
  private refreshAgain = false;

  /** Orders whose first answer is still owed (for tests and health). */
  get unanswered(): number {
    return this.pending.size;
  }
}

function newScratchEvent(): OrderEvent {
  return newEvent();
}
function eventFromSpot(rec: SpotOrderRecord, e: InstrumentEntry, out: OrderEvent): OrderEvent {
  return eventFromSpotOrder(rec, e.grid, Source.Rest, storeNs(), out);
}
