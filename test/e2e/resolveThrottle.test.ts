/**
 * Resolution under our own rate limiter: a query the limiter refuses sends nothing and must not use up
 * one of the order's bounded attempts, so an unknown outcome is still resolved once the budget is back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RateLimiter } from "../../src/limits/index.js";
import { OrderStatus, Side } from "../../src/protocol/schema.js";
import { type Harness, next, startHarness, until } from "./harness.js";

let t: Harness;
beforeAll(async () => {
  t = await startHarness({ "orders.unknownQueryRetries": 3, "orders.unknownQueryIntervalMs": 20 });
});
afterAll(async () => {
  await t?.close();
});

describe("resolution while the query budget is exhausted", () => {
  it("waits for the budget instead of escalating; the order is found by client id", async () => {
    const limiter = (t.h.sync as unknown as { limiter: RateLimiter }).limiter;
    const sim = t.h.sim!;
    const c = await t.client("throttled-resolution");
    sim.faults.add({ kind: "reset", endpoint: "POST /v5/order/create", count: 1 });
    // Use up the HFT query bucket (50 per 1 s window) so the first resolution rounds are refused locally.
    while (limiter.acquire("hft.query", "query", 0).status === "granted");
    const escalatedBefore = t.h.sync.stats.escalations;
    const unk = next(c, "unknown");
    const ack = next(c, "ack", () => true, 10_000);
    const no = c.placeOrder({
      instrumentId: t.inst("linear", "BTCUSDT"),
      side: Side.Buy,
      priceTicks: 615_000,
      qtyLots: 2,
    });
    await unk;
    // Keep the bucket empty (tokens come back as the 1 s window slides) until more rounds were refused
    // than the order has attempts: had a refusal counted as one, the order would be escalated by now.
    const drain = () => {
      while (limiter.acquire("hft.query", "query", 0).status === "granted");
    };
    await until(
      () => {
        drain();
        return t.h.sync.stats.throttledQueries > 5;
      },
      8000,
      "refused rounds",
    );
    const a = await ack;
    expect(a.clOrdNo).toBe(no);
    expect(t.h.sync.stats.escalations).toBe(escalatedBefore);
    const [q] = await c.query(no);
    expect(q!.status).toBe(OrderStatus.New);
    c.cancel(no);
    await next(c, "update", (u) => u.status === OrderStatus.Cancelled);
  });
});
