/**
 * The venue-sync module's one poller: one schedule per surface, each in one of two modes.
 *
 * - live: no trusted push stream covers the surface. Its open list (then its fill list, then a
 *   targeted query for each live order that left the list) is read every `pollIntervalMs` while it
 *   holds live orders; with none, at the audit pace only (a rejection verdict the venue may still
 *   overturn needs the list, nothing else does), never faster than `pollIntervalMs`.
 * - audit: a trusted stream covers it. The same round runs at the surface's audit interval only
 *   (`streams.auditIntervalMs`; HFT `streams.hftAuditIntervalMs`; 0 = never), to catch a message lost
 *   with the connection up.
 * A stream that drops puts its surface back in live mode with a round at once. A surface with a
 * cadence of its own (`VenueSurface.pollEveryMs`: Futures, no push stream) is read on it, whatever the mode.
 *
 * Budget: each request first takes a limiter token with deadline 0; when none is free the surface's
 * round ends there (counted), never queued behind strategy traffic. A failed request ends the round
 * and changes nothing: a network error is never evidence that an order is gone. Each schedule keeps
 * when its requests last succeeded and failed: a surface's poll is "working" while the latest
 * answered (readiness and the stream-loss trigger read it).
 */
import type { Surface } from "../domain/types.js";
import type { LimitClass, RateLimiter } from "../limits/index.js";
import { type OrderStore, Source, TERMINAL } from "../orders/index.js";
import { RateLimitedError } from "../rest/errors.js";
import { judgedRejected, type VenueIngest } from "./ingest.js";
import type { Resolver, SyncStats } from "./resolver.js";
import type { FillList, VenueSurface } from "./surface.js";

export type PollMode = "live" | "audit";

export interface PollerStats {
  /** Surface rounds run (live or audit). */
  rounds: number;
  /** Rounds cut short because no rate-limit token was free. */
  skippedBudget: number;
  errors: number;
  requests: number;
  /** Order records of known orders applied (or found unchanged). */
  records: number;
  /** Fills of known orders applied (or found applied). */
  executions: number;
}

export interface PollerDeps {
  store: OrderStore;
  /** The surfaces traded, each with its own schedule. */
  surfaces: readonly VenueSurface[];
  /** Order records (open lists). */
  applier: VenueIngest;
  /** Fill rows (their own applier: a fill's print is its id, not the order's state). */
  fillApplier: VenueIngest;
  /** Targeted queries for live orders that left the open list. */
  resolver: Pick<Resolver, "leavesAlone" | "resolveOne">;
  limiter: RateLimiter | undefined;
  /** The module's shared counters (`polls`). */
  stats: SyncStats;
  onVenueOk(): void;
  /** A request failed (timeout, reset, 5xx, 429): the venue did not answer normally. */
  onVenueFail?(): void;
}

export interface PollerOptions {
  pollIntervalMs: number;
  /** Audit interval of a surface whose stream is trusted, and the idle pace in live mode; 0 = never. */
  auditIntervalMs: number;
  /** A surface's own audit interval while its stream is trusted (HFT); default `auditIntervalMs`. */
  auditBySurface?: Partial<Record<Surface, number>>;
  /** Targeted queries per surface round, for live orders missing from the open list. Default 20. */
  maxTargetedPerRound?: number;
  /** The first fill list looks back this far when no fill was seen yet (ms). Default 600,000. */
  fillLookbackMs?: number;
}

interface Schedule {
  readonly surface: VenueSurface;
  mode: PollMode;
  lastMs: number;
  running: Promise<void> | undefined;
  /** Wall-clock ms of the last answered and the last failed request of this surface (0 = none). */
  okMs: number;
  failMs: number;
}

/** A surface's poll: working while its latest request was answered (or none failed yet). */
export interface PollHealth {
  working: boolean;
  okMs: number;
  failMs: number;
}

export class VenuePoller {
  readonly stats: PollerStats = {
    rounds: 0,
    skippedBudget: 0,
    errors: 0,
    requests: 0,
    records: 0,
    executions: 0,
  };
  /** Newest fill time seen (venue ms); the next fill list starts there (inclusive). */
  lastFillMs = 0;
  private readonly schedules: Schedule[];
  private stopped = false;

  constructor(
    private readonly d: PollerDeps,
    private readonly o: PollerOptions,
  ) {
    this.schedules = d.surfaces.map((surface) => ({
      surface,
      mode: "live",
      lastMs: 0,
      running: undefined,
      okMs: 0,
      failMs: 0,
    }));
  }

  /** Live polling for a surface (no trusted stream covers it); false for a surface not traded. */
  live(kind: Surface): boolean {
    return this.find(kind)?.mode === "live";
  }

  mode(kind: Surface): PollMode | undefined {
    return this.find(kind)?.mode;
  }

  /** The surface's poll health; undefined for a surface not traded. */
  health(kind: Surface): PollHealth | undefined {
    const s = this.find(kind);
    if (s === undefined) return undefined;
    return { working: s.failMs === 0 || s.okMs > s.failMs, okMs: s.okMs, failMs: s.failMs };
  }

  /** The finest interval of any schedule (the period the caller's timer should tick at most). */
  get tickMs(): number {
    const all = [
      this.o.pollIntervalMs,
      this.o.auditIntervalMs,
      ...Object.values(this.o.auditBySurface ?? {}),
    ];
    return Math.min(...all.filter((ms): ms is number => ms !== undefined && ms > 0));
  }

  /** The schedules start now (the first live round one interval later). */
  start(): void {
    this.stopped = false;
    const now = Date.now();
    for (const s of this.schedules) if (s.lastMs === 0) s.lastMs = now;
  }

  /** No new rounds; resolves once the running ones ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.schedules.map((s) => s.running));
  }

  /**
   * A surface's push stream became trusted (its polling drops to the audit) or not (live polling
   * again, with a round at once).
   */
  setTrusted(kind: Surface, trusted: boolean): void {
    const s = this.find(kind);
    if (s === undefined) return;
    const mode: PollMode = trusted ? "audit" : "live";
    if (s.mode === mode) return;
    s.mode = mode;
    if (!trusted && !this.stopped) void this.round(s);
  }

  /** Runs the rounds that are due (the venue sync's timer calls it). */
  tick(now: number = Date.now()): void {
    if (this.stopped) return;
    for (const s of this.schedules)
      if (s.running === undefined && this.due(s, now, false)) void this.round(s);
  }

  /** One live-pace round now: every surface holding live orders, and those whose audit is due. */
  async pollOnce(): Promise<void> {
    const now = Date.now();
    await Promise.all(this.schedules.filter((s) => this.due(s, now, true)).map((s) => this.round(s)));
  }

  /** A round of every surface now (the start-up and reconnect reconciliation). */
  async pollAll(): Promise<void> {
    await Promise.all(this.schedules.map((s) => this.round(s)));
  }

  private find(kind: Surface): Schedule | undefined {
    return this.schedules.find((s) => s.surface.kind === kind);
  }

  private due(s: Schedule, now: number, livePaceNow: boolean): boolean {
    const since = now - s.lastMs;
    // A surface with no push stream and a cadence of its own (Futures) keeps it in every mode.
    const own = s.surface.pollEveryMs;
    if (own !== undefined) return own > 0 && since >= own;
    const audit =
      s.mode === "audit"
        ? (this.o.auditBySurface?.[s.surface.kind] ?? this.o.auditIntervalMs)
        : this.o.auditIntervalMs <= 0
          ? 0
          : Math.max(this.o.auditIntervalMs, this.o.pollIntervalMs);
    if (audit > 0 && since >= audit) return true;
    if (s.mode === "audit" || (!livePaceNow && since < this.o.pollIntervalMs)) return false;
    return this.holdsLive(s.surface.kind);
  }

  private holdsLive(kind: Surface): boolean {
    for (const o of this.d.store.liveSet()) if (o.surface === kind) return true;
    return false;
  }

  /** One round of one surface (rounds of a surface never overlap: a call during one joins it). */
  private round(s: Schedule): Promise<void> {
    if (s.running !== undefined) return s.running;
    s.running = this.roundOf(s).finally(() => {
      s.running = undefined;
    });
    return s.running;
  }

  private async roundOf(s: Schedule): Promise<void> {
    if (this.stopped) return;
    s.lastMs = Date.now();
    this.stats.rounds++;
    this.d.stats.polls++;
    const surface = s.surface;
    const store = this.d.store;
    // Fills are read when orders were live at the round's start (the list may finish them first).
    const readFills = surface.fills !== undefined && this.holdsLive(surface.kind);
    const list = await this.fetch(surface.classOf("list"), () => surface.listOpen(), s);
    if (list === undefined || this.stopped) return;
    const seen = new Set<string>();
    for (const rec of list.rows) {
      const cid = surface.clientIdOf(rec);
      const o = (cid ? store.byClientId(cid) : undefined) ?? store.byExchangeId(surface.exchangeIdOf(rec));
      if (o === undefined) continue;
      seen.add(o.clientId);
      // A rejection the gateway concluded is overturned by the venue listing the order.
      if (TERMINAL[o.status] && !judgedRejected(o)) continue;
      this.stats.records++;
      this.d.applier.apply(o, surface, rec, Source.Poll);
    }
    if (readFills && !(await this.pollFills(surface.fills!, surface.classOf("list"), s))) return;
    // Live orders absent from a whole list have probably finished: ask for each (bounded per round).
    if (!list.complete) return;
    let budget = this.o.maxTargetedPerRound ?? 20;
    const jobs: Promise<unknown>[] = [];
    for (const o of store.liveSet()) {
      if (budget <= 0) break;
      if (o.surface !== surface.kind || seen.has(o.clientId) || o.exchangeId === "") continue;
      // The resolver would not ask now (busy with it, or its own request outstanding): no budget used.
      if (this.d.resolver.leavesAlone(o)) continue;
      budget--;
      jobs.push(this.d.resolver.resolveOne(o));
    }
    await Promise.all(jobs);
  }

  /** Fills since the newest one seen (inclusive: the store applies each fill id once). */
  private async pollFills(fills: FillList, cls: LimitClass, s: Schedule): Promise<boolean> {
    const since = this.lastFillMs > 0 ? this.lastFillMs : Date.now() - (this.o.fillLookbackMs ?? 600_000);
    const list = await this.fetch(cls, () => fills.list(since), s);
    if (list === undefined || this.stopped) return false;
    const store = this.d.store;
    for (const x of list.rows) {
      const cid = fills.clientIdOf(x);
      const o = (cid ? store.byClientId(cid) : undefined) ?? store.byExchangeId(fills.exchangeIdOf(x));
      if (o === undefined) continue;
      const t = fills.timeOf(x);
      if (t > this.lastFillMs) this.lastFillMs = t;
      this.stats.executions++;
      this.d.fillApplier.apply(o, fills, x, Source.Poll);
    }
    return true;
  }

  /** One request under a token of `cls` taken now or never; undefined when refused or failed. */
  private async fetch<T>(cls: LimitClass, f: () => Promise<T>, s: Schedule): Promise<T | undefined> {
    const limiter = this.d.limiter;
    const lim = limiter?.acquire(cls, "query", 0);
    if (lim !== undefined && lim.status !== "granted") {
      if (lim.status === "queued") lim.withdraw();
      this.stats.skippedBudget++;
      return undefined;
    }
    this.stats.requests++;
    try {
      const r = await f();
      s.okMs = Date.now();
      this.d.onVenueOk();
      limiter?.reportOutcome(cls, 200);
      return r;
    } catch (err) {
      this.stats.errors++;
      s.failMs = Date.now();
      this.d.onVenueFail?.();
      if (err instanceof RateLimitedError) limiter?.reportOutcome(cls, 429, err.retryAfterMs);
      else limiter?.reportOutcome(cls, (err as { status?: number }).status ?? 0);
      return undefined;
    }
  }
}
