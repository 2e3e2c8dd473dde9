/**
 * The bare forwarders' driver drives the gateway too (the e2e bench's like-for-like comparison): it
 * logs on as its own session, a create is answered by its Ack and a cancel by the Cancelled update
 * (the PendingCancel before it is passed over), and a refused logon fails instead of hanging.
 * The whole product in process against the simulator, over real sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BareDriver } from "../../bench/lib/bareLoad.js";
import { LegHistograms } from "../../bench/lib/orderLoad.js";
import { newHistogram } from "../../bench/lib/stats.js";
import { LogonOptions } from "../../src/protocol/schema.js";
import { type Harness, startHarness } from "../e2e/harness.js";

let t: Harness;
beforeAll(async () => {
  t = await startHarness();
});
afterAll(async () => {
  await t?.close();
});

/** A Spot buy far below the market: it rests until cancelled. */
const spotOrder = () => ({
  instrumentId: t.inst("coinswitchx", "BTC/INR"),
  side: 1,
  priceTicks: 2_000_000,
  qtyLots: 5,
});

/** The driver on the gateway as session `name`; creates on `tpl`, cancels on Spot orders. */
function openAs(name: string, options: number, tpl = spotOrder()): Promise<BareDriver> {
  return BareDriver.openGateway(t.h.url, { token: t.h.token, sessionName: name, options }, tpl, spotOrder());
}

describe("BareDriver against the gateway", () => {
  it("creates are timed to their Ack and cancels to their Cancelled update, as their own session", async () => {
    // Far from the market: the orders rest until cancelled.
    const hft = { instrumentId: t.inst("linear", "BTCUSDT"), side: 1, priceTicks: 600_000, qtyLots: 10 };
    const d = await openAs("bare-driver", LogonOptions.None, hft);
    try {
      const legs = new LegHistograms();
      await d.sequential(3, legs);
      expect(legs.total.count).toBe(3);
      // The gateway's header stamps split the total: receive and send times inside it.
      expect(legs.inGateway.min).toBeGreaterThan(0);
      const cancels = newHistogram();
      await d.sequentialCancels(2, cancels);
      expect(cancels.count).toBe(2);
      const live = [...t.h.engine.store.liveSet()];
      // Resolved on Cancelled, not on PendingCancel: the cancelled Spot orders are no longer live.
      expect(live.filter((o) => o.symbol === "BTC/INR")).toHaveLength(0);
      expect(live.filter((o) => o.symbol === "BTCUSDT")).toHaveLength(3);
      // Each answer counted once: 3 + 2 Acks, 2 PendingCancel and 2 Cancelled updates.
      expect(d.answers).toBe(9);
    } finally {
      d.close();
    }
  });

  it("logged on with NoPendingUpdates, a cancel is answered by its Cancelled alone", async () => {
    const d = await openAs("bare-driver-quiet", LogonOptions.NoPendingUpdates);
    try {
      const cancels = newHistogram();
      await d.sequentialCancels(2, cancels);
      expect(cancels.count).toBe(2);
      // 2 Acks and 2 Cancelled updates: no PendingCancel.
      expect(d.answers).toBe(4);
    } finally {
      d.close();
    }
  });

  it("the warm-up's two heartbeats leave the session trading and count as no answer", async () => {
    const d = await openAs("bare-driver-heartbeats", LogonOptions.NoPendingUpdates);
    try {
      // A plain heartbeat and one asking for an echo: a malformed one would close the session.
      d.heartbeats();
      d.heartbeats();
      const legs = new LegHistograms();
      await d.sequential(2, legs);
      expect(legs.total.count).toBe(2);
      // The echo the gateway sends back is not an order's answer.
      expect(d.answers).toBe(2);
    } finally {
      d.close();
    }
  });

  it("a refused logon fails the open", async () => {
    const hft = { instrumentId: t.inst("linear", "BTCUSDT"), side: 1, priceTicks: 600_000, qtyLots: 10 };
    await expect(
      BareDriver.openGateway(
        t.h.url,
        { token: "not-the-token-0000000000", sessionName: "x", options: 0 },
        hft,
        hft,
      ),
    ).rejects.toThrow(/refused the driver's logon/);
  });
});
