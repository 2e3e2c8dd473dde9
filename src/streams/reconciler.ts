/**
 * Reconciliation: at start-up and after every stream reconnect, pull what the venue knows and replay
 * it through the same store, then resolve what is still ambiguous by client id.
 *
 * 1. Unknown and overdue PendingNew / PendingCancel orders: one round of the venue sync's resolver
 *    (src/venue/resolver.ts, the only owner of ambiguous orders: targeted queries by client id, same-id
 *    resends, verdicts). This reconciler never queries those orders itself nor re-sends anything.
 * 2. Snapshots: Spot open + closed lists; HFT `/v5/order/realtime` (all pages) per category; HFT
 *    executions since the newest one seen. Records of orders the store knows are applied
 *    (Source.Query); the others are reported as foreign.
 * 3. Live orders the snapshots did not contain: a targeted query; an authoritative "not found"
 *    (Spot 404, v5 empty list) applies a NotFound event and is reported as missing.
 *
 * A network error anywhere marks the report incomplete and is never evidence that an order is gone.
 */
import type { LimitClass, RateLimiter } from "../limits/index.js";
import {
  Ev,
  monoNs,
  newEvent,
  type Order,
  type QueryOutcome,
  Source,
  STATUS_NAMES,
  Status,
  statusFromSpot,
  statusFromV5,
} from "../orders/index.js";
import type { RestClient } from "../rest/client.js";
import type { SpotOrderRecord, V5Execution, V5List, V5OrderRecord } from "../rest/wire.js";
import type { OrderFeed } from "./feed.js";
import { errText, isSpotNotFound, reportOutcome, takeToken } from "./venue.js";

export interface ReconcilerOptions {
  feed: OrderFeed;
  rest: RestClient;
  limiter?: RateLimiter;
  /** Reconcile Spot orders. Default true. */
  spot?: boolean;
  /** HFT categories to list (empty = no HFT). Default ["linear"]. */
  hftCategories?: readonly string[];
  /**
   * The one owner of ambiguous orders (the venue sync's resolver): step 1 is one round of it. Two
   * resolvers acting on one in-flight create is how a late answer got overtaken by a verdict.
   */
  resolver: { settle(): Promise<Resolution[]> };
  /** Wait for a rate-limit token this long before giving up on a request (ms). Default 2,000. */
  tokenWaitMs?: number;
  /** Pages per listing at most. Default 50. */
  maxPages?: number;
  /** Spot closed list page size (the venue caps it at 500). Default 500. */
  spotClosedCount?: number;
  /** First executions query looks back this far when nothing was seen yet (ms). Default 3,600,000. */
  execLookbackMs?: number;
}

export interface ForeignOrder {
  surface: "spot" | "hft";
  clientId: string;
  exchangeId: string;
  symbol: string;
  status: string;
}

export interface Resolution {
  clientId: string;
  action: string;
  reason: string;
  /** The order's status after the action (name). */
  status: string;
}

export interface ReconcileReport {
  startedAtMs: number;
  durationMs: number;
  /** Every listing and query got an answer (no network error, no budget refusal). */
  complete: boolean;
  errors: string[];
  /** Records and executions applied to the store. */
  applied: number;
  /** Orders the venue has and the store does not. */
  foreign: ForeignOrder[];
  /** Orders the store believed live that the venue authoritatively does not have (NotFound applied). */
  missing: Array<{ clientId: string; exchangeId: string; status: string }>;
  /** Outcome of every targeted resolution. */
  resolved: Resolution[];
  /** Client ids the policy escalated (still ambiguous after the bounded queries). */
  escalated: string[];
}

class Incomplete extends Error {}

export class Reconciler {
  private readonly o: ReconcilerOptions;
  private current: Promise<ReconcileReport> | undefined;
  private again = false;
  lastReport: ReconcileReport | undefined;
  runs = 0;

  constructor(o: ReconcilerOptions) {
    this.o = o;
  }

  get running(): boolean {
    return this.current !== undefined;
  }

  /** Resolves when no reconciliation is running (never rejects). */
  async idle(): Promise<void> {
    while (this.current !== undefined) await this.current.catch(() => undefined);
  }

  /**
   * Runs one reconciliation. A call while one is running returns the running one's promise and
   * schedules exactly one more run right after it (what it fetched may predate the new trigger).
   */
  reconcile(): Promise<ReconcileReport> {
    if (this.current !== undefined) {
      this.again = true;
      return this.current;
    }
    const run = async (): Promise<ReconcileReport> => {
      let r = await this.once();
      while (this.again) {
        this.again = false;
        r = await this.once();
      }
      return r;
    };
    this.current = run().finally(() => {
      this.current = undefined;
    });
    return this.current;
  }

  private async once(): Promise<ReconcileReport> {
    this.runs++;
    const t0 = Date.now();
    const rep: ReconcileReport = {
      startedAtMs: t0,
      durationMs: 0,
      complete: true,
      errors: [],
      applied: 0,
      foreign: [],
      missing: [],
      resolved: [],
      escalated: [],
    };
    // Ambiguous creates first, by targeted query: the listings below then see them as known orders.
    await this.step(rep, () => this.resolveAmbiguous(rep));
    const seenSpot = new Set<string>();
    const seenHft = new Set<string>();
    let spotListed = false;
    let hftListed = false;
    if (this.o.spot ?? true) spotListed = await this.step(rep, () => this.spotSnapshot(rep, seenSpot));
    const cats = this.o.hftCategories ?? ["linear"];
    if (cats.length > 0) {
      hftListed = await this.step(rep, () => this.hftSnapshot(rep, cats, seenHft));
      await this.step(rep, () => this.hftExecutions(rep, cats));
    }
    await this.step(rep, () =>
      this.missingLive(rep, spotListed ? seenSpot : undefined, hftListed ? seenHft : undefined),
    );
    rep.durationMs = Date.now() - t0;
    this.lastReport = rep;
    return rep;
  }

  /** Runs one phase; a failure marks the report incomplete and the next phase still runs. */
  private async step(rep: ReconcileReport, f: () => Promise<void>): Promise<boolean> {
    try {
      await f();
      return true;
    } catch (e) {
      rep.complete = false;
      rep.errors.push(errText(e));
      return false;
    }
  }

  private async call<T>(cls: LimitClass, f: () => Promise<T>): Promise<T> {
    if (!(await takeToken(this.o.limiter, cls, this.o.tokenWaitMs ?? 2_000))) {
      throw new Incomplete(`no rate-limit token for ${cls}`);
    }
    try {
      const r = await f();
      reportOutcome(this.o.limiter, cls, undefined);
      return r;
    } catch (e) {
      reportOutcome(this.o.limiter, cls, e);
      throw e;
    }
  }

  // ---------- 2. snapshots ----------

  private async spotSnapshot(rep: ReconcileReport, seen: Set<string>): Promise<void> {
    const rest = this.o.rest;
    const open = await this.call("spot.listOrders", () => rest.listSpotOrders({ open: true, count: 500 }));
    const closed = await this.call("spot.listOrders", () =>
      rest.listSpotOrders({ open: false, count: this.o.spotClosedCount ?? 500 }),
    );
    // Closed first: an order that finished between the two requests must not look open afterwards
    // (the store never regresses anyway; this keeps the report tidy).
    for (const rec of [...(closed.orders ?? []), ...(open.orders ?? [])]) this.spotRecord(rep, rec, seen);
  }

  private spotRecord(rep: ReconcileReport, rec: SpotOrderRecord, seen: Set<string>): void {
    if (typeof rec?.order_id !== "string") return;
    seen.add(rec.order_id);
    const feed = this.o.feed;
    if (!feed.knows(rec.client_order_id, rec.order_id)) {
      rep.foreign.push({
        surface: "spot",
        clientId: rec.client_order_id ?? "",
        exchangeId: rec.order_id,
        symbol: String(rec.symbol),
        status: String(rec.status),
      });
      return;
    }
    if (feed.spotOrder(rec, Source.Query) !== undefined) rep.applied++;
  }

  private async hftSnapshot(rep: ReconcileReport, cats: readonly string[], seen: Set<string>): Promise<void> {
    const rest = this.o.rest;
    const feed = this.o.feed;
    for (const category of cats) {
      let cursor = "";
      for (let page = 0; page < (this.o.maxPages ?? 50); page++) {
        const res: V5List<V5OrderRecord> = await this.call("hft.query", () =>
          rest.realtime({ category, cursor }),
        );
        for (const rec of res.list ?? []) {
          if (typeof rec?.orderId !== "string") continue;
          seen.add(rec.orderId);
          if (rec.orderLinkId) seen.add(`c:${rec.orderLinkId}`);
          if (!feed.knows(rec.orderLinkId, rec.orderId)) {
            rep.foreign.push({
              surface: "hft",
              clientId: rec.orderLinkId ?? "",
              exchangeId: rec.orderId,
              symbol: String(rec.symbol),
              status: String(rec.orderStatus),
            });
            continue;
          }
          if (feed.v5Order(rec, Source.Query) !== undefined) rep.applied++;
        }
        cursor = res.nextPageCursor ?? "";
        if (cursor === "") break;
        if (page === (this.o.maxPages ?? 50) - 1) throw new Incomplete("realtime: page limit reached");
      }
    }
  }

  private async hftExecutions(rep: ReconcileReport, cats: readonly string[]): Promise<void> {
    const rest = this.o.rest;
    const feed = this.o.feed;
    const since = feed.lastExecMs > 0 ? feed.lastExecMs : Date.now() - (this.o.execLookbackMs ?? 3_600_000);
    for (const category of cats) {
      let cursor = "";
      for (let page = 0; page < (this.o.maxPages ?? 50); page++) {
        const q: [string, string][] = [
          ["category", category],
          ["startTime", String(since)],
        ];
        if (cursor !== "") q.push(["cursor", cursor]);
        const res = await this.call("hft.query", () => rest.call<V5List<V5Execution>>("hft.executions", q));
        for (const x of res.list ?? []) {
          if (!feed.knows(x?.orderLinkId, x?.orderId)) continue;
          if (feed.v5Execution(x, Source.Query) !== undefined) rep.applied++;
        }
        cursor = res.nextPageCursor ?? "";
        if (cursor === "") break;
      }
    }
  }

  // ---------- 3. live in the store, absent from the venue's listing ----------

  private async missingLive(
    rep: ReconcileReport,
    seenSpot: Set<string> | undefined,
    seenHft: Set<string> | undefined,
  ): Promise<void> {
    const candidates: Order[] = [];
    for (const x of this.o.feed.store.liveSet()) {
      if (x.exchangeId === "" || x.status === Status.PendingNew || x.status === Status.Unknown) continue;
      if (x.surface === "spot" && seenSpot !== undefined && !seenSpot.has(x.exchangeId)) candidates.push(x);
      if (x.surface === "hft" && seenHft !== undefined && !seenHft.has(x.exchangeId)) candidates.push(x);
    }
    for (const x of candidates) {
      const q = await this.query(x);
      if (q.kind === "networkError") {
        rep.complete = false;
        rep.errors.push(`query ${x.clientId}: no answer`);
      } else if (q.kind === "notFound") {
        const ev = newEvent(Ev.NotFound);
        ev.source = Source.Query;
        ev.clientId = x.clientId;
        ev.exchangeId = x.exchangeId;
        ev.tsNs = monoNs();
        this.o.feed.store.apply(ev);
        rep.missing.push({ clientId: x.clientId, exchangeId: x.exchangeId, status: STATUS_NAMES[x.status]! });
      }
    }
  }

  // ---------- 1. ambiguous outcomes, by client id ----------

  private async resolveAmbiguous(rep: ReconcileReport): Promise<void> {
    for (const r of await this.o.resolver.settle()) {
      rep.resolved.push(r);
      // Still open (waiting for a deadline, no answer yet): the resolver keeps it; nothing is missing.
      if (r.action === "escalate") rep.escalated.push(r.clientId);
    }
  }

  /**
   * One targeted query by client id of a live order missing from the listings (never an ambiguous
   * one: those are the resolver's). A found record is applied to the store here.
   */
  private async query(x: Order): Promise<QueryOutcome> {
    const rest = this.o.rest;
    const feed = this.o.feed;
    try {
      if (x.surface === "spot") {
        let rec: SpotOrderRecord;
        try {
          rec = await this.call("spot.other", () => rest.getSpotOrder({ clientOrderId: x.clientId }));
        } catch (e) {
          if (isSpotNotFound(e)) return { kind: "notFound" };
          throw e;
        }
        const status = statusFromSpot(rec.status);
        if (feed.spotOrder(rec, Source.Query) === undefined) return { kind: "networkError" };
        return { kind: "found", status };
      }
      const category = feed.instruments.lookup("hft", x.symbol)?.venue ?? "linear";
      const res = await this.call("hft.query", () =>
        rest.realtime({ category, symbol: x.symbol, orderLinkId: x.clientId }),
      );
      const rec = (res.list ?? []).find((r) => r?.orderLinkId === x.clientId);
      if (rec === undefined) return { kind: "notFound" };
      const status = statusFromV5(rec.orderStatus);
      if (feed.v5Order(rec, Source.Query) === undefined) return { kind: "networkError" };
      return { kind: "found", status };
    } catch {
      // Timeouts, resets, 5xx, 429, a malformed answer: no evidence either way.
      return { kind: "networkError" };
    }
  }
}
