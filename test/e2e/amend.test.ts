/**
 * Amend end to end over real sockets against the simulator: in place on HFT (price, quantity, a fill
 * racing the amend, guards, a cancel held behind an amend, a lost answer resolved by a query), and
 * cancel-replace on Spot (the old order cancelled at the venue before the replacement exists).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayClient } from "../../src/client/index.js";
import { AmendRejectReason, CODES, OrderStatus, Side } from "../../src/protocol/schema.js";
import { type Harness, next, recorder, startHarness } from "./harness.js";

let t: Harness;
beforeAll(async () => {
  // A short header timeout so an amend held past it at the venue is an unknown outcome quickly.
  t = await startHarness({ "http.headersTimeoutMs": 400 });
});
afterAll(async () => {
  await t?.close();
});

const HFT = () => t.inst("linear", "BTCUSDT");

async function hftOrder(c: GatewayClient, priceTicks: number, qtyLots: number, side = Side.Buy) {
  const ack = next(c, "ack");
  const no = c.placeOrder({ instrumentId: HFT(), side, priceTicks, qtyLots });
  return { no, exchangeOrderId: (await ack).exchangeOrderId };
}

async function venueHft(orderId: string) {
  const rows = (await t.h.rest.client.realtime({ category: "linear", orderId })).list;
  return rows[0]!;
}

describe("amend in place (HFT)", () => {
  it("price: PendingReplace, then the order at the new price, as the venue holds it", async () => {
    const c = await t.client("amend-px");
    const o = await hftOrder(c, 600_000, 10);
    const log = recorder(c);
    const pending = next(c, "update", (u) => u.clOrdNo === o.no && u.status === OrderStatus.PendingReplace);
    const done = next(c, "update", (u) => u.clOrdNo === o.no && u.status === OrderStatus.New);
    c.amend(o.no, { priceTicks: 600_500 });
    expect((await pending).priceTicks).toBe(600_000);
    const u = await done;
    expect([u.priceTicks, u.qtyLots, u.leavesQtyLots, u.exchangeOrderId]).toEqual([
      600_500,
      10,
      10,
      o.exchangeOrderId,
    ]);
    const v = await venueHft(o.exchangeOrderId);
    expect([Number(v.price), Number(v.qty), v.orderStatus]).toEqual([60_050, 0.01, "New"]);
    expect(log.filter((m) => m.name === "AmendReject")).toEqual([]);
  });

  it("quantity: the new total and leaves", async () => {
    const c = await t.client("amend-qty");
    const o = await hftOrder(c, 600_000, 10);
    const done = next(c, "update", (u) => u.clOrdNo === o.no && u.status === OrderStatus.New);
    c.amend(o.no, { qtyLots: 25 });
    const u = await done;
    expect([u.priceTicks, u.qtyLots, u.leavesQtyLots]).toEqual([600_000, 25, 25]);
    const v = await venueHft(o.exchangeOrderId);
    expect(Number(v.qty)).toBe(0.025);
    const [q] = await c.query(o.no);
    expect(q!.qtyLots).toBe(25);
  });

  it("a fill racing the amend: the gateway ends where the venue is", async () => {
    const a = await t.client("amend-race-a");
    const b = await t.client("amend-race-b");
    const o = await hftOrder(a, 639_000, 10);
    const part = next(a, "update", (u) => u.clOrdNo === o.no && u.status === OrderStatus.PartiallyFilled);
    b.placeOrder({ instrumentId: HFT(), side: Side.Sell, priceTicks: 639_000, qtyLots: 4 });
    expect((await part).cumQtyLots).toBe(4);
    // Refused by the guard: the total must exceed what is filled.
    const low = next(a, "amendReject");
    a.amend(o.no, { qtyLots: 4 });
    expect((await low).reason).toBe(AmendRejectReason.QtyNotAboveFilled);
    // The amend (to 20) and a sell of 10 leave together: either may reach the venue first.
    a.amend(o.no, { qtyLots: 20 });
    b.placeOrder({ instrumentId: HFT(), side: Side.Sell, priceTicks: 639_000, qtyLots: 10 });
    // Amend first: 20 lots, 14 filled, working. Sell first: the old 10 filled, the amend refused.
    const lots = (x: string) => Math.round(Number(x) * 1000);
    const WIRE: Record<string, number> = {
      PartiallyFilled: OrderStatus.PartiallyFilled,
      Filled: OrderStatus.Filled,
    };
    const deadline = Date.now() + 5000;
    let venue = "";
    let gw = "";
    for (;;) {
      const v = await venueHft(o.exchangeOrderId);
      venue = `${WIRE[v.orderStatus]}|${lots(v.cumExecQty)}|${lots(v.qty)}`;
      const [q] = await a.query(o.no);
      gw = `${q!.status}|${q!.cumQtyLots}|${q!.qtyLots}`;
      const settled =
        venue === `${OrderStatus.PartiallyFilled}|14|20` || venue === `${OrderStatus.Filled}|10|10`;
      if ((settled && gw === venue) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(gw).toBe(venue);
    expect([`${OrderStatus.PartiallyFilled}|14|20`, `${OrderStatus.Filled}|10|10`]).toContain(venue);
  });

  it("guards: unknown order, newClOrdNo on an in-place amend, a cancel pending, another amend in flight, a final order", async () => {
    const sim = t.h.sim!;
    const c = await t.client("amend-guards");
    const o = await hftOrder(c, 600_000, 10);
    const rej = () => next(c, "amendReject");
    let r = rej();
    c.amend(o.no + 50, { priceTicks: 600_100 });
    expect((await r).reason).toBe(AmendRejectReason.UnknownOrder);
    r = rej();
    c.amend(o.no, { priceTicks: 600_100 }, true);
    expect((await r).reason).toBe(AmendRejectReason.BadNewClOrdNo);
    // Another amend while the first is held at the venue.
    sim.faults.add({ kind: "latency", endpoint: "POST /v5/order/amend", ms: 150, count: 1 });
    const amended = next(
      c,
      "update",
      (u) => u.clOrdNo === o.no && u.priceTicks === 600_100 && u.status === 2,
    );
    c.amend(o.no, { priceTicks: 600_100 });
    r = rej();
    c.amend(o.no, { priceTicks: 600_200 });
    expect((await r).reason).toBe(AmendRejectReason.AmendPending);
    await amended;
    // A cancel in flight.
    sim.faults.add({ kind: "latency", endpoint: "POST /v5/order/cancel", ms: 150, count: 1 });
    const cancelled = next(c, "update", (u) => u.clOrdNo === o.no && u.status === OrderStatus.Cancelled);
    c.cancel(o.no);
    await next(c, "update", (u) => u.clOrdNo === o.no && u.status === OrderStatus.PendingCancel);
    r = rej();
    c.amend(o.no, { priceTicks: 600_300 });
    expect((await r).reason).toBe(AmendRejectReason.CancelPending);
    await cancelled;
    r = rej();
    const before = sim.counters.requests("POST /v5/order/amend");
    c.amend(o.no, { qtyLots: 30 });
    const fin = await r;
    expect([fin.reason, fin.exchangeOrderId]).toEqual([AmendRejectReason.AlreadyTerminal, o.exchangeOrderId]);
    expect(sim.counters.requests("POST /v5/order/amend")).toBe(before);
    expect(Number((await venueHft(o.exchangeOrderId)).price)).toBe(60_010);
  });

  it("a cancel asked for during an amend is held, then sent: cancelled at the amended price", async () => {
    const sim = t.h.sim!;
    const c = await t.client("amend-then-cancel");
    const o = await hftOrder(c, 600_000, 10);
    sim.faults.add({ kind: "latency", endpoint: "POST /v5/order/amend", ms: 150, count: 1 });
    const log = recorder(c);
    const cancelled = next(c, "update", (u) => u.clOrdNo === o.no && u.status === OrderStatus.Cancelled);
    c.amend(o.no, { priceTicks: 600_400 });
    c.cancel(o.no);
    const fin = await cancelled;
    expect(fin.priceTicks).toBe(600_400);
    expect(log.filter((m) => m.name === "CancelReject")).toEqual([]);
    const v = await venueHft(o.exchangeOrderId);
    expect([v.orderStatus, Number(v.price)]).toEqual(["Cancelled", 60_040]);
  });

  it("the amend's answer lost after the venue took it (5xx): resolved by a query, never re-sent", async () => {
    const sim = t.h.sim!;
    const c = await t.client("amend-lost");
    const o = await hftOrder(c, 600_000, 10);
    const sent = sim.counters.requests("POST /v5/order/amend");
    sim.faults.add({ kind: "error5xx", endpoint: "POST /v5/order/amend", count: 1 });
    const log = recorder(c);
    const done = next(c, "update", (u) => u.clOrdNo === o.no && u.status === OrderStatus.New, 5000);
    c.amend(o.no, { priceTicks: 600_600, qtyLots: 12 });
    const u = await done;
    expect([u.priceTicks, u.qtyLots]).toEqual([600_600, 12]);
    expect(sim.counters.requests("POST /v5/order/amend")).toBe(sent + 1);
    expect(log.filter((m) => m.name === "AmendReject")).toEqual([]);
  });

  it("the amend held at the venue past the client's deadline and dropped: resolved as not applied", async () => {
    const sim = t.h.sim!;
    const c = await t.client("amend-dropped");
    const o = await hftOrder(c, 600_000, 10);
    sim.faults.add({ kind: "latency", endpoint: "POST /v5/order/amend", ms: 1_500, count: 1 });
    const sent = sim.counters.requests("POST /v5/order/amend");
    const rej = next(c, "amendReject", () => true, 10_000);
    const back = next(c, "update", (u) => u.clOrdNo === o.no && u.status === OrderStatus.New, 10_000);
    c.amend(o.no, { priceTicks: 600_700 });
    const r = await rej;
    expect(r.reason).toBe(AmendRejectReason.NotApplied);
    expect((await back).priceTicks).toBe(600_000);
    expect(Number((await venueHft(o.exchangeOrderId)).price)).toBe(60_000);
    expect(sim.counters.requests("POST /v5/order/amend")).toBe(sent + 1);
  });
});

describe("cancel-replace (Spot)", () => {
  it("the old order is cancelled at the venue, then the replacement for what is left under the new number", async () => {
    const a = await t.client("replace-a");
    const b = await t.client("replace-b");
    const inst = t.inst("coinswitchx", "BTC/INR");
    const ackP = next(a, "ack");
    const no = a.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 5_000_000, qtyLots: 100 });
    const old = await ackP;
    const part = next(a, "update", (u) => u.clOrdNo === no && u.status === OrderStatus.PartiallyFilled);
    b.placeOrder({ instrumentId: inst, side: Side.Sell, priceTicks: 5_000_000, qtyLots: 40 });
    await part;
    const pending = next(a, "update", (u) => u.clOrdNo === no && u.status === OrderStatus.PendingReplace);
    const replaced = next(a, "update", (u) => u.clOrdNo === no && u.status === OrderStatus.Cancelled);
    const ackNew = next(a, "ack", (x) => x.clOrdNo !== no);
    const newNo = a.amend(no, { priceTicks: 4_990_000, qtyLots: 150 }, true);
    expect(newNo).toBe(no + 1);
    await pending;
    const fin = await replaced;
    expect([fin.reasonCode, fin.cumQtyLots]).toEqual([CODES.Replaced.code, 40]);
    const ack = await ackNew;
    expect(ack.clOrdNo).toBe(newNo);
    expect(ack.exchangeOrderId).not.toBe(old.exchangeOrderId);
    // The venue: the old order cancelled, the replacement open for the 110 lots left at the new price.
    const venueOld = await t.h.rest.client.getSpotOrder({ orderId: old.exchangeOrderId });
    expect(venueOld.status).toBe("CANCELLED");
    const venueNew = await t.h.rest.client.getSpotOrder({ orderId: ack.exchangeOrderId });
    expect([venueNew.status, venueNew.price, venueNew.orig_qty]).toEqual(["OPEN", 4_990_000, 0.0011]);
    // The replacement was created only after the venue had cancelled the old one.
    expect(venueNew.created_time).toBeGreaterThanOrEqual(venueOld.updated_time);
    const [q] = await a.query(newNo);
    expect([q!.status, q!.priceTicks, q!.qtyLots]).toEqual([OrderStatus.New, 4_990_000, 110]);
    const done = next(a, "update", (u) => u.clOrdNo === newNo && u.status === OrderStatus.Cancelled);
    a.cancel(newNo);
    await done;
  });

  it("refused without a new number, and when the order filled first it is too late", async () => {
    const a = await t.client("replace-late-a");
    const b = await t.client("replace-late-b");
    const inst = t.inst("coinswitchx", "BTC/INR");
    const ackP = next(a, "ack");
    const no = a.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 5_000_000, qtyLots: 30 });
    await ackP;
    let r = next(a, "amendReject");
    a.amend(no, { priceTicks: 5_000_100 });
    expect((await r).reason).toBe(AmendRejectReason.BadNewClOrdNo);
    const filled = next(a, "update", (u) => u.clOrdNo === no && u.status === OrderStatus.Filled);
    b.placeOrder({ instrumentId: inst, side: Side.Sell, priceTicks: 5_000_000, qtyLots: 30 });
    await filled;
    r = next(a, "amendReject");
    const newNo = a.amend(no, { priceTicks: 5_000_100 }, true);
    const x = await r;
    expect([x.reason, x.newClOrdNo]).toEqual([AmendRejectReason.AlreadyTerminal, newNo]);
  });
});
