import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CancelRejectReason, CODES, OrderStatus, OrdType, Side } from "../../src/protocol/schema.js";
import { type Harness, next, recorder, startHarness, until } from "./harness.js";

let t: Harness;
beforeAll(async () => {
  t = await startHarness();
});
afterAll(async () => {
  await t?.close();
});

const SPOT_CREATE = "POST /trade/api/v2/order";
const SPOT_CANCEL = "DELETE /trade/api/v2/order";
const HFT_CREATE = "POST /v5/order/create";

describe("rejects: nothing reaches the venue", () => {
  it("risk reject (notional above the configured maximum)", async () => {
    const c = await t.client("rej-risk");
    const before = t.h.sim!.counters.requests(SPOT_CREATE);
    const r = next(c, "reject");
    // 1 BTC at 5,000,000 INR is above the 1,000,000 INR default.
    const no = c.placeOrder({
      instrumentId: t.inst("coinswitchx", "BTC/INR"),
      side: Side.Buy,
      priceTicks: 5_000_000,
      qtyLots: 100_000,
    });
    const rej = await r;
    expect(rej.clOrdNo).toBe(no);
    expect(rej.code).toBe(CODES.RiskLimit.code);
    expect(rej.text).toMatch(/order value above/);
    expect(t.h.sim!.counters.requests(SPOT_CREATE)).toBe(before);
  });

  it("quantity above the instrument maximum, and a Spot market order", async () => {
    const c = await t.client("rej-qty");
    const before = t.h.sim!.counters.requests(HFT_CREATE) + t.h.sim!.counters.requests(SPOT_CREATE);
    const r1 = next(c, "reject");
    c.placeOrder({
      instrumentId: t.inst("linear", "BTCUSDT"),
      side: Side.Buy,
      priceTicks: 640_000,
      qtyLots: 200_000,
    });
    expect((await r1).code).toBe(CODES.QtyAboveMax.code);
    const r2 = next(c, "reject");
    c.placeOrder({
      instrumentId: t.inst("coinswitchx", "BTC/INR"),
      side: Side.Buy,
      ordType: OrdType.Market,
      qtyLots: 10,
    });
    expect((await r2).text).toMatch(/limit orders only/);
    expect(t.h.sim!.counters.requests(HFT_CREATE) + t.h.sim!.counters.requests(SPOT_CREATE)).toBe(before);
  });

  it("price off the grid cannot be expressed (integer ticks); a zero limit price and an unknown instrument are refused", async () => {
    const c = await t.client("rej-inst");
    const before = t.h.sim!.counters.requests(HFT_CREATE) + t.h.sim!.counters.requests(SPOT_CREATE);
    const r1 = next(c, "reject");
    c.placeOrder({ instrumentId: 9999, side: Side.Buy, priceTicks: 1, qtyLots: 1 });
    expect((await r1).code).toBe(CODES.UnknownInstrument.code);
    const r2 = next(c, "reject");
    c.placeOrder({ instrumentId: t.inst("linear", "BTCUSDT"), side: Side.Buy, priceTicks: 0, qtyLots: 1 });
    expect((await r2).code).toBe(CODES.BadPrice.code);
    expect(t.h.sim!.counters.requests(HFT_CREATE) + t.h.sim!.counters.requests(SPOT_CREATE)).toBe(before);
  });

  it("a venue validation reject (insufficient balance) is a Reject, not an unknown outcome", async () => {
    const c = await t.client("rej-venue");
    const r = next(c, "reject");
    // 0.5 ETH sell on ETH/USDT at 1,000 USDT: fine for risk; the account holds 10 ETH so use BTC: 2 BTC > 1 BTC balance.
    c.placeOrder({
      instrumentId: t.inst("c2c1", "BTC/USDT"),
      side: Side.Sell,
      priceTicks: 100_000,
      qtyLots: 200_000,
    });
    const rej = await r;
    expect([CODES.InsufficientBalance.code, CODES.VenueRejected.code]).toContain(rej.code);
  });
});

describe("cancel semantics", () => {
  it("a cancel during CANCELLATION_RAISED sends no second cancel request", async () => {
    const sim = t.h.sim!;
    sim.setSpotDelays({ cancelConfirmMs: 3_000 });
    try {
      const c = await t.client("cxl-raised");
      const ack = next(c, "ack");
      const no = c.placeOrder({
        instrumentId: t.inst("coinswitchx", "ETH/INR"),
        side: Side.Buy,
        priceTicks: 200_000,
        qtyLots: 100,
      });
      await ack;
      const before = sim.counters.requests(SPOT_CANCEL);
      c.cancel(no);
      const order = t.h.engine.store.bySessionOrder(t.h.engine.ownerOf("cxl-raised"), no)!;
      await until(() => order.status === 5 /* CancellationRaised */, 2000, "CancellationRaised");
      const rej = next(c, "cancelReject");
      c.cancel(no);
      const cr = await rej;
      expect(cr.reason).toBe(CancelRejectReason.AlreadyPending);
      expect(sim.counters.requests(SPOT_CANCEL)).toBe(before + 1);
    } finally {
      sim.setSpotDelays({ cancelConfirmMs: 50 });
    }
  });

  it("cancelling a terminal order and an unknown order is refused locally", async () => {
    const c = await t.client("cxl-terminal");
    const inst = t.inst("linear", "ETHUSDT");
    const ack = next(c, "ack");
    const no = c.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 300_000, qtyLots: 10 });
    await ack;
    const done = next(c, "update", (u) => u.status === OrderStatus.Cancelled);
    c.cancel(no);
    await done;
    const before = t.h.sim!.counters.requests("POST /v5/order/cancel");
    const r1 = next(c, "cancelReject");
    c.cancel(no);
    expect((await r1).reason).toBe(CancelRejectReason.AlreadyTerminal);
    const r2 = next(c, "cancelReject");
    c.cancel("no-such-exchange-id");
    expect((await r2).reason).toBe(CancelRejectReason.UnknownOrder);
    expect(t.h.sim!.counters.requests("POST /v5/order/cancel")).toBe(before);
  });
});

describe("sessions", () => {
  it("two sessions are isolated: no messages about the other's orders, no cancelling them", async () => {
    const a = await t.client("iso-a");
    const b = await t.client("iso-b");
    const seenByB = recorder(b);
    const ack = next(a, "ack");
    a.placeOrder({
      instrumentId: t.inst("linear", "BTCUSDT"),
      side: Side.Buy,
      priceTicks: 600_000,
      qtyLots: 3,
    });
    const { exchangeOrderId } = await ack;
    const rej = next(b, "cancelReject");
    b.cancel(exchangeOrderId);
    expect((await rej).reason).toBe(CancelRejectReason.UnknownOrder);
    expect(await b.query()).toEqual([]);
    // Account-wide pushes (balances, positions, credit) reach every session; nothing about a's order does.
    const accountWide = new Set(["CancelReject", "QueryEnd", "Credit", "BalanceUpdate", "PositionUpdate"]);
    expect(seenByB.filter((m) => !accountWide.has(m.name))).toEqual([]);
    const live = await a.query();
    expect(live.map((u) => u.exchangeOrderId)).toEqual([exchangeOrderId]);
    a.cancelAll();
    await next(a, "update", (u) => u.status === OrderStatus.Cancelled);
  });

  it("cancel-on-disconnect cancels the session's live orders at the venue", async () => {
    const c = await t.client("cod", 1);
    const ack = next(c, "ack");
    c.placeOrder({
      instrumentId: t.inst("linear", "BTCUSDT"),
      side: Side.Buy,
      priceTicks: 610_000,
      qtyLots: 2,
    });
    const { exchangeOrderId } = await ack;
    await c.close();
    await until(() => t.h.engine.store.byExchangeId(exchangeOrderId)?.status === 8, 3000, "cancelled");
    const rows = (await t.h.rest.client.realtime({ category: "linear", orderId: exchangeOrderId })).list;
    expect(rows[0]!.orderStatus).toBe("Cancelled");
  });

  it("kill switch from the admin session halts trading, cancels everything and tells the sessions", async () => {
    const user = await t.client("kill-user");
    const admin = await t.client("kill-admin", 0, t.h.adminToken);
    const ack = next(user, "ack");
    user.placeOrder({
      instrumentId: t.inst("linear", "ETHUSDT"),
      side: Side.Buy,
      priceTicks: 310_000,
      qtyLots: 5,
    });
    await ack;
    const state = next(user, "tradingState");
    const cancelled = next(user, "update", (u) => u.status === OrderStatus.Cancelled);
    admin.cancelAll(undefined, true);
    expect((await state).state).toBe(3);
    await cancelled;
    const rej = next(user, "reject");
    user.placeOrder({
      instrumentId: t.inst("linear", "ETHUSDT"),
      side: Side.Buy,
      priceTicks: 310_000,
      qtyLots: 5,
    });
    expect((await rej).code).toBe(CODES.TradingHalted.code);
    t.h.risk.setState("active", "test over");
  });
});
