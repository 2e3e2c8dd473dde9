/**
 * The authoritative in-memory order store. Every producer (engine REST outcomes, stream consumers, the
 * realtime poller, the reconciler) feeds it the same `OrderEvent`s through `apply`; the transition table
 * decides. This file is the store's front: creating orders, the lookups, the engine's cancel and amend
 * requests and REST outcomes, the counters. Its parts: apply.ts (the write path), indexes.ts, fills.ts,
 * orphans.ts (events for orders not known yet), effects.ts; what it reports is in reports.ts.
 */

import type { ShardedMap } from "../util/shardedMap.js";
import { EventApplier } from "./apply.js";
import { newEvent, type OrderEvent, restEvent } from "./event.js";
import { FillBook } from "./fills.js";
import { type AmendDecision, amendGuard, type CancelDecision, cancelGuard } from "./guards.js";
import { OrderIndex } from "./indexes.js";
import {
  ClientIdMinter,
  clearAmendTarget,
  monoNs,
  type NewOrderRequest,
  newOrder,
  type Order,
  ownExtra,
} from "./order.js";
import { OrphanBuffer } from "./orphans.js";
import type { ApplyResult, OrderListener, StoreStats } from "./reports.js";
import { Ev, Status } from "./status.js";
import { DROP_REASON_INDEX, DROP_REASONS, type DropReason } from "./transitions.js";

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
  /**
   * Shards of the store's id and order-number maps, a power of two (default 32; 1 = one Map each, as
   * the `retention` suite compares): a table rebuild then moves a shard's entries, not all of them.
   */
  indexShards?: number;
}

export type OrderStoreErrorCode =
  | "DUPLICATE_CLIENT_ORDER_NO"
  | "DUPLICATE_CLIENT_ID"
  | "BAD_QTY"
  | "BAD_PRICE";

export class OrderStoreError extends Error {
  override readonly name = "OrderStoreError";
  constructor(
    readonly code: OrderStoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export class OrderStore {
  readonly minter: ClientIdMinter;
  /** Totals: events applied, status changes, fills, overfills, events for unknown orders. */
  readonly stats: StoreStats = {
    events: 0,
    transitions: 0,
    fills: 0,
    overfills: 0,
    unknownOrder: 0,
    forgotten: 0,
  };
  private readonly index: OrderIndex;
  private readonly byClient: ShardedMap<string, Order>;
  private readonly orphans: OrphanBuffer;
  private readonly applier: EventApplier;
  private readonly dropCounts = new Float64Array(DROP_REASONS.length);
  /** The event the REST shorthands write into (apply does not keep it). */
  private readonly scratch: OrderEvent = newEvent();

  constructor(opts: OrderStoreOptions = {}) {
    this.minter = opts.minter ?? new ClientIdMinter();
    this.index = new OrderIndex(
      opts.pendingNewDeadlineNs ?? 2_000_000_000,
      opts.pendingCancelDeadlineNs ?? 2_000_000_000,
      opts.indexShards ?? 32,
    );
    this.byClient = this.index.byClient;
    this.orphans = new OrphanBuffer(opts.maxOrphans ?? 10_000, this.dropCounts);
    this.applier = new EventApplier({
      index: this.index,
      fills: new FillBook(opts.maxExecIds ?? 64, this.stats, this.dropCounts),
      orphans: this.orphans,
      stats: this.stats,
      dropCounts: this.dropCounts,
      maxHistory: opts.maxHistory ?? 16,
      keepOrphans: opts.keepOrphans ?? true,
    });
    this.setListener(opts.listener);
  }

  setListener(l: OrderListener | undefined): void {
    this.applier.setListener(l);
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
    const session = this.index.session(req.sessionId);
    if (session?.byNo.has(req.clientOrderNo)) {
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
    this.index.add(o, session);
    // Events that arrived for this client id before we knew it (e.g. replay) are applied now.
    const kept = this.orphans.takeClient(id);
    if (kept !== undefined) this.applier.applyKept(kept);
    return o;
  }

  byClientId(clientId: string): Order | undefined {
    return this.byClient.get(clientId);
  }

  byExchangeId(exchangeId: string): Order | undefined {
    return this.index.byExchange.get(exchangeId);
  }

  bySessionOrder(sessionId: number, clientOrderNo: number): Order | undefined {
    return this.index.bySessionOrder(sessionId, clientOrderNo);
  }

  get size(): number {
    return this.byClient.size;
  }

  /** Orders that may still be live at the venue, for one session (cancel-all, cancel-on-disconnect). */
  liveOrders(sessionId?: number, instrumentId?: number): Order[] {
    return this.index.liveOrders(sessionId, instrumentId);
  }

  /** Every live order (for the poller and the reconciler). Do not mutate. */
  liveSet(): ReadonlySet<Order> {
    return this.index.live;
  }

  /**
   * Orders whose outcome the reconciler must establish: Unknown; PendingNew past its deadline;
   * PendingCancel (or PendingReplace) past its deadline (cancel outcome unknown).
   */
  needingResolution(nowNs: number = monoNs()): Order[] {
    return this.index.needingResolution(nowNs);
  }

  /** Records one resolution query made for the order (bounded by the resolution policy). */
  noteResolveAttempt(o: Order): number {
    ownExtra(o).resolveAttempts += 1;
    return o.extra.resolveAttempts;
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
    this.applier.statusChanged(o, prev, Ev.CancelRequested, nowNs);
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
    const x = ownExtra(o);
    x.amendPriceTicks = priceTicks === o.priceTicks ? 0 : priceTicks;
    x.amendQtyLots = qtyLots === o.qtyLots ? 0 : qtyLots;
    x.amendSentNs = nowNs;
    const prev = o.status;
    if (replaceBy > 0) {
      x.replacedBy = replaceBy;
      o.status = Status.PendingCancel;
      o.cancelSentNs = nowNs;
      this.applier.statusChanged(o, prev, Ev.CancelRequested, nowNs);
    } else {
      o.status = Status.PendingReplace;
      this.applier.statusChanged(o, prev, Ev.AmendRequested, nowNs);
    }
    return d;
  }

  /** A cancel-replace is over (replaced, refused, abandoned): the order is an ordinary one again. */
  endReplace(o: Order): void {
    // A reset to the default: no extra object made for it (as clearAmendTarget).
    if (o.extra.replacedBy !== 0) ownExtra(o).replacedBy = 0;
    clearAmendTarget(o);
  }

  // ---------- REST outcomes (the engine's shorthand for building an event) ----------

  /** The create request left the process (first send or a same-id resend). */
  markSent(clientId: string, nowNs: number = monoNs()): ApplyResult {
    return this.apply(restEvent(this.scratch, Ev.Submitted, clientId, "", "", nowNs));
  }

  /** REST create answered with the exchange order id. */
  ackCreate(clientId: string, exchangeId: string, nowNs: number = monoNs()): ApplyResult {
    return this.apply(restEvent(this.scratch, Ev.CreateAcked, clientId, exchangeId, "", nowNs));
  }

  /** REST create definitely refused (never call this for timeouts, resets or 5xx). */
  rejectCreate(clientId: string, reason: string, nowNs: number = monoNs()): ApplyResult {
    return this.apply(restEvent(this.scratch, Ev.CreateRejected, clientId, "", reason, nowNs));
  }

  /** REST create outcome ambiguous (timeout, reset, 5xx): the order becomes Unknown. */
  createUnknown(clientId: string, nowNs: number = monoNs()): ApplyResult {
    return this.apply(restEvent(this.scratch, Ev.CreateOutcomeUnknown, clientId, "", "", nowNs));
  }

  /** REST cancel outcome: CancelAcked, CancelRejected or CancelOutcomeUnknown. */
  cancelOutcome(
    clientId: string,
    kind: typeof Ev.CancelAcked | typeof Ev.CancelRejected | typeof Ev.CancelOutcomeUnknown,
    nowNs: number = monoNs(),
    reason = "",
  ): ApplyResult {
    return this.apply(restEvent(this.scratch, kind, clientId, "", reason, nowNs));
  }

  /** REST amend outcome: AmendAcked, AmendRejected or AmendOutcomeUnknown. */
  amendOutcome(
    clientId: string,
    kind: typeof Ev.AmendAcked | typeof Ev.AmendRejected | typeof Ev.AmendOutcomeUnknown,
    nowNs: number = monoNs(),
    reason = "",
  ): ApplyResult {
    return this.apply(restEvent(this.scratch, kind, clientId, "", reason, nowNs));
  }

  // ---------- events ----------

  /** Applies one event (apply.ts). The returned object is reused by the next call. */
  apply(ev: OrderEvent): ApplyResult {
    return this.applier.apply(ev);
  }

  // ---------- counters and memory ----------

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
    return this.orphans.takeAll();
  }

  get orphanCount(): number {
    return this.orphans.count;
  }

  /**
   * Forgets finished orders (memory bound over a long run): those finished before `beforeNs`, and the
   * earliest finished beyond the newest `keepMax`, at most `limit` in one call (the rest at the next).
   * Live orders are never forgotten, nor one `held` says is still needed (asked again later).
   * Afterwards the order is unknown to every lookup; returns how many were forgotten.
   */
  forgetFinished(
    beforeNs: number,
    keepMax: number = Number.POSITIVE_INFINITY,
    limit: number = Number.POSITIVE_INFINITY,
    held?: (o: Order) => boolean,
  ): number {
    const n = this.index.forgetFinished(beforeNs, keepMax, limit, held);
    this.stats.forgotten += n;
    return n;
  }

  /** Finished orders still kept (forgetFinished has not reached them yet). */
  get finishedKept(): number {
    return this.index.finishedKept;
  }
}
