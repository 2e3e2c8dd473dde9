/**
 * A create the gateway refused itself (its own rate limiter: Reject 300) is journaled as refused
 * before the strategy hears of it, so a restart replays it as Rejected and never sends it.
 */
import { describe, expect, it } from "vitest";
import { GatewayClient } from "../../src/client/index.js";
import { Status } from "../../src/orders/index.js";
import { CODES, Side } from "../../src/protocol/schema.js";
import { until } from "./harness.js";
import { restartVenue } from "./restartFixture.js";

const v = restartVenue("local-refusal", { "limits.createWaitMs": 0 });

describe("local refusals survive a restart as refusals", () => {
  it("a create refused by the gateway's rate limiter is replayed as Rejected and never reaches the venue", async () => {
    const h1 = await v.start();
    const c = new GatewayClient({ url: h1.url, token: h1.token, sessionName: "burst" });
    await c.connect();
    const inst = h1.instruments.all().find((i) => i.symbol === "BTCUSDT")!.id;
    const rejects: { no: number; code: number }[] = [];
    let acks = 0;
    c.on("reject", (r) => rejects.push({ no: r.clOrdNo, code: r.code }));
    c.on("ack", () => acks++);
    // More creates than the HFT order bucket lets through in one window: the last ones are refused here.
    const n = 60;
    for (let i = 0; i < n; i++)
      c.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 600_000 - i * 10, qtyLots: 1 });
    await until(() => acks + rejects.length === n, 5000, "every create answered");
    expect(rejects.length).toBeGreaterThan(0);
    expect(rejects.every((r) => r.code === CODES.RateLimited.code)).toBe(true);
    const owner = h1.engine.ownerOf("burst");
    const refused = rejects.map((r) => h1.engine.store.bySessionOrder(owner, r.no)!.clientId);
    const created = v.sim.counters.ordersCreated("hft");
    expect(created).toBe(acks);
    await c.close();
    await h1.stop("restart");

    const h2 = await v.start();
    try {
      expect(h2.replay?.orders).toBe(n);
      expect(h2.replay?.live).toBe(acks); // the refused ones are rebuilt as Rejected, not in flight
      for (const id of refused) expect(h2.engine.store.byClientId(id)?.status).toBe(Status.Rejected);
      // Give any resolution or reconciliation a full round to (wrongly) send them.
      await new Promise((r) => setTimeout(r, 300));
      expect(v.sim.counters.ordersCreated("hft")).toBe(created);
      for (const id of refused.slice(0, 3)) {
        const rows = (await h2.rest.client.realtime({ category: "linear", orderLinkId: id })).list;
        expect(rows.length).toBe(0);
      }
    } finally {
      await h2.stop("test");
    }
  }, 20_000);
});
