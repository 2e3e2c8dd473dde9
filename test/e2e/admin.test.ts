/** Explicit admin messages (Kill, SetTradingState) through the real engine against the simulator. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CODES, OrderStatus, Side, TradingStateValue } from "../../src/protocol/schema.js";
import { type Harness, next, startHarness, until } from "./harness.js";

let t: Harness;
beforeAll(async () => {
  t = await startHarness();
});
afterAll(async () => {
  await t?.close();
});

const HFT_CANCEL = "POST /v5/order/cancel";

describe("admin messages", () => {
  it("a non-admin Kill / SetTradingState gets Error NotAdmin and changes nothing", async () => {
    const user = await t.client("adm-user");
    const eth = t.inst("linear", "ETHUSDT");
    const ack = next(user, "ack");
    user.placeOrder({ instrumentId: eth, side: Side.Buy, priceTicks: 300_000, qtyLots: 1 });
    const { clOrdNo } = await ack;
    const cancels = t.h.sim!.counters.requests(HFT_CANCEL);
    const codes: number[] = [];
    user.on("protocolError", (e) => codes.push(e.code));
    user.kill("let me out");
    user.setTradingState(TradingStateValue.Halted, "mine now");
    await until(() => codes.length === 2, 2000, "errors");
    expect(codes).toEqual([CODES.NotAdmin.code, CODES.NotAdmin.code]);
    expect(t.h.risk.state).toBe("active");
    expect(t.h.engine.store.bySessionOrder(t.h.engine.ownerOf("adm-user"), clOrdNo)?.status).toBe(2); // New
    expect(t.h.sim!.counters.requests(HFT_CANCEL)).toBe(cancels);
    user.cancelAll();
    await until(() => t.h.engine.store.liveOrders().length === 0, 3000, "clean up");
  });

  it("SetTradingState reducing / active and Kill are broadcast to every session; Kill cancels everything", async () => {
    const user = await t.client("adm-user2");
    const other = await t.client("adm-other");
    const ops = await t.client("adm-ops", 0, t.h.adminToken);
    const eth = t.inst("linear", "ETHUSDT");

    const reducing = [next(user, "tradingState"), next(other, "tradingState"), next(ops, "tradingState")];
    ops.setTradingState(TradingStateValue.Reducing, "desk: reduce only");
    for (const p of reducing) {
      const s = await p;
      expect(s.state).toBe(TradingStateValue.Reducing);
      expect(s.text).toBe("desk: reduce only");
    }
    expect(t.h.risk.state).toBe("reducing");
    // The same state again still answers (once, to everyone).
    const again = next(ops, "tradingState");
    ops.setTradingState(TradingStateValue.Reducing, "still reducing");
    expect((await again).text).toBe("still reducing");
    const active = next(user, "tradingState", (s) => s.state === TradingStateValue.Active);
    ops.setTradingState(TradingStateValue.Active, "desk: resume");
    await active;
    expect(t.h.risk.state).toBe("active");

    const a1 = next(user, "ack");
    user.placeOrder({ instrumentId: eth, side: Side.Buy, priceTicks: 300_100, qtyLots: 1 });
    await a1;
    const a2 = next(other, "ack");
    other.placeOrder({ instrumentId: eth, side: Side.Buy, priceTicks: 300_200, qtyLots: 1 });
    await a2;
    const halted = next(other, "tradingState");
    const gone1 = next(user, "update", (u) => u.status === OrderStatus.Cancelled);
    const gone2 = next(other, "update", (u) => u.status === OrderStatus.Cancelled);
    ops.kill("desk: stop everything");
    const h = await halted;
    expect(h.state).toBe(TradingStateValue.Halted);
    expect(h.text).toBe("desk: stop everything");
    await gone1;
    await gone2;
    expect(t.h.risk.state).toBe("halted");
    const rej = next(user, "reject");
    user.placeOrder({ instrumentId: eth, side: Side.Buy, priceTicks: 300_100, qtyLots: 1 });
    expect((await rej).code).toBe(CODES.TradingHalted.code);
    // Kill while halted: answered again.
    const twice = next(user, "tradingState");
    ops.kill("");
    expect((await twice).state).toBe(TradingStateValue.Halted);
    const back = next(ops, "tradingState", (s) => s.state === TradingStateValue.Active);
    ops.setTradingState(TradingStateValue.Active, "test over");
    await back;
  });

  it("the older mapping still works: admin CancelAll scope 3 is the kill switch", async () => {
    const ops = await t.client("adm-ops2", 0, t.h.adminToken);
    const halted = next(ops, "tradingState");
    ops.cancelAll(undefined, true);
    expect((await halted).state).toBe(TradingStateValue.Halted);
    t.h.risk.setState("active", "test over");
  });
});
