/**
 * Told vs known, at restart. A kill can land between two messages of one event-loop turn (a Fill
 * journaled and sent, its OrderUpdate not; a venue execution journaled, its Fill not). Replay then
 * rebuilds the store silently, so the strategy would never hear what it was due. `ToldLedger` reads
 * what each named session was last told from the journal's `out` frames (and what the owner's outbox
 * still holds); `tellWhatWasDue` compares every journaled order of a restored session with the store
 * and sends the difference through the normal path (journaled, sequenced after the old frames).
 */
import { commandOrderNo, type JournalRecord, REFUSED_LOCALLY } from "../journal/records.js";
import type { Order, OrderStore } from "../orders/index.js";
import { acksOwnRequest, Status, TERMINAL } from "../orders/status.js";
import { decodeG2C } from "../protocol/codec.js";
import { AmendRejectReason, CancelRejectReason, LogonOptions, OrderStatus } from "../protocol/schema.js";
import type { InstrumentBook } from "./instruments.js";
import type { Owners } from "./owners.js";
import {
  ackBody,
  amendRejectBody,
  cancelRejectBody,
  fillBody,
  rejectBody,
  updateBody,
  WIRE_STATUS,
} from "./wireMap.js";

const ASKED_CANCEL = 1;
const ASKED_AMEND = 2;

/**
 * The last answer journaled for a cancel or amend (a `res` record). A cancel-replace's answer is its
 * cancel's; the request asked (cancel or amend) decides which refusal is told.
 */
interface RequestAnswer {
  status: number;
  body: string;
}

/** What one order's strategy was told so far. */
interface Told {
  acked: boolean;
  rejected: boolean;
  /** Last wire OrderStatus told (-1 = none). */
  status: number;
  /** Cumulative quantity of the last OrderUpdate told. */
  cumLots: number;
  execIds: Set<string>;
  /** Sum of lots, price × lots (ticks) and fees (quote units) of the Fills told. */
  fillLots: number;
  fillNotional: number;
  fillFees: number;
  /**
   * The session asked to cancel (ASKED_CANCEL) or amend (ASKED_AMEND) it, a journaled command, and
   * was told no outcome since: no CancelReject, AmendReject, AmendAck, nor an OrderUpdate other than
   * the PendingCancel / PendingReplace that only acknowledge the request. 0 = nothing asked.
   */
  asked: number;
}

export interface ToldSummary {
  acks: number;
  rejects: number;
  fills: number;
  updates: number;
  /** CancelRejects and AmendRejects for refusals journaled and never told. */
  requestRejects: number;
}

/** Fed with journal records in order (the session restorer's tap), then the outbox before the compare. */
export class ToldLedger {
  /** session name → clOrdNo → told. */
  private readonly told = new Map<string, Map<number, Told>>();
  /** session name → client ids of the orders it created (journaled `cmd new`). */
  private readonly orders = new Map<string, string[]>();
  /** session name → client id → its clOrdNo (from the journaled `cmd new`, `no=N`). */
  private readonly numbers = new Map<string, Map<string, number>>();
  /** client id → the last answer journaled for its cancel or amend. */
  private readonly answers = new Map<string, RequestAnswer>();

  add(r: JournalRecord): void {
    if (r.k === "cmd") {
      if ((r.op === "cancel" || r.op === "amend") && r.clientId) {
        const no = this.numbers.get(r.session)?.get(r.clientId);
        if (no !== undefined)
          this.entry(r.session, no).asked = r.op === "cancel" ? ASKED_CANCEL : ASKED_AMEND;
        this.answers.delete(r.clientId);
        return;
      }
      if (r.op !== "new" || !r.clientId) return;
      const no = commandOrderNo(r.op, r.reason);
      if (no > 0) {
        let m = this.numbers.get(r.session);
        if (m === undefined) {
          m = new Map();
          this.numbers.set(r.session, m);
        }
        m.set(r.clientId, no);
      }
      const l = this.orders.get(r.session);
      if (l === undefined) this.orders.set(r.session, [r.clientId]);
      else l.push(r.clientId);
      return;
    }
    if (r.k === "res") {
      if ((r.op === "cancel" || r.op === "amend") && r.clientId)
        this.answers.set(r.clientId, { status: r.status, body: r.body ?? "" });
      return;
    }
    if (r.k !== "out") return;
    const m = decodeG2C(r.frame);
    if (m.name === undefined) return;
    this.note(r.session, m.name, m.body as Record<string, unknown>);
  }

  /** One message told (or queued to be told) to a session. */
  note(session: string, name: string, b: Record<string, unknown>): void {
    if (name === "CancelReject" || name === "AmendReject" || name === "AmendAck") {
      this.entry(session, Number(b.clOrdNo)).asked = 0;
      return;
    }
    if (name !== "Ack" && name !== "Reject" && name !== "OrderUpdate" && name !== "Fill") return;
    const t = this.entry(session, Number(b.clOrdNo));
    switch (name) {
      case "Ack":
        t.acked = true;
        if (t.status < 0) t.status = OrderStatus.New;
        return;
      case "Reject":
        t.rejected = true;
        t.status = OrderStatus.Rejected;
        return;
      case "OrderUpdate":
        t.status = Number(b.status);
        t.cumLots = Number(b.cumQtyLots);
        if (t.status !== OrderStatus.PendingCancel && t.status !== OrderStatus.PendingReplace) t.asked = 0;
        if (t.status === OrderStatus.Rejected) t.rejected = true;
        return;
      case "Fill": {
        t.execIds.add(String(b.execId));
        const lots = Number(b.qtyLots);
        t.fillLots += lots;
        t.fillNotional += Number(b.priceTicks) * lots;
        t.fillFees += Number(b.feeMantissa) * 10 ** Number(b.feeExponent);
        return;
      }
    }
  }

  get(session: string, clOrdNo: number): Told | undefined {
    return this.told.get(session)?.get(clOrdNo);
  }

  ordersOf(session: string): readonly string[] {
    return this.orders.get(session) ?? [];
  }

  /** The last answer journaled for the order's cancel or amend since it was last asked for. */
  answerOf(clientId: string): RequestAnswer | undefined {
    return this.answers.get(clientId);
  }

  private entry(session: string, no: number): Told {
    let s = this.told.get(session);
    if (s === undefined) {
      s = new Map();
      this.told.set(session, s);
    }
    let t = s.get(no);
    if (t === undefined) {
      t = {
        acked: false,
        rejected: false,
        status: -1,
        cumLots: 0,
        execIds: new Set(),
        fillLots: 0,
        fillNotional: 0,
        fillFees: 0,
        asked: 0,
      };
      s.set(no, t);
    }
    return t;
  }
}

export interface TellDeps {
  store: OrderStore;
  owners: Owners;
  book: InstrumentBook;
}

/**
 * For every journaled order of each restored session: the Ack, Reject, Fill and OrderUpdate it was due
 * and not told. Call after replay and reconciliation, before the gateway is attached (what is sent
 * joins the owner's outbox, delivered into the restored session in order at attach). A session whose
 * latest logon asked for NoPendingUpdates is not told an order's PendingCancel / PendingReplace (the
 * gateway's own request still in flight): its outcome comes through the notifier, as it would have.
 */
export function tellWhatWasDue(
  d: TellDeps,
  ledger: ToldLedger,
  sessions: readonly { name: string; options: number }[],
): ToldSummary {
  const sum: ToldSummary = { acks: 0, rejects: 0, fills: 0, updates: 0, requestRejects: 0 };
  for (const { name, options } of sessions) {
    const quiet = (options & LogonOptions.NoPendingUpdates) !== 0;
    const ids = ledger.ordersOf(name);
    if (ids.length === 0) continue;
    // What reconciliation already queued for this owner counts as told.
    for (const m of d.owners.kept(d.owners.ownerOf(name)))
      ledger.note(name, m.name, m.body as unknown as Record<string, unknown>);
    for (const id of ids) {
      const o = d.store.byClientId(id);
      if (o !== undefined) tellOne(d, o, ledger.get(name, o.clientOrderNo), sum, quiet, ledger.answerOf(id));
    }
  }
  return sum;
}

function tellOne(
  d: TellDeps,
  o: Order,
  t: Told | undefined,
  sum: ToldSummary,
  quiet: boolean,
  answer: RequestAnswer | undefined,
): void {
  const wire = WIRE_STATUS[o.status]!;
  if (o.status === Status.Rejected && o.exchangeId === "") {
    if (t?.rejected) return;
    // [assumed] A create refused before it reached the venue is retryable; one the venue refused is not.
    const code = o.sentNs > 0 ? "VenueRejected" : "Internal";
    d.owners.toOwner(
      o,
      "Reject",
      rejectBody(o.clientOrderNo, code, o.extra.rejectReason.slice(0, 64) || undefined),
    );
    sum.rejects++;
    return;
  }
  // Not answered yet (PendingNew, Unknown): resolution tells the strategy through the notifier.
  if (o.exchangeId === "") return;
  if (t === undefined || !t.acked) {
    d.owners.toOwner(o, "Ack", ackBody(o));
    sum.acks++;
  }
  const toldLots = t?.fillLots ?? 0;
  const missing = o.filledLots - toldLots;
  if (missing > 0) {
    const e = d.book.byId(o.instrumentId);
    const fee = Math.max(0, o.extra.fees - (t?.fillFees ?? 0));
    // One venue execution not told that covers the missing lots (the usual case: the kill right after
    // its record): its id. Otherwise the untold remainder, as the store synthesizes a cumulative fill.
    const untold = o.extra.execRing.filter((x) => !t?.execIds.has(x));
    if (untold.length === 1 && o.extra.execLots >= o.filledLots && o.extra.lastFillLots === missing)
      d.owners.toOwner(
        o,
        "Fill",
        fillBody(
          o,
          e?.inst.quote ?? "",
          untold[0]!,
          o.extra.lastFillPxTicks,
          missing,
          fee,
          o.extra.lastFillMs,
        ),
      );
    else {
      // As the notifier synthesizes a fill from a cumulative quantity: the untold remainder at its price.
      const px = (o.extra.avgPxTicks * o.filledLots - (t?.fillNotional ?? 0)) / missing;
      const execId = `${o.exchangeId || o.clientId}:${o.filledLots}`;
      d.owners.toOwner(
        o,
        "Fill",
        fillBody(o, e?.inst.quote ?? "", execId, px, missing, fee, o.extra.lastFillMs),
      );
    }
    sum.fills++;
  }
  // An Ack alone tells New with nothing filled; an OrderUpdate follows when the store differs.
  const toldStatus = t === undefined || t.status < 0 ? OrderStatus.New : t.status;
  const toldCum = t === undefined ? 0 : t.cumLots;
  // A cancel or amend whose outcome is known and was never told: a refusal the venue or the gateway
  // journaled is told as the live path tells it (then the order's state); an amend taken, or a refusal
  // with no answer on record, by the order's state alone.
  const inFlight = acksOwnRequest(o.status, o.cancelSentNs);
  const unanswered = t !== undefined && t.asked !== 0 && !inFlight;
  if (unanswered && !TERMINAL[o.status] && answer !== undefined && refused(answer.status)) {
    tellRefusal(d, o, t.asked, answer);
    sum.requestRejects++;
  }
  const changed = wire !== toldStatus || o.filledLots !== toldCum || unanswered;
  if (changed && !(quiet && inFlight)) {
    d.owners.toOwner(o, "OrderUpdate", updateBody(o, d.book.byId(o.instrumentId)));
    sum.updates++;
  }
}

/** An answer that refused the request: the venue's 3xx–5xx, or the gateway's own refusal. */
function refused(status: number): boolean {
  return status === REFUSED_LOCALLY || status >= 300;
}

/**
 * The CancelReject or AmendReject a refusal was due. [assumed] Its reason is read from the answer's
 * status alone: 429 and the gateway's own refusals (its limiter, mostly) as Throttled, the rest as the
 * venue's refusal; the text says it comes from before the restart.
 */
function tellRefusal(d: TellDeps, o: Order, asked: number, a: RequestAnswer): void {
  const retry = a.status === 429 || a.status === REFUSED_LOCALLY;
  const text = `before the restart: ${a.body}`.slice(0, 64);
  if (asked === ASKED_CANCEL) {
    const reason = retry ? CancelRejectReason.Throttled : CancelRejectReason.VenueRejected;
    d.owners.toOwner(o, "CancelReject", cancelRejectBody(o.clientOrderNo, reason, o.exchangeId, text));
    return;
  }
  const reason = retry ? AmendRejectReason.Throttled : AmendRejectReason.VenueRejected;
  d.owners.toOwner(o, "AmendReject", amendRejectBody(o.clientOrderNo, 0, reason, o.exchangeId, text));
}
