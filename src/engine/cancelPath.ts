/**
 * The cancel path: Cancel / CancelAll → the store's cancel guard (send, hold until the create is
 * acked, or refuse) → rate limiter (priority) → the venue request (venueRequest.ts: prepared by the
 * order's surface) → answer or failure → store. Refusals are answered with CancelReject; the final
 * Cancelled comes from the venue sync. While the clock guard refuses to sign, a strategy's Cancel is
 * refused (ClockSkew, the order unchanged) and the cancels of CancelAll, Kill and cancel-on-disconnect
 * are kept and sent once signing resumes.
 */
import { ClockError, type ClockGate } from "../clock/clockSync.js";
import type { Config } from "../config/load.js";
import type { CancelCmd, SessionInfo } from "../gateway/engineApi.js";
import type { Journal } from "../journal/writer.js";
import type { LimitClass, RateLimiter, Rejected } from "../limits/index.js";
import { cancelGuard, type Order, type OrderStore, TERMINAL } from "../orders/index.js";
import { Ev as EV } from "../orders/status.js";
import { CancelAllScope, CancelRejectReason, CODES } from "../protocol/schema.js";
import type { PreparedRequest, RestClient } from "../rest/client.js";
import { NetworkError, OutcomeUnknownError, RateLimitedError, ResponseShapeError } from "../rest/errors.js";
import type { VenueIngest } from "../venue/ingest.js";
import { type Surfaces, surfaceOf } from "../venue/surface.js";
import type { Account } from "./account.js";
import type { EngineMetrics } from "./metrics.js";
import { ORPHAN_OWNER, type Owners } from "./owners.js";
import type { RunState } from "./runState.js";
import { type RequestPath, VenueRequest } from "./venueRequest.js";
import { CANCEL_REASON, cancelRejectBody, refusedText } from "./wireMap.js";

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
  /** Where a record carried by the answer goes (the venue ingest). */
  ingest: VenueIngest;
  surfaces: Surfaces;
  run: RunState;
  options: CancelOptions;
  /** Asks the venue about an order soon (after a cancel answer or refusal). */
  resolveSoon: (o: Order) => void;
  /** The clock guard: nothing is signed while it refuses; told when it signs again. */
  clock?: ClockGate;
}

export class CancelPath implements RequestPath {
  readonly op = "cancel" as const;
  readonly spends = "cancel" as const;
  private readonly request: VenueRequest;
  /** Cancels nobody asked for one by one (CancelAll, Kill, cancel-on-disconnect): in flight, and kept
   *  for when the clock guard signs again. Client ids. */
  private readonly sweeping = new Set<string>();
  private readonly kept = new Set<string>();

  constructor(private readonly d: CancelPathDeps) {
    this.request = new VenueRequest(d, this);
    d.clock?.onResume(() => this.sendKept());
  }

  onCancel(session: SessionInfo, cmd: CancelCmd, recvNs: number): void {
    const d = this.d;
    const owner = d.owners.ownerOfSession(session);
    let o: Order | undefined;
    if (cmd.clOrdNo !== 0) o = d.store.bySessionOrder(owner, cmd.clOrdNo);
    else {
      o = d.store.byExchangeId(cmd.exchangeOrderId);
      // Never someone else's order; an orphan (adopted venue order) is an admin's to cancel.
      const mine =
        o !== undefined && (o.sessionId === owner || (session.admin && o.sessionId === ORPHAN_OWNER));
      if (!mine) o = undefined;
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
    if (d.clock !== undefined && !d.clock.canSign && cancelGuard(o).kind === "send") {
      // It would be signed with a clock the venue refuses: not sent, the order stays as it is.
      if (!tell) this.kept.add(o.clientId);
      else {
        d.metrics.cancelRejects.inc();
        d.owners.toOwner(
          o,
          "CancelReject",
          cancelRejectBody(o.clientOrderNo, CancelRejectReason.ClockSkew, o.exchangeId, CODES.ClockSkew.text),
          recvNs,
        );
      }
      return;
    }
    const g = d.store.requestCancel(o.clientId);
    if (g.kind !== "reject" && !tell) this.sweeping.add(o.clientId);
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

  /** Signing resumed: the kept cancels of orders still live go out (through the guard again). */
  private sendKept(): void {
    const ids = [...this.kept];
    this.kept.clear();
    for (const id of ids) {
      const o = this.d.store.byClientId(id);
      if (o !== undefined && !TERMINAL[o.status]) this.cancelOne(o, 0, false);
    }
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
    if (lim === undefined || lim.status === "granted") this.sendNow(o);
    else if (lim.status === "rejected") this.throttled(o, lim);
    else
      lim.done.then((r) => {
        if (r.status === "granted") this.sendNow(o);
        else this.throttled(o, r);
      });
  }

  private throttled(o: Order, r: Rejected): void {
    const d = this.d;
    this.sweeping.delete(o.clientId);
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
  sendNow(o: Order): void {
    this.request.send(o);
  }

  // ---------------------------------------------------------------- the venue request (RequestPath)

  prepare(o: Order): PreparedRequest {
    return surfaceOf(this.d.surfaces, o).prepareCancel(o);
  }

  sending(): void {
    this.d.metrics.cancelsSent.inc();
  }

  answered(o: Order, res: unknown, rttNs: number): void {
    const d = this.d;
    this.sweeping.delete(o.clientId);
    d.metrics.exchangeRtt.record(rttNs);
    d.store.cancelOutcome(o.clientId, EV.CancelAcked);
    const s = surfaceOf(d.surfaces, o);
    const rec = s.parseCancel(res);
    if (rec !== undefined) d.ingest.answer(o, s, rec);
    // [assumed] the final Cancelled comes from the feed or a query; ask soon rather than wait a poll.
    if (!TERMINAL[o.status]) d.resolveSoon(o);
  }

  failed(o: Order, err: unknown): void {
    const d = this.d;
    if (err instanceof OutcomeUnknownError || err instanceof ResponseShapeError) {
      this.sweeping.delete(o.clientId);
      d.store.cancelOutcome(o.clientId, EV.CancelOutcomeUnknown);
      d.resolveSoon(o);
      return;
    }
    this.refused(o, err, false);
  }

  /**
   * A cancel the venue refused, or one not sent: the order is as it was; its owner is told why. A
   * sweep's cancel the clock refused is kept and sent again once the clock signs.
   */
  refused(o: Order, err: unknown, clockExplains: boolean): void {
    const d = this.d;
    const swept = this.sweeping.delete(o.clientId);
    const clock = clockExplains || err instanceof ClockError;
    const text = refusedText(err, clockExplains);
    // A cancel-replace's cancel: the amend path answers the strategy (AmendReject), not a CancelReject.
    const replacing = o.extra.replacedBy > 0;
    d.store.cancelOutcome(o.clientId, EV.CancelRejected, undefined, text);
    if (replacing) {
      if (!TERMINAL[o.status]) d.resolveSoon(o);
      return;
    }
    if (clock && swept) {
      // A sweep's cancel (CancelAll, Kill, cancel-on-disconnect): sent again once the clock signs.
      if (d.clock?.canSign) this.cancelOne(o, 0, false);
      else this.kept.add(o.clientId);
      return;
    }
    d.metrics.cancelRejects.inc();
    const reason = clock
      ? CancelRejectReason.ClockSkew
      : err instanceof RateLimitedError || err instanceof NetworkError
        ? CancelRejectReason.Throttled
        : CancelRejectReason.VenueRejected;
    d.owners.toOwner(
      o,
      "CancelReject",
      cancelRejectBody(o.clientOrderNo, reason, o.exchangeId, text.slice(0, 64)),
    );
    // The venue refused: it may know something we do not (filled, expiring). Ask it.
    if (!clock && !TERMINAL[o.status]) d.resolveSoon(o);
  }
}
