/**
 * The authoritative in-memory order store. Every producer (engine REST outcomes, stream consumers, the
 * realtime poller, the reconciler) feeds it the same `OrderEvent`s through `apply`; the transition table
 * decides, the store keeps the indexes, fills, counters and the orders that need resolution, and pushes
 * changes to one listener object (no per-event closures).
 */

import { copyEvent, newEvent, type OrderEvent, resetEvent, Source } from "./event.js";
import { type AmendDecision, amendGuard, type CancelDecision, cancelGuard } from "./guards.js";
import { ClientIdMinter, monoNs, type NewOrderRequest, NO_EXEC_IDS, newOrder, type Order } from "./order.js";
import { EVENT_COUNT, Ev, isVenueStatusEvent, STATUS_NAMES, Status, TERMINAL } from "./status.js";
import {
  DROP_BASE,
  DROP_REASON_INDEX,
  DROP_REASONS,
  type DropReason,
  SETTLE,
  STAY,
  TABLE,
  WORKING,
} from "./transitions.js";

/** One fill as pushed to the listener. The object is reused: copy what you keep. */
export interface FillReport {
  /** Execution id, or `<exchangeId|clientId>:<cumLots>` when synthesized from a cumulative quantity. */
  execId: string;
  lots: number;
  pxTicks: number;
  /** This fill's fee when known, else 0. */
  fee: number;
  synthetic: boolean;
  tsNs: number;
  /**
   * Venue time of the execution (Unix ms): the execution record's `execTime`, or for a fill synthesized
   * from a cumulative order record that record's update time (the venue says no more); 0 = unknown.
   */
  venueMs: number;
  /** Maker / taker from the execution record (`LIQUIDITY`); 0 when unknown or synthesized. */
  liquidity: number;
}

/** How a create stands while its definite answer is still owed (see OrderListener.onCreateAnswer). */
export const CreateAnswer = {
  /** Back to PendingNew (a same-id resend): nothing new to tell. */
  Pending: 0,
  /** The outcome is ambiguous (timeout, reset, 5xx): resolving by client id. */
  Unknown: 1,
  /** The venue has it (an exchange id): acked, possibly already past New. */
  Acked: 2,
  /** Definitely refused, never placed (no exchange id). */
  Rejected: 3,
} as const;
export type CreateAnswer = (typeof CreateAnswer)[keyof typeof CreateAnswer];

/** Receives every change. One object with methods; called synchronously inside `apply`. */
export interface OrderListener {
  /**
   * A status change of an order whose create has not had its definite answer yet (instead of
   * onUpdate): the store says which answer it is. After Acked or Rejected, changes go to onUpdate.
   * A listener without it gets every change through onUpdate.
   */
  onCreateAnswer?(order: Order, prev: Status, answer: CreateAnswer): void;
  onUpdate(order: Order, prev: Status, cause: Ev): void;
  onFill(order: Order, fill: FillReport): void;
  /** A held cancel became sendable (create acked): the store is now PendingCancel; send the cancel. */
  onCancelReleased(order: Order): void;
}

/** What one `apply` changed. The object is reused by the store: read it before the next call. */
export interface ApplyResult {
  order: Order | undefined;
  prev: Status;
  status: Status;
  changed: boolean;
  /** Lots newly filled by this event (0 if none). */
  filledLots: number;
  /** Why the status part was dropped (undefined when it applied). */
  drop: DropReason | undefined;
  /** A held cancel is now to be sent. */
  sendCancel: boolean;
  /** This event pushed the filled quantity above the ordered quantity. */
  overfill: boolean;
  /** The order is not known (yet): the event was kept for when it is (or for the reconciler). */
  buffered: boolean;
}

export interface OrderStoreOptions {
  listener?: OrderListener;
  minter?: ClientIdMinter;
  /** Status history entries kept per order. */
  maxHistory?: number;
  /** Execution ids remembered per order for de-duplication. */
  maxExecIds?: number;
  /** Events kept for orders the store does not know (yet), across all ids. */
  maxOrphans?: number;
  /** Keep events for client ids the store never created, for the reconciler (default true). */
  keepOrphans?: boolean;
  /** A PendingNew older than this (ns since sent) needs resolution. */
  pendingNewDeadlineNs?: number;
  /** A PendingCancel older than this (ns since the cancel was sent) needs resolution. */
  pendingCancelDeadlineNs?: number;
}

export type OrderStoreErrorCode =
  | "DUPLICATE_CLIENT_ORDER_NO"
  | "DUPLICATE_CLIENT_ID"
  | "BAD_QTY"
  | "BAD_PRICE";
/** Statuses the resolver may have to ask the venue about (see needingResolution). */
const UNSETTLED: readonly boolean[] = (() => {
  const t: boolean[] = [];
  t[Status.PendingNew] = true;
  t[Status.Unknown] = true;
  t[Status.PendingCancel] = true;
  t[Status.PendingReplace] = true;
  return t;
})();

export class OrderStoreError extends Error {
  override readonly name = "OrderStoreError";
  constructor(
    readonly code: OrderStoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const NOOP_LISTENER: OrderListener = {
  onCreateAnswer() {},
  onUpdate() {},
  onFill() {},
  onCancelReleased() {},
};

export class OrderStore {
  private listener: OrderListener;
  readonly minter: ClientIdMinter;
  private readonly byClient = new Map<string, Order>();
  private readonly byExchange = new Map<string, Order>();
  private readonly bySession = new Map<number, Map<number, Order>>();
  private readonly liveBySession = new Map<number, Set<Order>>();
  private readonly live = new Set<Order>();
  /** Live orders that were in PendingNew, Unknown, PendingCancel or PendingReplace when last changed (superset). */
  private readonly unsettled = new Set<Order>();
  private readonly done: Order[] = [];
  private doneHead = 0;
  private readonly pending = new Map<string, OrderEvent[]>();
  private pendingCount = 0;
  private readonly maxHistory: number;
  private readonly maxExecIds: number;
  private readonly maxOrphans: number;
  private readonly keepOrphans: boolean;
  private readonly pendingNewDeadlineNs: number;
  private readonly pendingCancelDeadlineNs: number;
  private readonly dropCounts = new Float64Array(DROP_REASONS.length);
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
  private readonly scratch: OrderEvent = newEvent();
  private readonly fill: FillReport = {
    execId: "",
    lots: 0,
    pxTicks: 0,
    fee: 0,
    synthetic: false,
    tsNs: 0,
    venueMs: 0,
    liquidity: 0,
  };
  /** Totals: events applied, status changes, fills, overfills, events for unknown orders. */
  readonly stats = { events: 0, transitions: 0, fills: 0, overfills: 0, unknownOrder: 0 };

  constructor(opts: OrderStoreOptions = {}) {
    this.listener = opts.listener ?? NOOP_LISTENER;
    this.minter = opts.minter ?? new ClientIdMinter();
    this.maxHistory = opts.maxHistory ?? 16;
    this.maxExecIds = opts.maxExecIds ?? 64;
    this.maxOrphans = opts.maxOrphans ?? 10_000;
    this.keepOrphans = opts.keepOrphans ?? true;
    this.pendingNewDeadlineNs = opts.pendingNewDeadlineNs ?? 2_000_000_000;
    this.pendingCancelDeadlineNs = opts.pendingCancelDeadlineNs ?? 2_000_000_000;
  }

  setListener(l: OrderListener | undefined): void {
    this.listener = l ?? NOOP_LISTENER;
  }

  // ---------- creation and lookup ----------

  /**
   * Registers a new order in PendingNew and mints its client id (returned synchronously, before any
   * request is sent). `clientId` is only for journal replay / adopting an order found at the venue.
   * Bad input throws OrderStoreError and changes nothing.
   */
  create(req: NewOrderRequest, nowNs: number = monoNs(), clientId?: string): Order {
    if (!Number.isSafeInteger(req.qtyLots) || req.qtyLots <= 0) {
      throw new OrderStoreError("BAD_QTY", "quantity must be a positive whole number of lots");
    }
    if (
      !Number.isSafeInteger(req.priceTicks) ||
      req.priceTicks < 0 ||
      (req.type === "limit" && req.priceTicks === 0)
    ) {
      throw new OrderStoreError(
        "BAD_PRICE",
        "price must be a positive whole number of ticks for limit orders",
      );
    }
    let perSession = this.bySession.get(req.sessionId);
    if (perSession?.has(req.clientOrderNo)) {
      throw new OrderStoreError(
        "DUPLICATE_CLIENT_ORDER_NO",
        `session ${req.sessionId} already used order number ${req.clientOrderNo}`,
      );
    }
    if (clientId !== undefined && this.byClient.has(clientId)) {
      throw new OrderStoreError("DUPLICATE_CLIENT_ID", `client id ${clientId} already exists`);
    }
    const id = clientId ?? this.minter.next();
    const o = newOrder(id, req, nowNs);
    this.byClient.set(id, o);
    if (perSession === undefined) {
      perSession = new Map();
      this.bySession.set(req.sessionId, perSession);
    }
    perSession.set(req.clientOrderNo, o);
    this.addLive(o);
    // Events that arrived for this client id before we knew it (e.g. replay) are applied now.
    if (this.pending.size > 0) this.drain(`c:${id}`);
    return o;
  }

  byClientId(clientId: string): Order | undefined {
    return this.byClient.get(clientId);
  }

  byExchangeId(exchangeId: string): Order | undefined {
    return this.byExchange.get(exchangeId);
  }

  bySessionOrder(sessionId: number, clientOrderNo: number): Order | undefined {
    return this.bySession.get(sessionId)?.get(clientOrderNo);
  }

  get size(): number {
    return this.byClient.size;
  }

  /** Orders that may still be live at the venue, for one session (cancel-all, cancel-on-disconnect). */
  liveOrders(sessionId?: number, instrumentId?: number): Order[] {
    const src = sessionId === undefined ? this.live : this.liveBySession.get(sessionId);
    const out: Order[] = [];
    if (src === undefined) return out;
    for (const o of src) if (instrumentId === undefined || o.instrumentId === instrumentId) out.push(o);
    return out;
  }

  /** Every live order (for the poller and the reconciler). Do not mutate. */
  liveSet(): ReadonlySet<Order> {
    return this.live;
  }

  /**
   * Orders whose outcome the reconciler must establish: Unknown; PendingNew past its deadline;
   * PendingCancel past its deadline (cancel outcome unknown).
   */
  needingResolution(nowNs: number = monoNs()): Order[] {
    const out: Order[] = [];
    // Only orders that entered PendingNew / Unknown / PendingCancel (a full scan of the live set every
    // resolver round cost ~1 ms per 40,000 resting orders on the event loop); the rest left lazily.
    for (const o of this.unsettled) {
      if (!UNSETTLED[o.status] || !this.live.has(o)) {
        this.unsettled.delete(o);
        continue;
      }
      if (o.status === Status.Unknown) out.push(o);
      else if (o.status === Status.PendingNew) {
        const since = o.sentNs > 0 ? o.sentNs : o.receivedNs;
        if (nowNs - since >= this.pendingNewDeadlineNs) out.push(o);
      } else if (
        (o.status === Status.PendingCancel && nowNs - o.cancelSentNs >= this.pendingCancelDeadlineNs) ||
        (o.status === Status.PendingReplace && nowNs - o.amendSentNs >= this.pendingCancelDeadlineNs)
      ) {
        out.push(o);
      }
    }
    return out;
  }

  /** Records one resolution query made for the order (bounded by the resolution policy). */
  noteResolveAttempt(o: Order): number {
    o.resolveAttempts += 1;
    return o.resolveAttempts;
  }

  // ---------- commands from the engine ----------

  /**
   * Runs the cancel guard and records the request: `send` → PendingCancel (the engine sends now);
   * `hold` → remembered until the create is acked; `reject` → nothing changes, nothing is sent.
   */
  requestCancel(clientId: string, nowNs: number = monoNs()): CancelDecision {
    const o = this.byClient.get(clientId);
    const d = cancelGuard(o);
    if (o === undefined || d.kind === "reject") return d;
    if (d.kind === "hold") {
      o.cancelHeld = true;
      o.updatedNs = nowNs;
      return d;
    }
    const prev = o.status;
    o.status = Status.PendingCancel;
    o.cancelSentNs = nowNs;
    this.afterStatusChange(o, prev, Ev.CancelRequested, nowNs);
    return d;
  }

  /**
   * Runs the amend guard and records the request. `replaceBy` 0: an in-place amend, the order goes
   * PendingReplace with the target (the engine sends the amend). `replaceBy` > 0: a cancel-replace, the
   * order goes PendingCancel marked with the replacement's number and the target (the engine sends the
   * cancel; the replacement is placed once the venue confirms the cancel). `reject`: nothing changes.
   * `priceTicks` / `qtyLots` 0 = unchanged.
   */
  requestAmend(
    clientId: string,
    priceTicks: number,
    qtyLots: number,
    replaceBy = 0,
    nowNs: number = monoNs(),
  ): AmendDecision {
    const o = this.byClient.get(clientId);
    const d = amendGuard(o, priceTicks, qtyLots);
    if (o === undefined || d.kind === "reject") return d;
    o.amendPriceTicks = priceTicks === o.priceTicks ? 0 : priceTicks;
    o.amendQtyLots = qtyLots === o.qtyLots ? 0 : qtyLots;
    o.amendSentNs = nowNs;
    const prev = o.status;
    if (replaceBy > 0) {
      o.replacedBy = replaceBy;
      o.status = Status.PendingCancel;
      o.cancelSentNs = nowNs;
      this.afterStatusChange(o, prev, Ev.CancelRequested, nowNs);
    } else {
      o.status = Status.PendingReplace;
      this.afterStatusChange(o, prev, Ev.AmendRequested, nowNs);
    }
    return d;
  }

  /** A cancel-replace is over (replaced, refused, abandoned): the order is an ordinary one again. */
  endReplace(o: Order): void {
    o.replacedBy = 0;
    o.amendPriceTicks = 0;
    o.amendQtyLots = 0;
  }

  /** REST amend outcome: AmendAcked, AmendRejected or AmendOutcomeUnknown. */
  amendOutcome(
    clientId: string,
    kind: typeof Ev.AmendAcked | typeof Ev.AmendRejected | typeof Ev.AmendOutcomeUnknown,
    nowNs: number = monoNs(),
    reason = "",
  ): ApplyResult {
    return this.apply(this.restEvent(kind, clientId, "", reason, nowNs));
  }

  // ---------- REST outcomes (the engine's shorthand for building an event) ----------

  /** The create request left the process (first send or a same-id resend). */
  markSent(clientId: string, nowNs: number = monoNs()): ApplyResult {
    return this.apply(this.restEvent(Ev.Submitted, clientId, "", "", nowNs));
  }

  /** REST create answered with the exchange order id. */
  ackCreate(clientId: string, exchangeId: string, nowNs: number = monoNs()): ApplyResult {
    return this.apply(this.restEvent(Ev.CreateAcked, clientId, exchangeId, "", nowNs));
  }

  /** REST create definitely refused (never call this for timeouts, resets or 5xx). */
  rejectCreate(clientId: string, reason: string, nowNs: number = monoNs()): ApplyResult {
    return this.apply(this.restEvent(Ev.CreateRejected, clientId, "", reason, nowNs));
  }

  /** REST create outcome ambiguous (timeout, reset, 5xx): the order becomes Unknown. */
  createUnknown(clientId: string, nowNs: number = monoNs()): ApplyResult {
    return this.apply(this.restEvent(Ev.CreateOutcomeUnknown, clientId, "", "", nowNs));
  }

  /** REST cancel outcome: CancelAcked, CancelRejected or CancelOutcomeUnknown. */
  cancelOutcome(
    clientId: string,
    kind: typeof Ev.CancelAcked | typeof Ev.CancelRejected | typeof Ev.CancelOutcomeUnknown,
    nowNs: number = monoNs(),
    reason = "",
  ): ApplyResult {
    return this.apply(this.restEvent(kind, clientId, "", reason, nowNs));
  }

  private restEvent(kind: Ev, clientId: string, exchangeId: string, reason: string, ts: number): OrderEvent {
    const e = resetEvent(this.scratch, kind);
    e.source = Source.Rest;
    e.clientId = clientId;
    e.exchangeId = exchangeId;
    e.reason = reason;
    e.tsNs = ts;
    return e;
  }

  // ---------- events ----------

  /** Applies one event. The returned object is reused by the next call. */
  apply(ev: OrderEvent): ApplyResult {
    const r = this.result;
    r.changed = false;
    r.filledLots = 0;
    r.drop = undefined;
    r.sendCancel = false;
    r.overfill = false;
    r.buffered = false;
    this.stats.events++;
    if (!validEvent(ev)) {
      this.dropCounts[DROP_REASON_INDEX.bad_event]! += 1;
      r.order = undefined;
      r.drop = "bad_event";
      return r;
    }

    let o: Order | undefined;
    if (ev.clientId !== "") o = this.byClient.get(ev.clientId);
    if (o === undefined && ev.exchangeId !== "") o = this.byExchange.get(ev.exchangeId);
    r.order = o;
    if (o === undefined) {
      this.unknown(ev);
      return r;
    }
    let bound = false;
    if (o.exchangeId === "" && ev.exchangeId !== "" && !this.byExchange.has(ev.exchangeId)) {
      o.exchangeId = ev.exchangeId;
      this.byExchange.set(ev.exchangeId, o);
      bound = true;
    }
    const prev = o.status;
    r.prev = prev;
    const kind = ev.kind;
    if (ev.venueMs > o.venueUpdatedMs) o.venueUpdatedMs = ev.venueMs;
    o.updatedNs = ev.tsNs;

    if (kind === Ev.Fill) {
      const code = TABLE[prev * EVENT_COUNT + Ev.Fill]!;
      if (code <= DROP_BASE) this.drop(code, r);
      else if (ev.lots > 0) this.applyExec(o, ev, r, code);
    } else {
      const code = TABLE[prev * EVENT_COUNT + kind]!;
      if (code <= DROP_BASE) this.drop(code, r);
      else {
        this.sideEffects(o, ev);
        o.status = this.target(o, code);
      }
      // Venue records carry the cumulative quantity: apply it as a fill if the (new) status allows.
      if (isVenueStatusEvent(kind)) {
        const feesBefore = o.fees;
        if (ev.fee > o.fees) o.fees = ev.fee;
        if (ev.cumLots > o.filledLots) {
          const fcode = TABLE[o.status * EVENT_COUNT + Ev.Fill]!;
          if (fcode > DROP_BASE) this.applyCum(o, ev, r, fcode, feesBefore);
          else this.dropCounts[DROP_BASE - fcode]! += 1;
        } else if (ev.avgPxTicks > 0 && ev.cumLots === o.filledLots && o.filledLots > 0) {
          o.avgPxTicks = ev.avgPxTicks;
        }
      }
    }
    if (o.status !== prev) this.afterStatusChange(o, prev, kind, ev.tsNs);
    else this.releaseHeldCancel(o, ev.tsNs);
    r.status = o.status;
    if (bound && this.pending.size > 0) this.drainKeepingResult(o.exchangeId);
    return r;
  }

  /** Drop counters by reason (table drops and the store's own). */
  dropCounters(): Record<DropReason, number> {
    const out = {} as Record<DropReason, number>;
    for (let i = 0; i < DROP_REASONS.length; i++) out[DROP_REASONS[i]!] = this.dropCounts[i]!;
    return out;
  }

  dropCount(reason: DropReason): number {
    return this.dropCounts[DROP_REASON_INDEX[reason]]!;
  }

  /** Events kept for orders the store does not know, for the reconciler; removes them. */
  takeOrphans(): OrderEvent[] {
    const out: OrderEvent[] = [];
    for (const list of this.pending.values()) for (const e of list) out.push(e);
    this.pending.clear();
    this.pendingCount = 0;
    return out;
  }

  get orphanCount(): number {
    return this.pendingCount;
  }

  /** Forgets terminal orders finished before `beforeNs` (memory bound); returns how many. */
  pruneTerminal(beforeNs: number): number {
    let n = 0;
    while (this.doneHead < this.done.length) {
      const o = this.done[this.doneHead]!;
      if (o.doneNs >= beforeNs) break;
      this.doneHead++;
      if (!TERMINAL[o.status]) continue;
      this.byClient.delete(o.clientId);
      if (o.exchangeId !== "") this.byExchange.delete(o.exchangeId);
      this.bySession.get(o.sessionId)?.delete(o.clientOrderNo);
      n++;
    }
    if (this.doneHead > 1024 && this.doneHead * 2 > this.done.length) {
      this.done.splice(0, this.doneHead);
      this.doneHead = 0;
    }
    return n;
  }

  // ---------- internals ----------

  private drop(code: number, r: ApplyResult): void {
    const i = DROP_BASE - code;
    this.dropCounts[i]! += 1;
    r.drop = DROP_REASONS[i];
  }

  private target(o: Order, code: number): Status {
    if (code >= 0) return code as Status;
    if (code === STAY) return o.status;
    if (code === WORKING) return o.filledLots > 0 ? Status.PartiallyFilled : Status.New;
    if (code === SETTLE) {
      if (o.leavesLots <= 0 && o.filledLots > 0) return Status.Filled;
      return o.filledLots > 0 ? Status.PartiallyFilled : Status.New;
    }
    const s = o.status;
    // FILL. An amend in flight that raises the quantity keeps the order working: its answer decides.
    if (s === Status.PendingReplace && o.amendQtyLots > o.filledLots) return s;
    if (o.leavesLots <= 0) return Status.Filled;
    return s === Status.New || s === Status.PendingNew || s === Status.Unknown || s === Status.Rejected
      ? Status.PartiallyFilled
      : s;
  }

  private sideEffects(o: Order, ev: OrderEvent): void {
    switch (ev.kind) {
      case Ev.Submitted:
        o.sends += 1;
        if (o.sentNs === 0) o.sentNs = ev.tsNs;
        o.lastSentNs = ev.tsNs;
        break;
      case Ev.CreateAcked:
        if (o.ackedNs === 0) o.ackedNs = ev.tsNs;
        break;
      case Ev.CreateRejected:
      case Ev.VenueRejected:
        if (ev.reason !== "") o.rejectReason = ev.reason;
        break;
      case Ev.VenueNew:
      case Ev.VenuePartiallyFilled:
        if (o.ackedNs === 0) o.ackedNs = ev.tsNs;
        break;
      case Ev.AmendAcked:
        // The venue holds the target now: the new leaves follow from it (settle decides the status).
        if (o.amendPriceTicks > 0) o.priceTicks = o.amendPriceTicks;
        if (o.amendQtyLots > 0) o.qtyLots = o.amendQtyLots;
        o.amendPriceTicks = 0;
        o.amendQtyLots = 0;
        o.leavesLots = o.filledLots >= o.qtyLots ? 0 : o.qtyLots - o.filledLots;
        break;
      case Ev.AmendRejected:
        o.amendPriceTicks = 0;
        o.amendQtyLots = 0;
        break;
    }
  }

  /** A real execution: de-duplicated by id; counts toward filled only beyond what a cumulative record gave. */
  private applyExec(o: Order, ev: OrderEvent, r: ApplyResult, code: number): void {
    const id = ev.execId;
    if (id !== "") {
      if (o.execIds.has(id)) {
        this.dropCounts[DROP_REASON_INDEX.duplicate_exec]! += 1;
        r.drop = "duplicate_exec";
        return;
      }
      if (o.execIds === NO_EXEC_IDS) {
        o.execIds = new Set();
        o.execRing = [];
      }
      o.execIds.add(id);
      if (o.execRing.length < this.maxExecIds) o.execRing.push(id);
      else {
        o.execIds.delete(o.execRing[o.execRingPos]!);
        o.execRing[o.execRingPos] = id;
        o.execRingPos = (o.execRingPos + 1) % this.maxExecIds;
      }
    }
    o.execLots += ev.lots;
    const fee = Math.max(ev.fee, 0);
    o.fees += fee;
    const delta = o.execLots - o.filledLots;
    if (delta <= 0) {
      this.dropCounts[DROP_REASON_INDEX.fill_covered_by_cum]! += 1;
      r.drop = "fill_covered_by_cum";
      return;
    }
    const lots = Math.min(delta, ev.lots);
    const newFilled = o.filledLots + lots;
    o.avgPxTicks = (o.avgPxTicks * o.filledLots + ev.pxTicks * lots) / newFilled;
    this.addFilled(o, lots, r, ev.tsNs);
    o.status = this.target(o, code);
    const f = this.fill;
    f.execId = id !== "" ? id : `${o.exchangeId || o.clientId}:${o.filledLots}`;
    f.lots = lots;
    f.pxTicks = ev.pxTicks;
    f.fee = fee;
    f.synthetic = id === "";
    f.tsNs = ev.tsNs;
    f.liquidity = ev.liquidity;
    this.noteLastFill(o, f, ev.venueMs);
    this.listener.onFill(o, f);
  }

  /** A cumulative quantity from an order record (Spot has no execution ids): the delta is a synthesized fill. */
  private applyCum(o: Order, ev: OrderEvent, r: ApplyResult, code: number, feesBefore: number): void {
    const lots = ev.cumLots - o.filledLots;
    const prevNotional = o.avgPxTicks * o.filledLots;
    let px: number;
    if (ev.avgPxTicks > 0) {
      px = (ev.avgPxTicks * ev.cumLots - prevNotional) / lots;
      o.avgPxTicks = ev.avgPxTicks;
    } else {
      // [assumed] no average on the record: the limit price is the best estimate for a resting order.
      px = o.priceTicks;
      o.avgPxTicks = (prevNotional + px * lots) / ev.cumLots;
    }
    this.addFilled(o, lots, r, ev.tsNs);
    o.status = this.target(o, code);
    const f = this.fill;
    f.execId = `${o.exchangeId || o.clientId}:${o.filledLots}`;
    f.lots = lots;
    f.pxTicks = px;
    // The record's cumulative fee (HFT cumExecFee) less what earlier fills carried; 0 when it has none (Spot).
    f.fee = ev.fee > feesBefore ? ev.fee - feesBefore : 0;
    f.synthetic = true;
    f.tsNs = ev.tsNs;
    f.liquidity = 0;
    this.noteLastFill(o, f, ev.venueMs);
    this.listener.onFill(o, f);
  }

  /** The order keeps its latest fill (OrderUpdate's lastFill fields); the report gets the venue time. */
  private noteLastFill(o: Order, f: FillReport, venueMs: number): void {
    f.venueMs = venueMs > 0 ? venueMs : 0;
    o.lastFillPxTicks = f.pxTicks;
    o.lastFillLots = f.lots;
    o.lastFillMs = f.venueMs;
  }

  private addFilled(o: Order, lots: number, r: ApplyResult, ts: number): void {
    o.filledLots += lots;
    o.leavesLots = o.filledLots >= o.qtyLots ? 0 : o.qtyLots - o.filledLots;
    if (o.firstFillNs === 0) o.firstFillNs = ts;
    r.filledLots += lots;
    this.stats.fills++;
    // An amend in flight may raise the quantity: fills up to it are not an overfill yet.
    const cap = o.amendQtyLots > o.qtyLots ? o.amendQtyLots : o.qtyLots;
    if (o.filledLots > cap && !o.overfilled) {
      o.overfilled = true;
      r.overfill = true;
      this.stats.overfills++;
    }
  }

  private afterStatusChange(o: Order, prev: Status, cause: Ev, ts: number): void {
    this.stats.transitions++;
    // Out of PendingReplace some other way (a venue final, a raised cancel): the target is moot.
    if (prev === Status.PendingReplace && o.replacedBy === 0) {
      o.amendPriceTicks = 0;
      o.amendQtyLots = 0;
    }
    this.result.changed = true;
    const h = o.history;
    h.push(o.status, ts);
    if (h.length > this.maxHistory * 2) h.splice(0, 2);
    if (UNSETTLED[o.status]) this.unsettled.add(o);
    if (TERMINAL[o.status]) {
      o.cancelHeld = false;
      if (!TERMINAL[prev]) {
        o.doneNs = ts;
        this.removeLive(o);
        this.done.push(o);
      }
    } else {
      // A rejection verdict overturned by the venue (a late create answer or record): live again.
      if (TERMINAL[prev]) {
        o.doneNs = 0;
        this.addLive(o);
      }
      if (o.status === Status.CancellationRaised || o.status === Status.ExpirationRaised)
        o.cancelHeld = false;
    }
    const l = this.listener;
    if (o.createAnswered) l.onUpdate(o, prev, cause);
    else if (l.onCreateAnswer === undefined) {
      this.createAnswer(o);
      l.onUpdate(o, prev, cause);
    } else l.onCreateAnswer(o, prev, this.createAnswer(o));
    this.releaseHeldCancel(o, ts);
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
    this.afterStatusChange(o, prev, Ev.CancelRequested, ts);
    this.listener.onCancelReleased(o);
  }

  private unknown(ev: OrderEvent): void {
    this.stats.unknownOrder++;
    this.dropCounts[DROP_REASON_INDEX.unknown_order]! += 1;
    this.result.drop = "unknown_order";
    // Our own REST outcomes always name an order we created; anything else is kept for later.
    if (ev.source === Source.Rest || !this.keepOrphans) return;
    const key = ev.exchangeId !== "" ? ev.exchangeId : ev.clientId !== "" ? `c:${ev.clientId}` : "";
    if (key === "") return;
    let list = this.pending.get(key);
    if (list === undefined) {
      list = [];
      this.pending.set(key, list);
    }
    list.push(copyEvent(ev));
    this.pendingCount++;
    this.result.buffered = true;
    while (this.pendingCount > this.maxOrphans) {
      const [k, l] = this.pending.entries().next().value as [string, OrderEvent[]];
      l.shift();
      this.pendingCount--;
      this.dropCounts[DROP_REASON_INDEX.orphan_evicted]! += 1;
      if (l.length === 0) this.pending.delete(k);
    }
  }

  /** Applies buffered events without losing the current call's result (they reuse the same object). */
  private drainKeepingResult(key: string): void {
    if (!this.pending.has(key)) return;
    const r = this.result;
    const order = r.order;
    const prev = r.prev;
    const changed = r.changed;
    const filled = r.filledLots;
    const drop = r.drop;
    const sendCancel = r.sendCancel;
    const overfill = r.overfill;
    this.drain(key);
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

  private drain(key: string): void {
    const list = this.pending.get(key);
    if (list === undefined) return;
    this.pending.delete(key);
    this.pendingCount -= list.length;
    for (const e of list) this.apply(e);
  }

  private addLive(o: Order): void {
    this.live.add(o);
    if (UNSETTLED[o.status]) this.unsettled.add(o);
    let s = this.liveBySession.get(o.sessionId);
    if (s === undefined) {
      s = new Set();
      this.liveBySession.set(o.sessionId, s);
    }
    s.add(o);
  }

  private removeLive(o: Order): void {
    this.live.delete(o);
    this.liveBySession.get(o.sessionId)?.delete(o);
  }
}

/** Cheap shape checks: producers are ours, but a bug upstream must not corrupt an order. */
function validEvent(ev: OrderEvent): boolean {
  const k = ev.kind;
  if (!(k >= 0 && k < EVENT_COUNT) || (k | 0) !== k) return false;
  if (k === Ev.Fill) return Number.isSafeInteger(ev.lots) && ev.lots > 0 && ev.pxTicks >= 0;
  const c = ev.cumLots;
  return c === -1 || (Number.isSafeInteger(c) && c >= 0);
}

/** "Filled", "Cancelled", ... for logs and the protocol's text fields. */
export function statusName(s: Status): string {
  return STATUS_NAMES[s]!;
}
