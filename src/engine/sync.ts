/**
 * Venue synchronisation the engine owns: resolution of ambiguous orders by client id (targeted
 * queries with bounded retries, decided by `decideResolution`), and a polling feed of live orders
 * (HFT `/v5/order/realtime`, Spot `GET /orders?open=true`, then targeted queries for orders that left
 * the open list). It is also the start-up reconciliation after a journal replay.
 *
 * The Spot Socket.IO consumers and the dedicated reconciler (src/streams) plug in through `VenueFeed`;
 * while a push feed is up, this poller can be told to stand down (`setPushFeedUp(true)`) and only
 * resolution keeps running.
 */
import type { Logger } from "pino";
import type { Journal } from "../journal/writer.js";
import type { LimitClass, RateLimiter } from "../limits/index.js";
import {
  DEFAULT_RESOLUTION_POLICY,
  decideResolution,
  eventFromSpotOrder,
  eventFromV5Order,
  type Grid,
  monoNs,
  NormalizeError,
  newEvent,
  type Order,
  type OrderEvent,
  type QueryOutcome,
  type ResolutionPolicy,
  Source,
  Status,
  statusFromSpot,
  statusFromV5,
  TERMINAL,
} from "../orders/index.js";
import type { RestClient } from "../rest/client.js";
import { ValidationError } from "../rest/errors.js";
import type { SpotOrderRecord, V5OrderRecord } from "../rest/wire.js";
import type { Engine } from "./engine.js";
import type { InstrumentBook } from "./instruments.js";
import type { EngineMetrics } from "./metrics.js";

/** The seam for push feeds (Spot Socket.IO consumers, HFT NATS later) and external reconcilers. */
export interface VenueFeed {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Pull open and recent orders and apply them through the store (the reconnect path). */
  reconcile(): Promise<void>;
  /** True once the feed is connected and reconciled. */
  readonly ready: boolean;
}

export interface SyncOptions {
  hftCategory: string;
  surfaces: readonly ("spot" | "hft")[];
  pollIntervalMs: number;
  resolveIntervalMs: number;
  maxQueries: number;
  /**
   * While a push feed is trusted, re-read the open lists this often (0 = never): a pushed record lost
   * with the connection still up carries no sequence gap to reveal it.
   */
  auditIntervalMs?: number;
  /** Targeted queries per poll round for orders missing from the open lists. */
  maxTargetedPerRound?: number;
}

type Found = { outcome: QueryOutcome; spot?: SpotOrderRecord; v5?: V5OrderRecord };

const NETWORK: QueryOutcome = { kind: "networkError" };
const NOT_FOUND: QueryOutcome = { kind: "notFound" };

export class VenueSync implements VenueFeed {
  readonly name = "poll";
  private timer: NodeJS.Timeout | undefined;
  private soonTimer: NodeJS.Timeout | undefined;
  private readonly urgent = new Set<string>();
  private readonly inFlight = new Set<string>();
  private readonly escalated = new Set<string>();
  /** Orders rebuilt from the journal: resolved without re-sending (the strategy may be gone). */
  private readonly replayed = new Set<string>();
  private readonly seenPrint = new Map<string, string>();
  private readonly ev: OrderEvent = newEvent();
  private pushFeedUp = false;
  private polling = false;
  private stopped = false;
  private lastPollMs = 0;
  private lastResolveMs = 0;
  /** Wall-clock ms of the last successful venue answer (health). */
  lastVenueOkMs = 0;
  ready = false;
  readonly stats = { polls: 0, queries: 0, throttledQueries: 0, applied: 0, resends: 0, escalations: 0 };
  private readonly policy: ResolutionPolicy;
  private readonly replayPolicy: ResolutionPolicy;

  constructor(
    private readonly engine: Engine,
    private readonly client: RestClient,
    private readonly book: InstrumentBook,
    private readonly limiter: RateLimiter | undefined,
    private readonly journal: Journal | undefined,
    private readonly metrics: EngineMetrics,
    private readonly log: Logger,
    private readonly o: SyncOptions,
  ) {
    this.policy = { ...DEFAULT_RESOLUTION_POLICY, maxQueries: o.maxQueries };
    this.replayPolicy = { maxQueries: o.maxQueries, maxResends: 0 };
  }

  async start(): Promise<void> {
    this.stopped = false;
    const period = Math.max(10, Math.min(this.o.pollIntervalMs, this.o.resolveIntervalMs, 100));
    this.timer = setInterval(() => this.tick(), period);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.soonTimer) clearTimeout(this.soonTimer);
    this.timer = undefined;
    this.soonTimer = undefined;
  }

  /** A push feed covers live orders: polling drops to the audit interval (resolution continues). */
  setPushFeedUp(up: boolean): void {
    this.pushFeedUp = up;
  }

  markReplayed(clientId: string): void {
    this.replayed.add(clientId);
  }

  /** Ask about this order within a few ms (unknown outcome, cancel answered, cancel refused). */
  resolveSoon(o: Order): void {
    if (this.stopped) return;
    this.urgent.add(o.clientId);
    if (this.soonTimer === undefined) {
      this.soonTimer = setTimeout(() => {
        this.soonTimer = undefined;
        void this.resolveRound();
      }, 5);
      this.soonTimer.unref();
    }
  }

  private tick(): void {
    const now = Date.now();
    if (now - this.lastResolveMs >= this.o.resolveIntervalMs) {
      this.lastResolveMs = now;
      void this.resolveRound();
    }
    const every = this.pushFeedUp ? (this.o.auditIntervalMs ?? 0) : this.o.pollIntervalMs;
    if (every > 0 && now - this.lastPollMs >= every) {
      this.lastPollMs = now;
      void this.poll();
    }
  }

  /** Start-up / reconnect reconciliation: poll the open lists, then query every non-terminal order. */
  async reconcile(): Promise<void> {
    await this.poll();
    for (let round = 0; round < this.o.maxQueries; round++) {
      const open = [...this.engine.store.liveSet()].filter((o) => !this.escalated.has(o.clientId));
      const todo = open.filter(
        (o) => o.status === Status.PendingNew || o.status === Status.Unknown || this.replayed.has(o.clientId),
      );
      if (todo.length === 0) break;
      await Promise.all(todo.map((o) => this.resolveOne(o)));
      for (const o of todo) if (TERMINAL[o.status] || o.exchangeId !== "") this.replayed.delete(o.clientId);
      if (todo.every((o) => o.status !== Status.PendingNew && o.status !== Status.Unknown)) break;
      await new Promise((r) => setTimeout(r, Math.min(200, this.o.resolveIntervalMs)));
    }
    this.ready = true;
  }

  // ---------------------------------------------------------------- resolution

  private async resolveRound(): Promise<void> {
    if (this.stopped) return;
    const ids = new Set(this.urgent);
    this.urgent.clear();
    for (const o of this.engine.store.needingResolution(monoNs())) ids.add(o.clientId);
    const jobs: Promise<void>[] = [];
    for (const id of ids) {
      if (this.inFlight.has(id) || this.escalated.has(id)) continue;
      const o = this.engine.store.byClientId(id);
      if (o === undefined || TERMINAL[o.status]) continue;
      jobs.push(this.resolveOne(o));
    }
    await Promise.all(jobs);
  }

  /** One targeted query by client id, then the decision of `decideResolution`. */
  async resolveOne(o: Order): Promise<void> {
    if (this.inFlight.has(o.clientId)) return;
    this.inFlight.add(o.clientId);
    try {
      const inResolution =
        o.status === Status.PendingNew || o.status === Status.Unknown || o.status === Status.PendingCancel;
      // Our own limiter refusing the query sends nothing and learns nothing: it must not use up one of
      // the order's bounded attempts (else a busy restart escalates orders no query ever reached).
      const cls: LimitClass = o.surface === "spot" ? "spot.listOrders" : "hft.query";
      const lim = this.limiter?.acquire(cls, "query", 0);
      if (lim !== undefined && lim.status !== "granted") {
        if (lim.status === "queued") lim.withdraw();
        this.stats.throttledQueries++;
        this.urgent.add(o.clientId);
        return;
      }
      if (inResolution) this.engine.store.noteResolveAttempt(o);
      const f = await this.query(o, cls);
      if (this.stopped) return; // answered after shutdown: the journal and the store are closed
      if (!inResolution) {
        if (f.outcome.kind === "found") this.applyFound(o, f, Source.Query);
        return;
      }
      const replayed = this.replayed.has(o.clientId);
      // After a restart an in-flight create may still land: a few not-founds before giving up on it.
      if (replayed && f.outcome.kind === "notFound" && o.resolveAttempts < 3) {
        this.urgent.add(o.clientId);
        return;
      }
      const policy = replayed ? this.replayPolicy : this.policy;
      const d = decideResolution(o, f.outcome, policy);
      switch (d.action) {
        case "apply_record":
          this.applyFound(o, f, Source.Query);
          break;
        case "resend_cancel":
          this.applyFound(o, f, Source.Query);
          if (o.status === Status.PendingCancel)
            this.engine.doSendCancel(o, o.surface === "spot" ? "spot.cancel" : "hft.cancel");
          break;
        case "resend_create":
          this.stats.resends++;
          this.log.info(
            { clientId: o.clientId, attempt: o.sends + 1 },
            "create not found at the venue: resend with the same client id",
          );
          this.engine.resendCreate(o);
          break;
        case "apply_event":
          // Journaled as the create's answer (the venue said "no such order"), not as a note: a later
          // replay applies it, so the order is not replayed as in flight at every restart.
          this.journal?.response({
            clientId: o.clientId,
            op: "create",
            status: 404,
            latencyUs: 0,
            body: `resolution: ${d.reason}`,
          });
          this.engine.store.rejectCreate(o.clientId, d.reason);
          break;
        case "escalate":
          this.escalated.add(o.clientId);
          this.stats.escalations++;
          this.metrics.escalations.inc();
          this.journal?.note({ text: `escalated: ${d.reason}`, clientId: o.clientId });
          this.log.error(
            { clientId: o.clientId, status: o.status, reason: d.reason },
            "order outcome unresolved",
          );
          break;
        case "retry_query":
          this.urgent.add(o.clientId);
          break;
        case "none":
          break;
      }
    } finally {
      this.inFlight.delete(o.clientId);
    }
  }

  /** One query by client id; the caller has taken the limiter token for `cls`. */
  private async query(o: Order, cls: LimitClass): Promise<Found> {
    this.stats.queries++;
    this.metrics.resolutions.inc();
    try {
      if (o.surface === "hft") {
        const res = await this.client.realtime({ category: this.o.hftCategory, orderLinkId: o.clientId });
        this.ok(cls);
        const row = (res.list ?? []).find((r) => r.orderLinkId === o.clientId);
        if (row === undefined) return { outcome: NOT_FOUND };
        return { outcome: { kind: "found", status: statusFromV5(row.orderStatus) }, v5: row };
      }
      const rec = await this.client.getSpotOrder({ clientOrderId: o.clientId });
      this.ok(cls);
      return { outcome: { kind: "found", status: statusFromSpot(rec.status) }, spot: rec };
    } catch (err) {
      // [assumed] a 404 on GET /order by client id is the venue's authoritative "never placed".
      if (err instanceof ValidationError && err.status === 404) {
        this.ok(cls);
        return { outcome: NOT_FOUND };
      }
      this.limiter?.reportOutcome(cls, (err as { status?: number }).status ?? 0);
      return { outcome: NETWORK };
    }
  }

  private ok(cls: LimitClass): void {
    this.lastVenueOkMs = Date.now();
    this.limiter?.reportOutcome(cls, 200);
  }

  private applyFound(o: Order, f: Found, source: Source): void {
    if (f.v5) this.applyV5(o, f.v5, source);
    else if (f.spot) this.applySpot(o, f.spot, source);
  }

  // ---------------------------------------------------------------- kill switch sweep

  /**
   * Kill switch, venue side: cancels every working order of the account that the store does not hold
   * as live (e.g. sent in the window a power loss took from the journal). Returns the cancels sent.
   */
  async cancelForeign(): Promise<number> {
    let sent = 0;
    const store = this.engine.store;
    const foreign = (clientId: string | null | undefined, exchangeId: string): boolean => {
      const o = (clientId ? store.byClientId(clientId) : undefined) ?? store.byExchangeId(exchangeId);
      return o === undefined || TERMINAL[o.status];
    };
    const cancel = async (what: string, cls: LimitClass, run: () => Promise<unknown>): Promise<void> => {
      const lim = this.limiter?.acquire(cls, "cancel", 5_000);
      const r = lim === undefined || lim.status !== "queued" ? lim : await lim.done;
      if (r !== undefined && r.status !== "granted") return;
      this.journal?.note({ text: `kill switch: cancel foreign order ${what}` });
      sent++;
      try {
        await run();
        this.limiter?.reportOutcome(cls, 200);
      } catch (err) {
        this.limiter?.reportOutcome(cls, (err as { status?: number }).status ?? 0);
        this.log.warn({ order: what, err: (err as Error).message }, "kill switch: foreign cancel failed");
      }
    };
    const jobs: Promise<void>[] = [];
    try {
      if (this.o.surfaces.includes("spot")) {
        const res = await this.client.listSpotOrders({ open: true, count: 500 });
        for (const r of res.orders ?? []) {
          if (
            (r.status === "OPEN" || r.status === "PARTIALLY_EXECUTED") &&
            foreign(r.client_order_id, r.order_id)
          ) {
            jobs.push(cancel(r.order_id, "spot.cancel", () => this.client.cancelSpotOrder(r.order_id)));
          }
        }
      }
      if (this.o.surfaces.includes("hft")) {
        let cursor: string | undefined;
        for (let page = 0; page < 20; page++) {
          const res = await this.client.realtime({ category: this.o.hftCategory, cursor });
          for (const r of res.list ?? []) {
            if (
              (r.orderStatus === "New" || r.orderStatus === "PartiallyFilled") &&
              foreign(r.orderLinkId, r.orderId)
            ) {
              jobs.push(
                cancel(r.orderId, "hft.cancel", () =>
                  this.client.cancelHftOrder({
                    category: this.o.hftCategory,
                    symbol: r.symbol,
                    orderId: r.orderId,
                  }),
                ),
              );
            }
          }
          cursor = res.nextPageCursor;
          if (!cursor) break;
        }
      }
    } catch (err) {
      this.log.error({ err: (err as Error).message }, "kill switch: could not list the venue's open orders");
    }
    await Promise.all(jobs);
    if (sent > 0) this.log.warn({ sent }, "kill switch: cancelled orders the gateway did not hold");
    return sent;
  }

  // ---------------------------------------------------------------- polling

  /** One round over the open lists of every surface; orders that left them get a targeted query. */
  async poll(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    // Any poll (the start-up reconciliation's too) restarts the periodic schedule: no second poll
    // right behind it.
    this.lastPollMs = Date.now();
    this.stats.polls++;
    const seen = new Set<string>();
    let listedSpot = false;
    let listedHft = false;
    try {
      if (this.o.surfaces.includes("hft")) listedHft = await this.pollHft(seen);
      if (this.o.surfaces.includes("spot")) listedSpot = await this.pollSpot(seen);
      let budget = this.o.maxTargetedPerRound ?? 20;
      const jobs: Promise<void>[] = [];
      for (const o of this.engine.store.liveSet()) {
        if (budget <= 0) break;
        if (seen.has(o.clientId) || o.exchangeId === "" || this.inFlight.has(o.clientId)) continue;
        if (o.surface === "spot" ? !listedSpot : !listedHft) continue;
        budget--;
        jobs.push(this.resolveOne(o));
      }
      await Promise.all(jobs);
    } finally {
      this.polling = false;
    }
  }

  private async pollHft(seen: Set<string>): Promise<boolean> {
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const lim = this.limiter?.acquire("hft.query", "query", 0);
      if (lim !== undefined && lim.status !== "granted") {
        if (lim.status === "queued") lim.withdraw();
        return false;
      }
      let res: Awaited<ReturnType<RestClient["realtime"]>>;
      try {
        res = await this.client.realtime({ category: this.o.hftCategory, cursor });
        this.ok("hft.query");
      } catch (err) {
        this.limiter?.reportOutcome("hft.query", (err as { status?: number }).status ?? 0);
        return false;
      }
      for (const row of res.list ?? []) {
        const o = row.orderLinkId ? this.engine.store.byClientId(row.orderLinkId) : undefined;
        if (o === undefined) continue;
        seen.add(o.clientId);
        if (!TERMINAL[o.status]) this.applyV5(o, row, Source.Poll);
      }
      cursor = res.nextPageCursor;
      if (!cursor) return true;
    }
    return false; // more pages than we read: do not infer that absent orders closed
  }

  private async pollSpot(seen: Set<string>): Promise<boolean> {
    const lim = this.limiter?.acquire("spot.listOrders", "query", 0);
    if (lim !== undefined && lim.status !== "granted") {
      if (lim.status === "queued") lim.withdraw();
      return false;
    }
    try {
      const res = await this.client.listSpotOrders({ open: true, count: 500 });
      this.ok("spot.listOrders");
      const rows = res.orders ?? [];
      for (const rec of rows) {
        const o = rec.client_order_id ? this.engine.store.byClientId(rec.client_order_id) : undefined;
        if (o === undefined) continue;
        seen.add(o.clientId);
        if (!TERMINAL[o.status]) this.applySpot(o, rec, Source.Poll);
      }
      return rows.length < 500;
    } catch (err) {
      this.limiter?.reportOutcome("spot.listOrders", (err as { status?: number }).status ?? 0);
      return false;
    }
  }

  private applyV5(o: Order, row: V5OrderRecord, source: Source): void {
    const print = `${row.orderStatus}|${row.cumExecQty}|${row.updatedTime}`;
    this.applyRecord(
      o,
      row,
      print,
      source,
      source === Source.Poll ? "hft-poll" : "hft-query",
      eventFromV5Order,
    );
  }

  private applySpot(o: Order, rec: SpotOrderRecord, source: Source): void {
    const print = `${rec.status}|${rec.executed_qty}|${rec.updated_time}`;
    this.applyRecord(
      o,
      rec,
      print,
      source,
      source === Source.Poll ? "spot-poll" : "spot-query",
      eventFromSpotOrder,
    );
  }

  /**
   * One venue record of a known order: skipped when nothing changed since the last one (same status,
   * cumulative quantity and update time), else journaled, normalised and applied.
   */
  private applyRecord<R>(
    o: Order,
    rec: R,
    print: string,
    source: Source,
    journalSource: string,
    normalize: (rec: R, grid: Grid, source: Source, ns: number, ev: OrderEvent) => unknown,
  ): void {
    if (this.stopped) return; // a poll answered after shutdown
    if (this.seenPrint.get(o.clientId) === print && !needsAnswer(o)) return;
    const e = this.book.byId(o.instrumentId);
    if (e === undefined) return;
    this.journal?.event({ source: journalSource, clientId: o.clientId, body: JSON.stringify(rec) });
    try {
      normalize(rec, e.grid, source, monoNs(), this.ev);
    } catch (err) {
      if (err instanceof NormalizeError) {
        this.metrics.invalidEvents.inc();
        return;
      }
      throw err;
    }
    this.seenPrint.set(o.clientId, print);
    this.stats.applied++;
    this.engine.applyVenueEvent(this.ev);
    if (TERMINAL[o.status]) this.seenPrint.delete(o.clientId);
  }
}

function needsAnswer(o: Order): boolean {
  return o.status === Status.PendingNew || o.status === Status.Unknown || o.status === Status.PendingCancel;
}
