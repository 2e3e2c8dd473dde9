/**
 * The venue sync's poller (live mode: no trusted push stream) and HFT reconciliation against the
 * simulator, the poller's rate-limit budget, and the public market-data top of book.
 */
import { afterEach, describe, expect, it } from "vitest";
import { RateLimiter } from "../../src/limits/index.js";
import { Ev, Status } from "../../src/orders/index.js";
import { InstrumentTable, MarketData, OrderFeed, Reconciler, TopOfBook } from "../../src/streams/index.js";
import type { VenueSync } from "../../src/venue/sync.js";
import {
  call,
  counterHft,
  counterSpot,
  DOMAIN_INSTRUMENTS,
  placeHft,
  placeSpot,
  type Rig,
  simSpotOrder,
  startRig,
  until,
  type VenueRigOptions,
  venueSync,
} from "./helpers.js";

let rig: Rig | undefined;
let md: MarketData | undefined;
let venue: VenueSync | undefined;

afterEach(async () => {
  md?.stop();
  md = undefined;
  await venue?.stop();
  venue = undefined;
  await rig?.close();
  rig = undefined;
});

function parts(r: Rig, o: VenueRigOptions = {}) {
  venue = venueSync(r, o);
  const feed = new OrderFeed(r.store, new InstrumentTable(DOMAIN_INSTRUMENTS));
  const rec = new Reconciler({ feed, rest: r.stack.client, limiter: o.limiter, resolver: venue });
  return { feed, poller: venue.poller, rec };
}

describe("venue poller, live mode", () => {
  it("HFT: partial then full fill seen by polling realtime and executions", async () => {
    rig = await startRig();
    const { poller } = parts(rig, { surfaces: ["hft"] });
    const o = await placeHft(rig, { symbol: "ETHUSDT", side: "buy", price: "3300", qty: "0.30" });
    expect(o.status).toBe(Status.New);
    await counterHft(rig, "Sell", "3300", "0.10");
    await poller.pollOnce();
    expect(o.status).toBe(Status.PartiallyFilled);
    expect(o.filledLots).toBe(10);
    await counterHft(rig, "Sell", "3300", "0.20");
    await poller.pollOnce();
    expect(o.status).toBe(Status.Filled);
    expect(o.filledLots).toBe(30);
    // Fills came from executions (with ids), not only the cumulative record.
    expect(o.extra.execLots).toBe(30);
    expect(poller.stats.executions).toBeGreaterThanOrEqual(2);
    expect(poller.lastFillMs).toBeGreaterThan(0);
    // A further round with nothing live sends nothing.
    const req = poller.stats.requests;
    await poller.pollOnce();
    expect(poller.stats.requests).toBe(req);
  });

  it("Spot while the stream is down: open list, then a query for the order that left it", async () => {
    rig = await startRig();
    const { poller } = parts(rig, { surfaces: ["spot"] });
    expect(poller.live("spot")).toBe(true);
    const o = await placeSpot(rig, { symbol: "BTC/INR", side: "buy", price: "5400000", qty: "0.002" });
    await counterSpot(rig, "sell", 5_400_000, 0.001);
    await poller.pollOnce();
    expect(o.status).toBe(Status.PartiallyFilled);
    await counterSpot(rig, "sell", 5_400_000, 0.001);
    await poller.pollOnce();
    expect(o.status).toBe(Status.Filled);
    expect(o.filledLots).toBe(200);
    expect((await simSpotOrder(rig, o.clientId)).status).toBe("EXECUTED");
  });

  it("skips a round rather than queue beyond the budget, and a network error changes nothing", async () => {
    rig = await startRig();
    const limiter = new RateLimiter({
      table: {
        buckets: { q: { capacity: 1, windowMs: 60_000, cancelReserve: 0 } },
        classes: {
          "spot.create": "q",
          "spot.cancel": "q",
          "spot.listOrders": "q",
          "spot.portfolio": "q",
          "spot.tds": "q",
          "spot.other": "q",
          "hft.create": "q",
          "hft.cancel": "q",
          "hft.query": "q",
          "hft.other": "q",
          "futures.create": "q",
          "futures.cancel": "q",
          "futures.query": "q",
          "futures.list": "q",
          "futures.other": "q",
        },
      },
    });
    const { poller } = parts(rig, { limiter, surfaces: ["hft"] });
    const o = await placeHft(rig, { symbol: "ETHUSDT", side: "buy", price: "3300", qty: "0.30" });
    rig.sim.faults.add({ kind: "error5xx", endpoint: "GET /v5/order/realtime", count: 1 });
    const before = rig.sim.counters.requests("GET /v5/order/realtime");
    await poller.pollOnce();
    expect(poller.stats.errors).toBe(1);
    expect(o.status).toBe(Status.New);
    // The one token is spent: the next round is skipped, nothing is queued or sent.
    await poller.pollOnce();
    expect(poller.stats.skippedBudget).toBe(1);
    expect(rig.sim.counters.requests("GET /v5/order/realtime")).toBe(before + 1);
    expect(o.status).toBe(Status.New);
  });
});

describe("Reconciler (HFT)", () => {
  it("create response lost: resolved by orderLinkId, one order at the venue; fills replayed from executions", async () => {
    rig = await startRig();
    const { rec } = parts(rig, { surfaces: ["hft"] });
    rig.sim.faults.add({ kind: "reset", endpoint: "POST /v5/order/create", count: 1 });
    const created = rig.sim.counters.ordersCreated("hft");
    const o = await placeHft(rig, { symbol: "ETHUSDT", side: "buy", price: "3300", qty: "0.20" });
    expect(o.status).toBe(Status.Unknown);
    await counterHft(rig, "Sell", "3300", "0.05");
    const rep = await rec.reconcile();
    expect(rep.complete).toBe(true);
    expect(rep.resolved).toContainEqual(
      expect.objectContaining({ clientId: o.clientId, action: "apply_record" }),
    );
    expect(o.status).toBe(Status.PartiallyFilled);
    expect(o.filledLots).toBe(5);
    expect(o.extra.execLots).toBe(5);
    // Ours once, plus the counterparty's order.
    expect(rig.sim.counters.ordersCreated("hft")).toBe(created + 2);
    const r = await call(
      rig.sim.baseUrl,
      rig.keys,
      "GET",
      `/v5/order/realtime?category=linear&orderLinkId=${o.clientId}`,
    );
    expect(r.json.result.list).toHaveLength(1);
    expect(r.json.result.list[0].orderId).toBe(o.exchangeId);
  });
});

describe("Reconciler (HFT cancel)", () => {
  it("cancel response lost: the order found cancelled at the venue by orderLinkId; no second cancel", async () => {
    rig = await startRig();
    const resent: string[] = [];
    venue = venueSync(rig, { surfaces: ["hft"], resendCancel: (o) => void resent.push(o.clientId) });
    const feed = new OrderFeed(rig.store, new InstrumentTable(DOMAIN_INSTRUMENTS));
    const rec = new Reconciler({ feed, rest: rig.stack.client, spot: false, resolver: venue });
    const o = await placeHft(rig, { symbol: "ETHUSDT", side: "buy", price: "3300", qty: "0.20" });
    expect(rig.store.requestCancel(o.clientId).kind).toBe("send");
    rig.sim.faults.add({ kind: "reset", endpoint: "POST /v5/order/cancel", count: 1 });
    await expect(
      rig.stack.client.cancelHftOrder({ category: "linear", symbol: "ETHUSDT", orderLinkId: o.clientId }),
    ).rejects.toThrow(/outcome unknown/);
    rig.store.cancelOutcome(o.clientId, Ev.CancelOutcomeUnknown);
    expect(o.status).toBe(Status.PendingCancel);
    const rep = await rec.reconcile();
    expect(rep.resolved).toContainEqual(
      expect.objectContaining({ clientId: o.clientId, action: "apply_record", status: "Cancelled" }),
    );
    expect(o.status).toBe(Status.Cancelled);
    expect(resent).toEqual([]);
  });

  it("cancel that never arrived: the order is still live, so the policy asks the engine to re-send it", async () => {
    rig = await startRig();
    const resent: string[] = [];
    venue = venueSync(rig, { surfaces: ["hft"], resendCancel: (o) => void resent.push(o.clientId) });
    const feed = new OrderFeed(rig.store, new InstrumentTable(DOMAIN_INSTRUMENTS));
    const rec = new Reconciler({ feed, rest: rig.stack.client, spot: false, resolver: venue });
    const o = await placeHft(rig, { symbol: "ETHUSDT", side: "buy", price: "3300", qty: "0.20" });
    rig.store.requestCancel(o.clientId);
    rig.store.cancelOutcome(o.clientId, Ev.CancelOutcomeUnknown);
    const rep = await rec.reconcile();
    expect(rep.resolved).toContainEqual(
      expect.objectContaining({ clientId: o.clientId, action: "resend_cancel" }),
    );
    expect(resent).toEqual([o.clientId]);
    expect(o.status).toBe(Status.PendingCancel);
  });
});

describe("market data", () => {
  it("order book snapshots and trades feed the top of book and the reference price", async () => {
    rig = await startRig();
    md = new MarketData({
      baseUrl: rig.sim.baseUrl,
      pairs: { coinswitchx: ["BTC,INR"] },
      backoff: { minMs: 20, maxMs: 50 },
    });
    md.start();
    await until(
      () =>
        md!.book.get("coinswitchx", "BTC,INR")?.bookTs !== undefined &&
        md!.book.get("coinswitchx", "BTC,INR")!.bookTs > 0,
      3_000,
      "book",
    );
    const t = md.book.get("coinswitchx", "BTC/INR")!;
    expect(t.bid).toBeLessThan(t.ask);
    expect(md.book.referencePrice("coinswitchx", "BTC,INR")).toBe((t.bid + t.ask) / 2);
    // A print: buy through the best ask.
    await counterSpot(rig, "buy", t.ask, 0.001);
    await until(() => md!.book.get("coinswitchx", "BTC,INR")!.lastTs > 0, 3_000, "trade");
    expect(md.book.get("coinswitchx", "BTC,INR")!.last).toBe(t.ask);
    expect(md.book.referencePrice("coinswitchx", "BTC,INR")).toBe(t.ask);
    rig.sim.market.step();
    expect(md.book.stats.malformed).toBe(0);
  });

  it("TopOfBook rejects malformed and ignores older snapshots", () => {
    const b = new TopOfBook();
    expect(
      b.onBook("c2c1", { s: "BTC,USDT", timestamp: 10, bids: [["64000", "1"]], asks: [["64010", "2"]] }),
    ).toBe(true);
    expect(b.onBook("c2c1", { s: "BTC,USDT", timestamp: 5, bids: [["1", "1"]], asks: [["2", "2"]] })).toBe(
      true,
    );
    expect(b.get("c2c1", "BTC,USDT")!.bid).toBe(64_000);
    expect(b.onBook("c2c1", { s: "BTC,USDT", timestamp: 11, bids: [["x", "1"]], asks: [] })).toBe(false);
    expect(b.onTrade("c2c1", { s: "BTC,USDT", p: "-1", q: "1", E: 1 })).toBe(false);
    expect(b.onTrade("c2c1", null)).toBe(false);
    expect(b.onCandle("c2c1", { s: "BTC,USDT", t: 1, c: "64005" })).toBe(true);
    expect(b.stats.malformed).toBe(3);
    expect(b.get("c2c1", "BTC,USDT")!.bid).toBe(64_000);
    expect(b.referencePrice("c2c1", "BTC,USDT")).toBe(64_005);
  });
});
