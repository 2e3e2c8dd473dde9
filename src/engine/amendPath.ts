/**
 * The amend path: Amend → amend guard → risk on the amended order → journal → the venue's way of
 * amending (the surface's `amend` capability): in place (HFT: the venue request of venueRequest.ts,
 * its answer or failure → the store), or cancel-replace (Spot: the cancel, and once the venue confirms Cancelled a new
 * create under the Amend's new client order number). Refusals are answered with AmendReject; an
 * accepted amend reaches the strategy as the store's OrderUpdate. An unanswered amend is never re-sent:
 * the resolver's query decides it (`resolveWith`).
 */
import { ClockError, type ClockGate } from "../clock/clockSync.js";
import type { Config } from "../config/load.js";
import type { AmendCmd, NewOrderCmd, SessionInfo } from "../gateway/engineApi.js";
import type { Journal } from "../journal/writer.js";
import type { LimitClass, RateLimiter, Rejected } from "../limits/index.js";
import {
  type AmendRejectCode,
  amendGuard,
  Ev,
  type Order,
  type OrderStore,
  ownExtra,
  Status,
  TERMINAL,
} from "../orders/index.js";
import { AmendFlags, AmendRejectReason, CODES } from "../protocol/schema.js";
import type { PreparedRequest, RestClient } from "../rest/client.js";
import { NetworkError, OutcomeUnknownError, RateLimitedError, ResponseShapeError } from "../rest/errors.js";
import type { RiskGate } from "../risk/riskGate.js";
import { type Surfaces, surfaceOf, type VenueSurface } from "../venue/surface.js";
import type { CancelPath } from "./cancelPath.js";
import type { InstrumentBook } from "./instruments.js";
import type { Owners } from "./owners.js";
import { ReplacePath } from "./replacePath.js";
import type { RunState } from "./runState.js";
import { type RequestPath, VenueRequest } from "./venueRequest.js";
import { amendRejectBody, RISK_TO_CODE, refusedText, riskText } from "./wireMap.js";

const GUARD_REASON: Readonly<Record<AmendRejectCode, number>> = {
  UNKNOWN_ORDER: AmendRejectReason.UnknownOrder,
  ALREADY_TERMINAL: AmendRejectReason.AlreadyTerminal,
  CANCEL_PENDING: AmendRejectReason.CancelPending,
  EXPIRATION_RAISED: AmendRejectReason.ExpirationRaised,
  AMEND_PENDING: AmendRejectReason.AmendPending,
  NOT_WORKING: AmendRejectReason.NotWorking,
  QTY_NOT_ABOVE_FILLED: AmendRejectReason.QtyNotAboveFilled,
  NOTHING_TO_AMEND: AmendRejectReason.NothingToAmend,
};

const UNKNOWN = [AmendRejectReason.UnknownOrder, "no such order"] as const;

/**
 * The config's `limits` section: an amend waits for rate-limit credit as long as a create may
 * (`createWaitMs`), a cancel-replace's cancel as long as a cancel (`cancelWaitMs`).
 */
export interface AmendOptions {
  limits: Pick<Config["limits"], "createWaitMs" | "cancelWaitMs">;
}

export interface AmendPathDeps {
  client: RestClient;
  book: InstrumentBook;
  risk: RiskGate;
  limiter: RateLimiter | undefined;
  journal: Journal | undefined;
  store: OrderStore;
  owners: Owners;
  surfaces: Surfaces;
  cancels: CancelPath;
  run: RunState;
  options: AmendOptions;
  /** Asks the venue about an order soon (an amend whose answer was lost). */
  resolveSoon: (o: Order) => void;
  /** Places a cancel-replace's replacement as the session's NewOrder (the create path). */
  placeReplacement: (session: SessionInfo, cmd: NewOrderCmd) => void;
  /** Counts refusals and answers (metrics). */
  onReject?: () => void;
  /** The clock guard: while it refuses to sign, an Amend is refused (ClockSkew), nothing changes. */
  clock?: ClockGate;
}

export class AmendPath implements RequestPath {
  readonly op = "amend" as const;
  /** An amend spends what a create spends (the venue publishes no figure of its own) [assumed]. */
  readonly spends = "create" as const;
  /** The cancel-replace half (surfaces without a venue amend). */
  readonly replaces: ReplacePath;
  private readonly request: VenueRequest;

  constructor(private readonly d: AmendPathDeps) {
    this.replaces = new ReplacePath({ ...d, tell: (o, r, t, n) => this.tell(o, r, t, n) });
    this.request = new VenueRequest(d, this);
  }

  onAmend(session: SessionInfo, cmd: AmendCmd, recvNs: number): void {
    const d = this.d;
    const owner = d.owners.ownerOfSession(session);
    const o = d.store.bySessionOrder(owner, cmd.clOrdNo);
    const px = cmd.flags & AmendFlags.Price ? cmd.priceTicks : 0;
    const qty = cmd.flags & AmendFlags.Qty ? cmd.qtyLots : 0;
    const no = o === undefined ? UNKNOWN : this.refusal(o, owner, cmd, px, qty);
    const e = o === undefined ? undefined : d.book.byId(o.instrumentId);
    if (no !== undefined || o === undefined || e === undefined) {
      const [reason, text] = no ?? UNKNOWN;
      this.refuseCmd(session, cmd, o, reason, text, recvNs);
      return;
    }
    const s = surfaceOf(d.surfaces, o);
    // The intent first: a restart finds it before any request it caused.
    d.journal?.command({
      session: d.owners.ownerName(owner),
      op: "amend",
      clientId: o.clientId,
      price: px > 0 ? e.price.format(px) : "",
      qty: qty > 0 ? e.qty.format(qty) : "",
      reason: `no=${cmd.clOrdNo};new=${cmd.newClOrdNo}`,
    });
    const replace = s.amend === "cancelReplace";
    d.store.requestAmend(o.clientId, px, qty, replace ? cmd.newClOrdNo : 0);
    if (replace) this.replaces.start(o, s, session, cmd);
    else this.sendAmend(o, s);
  }

  /** Why this Amend changes nothing, or undefined when it goes ahead. Reads only. */
  private refusal(
    o: Order,
    owner: number,
    cmd: AmendCmd,
    px: number,
    qty: number,
  ): readonly [number, string] | undefined {
    const d = this.d;
    if (!d.run.accepting) return [AmendRejectReason.ShuttingDown, "gateway shutting down"];
    const mode = surfaceOf(d.surfaces, o).amend ?? "none";
    if (mode === "none") return [AmendRejectReason.Unsupported, "this venue has no amend"];
    if (mode === "native" && cmd.newClOrdNo !== 0)
      return [AmendRejectReason.BadNewClOrdNo, "amended in place: newClOrdNo must be 0"];
    if (mode === "cancelReplace" && cmd.newClOrdNo === 0)
      return [AmendRejectReason.BadNewClOrdNo, "replaced at this venue: newClOrdNo required"];
    if (cmd.flags & AmendFlags.Price && px === 0)
      return [AmendRejectReason.NothingToAmend, "price must be positive"];
    if (cmd.flags & AmendFlags.Qty && qty === 0)
      return [AmendRejectReason.QtyNotAboveFilled, "quantity must exceed the filled quantity"];
    const g = amendGuard(o, px, qty);
    if (g.kind === "reject") return [GUARD_REASON[g.code], g.message];
    const code = d.risk.checkAmend(o.clientId, {
      sessionId: owner,
      instrumentId: o.instrumentId,
      side: o.side,
      type: o.type,
      priceTicks: px || o.priceTicks,
      qtyLots: qty || o.qtyLots,
    });
    if (code !== null)
      return [AmendRejectReason.Risk, `${RISK_TO_CODE[code]}: ${riskText(code)}`.slice(0, 64)];
    // It would go ahead, but would be signed with a clock the venue refuses.
    if (d.clock !== undefined && !d.clock.canSign) return [AmendRejectReason.ClockSkew, CODES.ClockSkew.text];
    return undefined;
  }

  // ---------------------------------------------------------------- in place

  private sendAmend(o: Order, s: VenueSurface): void {
    const d = this.d;
    const cls = s.classOf(this.spends);
    const lim = d.limiter?.acquire(cls, "create", d.options.limits.createWaitMs);
    if (lim === undefined || lim.status === "granted") this.sendNow(o);
    else if (lim.status === "rejected") this.throttled(o, cls, lim);
    else
      lim.done.then((r) => {
        if (r.status === "granted") this.sendNow(o);
        else this.throttled(o, cls, r);
      });
  }

  private throttled(o: Order, cls: LimitClass, r: Rejected): void {
    const d = this.d;
    d.journal?.response({ clientId: o.clientId, op: "amend", status: 1, latencyUs: 0, body: r.reason });
    this.tell(o, AmendRejectReason.Throttled, `throttled: retry in ${r.retryAfterMs} ms`);
    d.store.amendOutcome(o.clientId, Ev.AmendRejected, undefined, `throttled (${cls})`);
  }

  private sendNow(o: Order): void {
    const d = this.d;
    if (d.run.dead || o.status !== Status.PendingReplace) return;
    const e = d.book.byId(o.instrumentId);
    this.request.send(
      o,
      e !== undefined && o.extra.amendPriceTicks > 0 ? e.price.format(o.extra.amendPriceTicks) : undefined,
      e !== undefined && o.extra.amendQtyLots > 0 ? e.qty.format(o.extra.amendQtyLots) : undefined,
    );
  }

  // ---------------------------------------------------------------- the venue request (RequestPath)

  prepare(o: Order, priceText: string | undefined, qtyText: string | undefined): PreparedRequest {
    const s = surfaceOf(this.d.surfaces, o);
    if (this.d.book.byId(o.instrumentId) === undefined || s.prepareAmend === undefined)
      throw new Error("amend cannot be built");
    return s.prepareAmend(o, priceText, qtyText);
  }

  sending(o: Order, nowNs: number): void {
    // The store's clock (the resolver compares it with its own): the deadline runs from the send.
    ownExtra(o).amendSentNs = nowNs;
  }

  answered(o: Order): void {
    this.accepted(o);
  }

  private accepted(o: Order): void {
    this.d.store.amendOutcome(o.clientId, Ev.AmendAcked);
    if (!TERMINAL[o.status]) this.d.risk.onAmended(o.clientId, o.leavesLots);
  }

  failed(o: Order, err: unknown, sentNs: number): void {
    const d = this.d;
    if (sentNs > 0 && (err instanceof OutcomeUnknownError || err instanceof ResponseShapeError)) {
      // Ambiguity is a state: the venue may have taken it. Asked about, never re-sent.
      d.store.amendOutcome(o.clientId, Ev.AmendOutcomeUnknown);
      d.resolveSoon(o);
      return;
    }
    this.refused(o, err, false);
  }

  /** An amend the venue refused, or one not sent: the order is unchanged; its owner is told why. */
  refused(o: Order, err: unknown, clockExplains: boolean): void {
    const d = this.d;
    const clock = clockExplains || err instanceof ClockError;
    const text = refusedText(err, clockExplains);
    const reason = clock
      ? AmendRejectReason.ClockSkew
      : err instanceof RateLimitedError || err instanceof NetworkError
        ? AmendRejectReason.Throttled
        : AmendRejectReason.VenueRejected;
    this.tell(o, reason, text.slice(0, 64));
    d.store.amendOutcome(o.clientId, Ev.AmendRejected, undefined, text);
    // The venue refused: it may know something we do not (filled, cancelled). Ask it.
    if (!TERMINAL[o.status] && reason === AmendRejectReason.VenueRejected) d.resolveSoon(o);
  }

  /**
   * The resolver's answer for an order still PendingReplace: the venue's record (undefined = not found)
   * and whether the amend's answer deadline had passed when the query left. The record showing the
   * target is the amend taken; the old values after the deadline are the amend not taken; anything
   * else waits for the next round. Returns true when decided.
   */
  resolveWith(o: Order, s: VenueSurface, rec: unknown, deadlinePassed: boolean): boolean {
    const d = this.d;
    if (o.status !== Status.PendingReplace || rec === undefined || s.amendStateOf === undefined) return false;
    const e = d.book.byId(o.instrumentId);
    if (e === undefined) return false;
    let st: { priceTicks: number; qtyLots: number };
    try {
      st = s.amendStateOf(rec, e.grid);
    } catch {
      return false;
    }
    const wantPx = o.extra.amendPriceTicks || o.priceTicks;
    const wantQty = o.extra.amendQtyLots || o.qtyLots;
    if (st.priceTicks === wantPx && st.qtyLots === wantQty) {
      d.journal?.response({
        clientId: o.clientId,
        op: "amend",
        status: 200,
        latencyUs: 0,
        body: "resolution: the venue shows the amend",
      });
      this.accepted(o);
      return true;
    }
    if (!deadlinePassed) return false;
    d.journal?.response({
      clientId: o.clientId,
      op: "amend",
      status: 409,
      latencyUs: 0,
      body: "resolution: the venue shows the order unchanged",
    });
    this.tell(o, AmendRejectReason.NotApplied, "the venue shows the order unchanged");
    d.store.amendOutcome(o.clientId, Ev.AmendRejected, undefined, "not applied");
    return true;
  }

  // ---------------------------------------------------------------- answers

  /** AmendReject to the order's owner (outboxed while it has no session). */
  tell(o: Order, reason: number, text: string, newClOrdNo = 0): void {
    this.d.onReject?.();
    this.d.owners.toOwner(
      o,
      "AmendReject",
      amendRejectBody(o.clientOrderNo, newClOrdNo, reason, o.exchangeId, text),
    );
  }

  private refuseCmd(
    session: SessionInfo,
    cmd: AmendCmd,
    o: Order | undefined,
    reason: number,
    text: string,
    recvNs: number,
  ): void {
    const b = amendRejectBody(cmd.clOrdNo, cmd.newClOrdNo, reason, o?.exchangeId ?? "", text);
    this.d.onReject?.();
    this.d.owners.sessions.send(session.sessionId, "AmendReject", b, recvNs);
  }
}
