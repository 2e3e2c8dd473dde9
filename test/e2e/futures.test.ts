/**
 * Futures v2 through the whole chain over real sockets: the strategy's instruments carry surface 3,
 * orders are created and cancelled on `/trade/api/v2/futures`, their state comes from polling the
 * open list (the venue has no private stream), and a restarted gateway knows what the venue did
 * while it was down.
 */
import { describe, expect, it } from "vitest";
import { loadKeyPair } from "../../src/auth/keys.js";
import { GatewayClient } from "../../src/client/index.js";
import { OrderStatus, Side, Surface } from "../../src/protocol/schema.js";
import { createRestStack } from "../../src/venue/stack.js";
import { next, recorder, startHarness, until } from "./harness.js";
import { restartVenue } from "./restartFixture.js";

const FAST_POLL = { "venue.futuresPollMs": 500, "venue.surfaces": ["spot", "hft", "futures"] };
const venue = restartVenue("futures", FAST_POLL);

describe("Futures v2 as a third surface", () => {
  it("instruments with surface Futures; create, fill seen by polling, two-phase cancel; final state equals the venue's", async () => {
    const t = await startHarness(FAST_POLL);
    try {
      const a = await t.client("fut-a");
      const b = await t.client("fut-b");
      const list = await a.instruments();
      const fut = list.find((i) => i.surface === Surface.Futures && i.symbol === "BTCUSDT");
      expect(fut).toMatchObject({ venue: "EXCHANGE_2", tickSize: "0.1", qtyStep: "0.001" });
      const inst = fut!.instrumentId;

      const ackA = next(a, "ack");
      const noA = a.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 600_000, qtyLots: 10 });
      const ack = await ackA;
      expect(ack.clOrdNo).toBe(noA);
      expect(ack.exchangeOrderId).not.toBe("");

      // A crossing sell from another session: its create answer already says EXECUTED; the resting
      // buy learns its fill from the Futures open-list poll.
      const polls = t.h.sim!.counters.requests("GET /trade/api/v2/futures/open_orders");
      const fillA = next(a, "fill", () => true, 8000);
      const partA = next(a, "update", (u) => u.status === OrderStatus.PartiallyFilled, 8000);
      const filledB = next(b, "update", (u) => u.status === OrderStatus.Filled, 8000);
      b.placeOrder({ instrumentId: inst, side: Side.Sell, priceTicks: 600_000, qtyLots: 4 });
      expect((await filledB).cumQtyLots).toBe(4);
      const fa = await fillA;
      expect(fa.qtyLots).toBe(4);
      expect(fa.priceTicks).toBe(600_000);
      expect((await partA).cumQtyLots).toBe(4);
      expect(t.h.sim!.counters.requests("GET /trade/api/v2/futures/open_orders")).toBeGreaterThan(polls);

      // Cancel of a partly filled order: the venue ends it PARTIALLY_EXECUTED (terminal), which the
      // strategy sees as Cancelled with its fill kept.
      const pending = next(a, "update", (u) => u.status === OrderStatus.PendingCancel);
      const cancelled = next(a, "update", (u) => u.status === OrderStatus.Cancelled, 8000);
      a.cancel(noA);
      await pending;
      const fin = await cancelled;
      expect(fin.cumQtyLots).toBe(4);
      expect(fin.leavesQtyLots).toBe(0);
      const rec = await t.h.rest.client.getFuturesOrder({ orderId: ack.exchangeOrderId });
      expect(rec.status).toBe("PARTIALLY_EXECUTED");
      expect(rec.executed_quantity).toBe("0.004");
      const [q] = await a.query(noA);
      expect(q!.status).toBe(OrderStatus.Cancelled);
      expect(q!.cumQtyLots).toBe(4);
    } finally {
      await t.close();
    }
  });

  it("a venue refusal is a clear Reject; an IOC that cannot trade ends Cancelled, never Filled", async () => {
    const t = await startHarness(FAST_POLL);
    try {
      const a = await t.client("fut-r");
      const inst = t.inst("EXCHANGE_2", "ETHUSDT");
      // 0.01 ETH at 10.00 is below the venue's 5 USDT minimum: the venue refuses it.
      const rej = next(a, "reject");
      const no = a.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 1_000, qtyLots: 1 });
      const r = await rej;
      expect(r.clOrdNo).toBe(no);
      expect(r.text).toMatch(/minimum/);
      const done = next(a, "update", (u) => u.status === OrderStatus.Cancelled, 8000);
      const no2 = a.placeOrder({
        instrumentId: inst,
        side: Side.Buy,
        priceTicks: 300_000,
        qtyLots: 100,
        tif: 2, // IOC
      });
      const u = await done;
      expect(u.clOrdNo).toBe(no2);
      expect(u.cumQtyLots).toBe(0);
    } finally {
      await t.close();
    }
  });

  it("restart: a fill that happened while the gateway was down is delivered once, from the venue's record", async () => {
    const h1 = await venue.start();
    const c1 = new GatewayClient({
      url: h1.url,
      token: h1.token,
      sessionName: "fut-restart",
      heartbeatMs: 1000,
    });
    await c1.connect();
    const inst = h1.instruments.all().find((i) => i.surface === "futures" && i.symbol === "BTCUSDT")!.id;
    const ack = next(c1, "ack");
    const no = c1.placeOrder({ instrumentId: inst, side: Side.Sell, priceTicks: 700_000, qtyLots: 20 });
    const exId = (await ack).exchangeOrderId;
    await c1.close();
    await h1.stop("test");

    // While the gateway is down a counterparty buys 12 of the 20 lots.
    const them = createRestStack({
      keys: loadKeyPair(venue.other.secretKey),
      spotBaseUrl: venue.sim.baseUrl,
      hftBaseUrl: venue.sim.baseUrl,
      presign: false,
      clock: false,
    });
    const { makeGrid } = await import("../../src/venue/orderFields.js");
    const taken = await them.client.createFuturesOrder(
      { symbol: "BTCUSDT", side: "buy", orderType: "limit", price: "70000", quantity: "0.012" },
      makeGrid("0.1", "0.001"),
    );
    expect(taken.status).toBe("EXECUTED");
    await them.stop();

    const h2 = await venue.start();
    try {
      const o = h2.engine.store.byExchangeId(exId)!;
      await until(() => o.filledLots === 12, 8000);
      const c2 = new GatewayClient({
        url: h2.url,
        token: h2.token,
        sessionName: "fut-restart",
        heartbeatMs: 1000,
      });
      const log = recorder(c2);
      const fill = next(c2, "fill", () => true, 8000);
      await c2.connect();
      // The fill the venue made while the gateway was down reaches the order's session once.
      const f = await fill;
      expect(f.clOrdNo).toBe(no);
      expect(f.qtyLots).toBe(12);
      const [q] = await c2.query(no);
      expect(q!.status).toBe(OrderStatus.PartiallyFilled);
      expect(q!.cumQtyLots).toBe(12);
      const venueRec = await h2.rest.client.getFuturesOrder({ orderId: exId });
      expect(venueRec.executed_quantity).toBe("0.012");
      expect(venueRec.status).toBe("RAISED");
      await c2.close();
      expect(log.filter((m) => m.name === "Fill").length).toBe(1);
    } finally {
      await h2.stop("test");
    }
  });
});
