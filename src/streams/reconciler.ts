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
 *
 * Each surface reconciles in a lane of its own (steps 1–3 for its orders only): a Spot listing that
 * fails, or a Spot stream that reconnects, never delays nor fails the HFT reconciliation.
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
import type { SpotOrderRecord, V5Execution, V5List, V5OrderRecord } from "../rest/wire.js";
import type { VenueClient } from "../venue/client.js";
import type { OrderFeed } from "./feed.js";
import { errText, isSpotNotFound, reportOutcome, takeToken } from "./venue.js";

export interface ReconcilerOptions {
  feed: OrderFeed;
  rest: VenueClient;
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
  /**
   * Pages an HFT listing follows at most (venue.hftListMaxPages). Reaching it with pages left makes
   * the reconciliation incomplete: never reconciled on a partial listing. Default 2,000.
   */
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

/** The surfaces the reconciler lists (Futures has no stream to vouch for: the poller covers it). */
export type ReconcileSurface = "spot" | "hft";

export interface ReconcileReport {
  startedAtMs: number;
  durationMs: number;
  /** Every listing and query got an answer (no network error, no budget refusal). */
  complete: boolean;
  /** Per surface reconciled in this run: whether its part was complete. */
  surfaces: Partial<Record<ReconcileSurface, boolean>>;
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

const DEFAULT_MAX_PAGES = 2_000;

/** Why a listing stopped with pages left: loud, with what a fix needs. */
function pagesLeft(list: string, category: string, pages: number, rows: number): string {
  return `${list} (${category}): ${pages} pages (${rows} rows) read and more remain: venue.hftListMaxPages reached, not reconciled`;
}

/** One surface's run in progress, and whether another was asked for meanwhile. */
interface Lane {
  current: Promise<ReconcileReport> | undefined;
  again: boolean;
}

export class Reconciler {
  private readonly o: ReconcilerOptions;
  private readonly lanes = new Map<ReconcileSurface, Lane>();
  lastReport: ReconcileReport | undefined;
  runs = 0;

  constructor(o: ReconcilerOptions) {
    this.o = o;
    if (o.spot ?? true) this.lanes.set("spot", { current: undefined, again: false });
    if ((o.hftCategories ?? ["linear"]).length > 0)
      this.lanes.set("hft", { current: undefined, again: false });
  }

  /** The surfaces this reconciler lists. */
  get surfaces(): ReconcileSurface[] {
    return [...this.lanes.keys()];
  }

  get running(): boolean {
    for (const l of this.lanes.values()) if (l.current !== undefined) return true;
    return false;
  }

  /** A run covering this surface is in progress. */
  runningFor(surface: ReconcileSurface): boolean {
    return this.lanes.get(surface)?.current !== undefined;
  }

  /** Resolves when no reconciliation is running (never rejects). */
  async idle(): Promise<void> {
    for (const l of this.lanes.values()) {
      while (l.current !== undefined) await l.current.catch(() => undefined);
    }
  }

  /**
   * Reconciles the given surfaces (default: all), each in its own lane; resolves with one report of
   * them all. A call while a surface's run is in progress joins it and schedules exactly one more run
   * of that surface right after it (what it fetched may predate the new trigger).
   */
  async reconcile(scope: readonly ReconcileSurface[] = this.surfaces): Promise<ReconcileReport> {
    const runs: Promise<ReconcileReport>[] = [];
    for (const s of scope) {
      const lane = this.lanes.get(s);
      if (lane !== undefined) runs.push(this.laneRun(s, lane));
    }
    // No surface listed: the ambiguous orders still get their resolution round.
    const rep = runs.length === 0 ? await this.once(undefined) : mergeReports(await Promise.all(runs));
    this.lastReport = rep;
    return rep;
  }

  private laneRun(surface: ReconcileSurface, lane: Lane): Promise<ReconcileReport> {
    if (lane.current !== undefined) {
      lane.again = true;
      return lane.current;
    }
    const run = async (): Promise<ReconcileReport> => {
      let r = await this.once(surface);
      while (lane.again) {
        lane.again = false;
        r = await this.once(surface);
      }
      return r;
    };
    lane.current = run().finally(() => {
      lane.current = undefined;
    });
    return lane.current;
  }

  private async once(surface: ReconcileSurface | undefined): Promise<ReconcileReport> {
    this.runs++;
    const t0 = Date.now();
    const rep: ReconcileReport = {
      startedAtMs: t0,
      durationMs: 0,
      complete: true,
      surfaces: {},
      errors: [],
      applied: 0,
      foreign: [],
      missing: [],
      resolved: [],
      escalated: [],
    };
    // Ambiguous creates first, by targeted query: the listings below then see them as known orders.
    await this.step(rep, () => this.resolveAmbiguous(rep));
    const seen = new Set<string>();
    let listed = false;
    if (surface === "spot") listed = await this.step(rep, () => this.spotSnapshot(rep, seen));
    else if (surface === "hft") {
      const cats = this.o.hftCategories ?? ["linear"];
      listed = await this.step(rep, () => this.hftSnapshot(rep, cats, seen));
      await this.step(rep, () => this.hftExecutions(rep, cats));
    }
    if (surface !== undefined) {
      await this.step(rep, () => this.missingLive(rep, surface, listed ? seen : undefined));
      rep.surfaces[surface] = rep.complete;
    }
    rep.durationMs = Date.now() - t0;
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
    const max = this.o.maxPages ?? DEFAULT_MAX_PAGES;
    for (const category of cats) {
      let cursor = "";
      let rows = 0;
      for (let page = 1; ; page++) {
        const res: V5List<V5OrderRecord> = await this.call("hft.query", () =>
          rest.realtime({ category, cursor }),
        );
        rows += res.list?.length ?? 0;
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
        if (page >= max) throw new Incomplete(pagesLeft("realtime", category, page, rows));
      }
    }
  }

  private async hftExecutions(rep: ReconcileReport, cats: readonly string[]): Promise<void> {
    const rest = this.o.rest;
    const feed = this.o.feed;
    const since = feed.lastExecMs > 0 ? feed.lastExecMs : Date.now() - (this.o.execLookbackMs ?? 3_600_000);
    const max = this.o.maxPages ?? DEFAULT_MAX_PAGES;
    for (const category of cats) {
      let cursor = "";
      let rows = 0;
      for (let page = 1; ; page++) {
        const q: [string, string][] = [
          ["category", category],
          ["startTime", String(since)],
        ];
        if (cursor !== "") q.push(["cursor", cursor]);
        const res = await this.call("hft.query", () => rest.call<V5List<V5Execution>>("hft.executions", q));
        rows += res.list?.length ?? 0;
        for (const x of res.list ?? []) {
          if (!feed.knows(x?.orderLinkId, x?.orderId)) continue;
          if (feed.v5Execution(x, Source.Query) !== undefined) rep.applied++;
        }
        cursor = res.nextPageCursor ?? "";
        if (cursor === "") break;
        if (page >= max) throw new Incomplete(pagesLeft("executions", category, page, rows));
      }
    }
  }

  // ---------- 3. live in the store, absent from the venue's listing ----------

  private async missingLive(
    rep: ReconcileReport,
    surface: ReconcileSurface,
    seen: Set<string> | undefined,
  ): Promise<void> {
    if (seen === undefined) return;
    const candidates: Order[] = [];
    for (const x of this.o.feed.store.liveSet()) {
      if (x.exchangeId === "" || x.status === Status.PendingNew || x.status === Status.Unknown) continue;
      // Its own cancel or amend still outstanding at the HTTP layer: that answer comes first.
      if (x.requestsOut > 0) continue;
      if (x.surface === surface && !seen.has(x.exchangeId)) candidates.push(x);
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
   * one: those are the resolver's; never one whose own request is outstanding). A found record is applied to the store here.
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

/** One report of several lanes' runs (each complete on its own surface or not). */
function mergeReports(reps: ReconcileReport[]): ReconcileReport {
  if (reps.length === 1) return reps[0]!;
  const out: ReconcileReport = {
    startedAtMs: Math.min(...reps.map((r) => r.startedAtMs)),
    durationMs: 0,
    complete: reps.every((r) => r.complete),
    surfaces: {},
    errors: [],
    applied: 0,
    foreign: [],
    missing: [],
    resolved: [],
    escalated: [],
  };
  for (const r of reps) {
    out.durationMs = Math.max(out.durationMs, r.startedAtMs + r.durationMs - out.startedAtMs);
    Object.assign(out.surfaces, r.surfaces);
    out.errors.push(...r.errors);
    out.applied += r.applied;
    out.foreign.push(...r.foreign);
    out.missing.push(...r.missing);
    out.resolved.push(...r.resolved);
    for (const id of r.escalated) if (!out.escalated.includes(id)) out.escalated.push(id);
  }
  return out;
}
