/**
 * OrderSync: the push streams and the reconciler wired together for the engine, beside the venue-sync
 * module (src/venue/sync.ts), which owns the one resolver and the one poller.
 *
 * - Spot order and balance streams run all the time; so does the HFT private stream (NATS) when
 *   configured.
 * - A private order stream down (close, error or staleness) → its surface is untrusted: the venue
 *   sync's poller covers it at once (live polling).
 * - Up again → reconcile; the surface stays untrusted until a reconciliation completed with the
 *   stream up throughout. While trusted, the poller only audits that surface (HFT at
 *   `streams.hftAuditIntervalMs`, leaving the HFT rate bucket to creates and cancels).
 * - Start-up: streams connect, then a reconciliation; `ready` is false until one completes
 *   (when `holdUntilReconciled`, the engine holds new orders meanwhile). An incomplete
 *   reconciliation (venue unreachable) is retried with back-off.
 */
import type { Instrument } from "../domain/types.js";
import type { RateLimiter } from "../limits/index.js";
import { BalanceBook, type OrderStore } from "../orders/index.js";
import type { RestClient } from "../rest/client.js";
import { type FeedTap, type InstrumentIndex, InstrumentTable, OrderFeed } from "./feed.js";
import { type HftPrivateOptions, HftPrivateStream } from "./nats/hftPrivate.js";
import { type ReconcileReport, Reconciler, type Resolution } from "./reconciler.js";
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
  /** `ready` changed (true: new orders may flow; false: hold them). */
  onReady?(ready: boolean): void;
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
  rest: RestClient;
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
  /** Hold new orders (ready = false) while a reconciliation runs. Default true. */
  holdUntilReconciled?: boolean;
  /** First retry of an incomplete reconciliation (ms, doubles up to 30 s). Default 1,000. */
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
  /** Reconciliations run to the end (complete or not). */
  reconciles = 0;
  private isReady = false;
  private started = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs: number;
  /** Spot order stream needs a reconciliation before it is trusted again. */
  private spotUntrusted = true;
  /** HFT private stream needs a reconciliation before it is trusted again. */
  private hftUntrusted = true;

  constructor(o: OrderSyncOptions) {
    this.o = o;
    this.hold = o.holdUntilReconciled ?? true;
    this.retryMs = o.reconcileRetryMs ?? 1_000;
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
  }

  /** True when new orders may flow (always true when `holdUntilReconciled` is false). */
  get ready(): boolean {
    return !this.hold || this.isReady;
  }

  /** The Spot order stream is up and a reconciliation completed since it last connected. */
  get spotTrusted(): boolean {
    return !this.spotUntrusted;
  }

  /** The HFT private stream is up and a reconciliation completed since it last connected. */
  get hftTrusted(): boolean {
    return this.hftStream !== undefined && !this.hftUntrusted;
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
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.orderStream?.stop();
    this.balanceStream?.stop();
    await this.hftStream?.stop();
    await this.reconciler.idle();
  }

  /** Runs a reconciliation now (also used by the engine after a restart replay). */
  async reconcile(): Promise<ReconcileReport> {
    this.setReady(false);
    this.o.listener?.onReconcileStart?.();
    // The stream connection this run can vouch for: up now, and not reconnected by the end.
    const s = this.orderStream;
    const upBefore = s?.up ?? false;
    const connectsBefore = s?.stats.connects ?? 0;
    const h = this.hftStream?.transport;
    const hftUpBefore = h?.up ?? false;
    const hftConnectsBefore = h?.stats.connects ?? 0;
    const rep = await this.reconciler.reconcile();
    this.reconciles++;
    this.o.listener?.onReconcileDone?.(rep);
    if (rep.complete) {
      this.retryMs = this.o.reconcileRetryMs ?? 1_000;
      // The stream was up for the whole run: its pushes since are trusted again.
      if (s !== undefined && upBefore && s.up && s.stats.connects === connectsBefore && this.spotUntrusted) {
        this.spotUntrusted = false;
        this.o.venue.streamTrusted("spot", true);
        this.o.listener?.onSpotTrusted?.(true);
      }
      if (
        h !== undefined &&
        hftUpBefore &&
        h.up &&
        h.stats.connects === hftConnectsBefore &&
        this.hftUntrusted
      ) {
        this.hftUntrusted = false;
        this.o.venue.streamTrusted("hft", true);
        this.o.listener?.onHftTrusted?.(true);
      }
      this.setReady(true);
    } else this.scheduleRetry();
    return rep;
  }

  private scheduleRetry(): void {
    if (!this.started || this.retryTimer !== undefined) return;
    const ms = this.retryMs;
    this.retryMs = Math.min(30_000, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.started) void this.reconcile();
    }, ms);
    this.retryTimer.unref();
  }

  private setReady(v: boolean): void {
    const before = this.ready;
    this.isReady = v;
    if (this.ready !== before) this.o.listener?.onReady?.(this.ready);
  }

  private streamUp(name: string, reconnect: boolean): void {
    this.o.listener?.onStreamUp?.(name, reconnect);
    if (!this.started) return;
    // Principle 5: after any (re)connect, reconcile before trusting the stream.
    if (name === "spot.orders" && this.spotUntrusted) void this.reconcile();
    if (name === "hft.private" && this.hftUntrusted) void this.reconcile();
  }

  private streamDown(name: string, reason: string): void {
    this.o.listener?.onStreamDown?.(name, reason);
    if (name === "hft.private") {
      if (!this.hftUntrusted) {
        this.hftUntrusted = true;
        // Live polling resumes at once: one round now, then every pollIntervalMs.
        this.o.venue.streamTrusted("hft", false);
        this.o.listener?.onHftTrusted?.(false);
      }
      return;
    }
    if (name !== "spot.orders") return;
    if (!this.spotUntrusted) {
      this.spotUntrusted = true;
      this.o.venue.streamTrusted("spot", false);
      this.o.listener?.onSpotTrusted?.(false);
    }
  }
}
