/**
 * The venue-sync module's composition: the resolver (sole owner of ambiguous orders), the poller with
 * its audit mode (fast polling of the open lists while no push stream is trusted, a slow audit while
 * one is), the start-up reconciliation after a journal replay, and the kill switch's sweep of orders
 * the gateway does not hold. Push feeds (Spot Socket.IO, HFT NATS) plug in through `VenueFeed` and
 * hand ambiguous orders to the same resolver.
 */
import type { Logger } from "pino";
import type { Config } from "../config/load.js";
import type { Surface } from "../domain/types.js";
import type { Journal } from "../journal/writer.js";
import type { RateLimiter } from "../limits/index.js";
import {
  type ApplyResult,
  type Grid,
  type Order,
  type OrderEvent,
  type OrderStore,
  Status,
} from "../orders/index.js";
import type { RestClient } from "../rest/client.js";
import { VenueIngest } from "./ingest.js";
import { type UnheldListing, unheldOrders } from "./orphans.js";
import { VenuePoller } from "./poller.js";
import { newSyncStats, type Resolution, Resolver } from "./resolver.js";
import type { Surfaces, VenueSurface } from "./surface.js";

/** What a push feed says about one surface it covers (src/streams' `SurfaceSyncState`). */
export interface FeedSurfaceState {
  /** `none`: no push stream (polled); `down`; `up` (connected, not reconciled since); `trusted`. */
  stream: "none" | "down" | "up" | "trusted";
  /** `running`: a reconciliation of the surface is in progress; `failing`: its last one was incomplete. */
  reconcile: "idle" | "running" | "failing";
  /** Why the last reconciliation was incomplete ("" when it completed). */
  error: string;
  /** Wall-clock ms of the last change of `reconcile`. */
  sinceMs: number;
}

/** The seam for push feeds (Spot Socket.IO consumers, HFT NATS) and external reconcilers. */
export interface VenueFeed {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Pull open and recent orders and apply them through the store (the reconnect path). */
  reconcile(): Promise<void>;
  /** True once the feed is connected and reconciled (every surface it covers). */
  readonly ready: boolean;
  /** Per surface; undefined for one the feed does not cover. A feed without it is judged by `ready`. */
  surfaceState?(surface: Surface): FeedSurfaceState | undefined;
  /** Calls `fn` whenever a surface's state changes (readiness releases held orders at once). */
  watch?(fn: (surface: Surface) => void): void;
}

/** What the venue sync needs of the engine (structural: no import of the engine). */
export interface SyncEngine {
  readonly store: OrderStore;
  applyVenueEvent(ev: OrderEvent): ApplyResult;
  resendCreate(o: Order): void;
  doSendCancel(o: Order, cls: ReturnType<VenueSurface["classOf"]>): void;
  /** An in-place amend left unanswered, decided from the venue's record (optional). */
  resolveAmend?(o: Order, s: VenueSurface, rec: unknown, deadlinePassed: boolean): boolean;
}

export interface SyncBook {
  byId(instrumentId: number): { grid: Grid } | undefined;
}

export interface SyncMetrics {
  resolutions: { inc(): void };
  escalations: { inc(): void };
  invalidEvents: { inc(): void };
}

/**
 * The knobs the venue sync reads, as the config holds them (src/config/schema.ts documents each):
 * the config itself is passed, never a copy of its fields.
 */
export interface SyncConfig {
  /** `surfaces`: the surfaces traded (polled, listed); the surface objects come built (surfaces.ts). */
  venue: Pick<Config["venue"], "surfaces">;
  streams: Pick<Config["streams"], "pollIntervalMs" | "auditIntervalMs" | "hftAuditIntervalMs">;
  orders: Pick<Config["orders"], "unknownQueryIntervalMs" | "unknownQueryRetries">;
}

/** Settings that are no knobs (tests, tools). */
export interface SyncTuning {
  /** Targeted queries per poll round for orders missing from the open lists. Default 20. */
  maxTargetedPerRound?: number;
  /** How long a sent create may still be answered; default: the REST client's timeouts. */
  answerDeadlineMs?: number;
}

export class VenueSync implements VenueFeed {
  readonly name = "poll";
  readonly surfaces: Surfaces;
  readonly resolver: Resolver;
  readonly poller: VenuePoller;
  readonly stats = newSyncStats();
  private readonly applier: VenueIngest;
  private readonly active: VenueSurface[];
  private readonly resolveIntervalMs: number;
  private readonly maxQueries: number;
  private timer: NodeJS.Timeout | undefined;
  private soonTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastResolveMs = 0;
  /** Wall-clock ms of the last successful venue answer (health). */
  lastVenueOkMs = 0;
  /** Wall-clock ms of the last failed poll request (timeout, reset, 5xx, 429; 0 = none). */
  lastVenueFailMs = 0;
  ready = false;

  constructor(
    private readonly engine: SyncEngine,
    client: RestClient,
    /** The surfaces the engine's command path uses too (built once: surfaces.ts). */
    surfaces: Surfaces,
    book: SyncBook,
    private readonly limiter: RateLimiter | undefined,
    private readonly journal: Journal | undefined,
    metrics: SyncMetrics,
    private readonly log: Logger,
    config: SyncConfig,
    tuning: SyncTuning = {},
  ) {
    this.resolveIntervalMs = config.orders.unknownQueryIntervalMs;
    this.maxQueries = config.orders.unknownQueryRetries;
    this.surfaces = surfaces;
    this.active = config.venue.surfaces.map((s) => this.surfaces[s]);
    const applierDeps = {
      gridOf: (id: number) => book.byId(id)?.grid,
      apply: (ev: OrderEvent) => {
        this.stats.applied++;
        return engine.applyVenueEvent(ev);
      },
      journal,
      onInvalid: () => metrics.invalidEvents.inc(),
    };
    this.applier = new VenueIngest(applierDeps);
    const onVenueOk = () => {
      this.lastVenueOkMs = Date.now();
    };
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
        resolveAmend: (ord, s, rec, late) => engine.resolveAmend?.(ord, s, rec, late) ?? false,
        onVenueOk,
        onQuery: () => metrics.resolutions.inc(),
        onEscalation: () => metrics.escalations.inc(),
      },
      {
        maxQueries: config.orders.unknownQueryRetries,
        answerDeadlineMs: tuning.answerDeadlineMs ?? client.answerDeadlineMs,
      },
    );
    const streams = config.streams;
    this.poller = new VenuePoller(
      {
        store: engine.store,
        surfaces: this.active,
        applier: this.applier,
        fillApplier: new VenueIngest(applierDeps),
        resolver: this.resolver,
        limiter,
        stats: this.stats,
        onVenueOk,
        onVenueFail: () => {
          this.lastVenueFailMs = Date.now();
        },
      },
      {
        pollIntervalMs: streams.pollIntervalMs,
        auditIntervalMs: streams.auditIntervalMs,
        auditBySurface: { hft: streams.hftAuditIntervalMs },
        maxTargetedPerRound: tuning.maxTargetedPerRound,
      },
    );
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.resolver.stopped = false;
    this.applier.stopped = false;
    this.lastResolveMs = Date.now();
    this.poller.start();
    const period = Math.max(10, Math.min(this.poller.tickMs, this.resolveIntervalMs, 100));
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
    await this.poller.stop();
  }

  /**
   * A surface's push stream became trusted (its polling drops to the audit) or untrusted (live polling
   * again at once). Resolution is unaffected either way.
   */
  streamTrusted(kind: Surface, trusted: boolean): void {
    this.poller.setTrusted(kind, trusted);
  }

  /** The surfaces traded (each has a poll schedule). */
  get traded(): Surface[] {
    return this.active.map((s) => s.kind);
  }

  /** The surface's poll answered at its latest request (or none failed yet); false for one not traded. */
  pollWorking(kind: Surface): boolean {
    return this.poller.health(kind)?.working ?? false;
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
    if (now - this.lastResolveMs >= this.resolveIntervalMs) {
      this.lastResolveMs = now;
      void this.resolver.round();
    }
    this.poller.tick(now);
  }

  /** Start-up / reconnect reconciliation: poll the open lists, then query every non-terminal order. */
  async reconcile(): Promise<void> {
    this.resolver.retryEscalated();
    await this.poller.pollAll();
    const r = this.resolver;
    for (let round = 0; round < this.maxQueries; round++) {
      // An order whose own request is still outstanding is settled by that request's answer (or its
      // timeout, which hands it to the resolver): not asked about meanwhile.
      const todo = [...this.engine.store.liveSet()].filter(
        (o) =>
          !r.leavesAlone(o) &&
          (o.status === Status.PendingNew || o.status === Status.Unknown || r.isReplayed(o.clientId)),
      );
      if (todo.length === 0) break;
      await Promise.all(todo.map((o) => r.resolveOne(o)));
      if (todo.every((o) => o.status !== Status.PendingNew && o.status !== Status.Unknown)) break;
      await new Promise((res) => setTimeout(res, Math.min(200, this.resolveIntervalMs)));
    }
    this.ready = true;
  }

  // ---------------------------------------------------------------- orders the store does not hold

  /** Open venue orders of every traded surface that the store does not hold as live (orphans.ts). */
  unheld(): Promise<UnheldListing> {
    return unheldOrders(this.active, this.engine.store);
  }

  /**
   * Kill switch, venue side: cancels every working order of the account that the store does not hold
   * as live (e.g. sent in the window a power loss took from the journal). Returns the cancels sent.
   */
  async cancelForeign(): Promise<number> {
    let sent = 0;
    const listing = await this.unheld();
    for (const f of listing.failed)
      this.log.error(
        { surface: f.surface, err: f.err },
        "kill switch: could not list the venue's open orders",
      );
    const jobs: Promise<void>[] = [];
    for (const { surface: s, rec: r, status: st } of listing.rows) {
      if (st !== Status.New && st !== Status.PartiallyFilled) continue;
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
            this.log.warn({ order: what, err: (err as Error).message }, "kill switch: foreign cancel failed");
          }
        })(),
      );
    }
    await Promise.all(jobs);
    if (sent > 0) this.log.warn({ sent }, "kill switch: cancelled orders the gateway did not hold");
    return sent;
  }
}
