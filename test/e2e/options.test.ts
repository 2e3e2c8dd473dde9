/**
 * HFT options beside linear from one gateway: instruments of both categories loaded, each order sent
 * with its instrument's category, and an options order from a key without the venue's allowlist
 * answered with the clear reject code NotAllowlisted while linear keeps trading.
 */
import { describe, expect, it } from "vitest";
import { CODES, OrderStatus, Side, Surface } from "../../src/protocol/schema.js";
import { next, startHarness, until } from "./harness.js";

const BOTH = { "venue.hftCategories": ["linear", "option"] };
const OPTION = "BTC-26DEC26-70000-C";

describe("HFT options beside linear", () => {
  it("loads both categories and trades an option and a linear order at once; each lands in its category at the venue", async () => {
    const t = await startHarness(BOTH);
    try {
      const a = await t.client("opt-a");
      const list = await a.instruments();
      const opt = list.find((i) => i.symbol === OPTION);
      const lin = list.find((i) => i.symbol === "BTCUSDT" && i.venue === "linear");
      expect(opt).toMatchObject({ surface: Surface.Hft, venue: "option", tickSize: "5", qtyStep: "0.01" });
      expect(lin?.surface).toBe(Surface.Hft);

      const acks = new Map<number, string>();
      a.on("ack", (b) => acks.set(b.clOrdNo, b.exchangeOrderId));
      const optNo = a.placeOrder({
        instrumentId: opt!.instrumentId,
        side: Side.Buy,
        priceTicks: 400,
        qtyLots: 10,
      });
      const linNo = a.placeOrder({
        instrumentId: lin!.instrumentId,
        side: Side.Buy,
        priceTicks: 600_000,
        qtyLots: 1,
      });
      await until(() => acks.size === 2, 5000, "both acks");

      const rest = t.h.rest.client;
      const optRows = (await rest.realtime({ category: "option" })).list;
      const linRows = (await rest.realtime({ category: "linear" })).list;
      expect(optRows.map((r) => r.orderId)).toEqual([acks.get(optNo)]);
      expect(optRows[0]).toMatchObject({ symbol: OPTION, price: "2000", qty: "0.10" });
      expect(linRows.map((r) => r.orderId)).toContain(acks.get(linNo));
      expect(linRows.map((r) => r.orderId)).not.toContain(acks.get(optNo));

      // Cancel of the option goes out with category option (the venue would not find it under linear).
      const cancelled = next(
        a,
        "update",
        (u) => u.clOrdNo === optNo && u.status === OrderStatus.Cancelled,
        8000,
      );
      a.cancel(optNo);
      await cancelled;
      expect(
        (await rest.realtime({ category: "option", orderId: acks.get(optNo)! })).list[0]?.orderStatus,
      ).toBe("Cancelled");
    } finally {
      await t.close();
    }
  });

  it("without the options allowlist: the venue answers an error, the strategy gets Reject NotAllowlisted; linear still trades", async () => {
    const t = await startHarness(BOTH, { sim: { hft: { optionsAllowlisted: false } } });
    try {
      // Option market data is public, so the instrument is known; its orders are refused by the venue.
      await expect(t.h.rest.client.realtime({ category: "option" })).rejects.toMatchObject({
        name: "ValidationError",
        code: 10005,
      });
      const a = await t.client("opt-denied");
      const opt = t.inst("option", OPTION);
      const lin = t.inst("linear", "BTCUSDT");
      const rej = next(a, "reject");
      const no = a.placeOrder({ instrumentId: opt, side: Side.Buy, priceTicks: 400, qtyLots: 10 });
      const r = await rej;
      expect(r.clOrdNo).toBe(no);
      expect(r.code).toBe(CODES.NotAllowlisted.code);
      expect(r.retryable).toBe(0);
      expect(r.text).toMatch(/not enabled/);
      const ack = next(a, "ack");
      const linNo = a.placeOrder({ instrumentId: lin, side: Side.Buy, priceTicks: 600_000, qtyLots: 1 });
      expect((await ack).clOrdNo).toBe(linNo);
      // The open-list poll keeps running for linear although the option list is refused.
      const okBefore = t.h.sync.lastVenueOkMs;
      await until(() => t.h.sync.lastVenueOkMs > okBefore, 5000, "a successful open-list poll");
    } finally {
      await t.close();
    }
  });
});
