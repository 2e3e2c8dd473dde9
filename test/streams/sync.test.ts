/**
 * Streams, the venue sync's poller and resolver, and the reconciler against the simulator over real
 * sockets: the real REST client, the real socket.io client, the real order store. Each test owns its
 * own simulator.
 */
import { afterEach, describe, expect, it } from "vitest";
import { RateLimiter } from "../../src/limits/index.js";
import { Status } from "../../src/orders/index.js";
import { OrderSync, type ReconcileReport } from "../../src/streams/index.js";
import type { VenueSync } from "../../src/venue/sync.js";
import {
  counterSpot,
  DOMAIN_INSTRUMENTS,
  placeSpot,
  type Rig,
  sendSpot,
  simSpotOrder,
  startRig,
  until,
  type VenueRigOptions,
  venueSync,
} from "./helpers.js";

let rig: Rig | undefined;
let sync: OrderSync | undefined;
let venue: VenueSync | undefined;

afterEach(async () => {
  await sync?.stop();
  sync = undefined;
  await venue?.stop();
  venue = undefined;
  await rig?.close();
  rig = undefined;
});

function newSync(
  r: Rig,
  extra: Partial<ConstructorParameters<typeof OrderSync>[0]> = {},
  v: VenueRigOptions = {},
): OrderSync {
  const limiter = new RateLimiter();
  venue = venueSync(r, { limiter, surfaces: ["spot"], ...v });
  void venue.start();
  return new OrderSync({
    store: r.store,
    rest: r.stack.client,
    limiter,
    instruments: DOMAIN_INSTRUMENTS,
    apiKey: r.keys.apiKey,
    streamBaseUrl: r.sim.baseUrl,
    hftCategories: [],
    staleMs: 5_000,
    backoff: { minMs: 20, maxMs: 100 },
    venue,
    ...extra,
  });
}

/** Started, reconciled, and the stream trusted (the poller no longer polling Spot live). */
async function startTrusted(s: OrderSync): Promise<void> {
  await s.start();
  await until(() => s.orderStream!.up && !venue!.poller.live("spot") && s.ready, 4_000, "stream trusted");
}

describe("Spot order stream into the store", () => {
  it("limit order partially then fully filled, seen through the stream", async () => {
    rig = await startRig();
    const tapped: string[] = [];
    let balances = 0;
    sync = newSync(rig, {
      tap: (kind, source, clientId) => tapped.push(`${kind}:${source}:${clientId}`),
      onBalance: () => balances++,
    });
    await startTrusted(sync);
    const o = await placeSpot(rig, { symbol: "BTC/INR", side: "buy", price: "5400000", qty: "0.002" });
    expect(o.status).toBe(Status.New);
    const before = sync.orderStream!.stats.messages;
    await counterSpot(rig, "sell", 5_400_000, 0.001);
    await until(() => o.status === Status.PartiallyFilled, 3_000, "partial via stream");
    expect(o.filledLots).toBe(100);
    await counterSpot(rig, "sell", 5_400_000, 0.001);
    await until(() => o.status === Status.Filled, 3_000, "filled via stream");
    expect(o.filledLots).toBe(200);
    expect(o.leavesLots).toBe(0);
    expect(rig.seen.get(o.clientId)).toEqual(
      expect.arrayContaining([Status.New, Status.PartiallyFilled, Status.Filled]),
    );
    // It was the stream: no poll round ran (interval 60 s) and the stream delivered the updates.
    expect(sync.orderStream!.stats.messages - before).toBeGreaterThanOrEqual(2);
    expect(venue!.poller.stats.rounds).toBe(0);
    expect(sync.orderStream!.stats.malformed).toBe(0);
    // Balance snapshots arrived too and the newest one won.
    await until(() => sync!.balances.get("BTC") !== undefined, 2_000, "balance snapshot");
    expect(Number(sync.balances.get("BTC")!.available)).toBeGreaterThan(1);
    expect(balances).toBeGreaterThan(0);
    // Every applied stream record was seen by the journal hook first (Source.Stream = 1).
    expect(tapped.filter((t) => t === `spotOrder:1:${o.clientId}`).length).toBeGreaterThanOrEqual(3);
  });

  it("duplicated and reordered stream messages end in the true state", async () => {
    rig = await startRig();
    sync = newSync(rig);
    await startTrusted(sync);
    rig.sim.faults.setStreams({ duplicateProbability: 0.5, reorderProbability: 0.5 });
    const o = await placeSpot(rig, { symbol: "BTC/INR", side: "buy", price: "5400000", qty: "0.005" });
    for (let i = 0; i < 5; i++) await counterSpot(rig, "sell", 5_400_000, 0.001);
    // One more update for the account releases a message the simulator may still hold back.
    const tail = await placeSpot(rig, { symbol: "BTC/INR", side: "buy", price: "5000000", qty: "0.001" });
    await until(() => o.status === Status.Filled && tail.status === Status.New, 3_000, "true state");
    const truth = await simSpotOrder(rig, o.clientId);
    expect(truth.status).toBe("EXECUTED");
    expect(o.filledLots).toBe(Math.round(truth.executed_qty / 0.00001));
    expect(o.extra.overfilled).toBe(false);
    const c = rig.sim.counters.streams;
    expect(c.duplicated + c.reordered).toBeGreaterThan(0);
    // Duplicates and stale statuses were dropped by the table, not applied twice.
    const drops = rig.store.dropCounters();
    expect(drops.same_status + drops.stale_status + drops.terminal).toBeGreaterThan(0);
    expect(venue!.poller.stats.rounds).toBe(0);
  });

  it("stream dropped mid-fill: polling and reconciliation recover the fills with nothing lost", async () => {
    rig = await startRig();
    const trust: boolean[] = [];
    sync = newSync(
      rig,
      { listener: { onSpotTrusted: (t) => trust.push(t) } },
      { knobs: { "streams.pollIntervalMs": 50 } },
    );
    await startTrusted(sync);
    expect(trust).toEqual([true]);
    const o = await placeSpot(rig, { symbol: "BTC/INR", side: "buy", price: "5400000", qty: "0.003" });
    await counterSpot(rig, "sell", 5_400_000, 0.001);
    await until(() => o.filledLots === 100, 3_000, "first partial via stream");
    const runsBefore = sync.reconciler.runs;
    // The stream goes deaf (every push dropped) and the connection is cut mid-fill.
    rig.sim.faults.setStreams({ dropProbability: 1 });
    await counterSpot(rig, "sell", 5_400_000, 0.001);
    expect(rig.sim.faults.disconnectStreams()).toBeGreaterThan(0);
    await counterSpot(rig, "sell", 5_400_000, 0.001);
    await until(() => o.status === Status.Filled, 4_000, "filled via poll / reconcile");
    const truth = await simSpotOrder(rig, o.clientId);
    expect(truth.status).toBe("EXECUTED");
    expect(o.filledLots).toBe(Math.round(truth.executed_qty / 0.00001));
    expect(o.filledLots).toBe(300);
    // The reconnect triggered a reconciliation; the poller covered the gap.
    await until(() => sync!.reconciler.runs > runsBefore, 3_000, "reconcile after reconnect");
    expect(sync.orderStream!.stats.connects).toBeGreaterThanOrEqual(2);
    expect(rig.sim.counters.streams.dropped).toBeGreaterThan(0);
    // Down (untrusted), then up and reconciled (trusted again) once the transport was back.
    await until(() => trust.length === 3, 3_000, "trusted again");
    expect(trust).toEqual([true, false, true]);
    expect(sync.spotTrusted).toBe(true);
  });
});

describe("reconciliation", () => {
  it("create response lost (reset after accept) is resolved by client id, exactly one order at the venue", async () => {
    rig = await startRig();
    sync = newSync(rig);
    await startTrusted(sync);
    // No stream help: the answer must come from the targeted query.
    rig.sim.faults.setStreams({ dropProbability: 1 });
    rig.sim.faults.add({ kind: "reset", endpoint: "POST /trade/api/v2/order", count: 1 });
    const created = rig.sim.counters.ordersCreated("spot");
    const o = await placeSpot(rig, { symbol: "BTC/INR", side: "buy", price: "5300000", qty: "0.001" });
    expect(o.status).toBe(Status.Unknown);
    const rep: ReconcileReport = await sync.reconcile();
    expect(rep.complete).toBe(true);
    expect(rep.resolved).toContainEqual(
      expect.objectContaining({ clientId: o.clientId, action: "apply_record" }),
    );
    expect(o.status).toBe(Status.New);
    const truth = await simSpotOrder(rig, o.clientId);
    expect(o.exchangeId).toBe(truth.order_id);
    expect(rig.sim.counters.ordersCreated("spot")).toBe(created + 1);
    const open = await rig.stack.client.listSpotOrders({ open: true });
    expect(open.orders.filter((r) => r.client_order_id === o.clientId)).toHaveLength(1);
    expect(rep.foreign).toEqual([]);
  });

  it("a create that never arrived is re-sent with the same client id (never a new one)", async () => {
    rig = await startRig();
    const r = rig;
    const resent: string[] = [];
    let sending: Promise<void> | undefined;
    const params = { symbol: "BTC/INR", side: "buy" as const, price: "5300000", qty: "0.001" };
    sync = newSync(
      r,
      {},
      {
        // The send's answer deadline is past at once: "not found" is the venue's last word.
        answerDeadlineMs: 0,
        resendCreate: (o) => {
          resent.push(o.clientId);
          sending = sendSpot(r, o, params);
        },
      },
    );
    await startTrusted(sync);
    // The order is in the store and marked sent, but the request never reached the venue.
    const i = DOMAIN_INSTRUMENTS.find((x) => x.symbol === "BTC/INR")!;
    const o = r.store.create({
      sessionId: 2,
      clientOrderNo: 1,
      instrumentId: i.id,
      symbol: i.symbol,
      surface: "spot",
      side: "buy",
      type: "limit",
      tif: "GTC",
      priceTicks: 5_300_000,
      qtyLots: 100,
    });
    r.store.markSent(o.clientId);
    r.store.createUnknown(o.clientId);
    const rep = await sync.reconcile();
    expect(rep.resolved).toContainEqual(
      expect.objectContaining({ clientId: o.clientId, action: "resend_create" }),
    );
    expect(resent).toEqual([o.clientId]);
    await sending;
    expect(o.status).toBe(Status.New);
    const open = await r.stack.client.listSpotOrders({ open: true });
    expect(open.orders.filter((x) => x.client_order_id === o.clientId)).toHaveLength(1);
  });

  it("reports foreign orders and applies NotFound to a live order the venue does not have", async () => {
    rig = await startRig();
    sync = newSync(rig);
    await startTrusted(sync);
    // A foreign order on the same account, placed behind the gateway's back.
    await rig.stack.client.createSpotOrder({
      symbol: "BTC/INR",
      side: "buy",
      price: "5200000",
      quantity: "0.001",
      exchange: "coinswitchx",
      clientOrderId: "manual-1",
    });
    // An order the store believes acked and live, which the venue never had.
    const i = DOMAIN_INSTRUMENTS.find((x) => x.symbol === "BTC/INR")!;
    const ghost = rig.store.create({
      sessionId: 3,
      clientOrderNo: 1,
      instrumentId: i.id,
      symbol: i.symbol,
      surface: "spot",
      side: "buy",
      type: "limit",
      tif: "GTC",
      priceTicks: 5_100_000,
      qtyLots: 100,
    });
    rig.store.markSent(ghost.clientId);
    rig.store.ackCreate(ghost.clientId, "00000000-0000-4000-8000-000000000000");
    const notFoundBefore = rig.store.dropCount("not_found_live");
    const rep = await sync.reconcile();
    expect(rep.foreign).toContainEqual(expect.objectContaining({ surface: "spot", clientId: "manual-1" }));
    expect(rep.missing).toEqual([
      { clientId: ghost.clientId, exchangeId: "00000000-0000-4000-8000-000000000000", status: "New" },
    ]);
    // The table keeps an acked order as it is on NotFound (escalation upstream), and counts it.
    expect(rig.store.dropCount("not_found_live")).toBe(notFoundBefore + 1);
  });

  it("ready is false until the start-up reconciliation finishes", async () => {
    rig = await startRig();
    const readiness: boolean[] = [];
    sync = newSync(rig, { listener: { onReady: (v) => readiness.push(v) } });
    expect(sync.ready).toBe(false);
    const p = sync.start();
    expect(sync.ready).toBe(false);
    const rep = await p;
    expect(rep.complete).toBe(true);
    expect(sync.ready).toBe(true);
    expect(readiness[0]).toBe(true);
  });

  it("a network error is never taken as 'order gone'", async () => {
    rig = await startRig();
    sync = newSync(rig, { spot: true });
    await startTrusted(sync);
    rig.sim.faults.setStreams({ dropProbability: 1 });
    const o = await placeSpot(rig, { symbol: "BTC/INR", side: "buy", price: "5300000", qty: "0.001" });
    expect(o.status).toBe(Status.New);
    // Every listing and query fails with a 5xx.
    rig.sim.faults.add({ kind: "error5xx", endpoint: "GET /trade/api/v2/orders" });
    rig.sim.faults.add({ kind: "error5xx", endpoint: "GET /trade/api/v2/order" });
    const rep = await sync.reconcile();
    expect(rep.complete).toBe(false);
    expect(rep.missing).toEqual([]);
    expect(o.status).toBe(Status.New);
    expect(sync.ready).toBe(false);
    rig.sim.faults.clear();
    await until(() => sync!.ready, 4_000, "retried reconciliation");
  });
});

describe("reconciliation per surface", () => {
  it("a Spot listing failing after a Spot stream reconnect leaves HFT as it was; retried at a fixed interval; done right after the venue recovers", async () => {
    rig = await startRig();
    sync = newSync(rig, { hftCategories: ["linear"], reconcileRetryMs: 200 }, { surfaces: ["spot", "hft"] });
    await startTrusted(sync);
    expect(sync.surfaceState("hft")).toMatchObject({ stream: "none", reconcile: "idle" });
    expect(sync.surfaceState("spot")).toMatchObject({ stream: "trusted", reconcile: "idle" });
    const hftLists = rig.sim.counters.requests("GET /v5/order/realtime");
    rig.sim.faults.add({ kind: "error5xx", endpoint: "GET /trade/api/v2/orders", status: 503 });
    expect(rig.sim.faults.disconnectStreams()).toBeGreaterThan(0);
    await until(
      () => sync!.surfaceState("spot")?.reconcile === "failing",
      3_000,
      "Spot reconciliation failing",
    );
    expect(sync.surfaceState("spot")!.error).toMatch(/503/);
    expect(sync.spotTrusted).toBe(false);
    expect(sync.ready).toBe(false);
    // Retried every 200 ms, Spot only: HFT was neither listed nor marked.
    const runs = sync.reconciler.runs;
    await new Promise((r) => setTimeout(r, 1_000));
    const retries = sync.reconciler.runs - runs;
    expect(retries).toBeGreaterThanOrEqual(3);
    expect(retries).toBeLessThanOrEqual(6);
    expect(sync.reconciler.lastReport!.surfaces).toEqual({ spot: false });
    expect(rig.sim.counters.requests("GET /v5/order/realtime")).toBe(hftLists);
    expect(sync.surfaceState("hft")).toMatchObject({ stream: "none", reconcile: "idle" });
    // The venue answers again: the next retry completes and the stream is trusted again.
    rig.sim.faults.clear();
    const recovered = Date.now();
    await until(
      () => sync!.surfaceState("spot")?.reconcile === "idle" && sync!.spotTrusted,
      2_000,
      "Spot reconciled within 2 s of the recovery",
    );
    expect(Date.now() - recovered).toBeLessThan(2_000);
    expect(sync.ready).toBe(true);
  });
});
