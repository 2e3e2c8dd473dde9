/**
 * The restart's orphan report on the engine handle (`restart.orphans`), against a simulator that
 * outlives the gateway: what was found, what was adopted (with the venue's terms), a surface whose
 * open list failed at the start listed again until it answers, and a later restart that finds the
 * same open orphan adopts it again (once) while one cancelled meanwhile is gone.
 */
import { describe, expect, it } from "vitest";
import { loadKeyPair } from "../../src/auth/keys.js";
import { ORPHAN_OWNER } from "../../src/engine/owners.js";
import { Status } from "../../src/orders/index.js";
import { makeGrid } from "../../src/venue/orderFields.js";
import { createRestStack } from "../../src/venue/stack.js";
import { until } from "./harness.js";
import { restartVenue } from "./restartFixture.js";

const v = restartVenue("orphans", { "streams.enabled": false });

/** Orders straight at the venue with the gateway's own keys (not through the gateway). */
async function placeDirect(): Promise<{ spot: string; hft: string }> {
  const rest = createRestStack({
    keys: loadKeyPair(v.keys.secretKey),
    spotBaseUrl: v.sim.baseUrl,
    hftBaseUrl: v.sim.baseUrl,
    presign: false,
    clock: false,
  });
  try {
    const spot = await rest.client.createSpotOrder(
      { symbol: "BTC/INR", side: "sell", price: "6100000", quantity: "0.0005", exchange: "coinswitchx" },
      makeGrid("1", "0.00001"),
    );
    const hft = await rest.client.createHftOrder(
      {
        category: "linear",
        symbol: "BTCUSDT",
        side: "buy",
        orderType: "limit",
        qty: "0.002",
        price: "60000",
        positionIdx: 0,
        timeInForce: "GTC",
        orderLinkId: "desk-manual-7",
      },
      makeGrid("0.1", "0.001"),
    );
    return { spot: spot.order_id, hft: hft.orderId };
  } finally {
    await rest.stop();
  }
}

describe("restart: the orphan report", () => {
  it("reports every venue order the journal did not know, retries a surface it could not list, adopts each once", async () => {
    const h0 = await v.start();
    await h0.stop();
    const ids = await placeDirect();

    // The HFT open list fails while the gateway starts: the Spot orphan is adopted, HFT is pending.
    v.sim.faults.add({ kind: "error5xx", endpoint: "GET /v5/order/realtime", status: 503, count: 1_000 });
    const h1 = await v.start();
    try {
      const o = h1.restart.orphans;
      expect(o.unlisted.map((u) => u.surface)).toEqual(["hft"]);
      expect(o.adopted.map((a) => [a.surface, a.exchangeId])).toEqual([["spot", ids.spot]]);
      expect(o.adopted[0]).toMatchObject({
        venueClientId: "",
        symbol: "BTC/INR",
        side: "sell",
        price: "6100000",
        qty: "0.0005",
        status: "New",
      });
      // The venue answers again: the HFT orphan is found on the next listing and added to the report.
      v.sim.faults.clear();
      await until(() => o.unlisted.length === 0, 12_000, "HFT listed again");
      expect(o.count).toBe(2);
      expect(o.adopted.find((a) => a.surface === "hft")).toMatchObject({
        exchangeId: ids.hft,
        venueClientId: "desk-manual-7",
        symbol: "BTCUSDT",
        side: "buy",
        qty: "0.002",
      });
      expect(o.notAdopted).toEqual([]);
      // Both are live orders of the gateway now; cancel the Spot one.
      const spot = h1.engine.store.byExchangeId(ids.spot)!;
      expect(spot.clientId).toBe(`orphan:${ids.spot}`);
      h1.engine.cancels.cancelOne(spot, 0, false);
      await until(() => spot.status === Status.Cancelled, 5_000, "Spot orphan cancelled");
    } finally {
      await h1.stop();
    }

    // A later restart: the still-open HFT orphan is adopted again, once; the cancelled one is gone.
    const h2 = await v.start();
    try {
      const o = h2.restart.orphans;
      expect(o.unlisted).toEqual([]);
      expect(o.count).toBe(1);
      expect(o.adopted.map((a) => a.exchangeId)).toEqual([ids.hft]);
      expect(h2.engine.store.liveOrders(ORPHAN_OWNER).map((x) => x.exchangeId)).toEqual([ids.hft]);
    } finally {
      await h2.stop();
    }
  }, 40_000);
});
