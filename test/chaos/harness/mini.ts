/**
 * Component-level target for the scenarios that need no engine: the real REST stack, rate limiter,
 * order store, venue sync (the one resolver and the one poller) and OrderSync (streams + reconciler)
 * against a simulator, glued by the few lines the engine performs per create and cancel (store →
 * limiter → REST → outcome). Every order decision is made by product code; this file only forwards
 * outcomes.
 */

import pino from "pino";
import type { SimHandle } from "../../../sim/index.js";
import { INSTRUMENTS } from "../../../sim/index.js";
import type { KeyPair } from "../../../src/auth/keys.js";
import { ClockError } from "../../../src/clock/clockSync.js";
import { loadConfig } from "../../../src/config/load.js";
import type { Instrument, Surface } from "../../../src/domain/types.js";
import { type LimitClass, type LimiterOptions, RateLimiter } from "../../../src/limits/index.js";
import { Ev, gridOf, type Order, OrderStore, Source, Status } from "../../../src/orders/index.js";
import { AuthError, RateLimitedError, RestError, ValidationError } from "../../../src/rest/errors.js";
import { OrderSync } from "../../../src/streams/index.js";
import { makeGrid } from "../../../src/venue/orderFields.js";
import { createRestStack, type RestStack } from "../../../src/venue/stack.js";
import { buildSurfaces } from "../../../src/venue/surfaces.js";
import { VenueSync } from "../../../src/venue/sync.js";
import { type GatewayView, normFromStore } from "./truth.js";

export const CHAOS_INSTRUMENTS: Instrument[] = INSTRUMENTS.map((i, n) => ({
  id: n + 1,
  surface: i.surface,
  symbol: i.symbol,
  venue: i.venue,
  base: i.base,
  quote: i.quote,
  tickSize: i.tickSize,
  qtyStep: i.qtyStep,
  minQty: i.minQty,
  maxQty: i.maxQty,
  minNotional: String(i.minNotional),
  active: true,
}));

export interface PlaceParams {
  surface: "spot" | "hft";
  /** `BTC/INR` (Spot, coinswitchx) or `ETHUSDT` (HFT). */
  symbol: string;
  side: "buy" | "sell";
  price: string;
  qty: string;
}

export interface MiniOptions {
  sim: SimHandle;
  keys: KeyPair;
  /** Socket.IO origin; the simulator by default (a CuttableProxy in partition scenarios). */
  streamBaseUrl?: string;
  staleMs?: number;
  pollIntervalMs?: number;
  /** Account-wide limiter (false = none). */
  limiter?: LimiterOptions | false;
  /** Clock sync options (false = no clock sync). */
  clock?:
    | false
    | { warnMs?: number; refuseMs?: number; resyncMs?: number; onWarn?: (m: string, off: number) => void };
  headersTimeoutMs?: number;
  /** How long a create may wait in the limiter queue (0 = now or throttled). */
  createWaitMs?: number;
  /** How long a cancel may wait in the limiter queue. */
  cancelWaitMs?: number;
}

export interface MiniStats {
  creates: number;
  createUnknown: number;
  createRejected: number;
  throttled: number;
  cancels: number;
  cancelUnknown: number;
  cancelRejected: number;
  resends: number;
  clockRefused: number;
}

function instOf(p: { surface: "spot" | "hft"; symbol: string }): Instrument {
  const i = CHAOS_INSTRUMENTS.find(
    (x) =>
      x.surface === p.surface && x.symbol === p.symbol && (p.surface === "hft" || x.venue === "coinswitchx"),
  );
  if (i === undefined) throw new Error(`no instrument ${p.surface} ${p.symbol}`);
  return i;
}

const CREATE: Record<Surface, LimitClass> = {
  spot: "spot.create",
  hft: "hft.create",
  futures: "futures.create",
};
const CANCEL: Record<Surface, LimitClass> = {
  spot: "spot.cancel",
  hft: "hft.cancel",
  futures: "futures.cancel",
};

export class MiniGateway {
  readonly store: OrderStore;
  readonly stack: RestStack;
  readonly sync: OrderSync;
  /** The one resolver and the one poller. */
  readonly venue: VenueSync;
  readonly limiter: RateLimiter | undefined;
  readonly stats: MiniStats = {
    creates: 0,
    createUnknown: 0,
    createRejected: 0,
    throttled: 0,
    cancels: 0,
    cancelUnknown: 0,
    cancelRejected: 0,
    resends: 0,
    clockRefused: 0,
  };
  /** Order of cancel/create requests as they left (for priority assertions). */
  readonly sent: Array<"create" | "cancel"> = [];
  private readonly params = new Map<string, PlaceParams>();
  private readonly inflight = new Set<Promise<void>>();
  private nextNo = 0;
  /** Why creates/cancels were throttled locally (limiter reason), counted. */
  readonly throttleReasons = new Map<string, number>();
  private readonly createWaitMs: number;
  private readonly cancelWaitMs: number;

  private constructor(o: MiniOptions) {
    this.createWaitMs = o.createWaitMs ?? 0;
    this.cancelWaitMs = o.cancelWaitMs ?? 2_000;
    this.limiter = o.limiter === false || o.limiter === undefined ? undefined : new RateLimiter(o.limiter);
    this.store = new OrderStore({
      pendingNewDeadlineNs: 3_000_000_000,
      pendingCancelDeadlineNs: 3_000_000_000,
      listener: {
        onUpdate() {},
        onFill() {},
        onCancelReleased: (ord) => this.track(this.sendCancel(ord)),
      },
    });
    this.stack = createRestStack({
      keys: o.keys,
      spotBaseUrl: o.sim.baseUrl,
      hftBaseUrl: o.sim.baseUrl,
      http: {
        headersTimeoutMs: o.headersTimeoutMs ?? 400,
        bodyTimeoutMs: o.headersTimeoutMs ?? 400,
        prewarm: 1,
        connections: 4,
      },
      presign: false,
      clock: o.clock === false || o.clock === undefined ? false : { samples: 3, resyncMs: 0, ...o.clock },
    });
    for (const i of CHAOS_INSTRUMENTS)
      this.stack.client.setGrid(i.surface, i.symbol, makeGrid(i.tickSize, i.qtyStep));
    const store = this.store;
    const counter = { inc() {} };
    const grids = new Map(CHAOS_INSTRUMENTS.map((i) => [i.id, { grid: gridOf(i), inst: i }]));
    const book = { byId: (id: number) => grids.get(id) };
    const config = loadConfig({
      env: {},
      overrides: {
        "streams.pollIntervalMs": o.pollIntervalMs ?? 100,
        "orders.unknownQueryIntervalMs": 100,
      },
    });
    this.venue = new VenueSync(
      {
        store,
        applyVenueEvent: (ev) => store.apply(ev),
        resendCreate: (ord) => {
          this.stats.resends++;
          this.track(this.sendCreate(ord));
        },
        doSendCancel: (ord) => this.track(this.sendCancel(ord)),
      },
      this.stack.client,
      buildSurfaces(this.stack.client, book, config),
      book,
      this.limiter,
      undefined,
      { resolutions: counter, escalations: counter, invalidEvents: counter },
      pino({ level: "silent" }),
      config,
    );
    this.sync = new OrderSync({
      store: this.store,
      rest: this.stack.client,
      limiter: this.limiter,
      instruments: CHAOS_INSTRUMENTS,
      apiKey: o.keys.apiKey,
      streamBaseUrl: o.streamBaseUrl ?? o.sim.baseUrl,
      staleMs: o.staleMs ?? 30_000,
      backoff: { minMs: 50, maxMs: 300 },
      reconcileRetryMs: 100,
      venue: this.venue,
    });
  }

  static async start(o: MiniOptions): Promise<MiniGateway> {
    const g = new MiniGateway(o);
    await g.stack.start();
    await g.venue.start();
    await g.sync.start();
    return g;
  }

  private track(p: Promise<void>): void {
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
  }

  /** Creates the order in the store (client id minted now) and sends it in the background. */
  place(p: PlaceParams): Order {
    const i = instOf(p);
    const o = this.store.create({
      sessionId: 1,
      clientOrderNo: ++this.nextNo,
      instrumentId: i.id,
      symbol: i.symbol,
      surface: p.surface,
      side: p.side,
      type: "limit",
      tif: "GTC",
      priceTicks: Math.round(Number(p.price) / Number(i.tickSize)),
      qtyLots: Math.round(Number(p.qty) / Number(i.qtyStep)),
    });
    this.params.set(o.clientId, p);
    this.track(this.sendCreate(o));
    return o;
  }

  /** Runs the store's cancel guard; sends when it says so (a held cancel goes out on the create ack). */
  cancel(o: Order): void {
    const d = this.store.requestCancel(o.clientId);
    if (d.kind === "send") this.track(this.sendCancel(o));
  }

  private async token(cls: LimitClass, kind: "create" | "cancel", waitMs: number): Promise<string> {
    if (this.limiter === undefined) return "";
    const r = this.limiter.acquire(cls, kind, waitMs);
    if (r.status === "granted") return "";
    const done = r.status === "queued" ? await r.done : r;
    if (done.status === "granted") return "";
    this.throttleReasons.set(done.reason, (this.throttleReasons.get(done.reason) ?? 0) + 1);
    return `throttled: ${done.reason}`;
  }

  private outcome(cls: LimitClass, err: unknown): void {
    if (this.limiter === undefined) return;
    if (err === undefined) this.limiter.reportOutcome(cls, 200);
    else if (err instanceof RateLimitedError) this.limiter.reportOutcome(cls, 429, err.retryAfterMs);
    else if (err instanceof RestError) this.limiter.reportOutcome(cls, err.status);
  }

  async sendCreate(o: Order): Promise<void> {
    const p = this.params.get(o.clientId)!;
    const cls = CREATE[o.surface];
    const throttled = await this.token(cls, "create", this.createWaitMs);
    if (throttled !== "") {
      this.stats.throttled++;
      this.store.rejectCreate(o.clientId, throttled);
      return;
    }
    this.store.markSent(o.clientId);
    this.sent.push("create");
    this.stats.creates++;
    const rest = this.stack.client;
    try {
      if (o.surface === "spot") {
        const rec = await rest.createSpotOrder({
          symbol: p.symbol,
          side: p.side,
          price: p.price,
          quantity: p.qty,
          exchange: "coinswitchx",
          clientOrderId: o.clientId,
        });
        this.store.ackCreate(o.clientId, rec.order_id);
        this.sync.feed.spotOrder(rec, Source.Rest);
      } else {
        const ack = await rest.createHftOrder({
          category: "linear",
          symbol: p.symbol,
          side: p.side,
          orderType: "limit",
          qty: p.qty,
          price: p.price,
          positionIdx: 0,
          timeInForce: "GTC",
          orderLinkId: o.clientId,
        });
        this.store.ackCreate(o.clientId, ack.orderId);
      }
      this.outcome(cls, undefined);
    } catch (e) {
      this.outcome(cls, e);
      if (e instanceof ValidationError || e instanceof RateLimitedError) {
        if (e instanceof RateLimitedError) this.stats.throttled++;
        else this.stats.createRejected++;
        this.store.rejectCreate(o.clientId, e.message);
      } else if (e instanceof ClockError || e instanceof AuthError) {
        // Refused before the venue handled anything: by our clock guard, or by the venue's auth (401).
        this.stats.clockRefused++;
        this.store.rejectCreate(o.clientId, (e as Error).message);
      } else {
        this.stats.createUnknown++;
        this.store.createUnknown(o.clientId);
      }
    }
  }

  async sendCancel(o: Order): Promise<void> {
    const cls = CANCEL[o.surface];
    const throttled = await this.token(cls, "cancel", this.cancelWaitMs);
    if (throttled !== "") {
      this.stats.throttled++;
      this.store.cancelOutcome(o.clientId, Ev.CancelRejected, undefined, throttled);
      return;
    }
    this.sent.push("cancel");
    this.stats.cancels++;
    const rest = this.stack.client;
    try {
      if (o.surface === "spot") {
        const rec = await rest.cancelSpotOrder(o.exchangeId);
        this.store.cancelOutcome(o.clientId, Ev.CancelAcked);
        this.sync.feed.spotOrder(rec, Source.Rest);
      } else {
        await rest.cancelHftOrder({ category: "linear", symbol: o.symbol, orderId: o.exchangeId });
        this.store.cancelOutcome(o.clientId, Ev.CancelAcked);
      }
      this.outcome(cls, undefined);
    } catch (e) {
      this.outcome(cls, e);
      if (
        e instanceof ValidationError ||
        e instanceof RateLimitedError ||
        e instanceof ClockError ||
        e instanceof AuthError
      ) {
        this.stats.cancelRejected++;
        this.store.cancelOutcome(o.clientId, Ev.CancelRejected, undefined, (e as Error).message);
      } else {
        this.stats.cancelUnknown++;
        this.store.cancelOutcome(o.clientId, Ev.CancelOutcomeUnknown);
      }
    }
  }

  /** Waits for every request in flight. */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  /** Orders still waiting for an answer or a resolution. */
  unresolved(): Order[] {
    return [...this.store.liveSet()].filter(
      (o) =>
        o.status === Status.PendingNew || o.status === Status.Unknown || o.status === Status.PendingCancel,
    );
  }

  /**
   * What the engine does for ambiguous orders once the faults stop: requests finish; orders the
   * streams and the poller did not resolve on their own within `graceMs` get a reconciliation (the
   * resolution-by-client-id path), repeated until nothing is ambiguous or the time is up.
   */
  async settle(timeoutMs = 8_000, graceMs = 1_500): Promise<void> {
    const end = Date.now() + timeoutMs;
    await this.idle();
    const grace = Date.now() + graceMs;
    while (this.unresolved().length > 0 && Date.now() < grace) await new Promise((r) => setTimeout(r, 20));
    while (this.unresolved().length > 0 && Date.now() < end) {
      this.reconciles++;
      await this.sync.reconcile();
      await this.idle();
      if (this.unresolved().length > 0) await new Promise((r) => setTimeout(r, 50));
    }
  }
  /** Reconciliations `settle` had to ask for. */
  reconciles = 0;

  /** Every order as the store believes it. */
  views(): GatewayView[] {
    const out: GatewayView[] = [];
    for (const p of this.params.keys()) {
      const o = this.store.byClientId(p)!;
      out.push({
        key: o.clientId,
        clientId: o.clientId,
        exchangeId: o.exchangeId,
        status: normFromStore(o.status),
        filledLots: o.filledLots,
      });
    }
    return out;
  }

  async stop(): Promise<void> {
    await this.idle();
    await this.sync.stop();
    await this.venue.stop();
    this.limiter?.close();
    await this.stack.stop();
  }
}
