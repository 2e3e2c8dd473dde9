/**
 * OrderSync: the push streams and the reconciler wired together for the engine, beside the venue-sync
 * module (src/venue/sync.ts), which owns the one resolver and the one poller.
 *
 * Everything below is per surface (Spot, HFT): one surface's stream or reconciliation never changes
 * another's state.
 * - Spot order and balance streams run all the time; so does the HFT private stream (NATS) when
 *   configured.
 * - A private order stream down (close, error or staleness) → its surface is untrusted: the venue
 *   sync's poller covers it at once (live polling).
 * - Up again → reconcile that surface; it stays untrusted until a reconciliation of it completed with
 *   the stream up throughout. While trusted, the poller only audits that surface (HFT at
 *   `streams.hftAuditIntervalMs`, leaving the HFT rate bucket to creates and cancels).
 * - A surface is `reconciling` while a reconciliation of it runs or its last one failed; a failed one is
 *   retried every `reconcileRetryMs` (fixed) until one completes. The engine decides what that means
 *   for new orders (a bounded hold, src/engine/readiness.ts); `ready` is the all-surfaces summary.
 */
import type { Instrument } from "../domain/types.js";
import type { RateLimiter } from "../limits/index.js";
import { BalanceBook, type OrderStore } from "../orders/index.js";
import type { VenueClient } from "../venue/client.js";
import { type FeedTap, type InstrumentIndex, InstrumentTable, OrderFeed } from "./feed.js";
import { type HftPrivateOptions, HftPrivateStream } from "./nats/hftPrivate.js";
import { type ReconcileReport, Reconciler, type ReconcileSurface, type Resolution } from "./reconciler.js";
import type { BackoffOptions, SocketStream, StreamStateListener } from "./socketStream.js";
import { type BalanceStreamStats, spotBalanceStream, spotOrderStream } from "./spotPrivate.js";

export interface SyncListener {
  onStreamUp?(name: string, reconnect: boolean): void;
  onStreamDown?(name: string, reason: string): void;
  onReconcileStart?(): void;
  onReconcileDone?(report: ReconcileReport): void;
  /**
   * The Spot order stream became trusted (up and reconciled since its last connect) or untrusted
   * (down). Maps onto RiskGate.streamUp() / streamDown().
   */
  onSpotTrusted?(trusted: boolean): void;
  /** The HFT private stream became trusted (HFT polling drops to the audit) or untrusted (polling resumes). */
  onHftTrusted?(trusted: boolean): void;
  /** `ready` changed (true: every surface reconciled; false: one is reconciling). */
  onReady?(ready: boolean): void;
  /** A surface's stream, trust or reconciliation changed (read `surfaceState` for the new one). */
  onSurface?(surface: ReconcileSurface): void;
}

/** One surface as the streams see it. */
export interface SurfaceSyncState {
  /** `none`: no push stream (polled); `down`; `up` (connected, not reconciled since); `trusted`. */
  stream: "none" | "down" | "up" | "trusted";
  /** `running`: a reconciliation of it is in progress; `failing`: the last one was incomplete. */
  reconcile: "idle" | "running" | "failing";
  /** The last reconciliation's first error ("" when it completed). */
  error: string;
  /** Wall-clock ms of the last change of `reconcile`. */
  sinceMs: number;
}

/** What a lane needs of its stream to vouch for a reconciliation (a Socket.IO or NATS connection). */
interface Vouch {
  readonly up: boolean;
  readonly stats: { readonly connects: number };
}

/** Per surface: its stream, whether it is trusted, its reconciliation and retry. */
interface Lane {
  readonly surface: ReconcileSurface;
  readonly stream: Vouch | undefined;
  untrusted: boolean;
  /** Reconciliations of this surface in progress (a retry may join a running one). */
  running: number;
  /** The last reconciliation was incomplete (or none ran yet). */
  failing: boolean;
  error: string;
  /** `reconcile` as last reported, and since when (wall clock, ms). */
  reported: SurfaceSyncState["reconcile"];
  sinceMs: number;
  retryTimer: NodeJS.Timeout | undefined;
}

/**
 * The venue-sync module as the streams see it (src/venue/sync.ts `VenueSync`, structurally): the one
 * owner of ambiguous orders and the one poller.
 */
export interface VenueLink {
  /** One resolution round for every open outcome (the reconciliation's first step). */
  settle(): Promise<Resolution[]>;
  /** A surface's push stream became trusted (polling drops to the audit) or not (live polling now). */
  streamTrusted(surface: "spot" | "hft", trusted: boolean): void;
}

export interface OrderSyncOptions {
  store: OrderStore;
  rest: VenueClient;
  limiter?: RateLimiter;
  instruments: InstrumentIndex | readonly Instrument[];
  apiKey: string;
  /** Socket.IO origin (the simulator's base URL, or `https://ws.coinswitch.co`). */
  streamBaseUrl: string;
  /** Spot streams and Spot reconciliation. Default true. */
  spot?: boolean;
  /** HFT categories to poll and reconcile; [] = none. Default ["linear"]. */
  hftCategories?: readonly string[];
  /** Default 30,000 ms. */
  staleMs?: number;
  backoff?: BackoffOptions;
  /** `ready` reports reconciliations (false: `ready` is always true). Default true. */
  holdUntilReconciled?: boolean;
  /** A surface's incomplete reconciliation is retried this often (ms, fixed). Default 500. */
  reconcileRetryMs?: number;
  balances?: BalanceBook;
  /** The venue sync: resolves ambiguous orders, polls what no trusted stream covers. */
  venue: VenueLink;
  listener?: SyncListener;
  /** Sees every valid order record / execution before it is applied (journal hook). */
  tap?: FeedTap;
  /** Called after each balance snapshot was applied (newest wins). */
  onBalance?: (book: BalanceBook) => void;
  /** HFT private stream over NATS (`feed` and `listener` are supplied here); undefined = HFT polled. */
  hftStream?: Omit<HftPrivateOptions, "feed" | "listener">;
  /** Pages an HFT listing of a reconciliation follows at most (venue.hftListMaxPages). */
  hftMaxPages?: number;
}

export class OrderSync {
  readonly feed: OrderFeed;
  readonly reconciler: Reconciler;
  readonly balances: BalanceBook;
  readonly balanceStats: BalanceStreamStats = { applied: 0, stale: 0, malformed: 0 };
  readonly orderStream: SocketStream | undefined;
  readonly balanceStream: SocketStream | undefined;
  readonly hftStream: HftPrivateStream | undefined;
  private readonly o: OrderSyncOptions;
  private readonly hold: boolean;
  private readonly retryMs: number;
  private readonly lanes = new Map<ReconcileSurface, Lane>();
  /** Reconciliations run to the end (complete or not). */
  reconciles = 0;
  private wasReady = false;
  private started = false;

  constructor(o: OrderSyncOptions) {
    this.o = o;
    this.hold = o.holdUntilReconciled ?? true;
    this.retryMs = o.reconcileRetryMs ?? 500;
    const index = Array.isArray(o.instruments)
      ? new InstrumentTable(o.instruments as readonly Instrument[])
      : (o.instruments as InstrumentIndex);
    this.feed = new OrderFeed(o.store, index);
    this.feed.tap = o.tap;
    this.balances = o.balances ?? new BalanceBook();
    const cats = o.hftCategories ?? ["linear"];
    this.reconciler = new Reconciler({
      feed: this.feed,
      rest: o.rest,
      limiter: o.limiter,
      spot: o.spot ?? true,
      hftCategories: cats,
      resolver: o.venue,
      maxPages: o.hftMaxPages,
    });
    const state: StreamStateListener = {
      onUp: (name, reconnect) => this.streamUp(name, reconnect),
      onDown: (name, reason) => this.streamDown(name, reason),
    };
    if (o.hftStream !== undefined && cats.length > 0) {
      this.hftStream = new HftPrivateStream({ ...o.hftStream, feed: this.feed, listener: state });
    }
    if (o.spot ?? true) {
      const common = {
        baseUrl: o.streamBaseUrl,
        apiKey: o.apiKey,
        listener: state,
        staleMs: o.staleMs,
        backoff: o.backoff,
      };
      this.orderStream = spotOrderStream(common, this.feed);
      this.balanceStream = spotBalanceStream(common, this.balances, this.balanceStats, o.onBalance);
    }
    const now = Date.now();
    for (const surface of this.reconciler.surfaces) {
      const stream = surface === "spot" ? this.orderStream : this.hftStream?.transport;
      this.lanes.set(surface, {
        surface,
        stream,
        untrusted: true,
        running: 0,
        // Nothing is trusted before the start-up reconciliation.
        failing: true,
        error: "not reconciled yet",
        reported: "failing",
        sinceMs: now,
        retryTimer: undefined,
      });
    }
  }

  /**
   * True when no surface is reconciling (always true when `holdUntilReconciled` is false). Per
   * surface: `surfaceState`.
   */
  get ready(): boolean {
    if (!this.hold) return true;
    for (const l of this.lanes.values()) if (l.running > 0 || l.failing) return false;
    return true;
  }

  /** The Spot order stream is up and a reconciliation completed since it last connected. */
  get spotTrusted(): boolean {
    return this.orderStream !== undefined && this.lanes.get("spot")?.untrusted === false;
  }

  /** The HFT private stream is up and a reconciliation completed since it last connected. */
  get hftTrusted(): boolean {
    return this.hftStream !== undefined && this.lanes.get("hft")?.untrusted === false;
  }

  /** The surfaces these streams reconcile. */
  get surfaces(): ReconcileSurface[] {
    return [...this.lanes.keys()];
  }

  /** One surface's stream and reconciliation; undefined for a surface not reconciled here. */
  surfaceState(surface: ReconcileSurface): SurfaceSyncState | undefined {
    const l = this.lanes.get(surface);
    if (l === undefined) return undefined;
    return {
      stream: l.stream === undefined ? "none" : !l.untrusted ? "trusted" : l.stream.up ? "up" : "down",
      reconcile: l.reported,
      error: l.error,
      sinceMs: l.sinceMs,
    };
  }

  /** Starts the streams, runs the start-up reconciliation; resolves with its report. */
  async start(): Promise<ReconcileReport> {
    this.started = true;
    this.orderStream?.start();
    this.balanceStream?.start();
    this.hftStream?.start();
    return this.reconcile();
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const l of this.lanes.values()) {
      if (l.retryTimer !== undefined) clearTimeout(l.retryTimer);
      l.retryTimer = undefined;
    }
    this.orderStream?.stop();
    this.balanceStream?.stop();
    await this.hftStream?.stop();
    await this.reconciler.idle();
  }

  /** Reconciles the given surfaces (default: all) now (also used by the engine after a restart replay). */
  async reconcile(scope: readonly ReconcileSurface[] = this.surfaces): Promise<ReconcileReport> {
    const lanes = scope.map((s) => this.lanes.get(s)).filter((l): l is Lane => l !== undefined);
    this.o.listener?.onReconcileStart?.();
    // The stream connection each lane's run can vouch for: up now, and not reconnected by the end.
    const before = lanes.map((l) => ({ up: l.stream?.up ?? false, connects: l.stream?.stats.connects ?? 0 }));
    for (const l of lanes) {
      if (l.retryTimer !== undefined) clearTimeout(l.retryTimer);
      l.retryTimer = undefined;
      l.running++;
      if (l.running === 1) this.changed(l);
    }
    let rep: ReconcileReport;
    try {
      rep = await this.reconciler.reconcile(lanes.map((l) => l.surface));
    } finally {
      for (const l of lanes) l.running--;
    }
    this.reconciles++;
    this.o.listener?.onReconcileDone?.(rep);
    lanes.forEach((l, i) => {
      const complete = rep.surfaces[l.surface] ?? rep.complete;
      const b = before[i]!;
      if (complete) {
        l.failing = false;
        l.error = "";
        const s = l.stream;
        // The stream was up for the whole run: its pushes since are trusted again.
        if (s !== undefined && b.up && s.up && s.stats.connects === b.connects && l.untrusted) {
          l.untrusted = false;
          this.trust(l.surface, true);
        }
      } else {
        l.failing = true;
        l.error = rep.errors.find((e) => !e.startsWith("query ")) ?? rep.errors[0] ?? "incomplete";
        this.scheduleRetry(l);
      }
      this.changed(l);
    });
    return rep;
  }

  /** A failed reconciliation of one surface runs again after `reconcileRetryMs`, until one completes. */
  private scheduleRetry(l: Lane): void {
    if (!this.started || l.retryTimer !== undefined) return;
    l.retryTimer = setTimeout(() => {
      l.retryTimer = undefined;
      if (this.started && l.running === 0) void this.reconcile([l.surface]);
    }, this.retryMs);
    l.retryTimer.unref();
  }

  private trust(surface: ReconcileSurface, trusted: boolean): void {
    this.o.venue.streamTrusted(surface, trusted);
    if (surface === "spot") this.o.listener?.onSpotTrusted?.(trusted);
    else this.o.listener?.onHftTrusted?.(trusted);
  }

  /** A lane's state changed: the listener hears of the surface, and of `ready` when it changed. */
  private changed(l: Lane): void {
    const rec = l.running > 0 ? "running" : l.failing ? "failing" : "idle";
    if (rec !== l.reported) {
      l.reported = rec;
      l.sinceMs = Date.now();
    }
    this.o.listener?.onSurface?.(l.surface);
    const ready = this.ready;
    if (ready !== this.wasReady) {
      this.wasReady = ready;
      this.o.listener?.onReady?.(ready);
    }
  }

  private laneOf(name: string): Lane | undefined {
    return name === "spot.orders"
      ? this.lanes.get("spot")
      : name === "hft.private"
        ? this.lanes.get("hft")
        : undefined;
  }

  private streamUp(name: string, reconnect: boolean): void {
    this.o.listener?.onStreamUp?.(name, reconnect);
    const l = this.laneOf(name);
    if (l === undefined) return;
    this.changed(l);
    // Principle 5: after any (re)connect, reconcile before trusting the stream.
    if (this.started && l.untrusted) void this.reconcile([l.surface]);
  }

  private streamDown(name: string, reason: string): void {
    this.o.listener?.onStreamDown?.(name, reason);
    const l = this.laneOf(name);
    if (l === undefined) return;
    if (!l.untrusted) {
      l.untrusted = true;
      // Live polling resumes at once: one round now, then every pollIntervalMs.
      this.trust(l.surface, false);
    }
    this.changed(l);
  }
}
