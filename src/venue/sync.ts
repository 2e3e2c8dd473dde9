/**
 * The venue-sync module's composition: the resolver (sole owner of ambiguous orders), the poller with
 * its audit mode (fast polling of the open lists while no push stream is trusted, a slow audit while
 * one is), the start-up reconciliation after a journal replay, and the kill switch's sweep of orders
 * the gateway does not hold. Push feeds (Spot Socket.IO, HFT NATS) plug in through `VenueFeed` and
 * hand ambiguous orders to the same resolver.
 */
import type { Logger } from "pino";
import type { Surface } from "../domain/types.js";
import type { Journal } from "../journal/writer.js";
import type { RateLimiter } from "../limits/index.js";
import {
  type ApplyResult,
  type Grid,
  type Order,
  type OrderEvent,
  type OrderStore,
  Source,
  Status,
  TERMINAL,
} from "../orders/index.js";
import type { RestClient } from "../rest/client.js";
import { judgedRejected, RecordApplier } from "./apply.js";
import { FuturesSurface } from "./futures.js";
import { HftSurface } from "./hft.js";
import { newSyncStats, type Resolution, Resolver } from "./resolver.js";
import { SpotSurface } from "./spot.js";
import type { Surfaces, VenueSurface } from "./surface.js";

/** The seam for push feeds (Spot Socket.IO consumers, HFT NATS) and external reconcilers. */
export interface VenueFeed {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Pull open and recent orders and apply them through the store (the reconnect path). */
  reconcile(): Promise<void>;
  /** True once the feed is connected and reconciled. */
  readonly ready: boolean;
}

/** What the venue sync needs of the engine (structural: no import of the engine). */
export interface SyncEngine {
  readonly store: OrderStore;
  applyVenueEvent(ev: OrderEvent): ApplyResult;
  resendCreate(o: Order): void;
  doSendCancel(o: Order, cls: ReturnType<VenueSurface["classOf"]>): void;
}

export interface SyncBook {
  byId(instrumentId: number): { grid: Grid } | undefined;
}

export interface SyncMetrics {
  resolutions: { inc(): void };
  escalations: { inc(): void };
  invalidEvents: { inc(): void };
}

export interface SyncOptions {
  hftCategory: string;
  surfaces: readonly Surface[];
  /** The Futures open list's poll cadence (ms; it has no push stream); default 3000. */
  futuresPollMs?: number;
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
  /** How long a sent create may still be answered; default: the REST client's timeouts. */
  answerDeadlineMs?: number;
  /** Spot `expiry_period` of creates prepared through the Spot surface. */
  spotExpirySeconds?: number;
}

export class VenueSync implements VenueFeed {
  readonly name = "poll";
  readonly surfaces: Surfaces;
  readonly resolver: Resolver;
  readonly stats = newSyncStats();
  private readonly applier: RecordApplier;
  private readonly active: VenueSurface[];
  private timer: NodeJS.Timeout | undefined;
  private soonTimer: NodeJS.Timeout | undefined;
  private pushFeedUp = false;
  private polling = false;
  private stopped = false;
  private lastPollMs = 0;
  private readonly lastSurfaceMs: Partial<Record<Surface, number>> = {};
  private readonly surfaceAuditMs: Partial<Record<Surface, number>> = {};
  private lastResolveMs = 0;
  /** Wall-clock ms of the last successful venue answer (health). */
  lastVenueOkMs = 0;
  ready = false;

  constructor(
    private readonly engine: SyncEngine,
    client: RestClient,
    book: SyncBook,
    private readonly limiter: RateLimiter | undefined,
    private readonly journal: Journal | undefined,
    metrics: SyncMetrics,
    private readonly log: Logger,
    private readonly o: SyncOptions,
  ) {
    this.surfaces = {
      spot: new SpotSurface(client, o.spotExpirySeconds ?? 90),
      hft: new HftSurface(client, o.hftCategory),
      futures: new FuturesSurface(client, o.futuresPollMs ?? 3_000),
    };
    this.active = o.surfaces.map((s) => this.surfaces[s]);
    this.applier = new RecordApplier({
      gridOf: (id) => book.byId(id)?.grid,
      apply: (ev) => {
        this.stats.applied++;
        return engine.applyVenueEvent(ev);
      },
      journal,
      onInvalid: () => metrics.invalidEvents.inc(),
    });
    this.resolver = new Resolver(
      {
        store: engine.store,
        surfaces: this.surfaces,
        applier: this.applier,
        limiter,
        journal,
        log,
        stats: this.stats,
        resendCreate: (ord) => engine.resendCreate(ord),
        resendCancel: (ord) => engine.doSendCancel(ord, this.surfaces[ord.surface].classOf("cancel")),
        onVenueOk: () => {
          this.lastVenueOkMs = Date.now();
        },
        onQuery: () => metrics.resolutions.inc(),
        onEscalation: () => metrics.escalations.inc(),
      },
      { maxQueries: o.maxQueries, answerDeadlineMs: o.answerDeadlineMs ?? client.answerDeadlineMs },
    );
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.resolver.stopped = false;
    this.applier.stopped = false;
    const period = Math.max(10, Math.min(this.o.pollIntervalMs, this.o.resolveIntervalMs, 100));
    this.timer = setInterval(() => this.tick(), period);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.resolver.stopped = true;
    this.applier.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.soonTimer) clearTimeout(this.soonTimer);
    this.timer = undefined;
    this.soonTimer = undefined;
  }

  /** A push feed covers live orders: polling drops to the audit interval (resolution continues). */
  setPushFeedUp(up: boolean): void {
    this.pushFeedUp = up;
  }

  /**
   * A surface's own, longer audit interval (ms) in audit rounds, e.g. HFT while its private stream is
   * trusted, so its rate bucket is left to creates and cancels; undefined = the common audit interval.
   */
  setSurfaceAudit(kind: Surface, ms: number | undefined): void {
    if (ms === undefined) delete this.surfaceAuditMs[kind];
    else this.surfaceAuditMs[kind] = ms;
  }

  markReplayed(clientId: string): void {
    this.resolver.markReplayed(clientId);
  }

  /** Ask about this order within a few ms (unknown outcome, cancel answered, cancel refused). */
  resolveSoon(o: Order): void {
    if (this.stopped) return;
    this.resolver.urgent.add(o.clientId);
    if (this.soonTimer === undefined) {
      this.soonTimer = setTimeout(() => {
        this.soonTimer = undefined;
        void this.resolver.round();
      }, 5);
      this.soonTimer.unref();
    }
  }

  /** One resolution step for every open outcome (a push feed's reconciliation calls it first). */
  settle(): Promise<Resolution[]> {
    this.resolver.retryEscalated();
    return this.resolver.round();
  }

  private tick(): void {
    const now = Date.now();
    if (now - this.lastResolveMs >= this.o.resolveIntervalMs) {
      this.lastResolveMs = now;
      void this.resolver.round();
    }
    const every = this.pushFeedUp ? (this.o.auditIntervalMs ?? 0) : this.o.pollIntervalMs;
    if (every > 0 && now - this.lastPollMs >= every) {
      this.lastPollMs = now;
      void this.poll(this.pushFeedUp);
      return;
    }
    // A surface without a push stream (Futures) keeps its own cadence while the others are audited.
    for (const s of this.active)
      if (s.pollEveryMs !== undefined && now - (this.lastSurfaceMs[s.kind] ?? 0) >= s.pollEveryMs) {
        void this.poll(this.pushFeedUp, s);
        return;
      }
  }

  /** Start-up / reconnect reconciliation: poll the open lists, then query every non-terminal order. */
  async reconcile(): Promise<void> {
    this.resolver.retryEscalated();
    await this.poll();
    const r = this.resolver;
    for (let round = 0; round < this.o.maxQueries; round++) {
      const todo = [...this.engine.store.liveSet()].filter(
        (o) =>
          !r.isBusy(o.clientId) &&
          (o.status === Status.PendingNew || o.status === Status.Unknown || r.isReplayed(o.clientId)),
      );
      if (todo.length === 0) break;
      await Promise.all(todo.map((o) => r.resolveOne(o)));
      if (todo.every((o) => o.status !== Status.PendingNew && o.status !== Status.Unknown)) break;
      await new Promise((res) => setTimeout(res, Math.min(200, this.o.resolveIntervalMs)));
    }
    this.ready = true;
  }

  // ---------------------------------------------------------------- kill switch sweep

  /**
   * Kill switch, venue side: cancels every working order of the account that the store does not hold
   * as live (e.g. sent in the window a power loss took from the journal). Returns the cancels sent.
   */
  async cancelForeign(): Promise<number> {
    let sent = 0;
    const store = this.engine.store;
    const jobs: Promise<void>[] = [];
    for (const s of this.active) {
      let rows: unknown[];
      try {
        rows = (await s.listOpen()).rows;
      } catch (err) {
        this.log.error(
          { err: (err as Error).message },
          "kill switch: could not list the venue's open orders",
        );
        continue;
      }
      for (const r of rows) {
        const st = s.statusOf(r);
        if (st !== Status.New && st !== Status.PartiallyFilled) continue;
        const cid = s.clientIdOf(r);
        const held = (cid ? store.byClientId(cid) : undefined) ?? store.byExchangeId(s.exchangeIdOf(r));
        if (held !== undefined && !TERMINAL[held.status]) continue;
        jobs.push(
          (async () => {
            const cls = s.classOf("cancel");
            const lim = this.limiter?.acquire(cls, "cancel", 5_000);
            const g = lim === undefined || lim.status !== "queued" ? lim : await lim.done;
            if (g !== undefined && g.status !== "granted") return;
            const what = s.exchangeIdOf(r);
            this.journal?.note({ text: `kill switch: cancel foreign order ${what}` });
            sent++;
            try {
              await s.cancelRecord(r);
              this.limiter?.reportOutcome(cls, 200);
            } catch (err) {
              this.limiter?.reportOutcome(cls, (err as { status?: number }).status ?? 0);
              this.log.warn(
                { order: what, err: (err as Error).message },
                "kill switch: foreign cancel failed",
              );
            }
          })(),
        );
      }
    }
    await Promise.all(jobs);
    if (sent > 0) this.log.warn({ sent }, "kill switch: cancelled orders the gateway did not hold");
    return sent;
  }

  // ---------------------------------------------------------------- polling

  /**
   * One round over the open lists of every surface (or of `only`); orders that left them get a
   * targeted query.
   */
  async poll(audit = false, only?: VenueSurface): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    const now = Date.now();
    // Any full poll (the start-up reconciliation's too) restarts the periodic schedule.
    if (only === undefined) this.lastPollMs = now;
    this.stats.polls++;
    const seen = new Set<string>();
    const listed = new Set<string>();
    try {
      for (const s of only === undefined ? this.active : [only]) {
        const every = s.pollEveryMs ?? (audit ? this.surfaceAuditMs[s.kind] : undefined);
        if (every !== undefined && (every <= 0 || now - (this.lastSurfaceMs[s.kind] ?? 0) < every)) continue;
        this.lastSurfaceMs[s.kind] = now;
        if (await this.pollSurface(s, seen)) listed.add(s.kind);
      }
      let budget = this.o.maxTargetedPerRound ?? 20;
      const jobs: Promise<unknown>[] = [];
      for (const o of this.engine.store.liveSet()) {
        if (budget <= 0) break;
        if (seen.has(o.clientId) || o.exchangeId === "" || this.resolver.isBusy(o.clientId)) continue;
        if (!listed.has(o.surface)) continue;
        budget--;
        jobs.push(this.resolver.resolveOne(o));
      }
      await Promise.all(jobs);
    } finally {
      this.polling = false;
    }
  }

  /** Applies the open list of one surface; true when it was read whole. */
  private async pollSurface(s: VenueSurface, seen: Set<string>): Promise<boolean> {
    const cls = s.classOf("list");
    const lim = this.limiter?.acquire(cls, "query", 0);
    if (lim !== undefined && lim.status !== "granted") {
      if (lim.status === "queued") lim.withdraw();
      return false;
    }
    let list: Awaited<ReturnType<VenueSurface["listOpen"]>>;
    try {
      list = await s.listOpen();
      this.lastVenueOkMs = Date.now();
      this.limiter?.reportOutcome(cls, 200);
    } catch (err) {
      this.limiter?.reportOutcome(cls, (err as { status?: number }).status ?? 0);
      return false;
    }
    for (const rec of list.rows) {
      const cid = s.clientIdOf(rec);
      const o = cid ? this.engine.store.byClientId(cid) : undefined;
      if (o === undefined) continue;
      seen.add(o.clientId);
      // A rejection the gateway concluded is overturned by the venue listing the order.
      if (!TERMINAL[o.status] || judgedRejected(o)) this.applier.apply(o, s, rec, Source.Poll);
    }
    return list.complete;
  }
}
