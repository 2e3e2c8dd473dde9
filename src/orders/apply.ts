/**
 * Applying one event to its order: find the order (client id, then exchange id), let the transition
 * table decide, book fills, and carry out what a status change sets off (history, live sets, the
 * listener, a held cancel released once the create is acked). Events for orders not known yet go to
 * the orphan buffer and are applied when the order is. The store's write path; the store owns it.
 */
import { sideEffects, targetStatus } from "./effects.js";
import { type OrderEvent, Source, validEvent } from "./event.js";
import type { FillBook } from "./fills.js";
import type { OrderIndex } from "./indexes.js";
import { clearAmendTarget, type Order, ownExtra } from "./order.js";
import type { OrphanBuffer } from "./orphans.js";
import { type ApplyResult, CreateAnswer, type OrderListener, type StoreStats } from "./reports.js";
import { EVENT_COUNT, Ev, isVenueStatusEvent, Status, TERMINAL } from "./status.js";
import { DROP_BASE, DROP_REASON_INDEX, DROP_REASONS, TABLE } from "./transitions.js";

/** What the applier shares with the store: its indexes, counters and parts. */
export interface ApplierParts {
  readonly index: OrderIndex;
  readonly fills: FillBook;
  readonly orphans: OrphanBuffer;
  readonly stats: StoreStats;
  readonly dropCounts: Float64Array;
  /** Status history entries kept per order. */
  readonly maxHistory: number;
  /** Keep events for client ids the store never created, for the reconciler. */
  readonly keepOrphans: boolean;
}

const NOOP_LISTENER: OrderListener = {
  onCreateAnswer() {},
  onUpdate() {},
  onFill() {},
  onCancelReleased() {},
};

export class EventApplier {
  private listener: OrderListener = NOOP_LISTENER;
  private readonly result: ApplyResult = {
    order: undefined,
    prev: Status.PendingNew,
    status: Status.PendingNew,
    changed: false,
    filledLots: 0,
    drop: undefined,
    sendCancel: false,
    overfill: false,
    buffered: false,
  };

  constructor(private readonly p: ApplierParts) {}

  setListener(l: OrderListener | undefined): void {
    this.listener = l ?? NOOP_LISTENER;
  }

  /** Applies one event. The returned object is reused by the next call. */
  apply(ev: OrderEvent): ApplyResult {
    const r = this.result;
    r.changed = false;
    r.filledLots = 0;
    r.drop = undefined;
    r.sendCancel = false;
    r.overfill = false;
    r.buffered = false;
    this.p.stats.events++;
    if (!validEvent(ev)) {
      this.p.dropCounts[DROP_REASON_INDEX.bad_event]! += 1;
      r.order = undefined;
      r.drop = "bad_event";
      return r;
    }

    const index = this.p.index;
    let o: Order | undefined;
    if (ev.clientId !== "") o = index.byClient.get(ev.clientId);
    if (o === undefined && ev.exchangeId !== "") o = index.byExchange.get(ev.exchangeId);
    r.order = o;
    if (o === undefined) {
      this.unknown(ev);
      return r;
    }
    const bound = o.exchangeId === "" && ev.exchangeId !== "" && index.bindExchange(o, ev.exchangeId);
    const prev = o.status;
    r.prev = prev;
    const kind = ev.kind;
    if (ev.venueMs > o.venueUpdatedMs) o.venueUpdatedMs = ev.venueMs;
    o.updatedNs = ev.tsNs;

    if (kind === Ev.Fill) {
      const code = TABLE[prev * EVENT_COUNT + Ev.Fill]!;
      if (code <= DROP_BASE) this.drop(code, r);
      else if (ev.lots > 0 && this.p.fills.exec(o, ev, r, code)) this.listener.onFill(o, this.p.fills.report);
    } else {
      const code = TABLE[prev * EVENT_COUNT + kind]!;
      if (code <= DROP_BASE) this.drop(code, r);
      else {
        sideEffects(o, ev);
        o.status = targetStatus(o, code);
      }
      // Venue records carry the cumulative quantity: apply it as a fill if the (new) status allows.
      if (isVenueStatusEvent(kind)) {
        const feesBefore = o.extra.fees;
        if (ev.fee > o.extra.fees) ownExtra(o).fees = ev.fee;
        if (ev.cumLots > o.filledLots) {
          const fcode = TABLE[o.status * EVENT_COUNT + Ev.Fill]!;
          if (fcode > DROP_BASE) {
            this.p.fills.cum(o, ev, r, fcode, feesBefore);
            this.listener.onFill(o, this.p.fills.report);
          } else this.p.dropCounts[DROP_BASE - fcode]! += 1;
        } else if (ev.avgPxTicks > 0 && ev.cumLots === o.filledLots && o.filledLots > 0) {
          ownExtra(o).avgPxTicks = ev.avgPxTicks;
        }
      }
    }
    if (o.status !== prev) this.statusChanged(o, prev, kind, ev.tsNs);
    else this.releaseHeldCancel(o, ev.tsNs);
    r.status = o.status;
    if (bound) {
      const kept = this.p.orphans.takeExchange(o.exchangeId);
      if (kept !== undefined) this.applyKeepingResult(kept);
    }
    return r;
  }

  /** Applies events kept for an order before it was known (the result is overwritten). */
  applyKept(kept: OrderEvent[]): void {
    for (const e of kept) this.apply(e);
  }

  /**
   * What follows a status change (by an event or one of the engine's requests): the history, the
   * live and unsettled sets, the listener (onCreateAnswer until the definite answer, then onUpdate),
   * then a held cancel that became sendable.
   */
  statusChanged(o: Order, prev: Status, cause: Ev, ts: number): void {
    this.p.stats.transitions++;
    // Out of PendingReplace some other way (a venue final, a raised cancel): the target is moot.
    if (prev === Status.PendingReplace && o.extra.replacedBy === 0) {
      clearAmendTarget(o);
    }
    this.result.changed = true;
    // A new array of the exact length rather than a push: a push reserves 16 more slots, which every
    // order would then keep for its whole life (~110 bytes each).
    const h = o.history.concat(o.status, ts);
    o.history = h.length > this.p.maxHistory * 2 ? h.slice(2) : h;
    const index = this.p.index;
    index.statusChanged(o);
    if (TERMINAL[o.status]) {
      o.cancelHeld = false;
      if (!TERMINAL[prev]) {
        o.doneNs = ts;
        index.finished(o);
      }
    } else {
      // A rejection verdict overturned by the venue (a late create answer or record): live again.
      if (TERMINAL[prev]) {
        o.doneNs = 0;
        index.revived(o);
      }
      if (o.status === Status.CancellationRaised || o.status === Status.ExpirationRaised)
        o.cancelHeld = false;
      // The venue refused the gateway's cancel (back to working): no cancel of ours stands.
      if (prev === Status.PendingCancel && (o.status === Status.New || o.status === Status.PartiallyFilled))
        o.cancelSentNs = 0;
    }
    const l = this.listener;
    if (o.createAnswered) l.onUpdate(o, prev, cause);
    else if (l.onCreateAnswer === undefined) {
      this.createAnswer(o);
      l.onUpdate(o, prev, cause);
    } else l.onCreateAnswer(o, prev, this.createAnswer(o));
    this.releaseHeldCancel(o, ts);
  }

  private drop(code: number, r: ApplyResult): void {
    const i = DROP_BASE - code;
    this.p.dropCounts[i]! += 1;
    r.drop = DROP_REASONS[i];
  }

  private createAnswer(o: Order): CreateAnswer {
    const st = o.status;
    if (st === Status.PendingNew) return CreateAnswer.Pending;
    if (st === Status.Unknown) return CreateAnswer.Unknown;
    o.createAnswered = true;
    return st === Status.Rejected && o.exchangeId === "" ? CreateAnswer.Rejected : CreateAnswer.Acked;
  }

  private releaseHeldCancel(o: Order, ts: number): void {
    if (!o.cancelHeld || o.exchangeId === "") return;
    if (o.status !== Status.New && o.status !== Status.PartiallyFilled) return;
    o.cancelHeld = false;
    const prev = o.status;
    o.status = Status.PendingCancel;
    o.cancelSentNs = ts;
    this.result.sendCancel = true;
    this.statusChanged(o, prev, Ev.CancelRequested, ts);
    this.listener.onCancelReleased(o);
  }

  private unknown(ev: OrderEvent): void {
    this.p.stats.unknownOrder++;
    this.p.dropCounts[DROP_REASON_INDEX.unknown_order]! += 1;
    this.result.drop = "unknown_order";
    // Our own REST outcomes always name an order we created; anything else is kept for later.
    if (ev.source === Source.Rest || !this.p.keepOrphans) return;
    if (this.p.orphans.keep(ev)) this.result.buffered = true;
  }

  /** Applies kept events without losing the current call's result (they reuse the same object). */
  private applyKeepingResult(kept: OrderEvent[]): void {
    const r = this.result;
    const order = r.order;
    const prev = r.prev;
    const changed = r.changed;
    const filled = r.filledLots;
    const drop = r.drop;
    const sendCancel = r.sendCancel;
    const overfill = r.overfill;
    this.applyKept(kept);
    r.order = order;
    r.prev = prev;
    r.status = order!.status;
    r.changed = changed || r.changed;
    r.filledLots = filled + r.filledLots;
    r.drop = drop;
    r.sendCancel = sendCancel || r.sendCancel;
    r.overfill = overfill || r.overfill;
    r.buffered = false;
  }
}
