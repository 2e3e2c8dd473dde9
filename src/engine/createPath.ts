/**
 * The create path: NewOrder → instrument → risk → store (client id minted) → journal → rate limiter →
 * the venue request (venueRequest.ts: prepared by the order's surface, pre-signed) → answer or failure
 * → store. The store's change then reaches the strategy through the notifier; what this path tells the
 * strategy itself is the refusals it decides locally.
 */

import type { Logger } from "pino";
import { ClockError, type ClockGate } from "../clock/clockSync.js";
import type { Config } from "../config/load.js";
import type { NewOrderCmd, SessionInfo } from "../gateway/engineApi.js";
import type { Journal } from "../journal/writer.js";
import type { LimitClass, RateLimiter, Rejected } from "../limits/index.js";
import { type Order, type OrderStore, TERMINAL } from "../orders/index.js";
import { monoNs } from "../protocol/clock.js";
import type { PreparedRequest, RestClient } from "../rest/client.js";
import {
  InvalidRequestError,
  NetworkError,
  OutcomeUnknownError,
  RateLimitedError,
  ResponseShapeError,
  ValidationError,
} from "../rest/errors.js";
import type { RiskGate } from "../risk/riskGate.js";
import { isNotAllowlisted } from "../venue/hft/fields.js";
import type { VenueIngest } from "../venue/ingest.js";
import { type Surfaces, surfaceOf } from "../venue/surface.js";
import { type Account, EAGER_QUERY_CREDIT } from "./account.js";
import { CreateRecords } from "./createRecords.js";
import type { InstrumentBook } from "./instruments.js";
import type { EngineMetrics } from "./metrics.js";
import type { Notifier } from "./notifier.js";
import type { Owners } from "./owners.js";
import type { SendGate } from "./readiness.js";
import type { RunState } from "./runState.js";
import { type RequestPath, recordThrottled, VenueRequest } from "./venueRequest.js";
import {
  RISK_TO_CODE,
  refusedText,
  rejectBody,
  riskText,
  SIDE_FROM_WIRE,
  TIF_FROM_WIRE,
  TYPE_FROM_WIRE,
} from "./wireMap.js";

/** The create path's knobs, read from the config's sections (schema.ts documents each). */
export interface CreateOptions {
  limits: Pick<Config["limits"], "createWaitMs">;
  /** `hftQueryAfterAck`: query an HFT order right after its ack (see answered). */
  orders: Pick<Config["orders"], "hftQueryAfterAck">;
}

export interface CreatePathDeps {
  client: RestClient;
  book: InstrumentBook;
  risk: RiskGate;
  limiter: RateLimiter | undefined;
  journal: Journal | undefined;
  metrics: EngineMetrics;
  log: Logger;
  store: OrderStore;
  owners: Owners;
  notifier: Notifier;
  account: Account;
  /** Where a record carried by the answer goes (the venue ingest). */
  ingest: VenueIngest;
  /** The venue surfaces: how an order is prepared and its answer read. */
  surfaces: Surfaces;
  run: RunState;
  options: CreateOptions;
  /** Per surface: send a new order now, or hold it (bounded) while its surface reconciles. */
  gate: SendGate;
  /** Asks the venue about an order soon (unknown outcome, eager HFT query). */
  resolveSoon: (o: Order) => void;
  /** The clock guard: while it refuses to sign, new orders are refused (ClockSkew, retryable). */
  clock?: ClockGate;
}

export class CreatePath implements RequestPath {
  readonly op = "create" as const;
  readonly spends = "create" as const;
  private readonly request: VenueRequest;
  /** The risk intent, store request and journal command, filled in per order (createRecords.ts). */
  private readonly rec = new CreateRecords();

  constructor(private readonly d: CreatePathDeps) {
    this.request = new VenueRequest(d, this);
  }

  onNewOrder(session: SessionInfo, cmd: NewOrderCmd, recvNs: number): void {
    const d = this.d;
    const m = d.metrics;
    const t0 = monoNs();
    m.decode.record(t0 - recvNs);
    const sink = d.owners.sessions;
    const sid = session.sessionId;
    if (!d.run.accepting) {
      // Draining for a stop: retryable, with its own code (another instance, or this one restarted).
      sink.send(sid, "Reject", rejectBody(cmd.clOrdNo, "ShuttingDown"), recvNs);
      m.outcomes.rejected_engine.inc();
      return;
    }
    if (d.clock !== undefined && !d.clock.canSign) {
      // Signed with a clock the venue refuses, it would come back 401: refused here, nothing created.
      sink.send(sid, "Reject", rejectBody(cmd.clOrdNo, "ClockSkew"), recvNs);
      m.outcomes.rejected_engine.inc();
      return;
    }
    const e = d.book.byId(cmd.instrumentId);
    if (e === undefined) {
      sink.send(sid, "Reject", rejectBody(cmd.clOrdNo, "UnknownInstrument"), recvNs);
      m.outcomes.rejected_risk.inc();
      return;
    }
    const inst = e.inst;
    const side = SIDE_FROM_WIRE[cmd.side]!;
    const type = TYPE_FROM_WIRE[cmd.ordType]!;
    const tif = TIF_FROM_WIRE[cmd.tif]!;
    if (inst.surface === "spot" && (type !== "limit" || tif !== "GTC")) {
      // [docs] Spot v2 takes limit orders only and has no time-in-force field.
      sink.send(
        sid,
        "Reject",
        rejectBody(cmd.clOrdNo, "VenueRejected", "spot accepts GTC limit orders only"),
        recvNs,
      );
      m.outcomes.rejected_risk.inc();
      return;
    }
    const owner = d.owners.ownerOfSession(session);
    const intent = this.rec.intent;
    intent.sessionId = owner;
    intent.instrumentId = inst.id;
    intent.side = side;
    intent.type = type;
    intent.priceTicks = type === "market" ? 0 : cmd.priceTicks;
    intent.qtyLots = cmd.qtyLots;
    const code = d.risk.check(intent);
    const t1 = monoNs();
    m.risk.record(t1 - t0);
    if (code !== null) {
      sink.send(sid, "Reject", rejectBody(cmd.clOrdNo, RISK_TO_CODE[code], riskText(code)), recvNs);
      m.outcomes.rejected_risk.inc();
      return;
    }
    const req = this.rec.newOrder;
    req.sessionId = owner;
    req.clientOrderNo = cmd.clOrdNo;
    req.instrumentId = inst.id;
    req.symbol = inst.symbol;
    req.surface = inst.surface;
    req.side = side;
    req.type = type;
    req.tif = tif;
    req.positionIdx = (inst.surface === "hft" ? cmd.positionIdx : 0) as 0 | 1 | 2;
    req.priceTicks = intent.priceTicks;
    req.qtyLots = cmd.qtyLots;
    let order: Order;
    try {
      order = d.store.create(req, t1);
    } catch (err) {
      // Duplicate order number (e.g. reused after a restart) or bad numbers: nothing was created.
      sink.send(
        sid,
        "Reject",
        rejectBody(cmd.clOrdNo, "ClOrdNoNotIncreasing", (err as Error).message),
        recvNs,
      );
      m.outcomes.rejected_engine.inc();
      return;
    }
    d.owners.noteOrderNo(owner, cmd.clOrdNo);
    d.risk.onOpen(order.clientId, intent);
    d.notifier.expectAnswer(order.clientId, recvNs);
    const priceText = type === "market" ? "" : e.price.format(intent.priceTicks);
    const qtyText = e.qty.format(cmd.qtyLots);
    if (d.journal !== undefined) {
      const rec = this.rec.command;
      rec.session = d.owners.ownerName(owner);
      rec.clientId = order.clientId;
      rec.symbol = inst.symbol;
      rec.side = side;
      rec.type = type;
      rec.price = priceText;
      rec.qty = qtyText;
      rec.tif = tif;
      rec.reason = `no=${cmd.clOrdNo};inst=${e.key};pos=${order.positionIdx}`;
      d.journal.command(rec);
    }
    if (d.gate.open(inst.surface)) this.admit(order, priceText, qtyText);
    else
      d.gate.hold(
        inst.surface,
        () => this.admit(order, priceText, qtyText),
        (why) => this.notReady(order, why),
      );
  }

  /** The rate limiter, then the venue (a held order comes here when its surface is ready or its hold ends). */
  private admit(order: Order, priceText: string, qtyText: string): void {
    const d = this.d;
    if (d.run.dead || TERMINAL[order.status]) return;
    const cls: LimitClass = d.surfaces[order.surface].classOf("create");
    const lim = d.limiter?.acquire(cls, "create", d.options.limits.createWaitMs);
    if (lim === undefined || lim.status === "granted") {
      this.request.send(order, priceText, qtyText, 1);
    } else if (lim.status === "rejected") {
      this.throttled(order, lim);
    } else {
      lim.done.then((r) => {
        if (r.status === "granted") this.request.send(order, priceText, qtyText, 1);
        else this.throttled(order, r);
      });
    }
  }

  /** A held order whose hold ran out while its surface still reconciles (`streams.reconcileHoldThen` refuse). */
  private notReady(o: Order, why: string): void {
    const d = this.d;
    if (d.run.dead || TERMINAL[o.status]) return;
    recordThrottled(d.journal, o, why);
    const recvNs = d.notifier.answeredLocally(o.clientId);
    d.owners.toOwner(
      o,
      "Reject",
      rejectBody(o.clientOrderNo, "VenueUnavailable", why.slice(0, 64), true),
      recvNs,
    );
    d.metrics.outcomes.rejected_engine.inc();
    d.store.rejectCreate(o.clientId, why);
  }

  /** Counts an order rebuilt from the journal in the risk gate's open-order ledger. */
  riskOpen(o: Order): void {
    // An Order carries every field of the risk gate's OrderIntent, which copies what it keeps.
    this.d.risk.onOpen(o.clientId, o);
  }

  /** Same-id resend of a create (resolution found no order at the venue). */
  resend(o: Order): void {
    const e = this.d.book.byId(o.instrumentId);
    if (e === undefined || this.d.run.dead) return;
    this.request.send(
      o,
      o.type === "market" ? "" : e.price.format(o.priceTicks),
      e.qty.format(o.qtyLots),
      o.sends + 1,
    );
  }

  private throttled(o: Order, r: Rejected): void {
    recordThrottled(this.d.journal, o, `throttled: ${r.reason}`);
    const recvNs = this.d.notifier.answeredLocally(o.clientId);
    const sid = this.d.owners.sid(o);
    const code = r.reason === "CIRCUIT_OPEN" ? "CircuitOpen" : "RateLimited";
    this.d.owners.toOwner(
      o,
      "Reject",
      rejectBody(o.clientOrderNo, code, `${r.reason.toLowerCase()}: retry in ${r.retryAfterMs} ms`, true),
      recvNs,
    );
    this.d.metrics.outcomes.rejected_throttle.inc();
    this.d.store.rejectCreate(o.clientId, `throttled: ${r.reason}`);
    this.d.account.sendCredit(sid, r.cls);
  }

  // ---------------------------------------------------------------- the venue request (RequestPath)

  /** Builds the create with the order's client id on its instrument's grid (timed: `assembly`). */
  prepare(o: Order, priceText: string | undefined, qtyText: string | undefined): PreparedRequest {
    const s = surfaceOf(this.d.surfaces, o);
    const e = this.d.book.byId(o.instrumentId);
    if (e === undefined)
      throw new InvalidRequestError("symbol: unknown instrument", s.createEndpoint, "symbol");
    const t0 = monoNs();
    const req = s.prepareCreate(o, priceText ?? "", qtyText ?? "", e.orderGrid, e.inst.venue);
    this.d.metrics.assembly.record(monoNs() - t0);
    return req;
  }

  sending(o: Order, nowNs: number): void {
    this.d.store.markSent(o.clientId, nowNs);
  }

  answered(o: Order, res: unknown, rttNs: number, nowNs: number): void {
    const d = this.d;
    d.notifier.clearTap();
    d.metrics.exchangeRtt.record(rttNs);
    const s = surfaceOf(d.surfaces, o);
    const answer = s.parseCreate(res);
    if (answer.exchangeId === "") {
      this.failed(o, new ResponseShapeError("create answer without an order id", s.createEndpoint, 200));
      return;
    }
    d.store.ackCreate(o.clientId, answer.exchangeId, nowNs);
    if (answer.record !== undefined) d.ingest.answer(o, s, answer.record);
    if (o.surface === "hft" && d.run.hftPushTrusted) d.run.hftEchoExpected?.(answer.exchangeId, o.clientId);
    // An answer with ids only: an order that may have traded at once is asked about now rather than
    // at the next poll, when the query budget has room (IOC/FOK/market always do).
    if (
      s.queryAfterAck &&
      d.options.orders.hftQueryAfterAck &&
      // A trusted HFT push stream reports the order: the HFT bucket is left to creates and cancels.
      !(o.surface === "hft" && d.run.hftPushTrusted) &&
      !TERMINAL[o.status] &&
      (o.tif !== "GTC" ||
        o.type === "market" ||
        (d.limiter?.credit(s.classOf("query")) ?? 50) >= EAGER_QUERY_CREDIT)
    ) {
      d.resolveSoon(o);
    }
  }

  failed(o: Order, err: unknown): void {
    const d = this.d;
    d.notifier.clearTap();
    if (err instanceof OutcomeUnknownError || err instanceof ResponseShapeError) {
      // Ambiguity is a state: resolve by client id, never report a rejection, never re-send under a new id.
      d.risk.recordUnknownOutcome();
      d.store.createUnknown(o.clientId);
      d.resolveSoon(o);
      return;
    }
    if (err instanceof RateLimitedError) {
      const recvNs = d.notifier.answeredLocally(o.clientId);
      d.owners.toOwner(
        o,
        "Reject",
        rejectBody(o.clientOrderNo, "RateLimited", "exchange answered 429", true),
        recvNs,
      );
      d.metrics.outcomes.rejected_throttle.inc();
      d.store.rejectCreate(o.clientId, "429");
      return;
    }
    this.refused(o, err, false);
  }

  /**
   * Tells the strategy a create was refused (by the venue, or here before sending) and records it.
   * [assumed] A 401 is a definite reject: the venue would not authenticate the create, so it was not
   * placed; whether the clock explains it (`clockExplains`) decides the code.
   */
  refused(o: Order, err: unknown, clockExplains: boolean): void {
    const d = this.d;
    d.notifier.clearTap();
    let code:
      | "VenueRejected"
      | "VenueUnavailable"
      | "InsufficientBalance"
      | "BadPrice"
      | "NotAllowlisted"
      | "ClockSkew" = "VenueRejected";
    let text: string;
    if (err instanceof ValidationError) {
      text = err.exchangeMessage || err.message;
      // Options from a key not on the venue's allowlist: a clear code, not a generic venue reject.
      if (isNotAllowlisted(err)) code = "NotAllowlisted";
      else if (/balance|margin/i.test(text)) code = "InsufficientBalance";
      d.risk.recordVenueReject();
    } else if (err instanceof NetworkError) {
      code = "VenueUnavailable";
      text = err.message;
    } else if (err instanceof ClockError || clockExplains) {
      // Retryable: nothing was placed, and signing resumes by itself once the clock is re-synced.
      code = "ClockSkew";
      text = refusedText(err, clockExplains);
    } else if (err instanceof InvalidRequestError) {
      code = "BadPrice";
      text = err.message;
    } else {
      text = (err as Error)?.message ?? String(err);
    }
    const recvNs = d.notifier.answeredLocally(o.clientId);
    const retryable = code === "VenueUnavailable" || code === "ClockSkew";
    d.owners.toOwner(o, "Reject", rejectBody(o.clientOrderNo, code, text.slice(0, 64), retryable), recvNs);
    const local = code === "VenueUnavailable" || err instanceof ClockError;
    d.metrics.outcomes[local ? "rejected_engine" : "rejected_venue"].inc();
    d.store.rejectCreate(o.clientId, text);
  }
}
