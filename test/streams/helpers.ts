/**
 * Test rig for the stream components: an in-process simulator on port 0, a registered key, the real
 * REST stack, the real order store, and a tiny driver that does what the engine will do for a create
 * (store.create → markSent → REST → ack / reject / unknown).
 */

import pino from "pino";
import {
  type DeepPartial,
  INSTRUMENTS,
  type SimHandle,
  type SimOptions,
  startSimulator,
} from "../../sim/index.js";
import type { KeyPair } from "../../src/auth/keys.js";
import { loadConfig } from "../../src/config/load.js";
import type { Instrument } from "../../src/domain/types.js";
import type { RateLimiter } from "../../src/limits/index.js";
import { type CancelDecision, Ev, gridOf, type Order, OrderStore } from "../../src/orders/index.js";
import { OutcomeUnknownError, ValidationError } from "../../src/rest/errors.js";
import { makeGrid } from "../../src/venue/orderFields.js";
import { createRestStack, type RestStack } from "../../src/venue/stack.js";
import { buildSurfaces } from "../../src/venue/surfaces.js";
import { type SyncTuning, VenueSync } from "../../src/venue/sync.js";
import { call, newKeys } from "../sim/helpers.js";

export { call, newKeys };

export const DOMAIN_INSTRUMENTS: Instrument[] = INSTRUMENTS.map((i, n) => ({
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

export function inst(surface: "spot" | "hft", symbol: string, venue?: string): Instrument {
  const i = DOMAIN_INSTRUMENTS.find(
    (x) => x.surface === surface && x.symbol === symbol && (venue === undefined || x.venue === venue),
  );
  if (i === undefined) throw new Error(`no instrument ${symbol}`);
  return i;
}

export interface Rig {
  sim: SimHandle;
  keys: KeyPair;
  /** A second funded account: the counterparty. */
  other: KeyPair;
  stack: RestStack;
  store: OrderStore;
  /** Status names each order passed through, by client id. */
  seen: Map<string, number[]>;
  close(): Promise<void>;
}

export async function startRig(simOptions: DeepPartial<SimOptions> = {}): Promise<Rig> {
  const keys = newKeys();
  const other = newKeys();
  const sim = await startSimulator({
    apiKeys: [keys.apiKey, other.apiKey],
    timeMode: "manual",
    market: { tickMs: 0 },
    ...simOptions,
  });
  const stack = createRestStack({
    keys,
    spotBaseUrl: sim.baseUrl,
    hftBaseUrl: sim.baseUrl,
    http: { headersTimeoutMs: 1_000, bodyTimeoutMs: 1_000, prewarm: 1, connections: 2 },
    presign: false,
    clock: false,
  });
  await stack.start();
  for (const i of DOMAIN_INSTRUMENTS)
    stack.client.setGrid(i.surface, i.symbol, makeGrid(i.tickSize, i.qtyStep));
  const seen = new Map<string, number[]>();
  const store = new OrderStore({
    pendingNewDeadlineNs: 0,
    pendingCancelDeadlineNs: 0,
    listener: {
      onUpdate(o) {
        let l = seen.get(o.clientId);
        if (l === undefined) {
          l = [];
          seen.set(o.clientId, l);
        }
        l.push(o.status);
      },
      onFill() {},
      onCancelReleased() {},
    },
  });
  return {
    sim,
    keys,
    other,
    stack,
    store,
    seen,
    async close() {
      await stack.stop();
      await sim.stop();
    },
  };
}

let orderNo = 0;

export interface SpotParams {
  symbol: string;
  exchange?: string;
  side: "buy" | "sell";
  price: string;
  qty: string;
  expirySeconds?: number;
}

/** What the engine will do for a Spot limit create. Returns the order (status per the REST outcome). */
export async function placeSpot(rig: Rig, p: SpotParams): Promise<Order> {
  const i = inst("spot", p.symbol, p.exchange ?? "coinswitchx");
  const o = rig.store.create({
    sessionId: 1,
    clientOrderNo: ++orderNo,
    instrumentId: i.id,
    symbol: i.symbol,
    surface: "spot",
    side: p.side,
    type: "limit",
    tif: "GTC",
    priceTicks: Math.round(Number(p.price) / Number(i.tickSize)),
    qtyLots: Math.round(Number(p.qty) / Number(i.qtyStep)),
  });
  await sendSpot(rig, o, p);
  return o;
}

export async function sendSpot(rig: Rig, o: Order, p: SpotParams): Promise<void> {
  rig.store.markSent(o.clientId);
  try {
    const rec = await rig.stack.client.createSpotOrder({
      symbol: p.symbol,
      side: p.side,
      price: p.price,
      quantity: p.qty,
      exchange: p.exchange ?? "coinswitchx",
      clientOrderId: o.clientId,
      expirySeconds: p.expirySeconds,
    });
    rig.store.ackCreate(o.clientId, rec.order_id);
  } catch (e) {
    if (e instanceof ValidationError) rig.store.rejectCreate(o.clientId, e.exchangeMessage);
    else if (e instanceof OutcomeUnknownError) rig.store.createUnknown(o.clientId);
    else throw e;
  }
}

export async function placeHft(
  rig: Rig,
  p: { symbol: string; side: "buy" | "sell"; price: string; qty: string },
): Promise<Order> {
  const i = inst("hft", p.symbol);
  const o = rig.store.create({
    sessionId: 1,
    clientOrderNo: ++orderNo,
    instrumentId: i.id,
    symbol: i.symbol,
    surface: "hft",
    side: p.side,
    type: "limit",
    tif: "GTC",
    priceTicks: Math.round(Number(p.price) / Number(i.tickSize)),
    qtyLots: Math.round(Number(p.qty) / Number(i.qtyStep)),
  });
  rig.store.markSent(o.clientId);
  try {
    const ack = await rig.stack.client.createHftOrder({
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
    rig.store.ackCreate(o.clientId, ack.orderId);
  } catch (e) {
    if (e instanceof ValidationError) rig.store.rejectCreate(o.clientId, e.exchangeMessage);
    else if (e instanceof OutcomeUnknownError) rig.store.createUnknown(o.clientId);
    else throw e;
  }
  return o;
}

/** Counterparty Spot order straight at the simulator (not through the store). */
export async function counterSpot(
  rig: Rig,
  side: "buy" | "sell",
  price: number,
  quantity: number,
  symbol = "BTC/INR",
): Promise<void> {
  const r = await call(rig.sim.baseUrl, rig.other, "POST", "/trade/api/v2/order", {
    side,
    symbol,
    type: "limit",
    price,
    quantity,
    exchange: "coinswitchx",
  });
  if (r.status !== 200) throw new Error(`counterparty order failed: ${r.status} ${JSON.stringify(r.json)}`);
}

export async function counterHft(rig: Rig, side: "Buy" | "Sell", price: string, qty: string): Promise<void> {
  const r = await call(rig.sim.baseUrl, rig.other, "POST", "/v5/order/create", {
    category: "linear",
    symbol: "ETHUSDT",
    side,
    orderType: "Limit",
    qty,
    price,
    positionIdx: 0,
    timeInForce: "GTC",
  });
  if (r.status !== 200 || r.json.retCode !== 0)
    throw new Error(`counterparty HFT order failed: ${JSON.stringify(r.json)}`);
}

export async function until(cond: () => boolean, ms = 4_000, what = "condition"): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The simulator's own view of a Spot order, by client id. */
export async function simSpotOrder(
  rig: Rig,
  clientId: string,
): Promise<{
  status: string;
  executed_qty: number;
  order_id: string;
}> {
  const r = await call(
    rig.sim.baseUrl,
    rig.keys,
    "GET",
    `/trade/api/v2/order?client_order_id=${encodeURIComponent(clientId)}`,
  );
  if (r.status !== 200) throw new Error(`sim get order ${r.status}`);
  return r.json.data;
}

/** What the engine will do for a cancel: guard in the store, then one DELETE, then the outcome. */
export async function cancelSpot(rig: Rig, o: Order): Promise<CancelDecision> {
  const d = rig.store.requestCancel(o.clientId);
  if (d.kind !== "send") return d;
  try {
    await rig.stack.client.cancelSpotOrder(o.exchangeId);
    rig.store.cancelOutcome(o.clientId, Ev.CancelAcked);
  } catch (e) {
    if (e instanceof ValidationError)
      rig.store.cancelOutcome(o.clientId, Ev.CancelRejected, undefined, e.exchangeMessage);
    else if (e instanceof OutcomeUnknownError) rig.store.cancelOutcome(o.clientId, Ev.CancelOutcomeUnknown);
    else throw e;
  }
  return d;
}

export interface VenueRigOptions extends SyncTuning {
  limiter?: RateLimiter;
  /** Knob overrides (`streams.pollIntervalMs`, ...); the surfaces default to the rig's `surfaces`. */
  knobs?: Record<string, unknown>;
  surfaces?: ("spot" | "hft")[];
  /** What the engine does on the resolver's same-id resends. */
  resendCreate?(o: Order): void;
  resendCancel?(o: Order): void;
}

const GRIDS = new Map(DOMAIN_INSTRUMENTS.map((i) => [i.id, { grid: gridOf(i), inst: i }]));
const COUNTER = { inc() {} };

/**
 * The venue-sync module over the rig's store (the one resolver and the one poller), as the engine
 * builds it; the engine's part is the store, and the same-id resends the test observes. Not started.
 */
export function venueSync(rig: Rig, o: VenueRigOptions = {}): VenueSync {
  const store = rig.store;
  const book = { byId: (id: number) => GRIDS.get(id) };
  const config = loadConfig({
    env: {},
    overrides: {
      "venue.surfaces": o.surfaces ?? ["spot", "hft"],
      // No background rounds unless a test asks for them: it drives the poller and the resolver.
      "streams.pollIntervalMs": 60_000,
      "streams.auditIntervalMs": 60_000,
      "orders.unknownQueryIntervalMs": 60_000,
      ...o.knobs,
    },
  });
  return new VenueSync(
    {
      store,
      applyVenueEvent: (ev) => store.apply(ev),
      resendCreate: (ord) => o.resendCreate?.(ord),
      doSendCancel: (ord) => o.resendCancel?.(ord),
    },
    rig.stack.client,
    buildSurfaces(rig.stack.client, book, config),
    book,
    o.limiter,
    undefined,
    { resolutions: COUNTER, escalations: COUNTER, invalidEvents: COUNTER },
    pino({ level: "silent" }),
    config,
    o,
  );
}
