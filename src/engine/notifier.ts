/**
 * The notifier: every order-store change, whatever its source (REST outcome, poll, stream, query),
 * becomes the owning session's message here: Ack / Reject / OutcomeUnknown for a create's first
 * answer, OrderUpdate, Fill. It also stamps the latencies (ack → strategy, venue event → strategy).
 */
import {
  type ApplyResult,
  acksOwnRequest,
  CreateAnswer,
  type FillReport,
  type Order,
  type OrderEvent,
  type OrderStore,
  Status,
  monoNs as storeNs,
  TERMINAL,
} from "../orders/index.js";
import type { Ev } from "../orders/status.js";
import { monoNs } from "../protocol/clock.js";
import { type Body, UnknownOp } from "../protocol/schema.js";
import type { RiskGate } from "../risk/riskGate.js";
import type { Account } from "./account.js";
import type { InstrumentBook } from "./instruments.js";
import type { EngineMetrics } from "./metrics.js";
import type { Owners } from "./owners.js";
import type { RunState } from "./runState.js";
import { ackBody, fillBody, rejectBody, unknownBody, updateBody, WIRE_STATUS } from "./wireMap.js";

/** Per-order context kept until the order's first answer (Ack / Reject) is sent. */
interface Pending {
  recvNs: number;
  unknownSent: boolean;
  /** Set when the engine already told the strategy why (throttle, local validation). */
  silent: boolean;
}

export interface NotifierDeps {
  store: OrderStore;
  book: InstrumentBook;
  risk: RiskGate;
  owners: Owners;
  account: Account;
  metrics: EngineMetrics;
  run: RunState;
}

export class Notifier {
  private readonly pending = new Map<string, Pending>();
  private readonly updScratch = {} as Body<"OrderUpdate">;
  /** Event timestamp of the venue event being applied (0 = not a venue event), for stream latency. */
  private venueEventNs = 0;
  private venueEventSent = false;
  /** Set by a push feed's tap right before it applies a record (see noteVenueEvent). */
  private tapNs = 0;

  constructor(private readonly d: NotifierDeps) {}

  /** A create was sent on its way: its first answer is owed to the strategy (received at `recvNs`). */
  expectAnswer(clientId: string, recvNs: number): void {
    this.pending.set(clientId, { recvNs, unknownSent: false, silent: false });
  }

  /**
   * The command path tells the strategy itself why a create failed (throttle, local refusal): the
   * store's Rejected that follows sends nothing. Returns the command's receive time (0 if unknown).
   */
  answeredLocally(clientId: string): number {
    const p = this.pending.get(clientId);
    if (p === undefined) return 0;
    p.silent = true;
    return p.recvNs;
  }

  /** Orders whose first answer is still owed (for tests and health). */
  get unanswered(): number {
    return this.pending.size;
  }

  /** A REST answer is being applied: no push-feed tap times it. */
  clearTap(): void {
    this.tapNs = 0;
  }

  /** A push feed is about to apply a venue record (its tap): the next message sent is timed from here. */
  noteVenueEvent(tsNs: number): void {
    this.tapNs = tsNs;
  }

  /** Applies one normalized venue event (poll, stream, query); measures event → strategy latency. */
  applyVenueEvent(ev: OrderEvent): ApplyResult {
    this.venueEventNs = ev.tsNs;
    this.venueEventSent = false;
    const r = this.d.store.apply(ev);
    if (this.venueEventSent) this.d.metrics.streamToStrategy.record(storeNs() - ev.tsNs);
    this.venueEventNs = 0;
    return r;
  }

  /**
   * The store's report on a create still owed its answer: OutcomeUnknown once, then Ack (and an
   * OrderUpdate when the order is already past New) or Reject. Orders this process did not take from a
   * strategy (replayed, adopted) have no answer owed: their changes are plain updates.
   */
  onCreateAnswer(o: Order, prev: Status, answer: CreateAnswer): void {
    if (this.closed(o, prev)) return;
    const p = this.pending.get(o.clientId);
    if (p === undefined) {
      this.update(o, prev);
      return;
    }
    const m = this.d.metrics;
    const owners = this.d.owners;
    switch (answer) {
      case CreateAnswer.Pending:
        return;
      case CreateAnswer.Unknown:
        if (!p.unknownSent) {
          p.unknownSent = true;
          m.outcomes.unknown.inc();
          owners.toOwner(
            o,
            "OutcomeUnknown",
            unknownBody(o, UnknownOp.NewOrder, "create outcome unknown; resolving by client id"),
            p.recvNs,
          );
        }
        return;
      case CreateAnswer.Rejected:
        this.pending.delete(o.clientId);
        if (!p.silent) {
          m.outcomes.rejected_venue.inc();
          owners.toOwner(
            o,
            "Reject",
            rejectBody(o.clientOrderNo, "VenueRejected", o.extra.rejectReason.slice(0, 64) || undefined),
            p.recvNs,
          );
        }
        return;
      case CreateAnswer.Acked:
        this.sendAck(o, p);
        if (o.status !== Status.New) this.sendUpdate(o);
        return;
    }
  }

  onUpdate(o: Order, prev: Status, _cause: Ev): void {
    if (!this.closed(o, prev)) this.update(o, prev);
  }

  /** Bookkeeping of every change (risk, outcome counters); true while replaying (nothing is sent). */
  private closed(o: Order, prev: Status): boolean {
    const st = o.status;
    if (TERMINAL[st] && !TERMINAL[prev]) {
      const m = this.d.metrics;
      this.d.risk.onClosed(o.clientId);
      if (st === Status.Filled) m.outcomes.filled.inc();
      else if (st === Status.Cancelled) m.outcomes.cancelled.inc();
      else if (st === Status.Expired) m.outcomes.expired.inc();
    } else if (TERMINAL[prev] && !TERMINAL[st]) {
      // A rejection verdict overturned by the venue: the order counts as open again.
      this.d.risk.onOpen(o.clientId, o);
    }
    if (!this.d.run.replaying) return false;
    if (TERMINAL[st]) this.pending.delete(o.clientId);
    return true;
  }

  private update(o: Order, prev: Status): void {
    // CancellationRaised after PendingCancel: nothing new for the strategy.
    if (WIRE_STATUS[prev] !== WIRE_STATUS[o.status]) this.sendUpdate(o);
  }

  private sendUpdate(o: Order): void {
    // The gateway's own request in flight, which this owner may not want.
    if (acksOwnRequest(o.status, o.cancelSentNs) && !this.d.owners.wantsPending(o)) return;
    this.d.owners.toOwner(o, "OrderUpdate", updateBody(o, this.d.book.byId(o.instrumentId), this.updScratch));
    this.stamp();
  }

  private sendAck(o: Order, p: Pending): void {
    this.pending.delete(o.clientId);
    this.d.metrics.outcomes.acked.inc();
    this.d.owners.toOwner(o, "Ack", ackBody(o), p.recvNs);
    if (p.recvNs > 0) this.d.metrics.ackToStrategy.record(monoNs() - p.recvNs);
  }

  onFill(o: Order, f: FillReport): void {
    this.d.risk.onFill(o.clientId, f.lots);
    if (this.d.run.replaying) return;
    // A push stream can report a fill before the create's own answer: an execution proves the venue
    // accepted the order, so the strategy gets its Ack first (the protocol's order: answer, then fills).
    const p = this.pending.get(o.clientId);
    if (p !== undefined) this.sendAck(o, p);
    const e = this.d.book.byId(o.instrumentId);
    // Maker / taker travels on the event into the fill report (LIQUIDITY = the protocol's codes).
    const liq = f.liquidity;
    this.d.owners.toOwner(
      o,
      "Fill",
      fillBody(o, e?.inst.quote ?? "", f.execId, f.pxTicks, f.lots, f.fee, f.venueMs, liq),
    );
    this.stamp();
    if (o.surface === "hft" && e !== undefined) this.d.account.onHftFill(o, e, f);
  }

  /** A message caused by a venue event was sent: time it from the event (or the feed's tap). */
  private stamp(): void {
    if (this.venueEventNs > 0) this.venueEventSent = true;
    else if (this.tapNs > 0) {
      this.d.metrics.streamToStrategy.record(storeNs() - this.tapNs);
      this.tapNs = 0;
    }
  }
}
