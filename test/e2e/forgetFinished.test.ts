/**
 * Finished orders are kept `orders.keepFinishedMs`, then forgotten: over a real socket against the
 * simulator, a strategy sees a finished order answered while it is kept, and afterwards the answers of
 * an unknown order (Query finds nothing, a Cancel is refused UnknownOrder, the number stays used);
 * its live order is untouched, and the metrics say what was forgotten. An order whose owner is away
 * with a message about it still owed stays known until that message is delivered.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayClient } from "../../src/client/index.js";
import { Status } from "../../src/orders/index.js";
import { CancelRejectReason, CODES, OrderStatus, Side } from "../../src/protocol/schema.js";
import { type Harness, next, sendRawBuy, startHarness, until } from "./harness.js";

let t: Harness;
beforeAll(async () => {
  t = await startHarness({ "orders.keepFinishedMs": 300, "gateway.sessionRetentionMs": 1000 });
});
afterAll(async () => {
  await t?.close();
});

describe("finished orders are forgotten after their keep", () => {
  it("answered while kept; then unknown to Query and Cancel, the number still used, the live order untouched", async () => {
    const a = await t.client("keeper");
    const inst = t.inst("coinswitchx", "BTC/INR");
    const store = t.h.engine.store;
    const order = { instrumentId: inst, side: Side.Buy, priceTicks: 4_000_000, qtyLots: 10 };

    // Order 1 placed and cancelled (finished); order 2 stays open.
    const ack1 = next(a, "ack");
    const no1 = a.placeOrder(order);
    await ack1;
    const cancelled = next(a, "update", (u) => u.clOrdNo === no1 && u.status === OrderStatus.Cancelled);
    a.cancel(no1);
    await cancelled;
    const ack2 = next(a, "ack");
    const no2 = a.placeOrder(order);
    await ack2;

    // Kept: a Query still answers for it.
    const [kept] = await a.query(no1);
    expect(kept?.status).toBe(OrderStatus.Cancelled);
    expect(store.finishedKept).toBe(1);

    await until(
      () => store.stats.forgotten === 1,
      5000,
      () => `forgotten ${store.stats.forgotten}`,
    );
    expect(store.finishedKept).toBe(0);
    expect(await a.query(no1)).toEqual([]);
    const refused = next(a, "cancelReject", (r) => r.clOrdNo === no1);
    a.cancel(no1);
    expect((await refused).reason).toBe(CancelRejectReason.UnknownOrder);
    // Its number is not free again: the session only takes numbers above the highest it has seen.
    const reused = next(a, "reject", (r) => r.clOrdNo === no1);
    sendRawBuy(a, { clOrdNo: no1, instrumentId: inst, priceTicks: 4_000_000, qtyLots: 10 });
    expect((await reused).code).toBe(CODES.ClOrdNoNotIncreasing.code);

    // The live order was never touched, and finishes and goes the same way.
    const [live] = await a.query(no2);
    expect(live?.status).toBe(OrderStatus.New);
    const metrics = await (await fetch(`${t.h.httpUrl}/metrics`)).text();
    expect(metrics).toMatch(/^hftgate_orders_forgotten_total 1$/m);
    expect(metrics).toMatch(/^hftgate_orders_finished_kept 0$/m);
    const gone = next(a, "update", (u) => u.clOrdNo === no2 && u.status === OrderStatus.Cancelled);
    a.cancel(no2);
    await gone;
    await until(
      () => store.stats.forgotten === 2,
      5000,
      () => `forgotten ${store.stats.forgotten}`,
    );
    expect(store.liveOrders()).toEqual([]);
    expect(store.size).toBe(0);
  }, 20_000);

  it("an order its away owner is still owed a message about stays known until the owner is told", async () => {
    const store = t.h.engine.store;
    const inst = t.inst("coinswitchx", "BTC/INR");
    const away = await t.client("away");
    const ack = next(away, "ack");
    const no = away.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 3_900_000, qtyLots: 10 });
    const exchangeId = (await ack).exchangeOrderId;
    await away.close();
    // Past its retention the session is released: messages for its orders wait in the outbox.
    await until(() => t.h.gateway.sessionIdOf("away") === 0, 5000, "the session's release");
    const o = store.byExchangeId(exchangeId)!;
    const forgotten = store.stats.forgotten;
    const admin = await t.client("ops", 0, t.h.adminToken);
    admin.cancelAll(undefined, true);
    await until(
      () => o.status === Status.Cancelled,
      5000,
      () => `status ${o.status}`,
    );
    expect(t.h.engine.owners.owes(o.sessionId, no)).toBe(true);
    // Well past its keep (300 ms) and two sweeps: still known, because the owner was never told.
    await new Promise((r) => setTimeout(r, 2500));
    expect(store.byExchangeId(exchangeId)).toBe(o);
    expect(store.stats.forgotten).toBe(forgotten);
    // The owner logs on again: it is told, and the order goes at a later sweep.
    const back = new GatewayClient({ url: t.h.url, token: t.h.token, sessionName: "away" });
    const told = next(back, "update", (u) => u.clOrdNo === no && u.status === OrderStatus.Cancelled);
    await back.connect();
    await told;
    await until(
      () => store.byExchangeId(exchangeId) === undefined,
      5000,
      "the order forgotten after the owner was told",
    );
    await back.close();
  }, 20_000);
});
