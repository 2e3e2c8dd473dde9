/**
 * The cancel path: Cancel / CancelAll → the store's cancel guard (send, hold until the create is
 * acked, or refuse) → rate limiter (priority) → REST → answer or failure → store. Refusals are
 * answered with CancelReject; the final Cancelled comes from the venue sync.
 */
import type { Config } from "../config/load.js";
import type { CancelCmd, SessionInfo } from "../gateway/engineApi.js";
import type { Journal } from "../journal/writer.js";
import type { LimitClass, RateLimiter, Rejected } from "../limits/index.js";
import { type Order, type OrderStore, TERMINAL } from "../orders/index.js";
import { Ev as EV } from "../orders/status.js";
import { monoNs } from "../protocol/clock.js";
import { CancelAllScope, CancelRejectReason } from "../protocol/schema.js";
import type { PreparedRequest, RestClient } from "../rest/client.js";
import { NetworkError, OutcomeUnknownError, RateLimitedError, ResponseShapeError } from "../rest/errors.js";
import { type Surfaces, surfaceOf } from "../venue/surface.js";
import type { Account } from "./account.js";
import type { EngineMetrics } from "./metrics.js";
import type { Owners } from "./owners.js";
import type { RunState } from "./runState.js";
import { type AnswerRecordApplier, failureText, recordAnswer, recordFailure } from "./venueAnswers.js";
import { CANCEL_REASON, cancelRejectBody } from "./wireMap.js";

/** The cancel path's knobs, read from the config's sections (schema.ts documents each). */
export interface CancelOptions {
  limits: Pick<Config["limits"], "cancelWaitMs">;
}

export interface CancelPathDeps {
  client: RestClient;
  limiter: RateLimiter | undefined;
  journal: Journal | undefined;
  metrics: EngineMetrics;
  store: OrderStore;
  owners: Owners;
  account: Account;
  answerRecords: AnswerRecordApplier;
  surfaces: Surfaces;
  run: RunState;
  options: CancelOptions;
  /** Asks the venue about an order soon (after a cancel answer or refusal). */
  resolveSoon: (o: Order) => void;
}

export class CancelPath {
  constructor(private readonly d: CancelPathDeps) {}

  onCancel(session: SessionInfo, cmd: CancelCmd, recvNs: number): void {
    const d = this.d;
    const owner = d.owners.ownerOfSession(session);
    let o: Order | undefined;
    if (cmd.clOrdNo !== 0) o = d.store.bySessionOrder(owner, cmd.clOrdNo);
    else {
      o = d.store.byExchangeId(cmd.exchangeOrderId);
      if (o !== undefined && o.sessionId !== owner) o = undefined; // never someone else's order
    }
    if (o === undefined) {
      d.metrics.cancelRejects.inc();
      d.owners.sessions.send(
        session.sessionId,
        "CancelReject",
        cancelRejectBody(cmd.clOrdNo, CancelRejectReason.UnknownOrder, cmd.exchangeOrderId, "no such order"),
        recvNs,
      );
      return;
    }
    d.journal?.command({ session: session.name, op: "cancel", clientId: o.clientId });
    this.cancelOne(o, recvNs, true);
  }

  /** CancelAll scopes 1 (the session's orders), 2 (on one instrument) and 3 (the account's). */
  cancelScope(owner: number, scope: number, instrumentId: number): void {
    const store = this.d.store;
    const list =
      scope === CancelAllScope.Session
        ? store.liveOrders(owner)
        : scope === CancelAllScope.SessionInstrument
          ? store.liveOrders(owner, instrumentId)
          : store.liveOrders();
    for (const o of list) this.cancelOne(o, 0, false);
  }

  /** Cancels every live order of one owner, or of the account; returns how many were live. */
  cancelAll(owner?: number): number {
    const list = owner === undefined ? this.d.store.liveOrders() : this.d.store.liveOrders(owner);
    for (const o of list) this.cancelOne(o, 0, false);
    return list.length;
  }

  /** Runs the cancel guard; `tell` = answer a refusal with CancelReject (single cancels). */
  cancelOne(o: Order, recvNs: number, tell: boolean): void {
    const d = this.d;
    const g = d.store.requestCancel(o.clientId);
    if (g.kind === "send") this.send(o);
    else if (g.kind === "reject" && tell) {
      d.metrics.cancelRejects.inc();
      d.owners.toOwner(
        o,
        "CancelReject",
        cancelRejectBody(o.clientOrderNo, CANCEL_REASON[g.code], o.exchangeId, g.message),
        recvNs,
      );
    }
    // "hold": sent by release() once the create is acked.
  }

  /** A held cancel became sendable (the store is inside apply: send after it returns). */
  release(o: Order): void {
    if (this.d.run.replaying) return;
    queueMicrotask(() => this.send(o));
  }

  private send(o: Order): void {
    if (this.d.run.replaying) return;
    const cls: LimitClass = surfaceOf(this.d.surfaces, o).classOf("cancel");
    const lim = this.d.limiter?.acquire(cls, "cancel", this.d.options.limits.cancelWaitMs);
    if (lim === undefined || lim.status === "granted") this.sendNow(o, cls);
    else if (lim.status === "rejected") this.throttled(o, lim);
    else
      lim.done.then((r) => {
        if (r.status === "granted") this.sendNow(o, cls);
        else this.throttled(o, r);
      });
  }

  private throttled(o: Order, r: Rejected): void {
    const d = this.d;
    d.store.cancelOutcome(o.clientId, EV.CancelRejected, undefined, `throttled: ${r.reason}`);
    d.metrics.cancelRejects.inc();
    d.owners.toOwner(
      o,
      "CancelReject",
      cancelRejectBody(
        o.clientOrderNo,
        CancelRejectReason.Throttled,
        o.exchangeId,
        `throttled: retry in ${r.retryAfterMs} ms`,
      ),
    );
    d.account.sendCredit(d.owners.sid(o), r.cls);
  }

  /** Sends one cancel request for an order already in PendingCancel (also the resolver's resend). */
  sendNow(o: Order, cls: LimitClass): void {
    const d = this.d;
    let req: PreparedRequest;
    try {
      req = surfaceOf(d.surfaces, o).prepareCancel(o);
    } catch (err) {
      this.failed(o, cls, err, 0);
      return;
    }
    d.journal?.request({
      clientId: o.clientId,
      op: "cancel",
      method: req.endpoint.method,
      path: req.path,
    });
    d.metrics.cancelsSent.inc();
    const sent = monoNs();
    d.client.send<unknown>(req).then(
      (res) => this.answered(o, cls, res, sent),
      (err) => this.failed(o, cls, err, sent),
    );
  }

  private answered(o: Order, cls: LimitClass, res: unknown, sentNs: number): void {
    const d = this.d;
    if (d.run.dead) return;
    const rtt = monoNs() - sentNs;
    d.metrics.exchangeRtt.record(rtt);
    recordAnswer(d.limiter, d.journal, o, "cancel", cls, res, rtt);
    d.store.cancelOutcome(o.clientId, EV.CancelAcked);
    const s = surfaceOf(d.surfaces, o);
    const rec = s.parseCancel(res);
    if (rec !== undefined) d.answerRecords.apply(o, s, rec);
    // [assumed] the final Cancelled comes from the feed or a query; ask soon rather than wait a poll.
    if (!TERMINAL[o.status]) d.resolveSoon(o);
  }

  private failed(o: Order, cls: LimitClass, err: unknown, sentNs: number): void {
    const d = this.d;
    if (d.run.dead) return;
    recordFailure(d.limiter, d.journal, o, "cancel", cls, err, sentNs);
    if (err instanceof OutcomeUnknownError || err instanceof ResponseShapeError) {
      d.store.cancelOutcome(o.clientId, EV.CancelOutcomeUnknown);
      d.resolveSoon(o);
      return;
    }
    const text = failureText(err);
    // A cancel-replace's cancel: the amend path answers the strategy (AmendReject), not a CancelReject.
    const replacing = o.replacedBy > 0;
    d.store.cancelOutcome(o.clientId, EV.CancelRejected, undefined, text);
    if (replacing) {
      if (!TERMINAL[o.status]) d.resolveSoon(o);
      return;
    }
    d.metrics.cancelRejects.inc();
    const reason =
      err instanceof RateLimitedError || err instanceof NetworkError
        ? CancelRejectReason.Throttled
        : CancelRejectReason.VenueRejected;
    d.owners.toOwner(
      o,
      "CancelReject",
      cancelRejectBody(o.clientOrderNo, reason, o.exchangeId, text.slice(0, 64)),
    );
    // The venue refused: it may know something we do not (filled, expiring). Ask it.
    if (!TERMINAL[o.status]) d.resolveSoon(o);
  }
}
