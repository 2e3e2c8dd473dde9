import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CancelRejectReason, OrderStatus, Side } from "../../src/protocol/schema.js";
import { type Harness, next, startHarness } from "./harness.js";

let t: Harness;
beforeAll(async () => {
  // Spot orders expire after 1 s and stay EXPIRATION_RAISED for 5 s at the venue.
  t = await startHarness({ "orders.spotExpirySeconds": 1 }, { sim: { spot: { expiryConfirmMs: 5_000 } } });
});
afterAll(async () => {
  await t?.close();
});

describe("ambiguous outcomes and venue-side states", () => {
  for (const kind of ["reset", "error5xx"] as const) {
    it(`lost create response (${kind}) → OutcomeUnknown, resolved by client id, exactly one order at the venue`, async () => {
      const sim = t.h.sim!;
      const c = await t.client(`unknown-${kind}`);
      const created = sim.counters.ordersCreated("hft");
      const sent = sim.counters.requests("POST /v5/order/create");
      sim.faults.add({ kind, endpoint: "POST /v5/order/create", count: 1 });
      const unk = next(c, "unknown");
      const ack = next(c, "ack");
      const no = c.placeOrder({
        instrumentId: t.inst("linear", "BTCUSDT"),
        side: Side.Buy,
        priceTicks: 620_000,
        qtyLots: 4,
      });
      expect((await unk).clOrdNo).toBe(no);
      const a = await ack;
      expect(a.clOrdNo).toBe(no);
      expect(a.exchangeOrderId).not.toBe("");
      expect(sim.counters.ordersCreated("hft")).toBe(created + 1);
      expect(sim.counters.requests("POST /v5/order/create")).toBe(sent + 1);
      const [q] = await c.query(no);
      expect(q!.status).toBe(OrderStatus.New);
      const done = next(c, "update", (u) => u.status === OrderStatus.Cancelled);
      c.cancel(no);
      await done;
    });
  }

  it("cancel is refused locally while the venue is expiring the order (EXPIRATION_RAISED)", async () => {
    const sim = t.h.sim!;
    const c = await t.client("expiring");
    const ack = next(c, "ack");
    const no = c.placeOrder({
      instrumentId: t.inst("coinswitchx", "ETH/INR"),
      side: Side.Buy,
      priceTicks: 250_000,
      qtyLots: 10,
    });
    await ack;
    await next(c, "update", (u) => u.clOrdNo === no && u.status === OrderStatus.ExpirationRaised, 4000);
    const before = sim.counters.requests("DELETE /trade/api/v2/order");
    const rej = next(c, "cancelReject");
    c.cancel(no);
    const r = await rej;
    expect(r.reason).toBe(CancelRejectReason.ExpirationRaised);
    expect(r.text).toMatch(/expiring/);
    expect(sim.counters.requests("DELETE /trade/api/v2/order")).toBe(before);
  });
});

describe("telemetry", () => {
  it("/health answers 200 with JSON once reconciled; /metrics is Prometheus text with the stage histograms", async () => {
    const c = await t.client("telemetry");
    const ack = next(c, "ack");
    const no = c.placeOrder({
      instrumentId: t.inst("linear", "ETHUSDT"),
      side: Side.Sell,
      // Resting 3% above the venue's last price (3,300): inside the 10% price band.
      priceTicks: 340_000,
      qtyLots: 1,
    });
    await ack;
    const cancelled = next(c, "update", (u) => u.clOrdNo === no && u.status === OrderStatus.Cancelled);
    c.cancel(no);
    const health = await fetch(`${t.h.httpUrl}/health`);
    expect(health.status).toBe(200);
    const body = (await health.json()) as Record<string, unknown>;
    expect(body.status).toBe("ok");
    expect(body.reconciled).toBe(true);
    const m = await (await fetch(`${t.h.httpUrl}/metrics`)).text();
    for (const stage of ["decode", "risk", "assembly", "exchange_rtt", "ack_to_strategy"]) {
      expect(m).toContain(`hftgate_stage_latency_seconds_count{stage="${stage}"}`);
    }
    const acked = Number(/hftgate_orders_total\{outcome="acked"\} (\d+)/.exec(m)?.[1]);
    expect(acked).toBeGreaterThanOrEqual(1);
    expect(m).toContain("# TYPE hftgate_stage_latency_seconds histogram");
    expect(m).toMatch(/hftgate_ratelimit_credit\{class="hft.create"\} \d+/);
    expect(m).toMatch(/hftgate_sessions \d+/);
    expect(m).toContain("hftgate_presign_misses_total");
    await cancelled;
  });
});
