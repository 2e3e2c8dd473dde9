/**
 * The order store's indexes: every order by client id, by exchange id and by its session's order
 * number; the live orders, overall and per session; the orders the resolver may have to ask the venue
 * about; the finished ones in finishing order, for pruning. Only the store writes them.
 */
import { ShardedMap } from "../util/shardedMap.js";
import type { Order } from "./order.js";
import { Status, TERMINAL } from "./status.js";

/** Statuses the resolver may have to ask the venue about (see needingResolution). */
const UNSETTLED: readonly boolean[] = (() => {
  const t: boolean[] = [];
  t[Status.PendingNew] = true;
  t[Status.Unknown] = true;
  t[Status.PendingCancel] = true;
  t[Status.PendingReplace] = true;
  return t;
})();

/** One session's orders: every one by its order number, and the live ones (one lookup per create). */
export interface SessionOrders {
  readonly byNo: ShardedMap<number, Order>;
  readonly live: Set<Order>;
}

export class OrderIndex {
  // Every order kept, finished ones included (up to orders.keepFinishedMax): sharded, so that no one
  // table rebuild of that size lands on a single order (src/util/shardedMap.ts).
  readonly byClient: ShardedMap<string, Order>;
  readonly byExchange: ShardedMap<string, Order>;
  private readonly sessions = new Map<number, SessionOrders>();
  /** Orders that may still be live at the venue, in the order they became live. */
  readonly live = new Set<Order>();
  /** Live orders that were in PendingNew, Unknown, PendingCancel or PendingReplace when last changed (superset). */
  private readonly unsettled = new Set<Order>();
  /** Orders in the order they became terminal, from `doneHead` on (forgetFinished's queue)... */
  private readonly done: (Order | undefined)[] = [];
  /** ...and each one's `doneNs` when queued (an entry whose order finished again since is stale). */
  private readonly doneAt: number[] = [];
  private doneHead = 0;
  /** Orders terminal and still indexed. */
  private finishedCount = 0;

  constructor(
    /** A PendingNew older than this (ns since sent) needs resolution. */
    private readonly pendingNewDeadlineNs: number,
    /** A PendingCancel or PendingReplace older than this (ns since asked) needs resolution. */
    private readonly pendingCancelDeadlineNs: number,
    /** Shards of the id and order-number maps (1: one Map each). */
    private readonly shards = 32,
  ) {
    this.byClient = new ShardedMap(shards);
    this.byExchange = new ShardedMap(shards);
  }

  /** The session's orders, undefined before its first one. */
  session(sessionId: number): SessionOrders | undefined {
    return this.sessions.get(sessionId);
  }

  /** A created order (PendingNew): indexed by client id and order number, live. `s`: `session(o.sessionId)`. */
  add(o: Order, s: SessionOrders | undefined): void {
    this.byClient.set(o.clientId, o);
    if (s === undefined) {
      s = { byNo: new ShardedMap(this.shards), live: new Set() };
      this.sessions.set(o.sessionId, s);
    }
    s.byNo.set(o.clientOrderNo, o);
    this.live.add(o);
    if (UNSETTLED[o.status]) this.unsettled.add(o);
    s.live.add(o);
  }

  /** The exchange id an order learnt, unless another order already holds it; true when bound. */
  bindExchange(o: Order, exchangeId: string): boolean {
    if (this.byExchange.has(exchangeId)) return false;
    o.exchangeId = exchangeId;
    this.byExchange.set(exchangeId, o);
    return true;
  }

  bySessionOrder(sessionId: number, clientOrderNo: number): Order | undefined {
    return this.sessions.get(sessionId)?.byNo.get(clientOrderNo);
  }

  /** The order's status changed: one entering a status the resolver watches is tracked. */
  statusChanged(o: Order): void {
    if (UNSETTLED[o.status]) this.unsettled.add(o);
  }

  /** The order became terminal: no longer live, queued for pruning. */
  finished(o: Order): void {
    this.live.delete(o);
    this.sessions.get(o.sessionId)?.live.delete(o);
    this.done.push(o);
    this.doneAt.push(o.doneNs);
    this.finishedCount++;
  }

  /** A terminal verdict was overturned by the venue: live again. */
  revived(o: Order): void {
    this.finishedCount--;
    this.live.add(o);
    if (UNSETTLED[o.status]) this.unsettled.add(o);
    this.sessions.get(o.sessionId)?.live.add(o);
  }

  liveOrders(sessionId?: number, instrumentId?: number): Order[] {
    const src = sessionId === undefined ? this.live : this.sessions.get(sessionId)?.live;
    const out: Order[] = [];
    if (src === undefined) return out;
    for (const o of src) if (instrumentId === undefined || o.instrumentId === instrumentId) out.push(o);
    return out;
  }

  needingResolution(nowNs: number): Order[] {
    const out: Order[] = [];
    // Only orders that entered PendingNew / Unknown / PendingCancel (a full scan of the live set every
    // resolver round cost ~1 ms per 40,000 resting orders on the event loop); the rest left lazily.
    for (const o of this.unsettled) {
      if (!UNSETTLED[o.status] || !this.live.has(o)) {
        this.unsettled.delete(o);
        continue;
      }
      // A request of the order's own still outstanding at the HTTP layer: its answer (or its timeout,
      // which makes the outcome unknown) comes first; a query now could overtake it at the venue.
      if (o.requestsOut > 0) continue;
      if (o.status === Status.Unknown) out.push(o);
      else if (o.status === Status.PendingNew) {
        const since = o.sentNs > 0 ? o.sentNs : o.receivedNs;
        if (nowNs - since >= this.pendingNewDeadlineNs) out.push(o);
      } else if (
        (o.status === Status.PendingCancel && nowNs - o.cancelSentNs >= this.pendingCancelDeadlineNs) ||
        (o.status === Status.PendingReplace && nowNs - o.extra.amendSentNs >= this.pendingCancelDeadlineNs)
      ) {
        out.push(o);
      }
    }
    return out;
  }

  /**
   * Forgets finished orders: every one finished before `beforeNs`, and beyond the newest `keepMax`
   * finished the earliest ones whatever their age; at most `limit` in one call, none that `held`
   * says is still needed. Returns how many.
   */
  forgetFinished(beforeNs: number, keepMax: number, limit: number, held?: (o: Order) => boolean): number {
    let n = 0;
    const done = this.done;
    const at = this.doneAt;
    // Entries queued again in this call (held ones) wait for the next call.
    const end = done.length;
    while (this.doneHead < end && n < limit) {
      const i = this.doneHead;
      const o = done[i]!;
      // Stale entries: revived since (live again, or finished again later: its newer entry counts),
      // or forgotten already.
      const stale = !TERMINAL[o.status] || o.doneNs !== at[i] || this.byClient.get(o.clientId) !== o;
      if (!stale && at[i]! >= beforeNs && this.finishedCount <= keepMax) break;
      // Passed entries hold nothing until the queue is compacted.
      done[i] = undefined;
      this.doneHead++;
      if (stale) continue;
      if (held?.(o)) {
        // Still needed (e.g. a message about it owed to its session): asked again at a later call.
        done.push(o);
        at.push(o.doneNs);
        continue;
      }
      this.forget(o);
      n++;
    }
    if (this.doneHead > 1024 && this.doneHead * 2 > done.length) {
      done.splice(0, this.doneHead);
      at.splice(0, this.doneHead);
      this.doneHead = 0;
    }
    return n;
  }

  /** Finished orders still indexed. */
  get finishedKept(): number {
    return this.finishedCount;
  }

  private forget(o: Order): void {
    this.finishedCount--;
    this.byClient.delete(o.clientId);
    if (o.exchangeId !== "" && this.byExchange.get(o.exchangeId) === o) this.byExchange.delete(o.exchangeId);
    const s = this.sessions.get(o.sessionId);
    if (s !== undefined && s.byNo.get(o.clientOrderNo) === o) s.byNo.delete(o.clientOrderNo);
    this.unsettled.delete(o);
  }
}
