import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StreamsFeed } from "../../src/engine/streamsFeed.js";
import { OrderStatus, Side } from "../../src/protocol/schema.js";
import { type Harness, next, startHarness, until } from "./harness.js";

let t: Harness;
beforeAll(async () => {
  t = await startHarness();
});
afterAll(async () => {
  await t?.close();
});

describe("order lifecycle through the whole chain", () => {
  it("Spot: ack with exchange id, fills from a crossing order, cancel, final state equals the venue's", async () => {
    const a = await t.client("spot-a");
    const b = await t.client("spot-b");
    // Spot balances (account-wide, from the balance stream) reach every session when they change.
    const inrBalance = next(a, "balance", (x) => x.asset === "INR");
    const inst = t.inst("coinswitchx", "BTC/INR");
    const ackA = next(a, "ack");
    const noA = a.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 5_000_000, qtyLots: 100 });
    const ack = await ackA;
    expect(ack.clOrdNo).toBe(noA);
    expect(ack.exchangeOrderId).not.toBe("");

    const fillA = next(a, "fill");
    const partA = next(a, "update", (u) => u.status === OrderStatus.PartiallyFilled);
    const filledB = next(b, "update", (u) => u.status === OrderStatus.Filled);
    b.placeOrder({ instrumentId: inst, side: Side.Sell, priceTicks: 5_000_000, qtyLots: 40 });
    const fa = await fillA;
    expect(fa.qtyLots).toBe(40);
    expect(fa.priceTicks).toBe(5_000_000);
    expect(fa.liquidity).toBe(0); // Spot records do not say maker or taker
    expect((await partA).cumQtyLots).toBe(40);
    expect((await filledB).cumQtyLots).toBe(40);

    const pending = next(a, "update", (u) => u.status === OrderStatus.PendingCancel);
    const cancelled = next(a, "update", (u) => u.status === OrderStatus.Cancelled);
    a.cancel(noA);
    await pending;
    const fin = await cancelled;
    expect(fin.cumQtyLots).toBe(40);
    expect(fin.leavesQtyLots).toBe(0); // nothing is open once an order is final

    // The fills and the final state came through the Spot order stream (src/streams) wired by the engine.
    const feed = t.h.feeds[0] as StreamsFeed;
    expect(feed.name).toBe("streams");
    expect(feed.sync.orderStream?.up).toBe(true);
    expect(feed.sync.feed.stats.applied).toBeGreaterThan(0);
    expect(t.h.metrics.streamToStrategy.count).toBeGreaterThan(0);
    expect((await inrBalance).freeMantissa).toBeGreaterThan(0);

    const rec = await t.h.rest.client.getSpotOrder({ orderId: ack.exchangeOrderId });
    expect(rec.status).toBe("CANCELLED");
    expect(rec.executed_qty).toBeCloseTo(0.0004, 10);
    const [q] = await a.query(noA);
    expect(q!.status).toBe(OrderStatus.Cancelled);
    expect(q!.cumQtyLots).toBe(40);
  });

  it("HFT: ack, fill, cancel of a second order, states equal the venue's", async () => {
    const a = await t.client("hft-a");
    const b = await t.client("hft-b");
    const inst = t.inst("linear", "BTCUSDT");
    const ackP = next(a, "ack");
    const no1 = a.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 640_000, qtyLots: 10 });
    const ack1 = await ackP;
    expect(ack1.clOrdNo).toBe(no1);
    expect(ack1.exchangeOrderId).not.toBe("");

    const filledA = next(a, "update", (u) => u.clOrdNo === no1 && u.status === OrderStatus.Filled);
    const fillA = next(a, "fill", (f) => f.clOrdNo === no1);
    b.placeOrder({ instrumentId: inst, side: Side.Sell, priceTicks: 640_000, qtyLots: 10 });
    expect((await fillA).qtyLots).toBe(10);
    expect((await filledA).cumQtyLots).toBe(10);

    const ack2P = next(a, "ack");
    const no2 = a.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 630_000, qtyLots: 5 });
    const ack2 = await ack2P;
    const cancelled = next(a, "update", (u) => u.clOrdNo === no2 && u.status === OrderStatus.Cancelled);
    a.cancel(no2);
    await cancelled;

    const rows = (await t.h.rest.client.realtime({ category: "linear", orderId: ack2.exchangeOrderId })).list;
    expect(rows[0]!.orderStatus).toBe("Cancelled");
    const r1 = (await t.h.rest.client.realtime({ category: "linear", orderId: ack1.exchangeOrderId })).list;
    expect(r1[0]!.orderStatus).toBe("Filled");
    expect(Number(r1[0]!.cumExecQty)).toBe(0.01);
    await until(() => t.h.engine.store.liveOrders().length === 0, 2000, "no live orders");
  });
});
