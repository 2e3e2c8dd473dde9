import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CODES, OrderStatus, Side } from "../../src/protocol/schema.js";
import { type Harness, next, recorder, startHarness, until } from "../e2e/harness.js";

let t: Harness;
beforeAll(async () => {
  t = await startHarness();
});
afterAll(async () => {
  await t?.close();
});

describe("rate limits on the command path", () => {
  it("creates past the Spot bucket get a retryable throttle Reject and a Credit of 0; cancels still pass", async () => {
    const c = await t.client("throttle");
    const log = recorder(c);
    const inst = t.inst("coinswitchx", "ETH/INR");
    const sent = t.h.sim!.counters.requests("POST /trade/api/v2/order");
    const nos: number[] = [];
    // Spot create bucket: 100 per 10 s with 10 reserved for cancels → 90 creates.
    for (let i = 0; i < 91; i++)
      nos.push(c.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 250_000 + i, qtyLots: 10 }));
    await until(
      () => log.filter((m) => m.name === "Ack" || m.name === "Reject").length === 91,
      5000,
      "91 answers",
    );
    const rejects = log.filter((m) => m.name === "Reject");
    expect(rejects).toHaveLength(1);
    expect(rejects[0]!.body.clOrdNo).toBe(nos[90]);
    expect(rejects[0]!.body.code).toBe(CODES.RateLimited.code);
    expect(rejects[0]!.body.retryable).toBe(1);
    const credit = log.filter((m) => m.name === "Credit").at(-1)!;
    expect(credit.body.remaining).toBe(0);
    expect(t.h.sim!.counters.requests("POST /trade/api/v2/order")).toBe(sent + 90);
    const cancelled = next(c, "update", (u) => u.clOrdNo === nos[0] && u.status === OrderStatus.Cancelled);
    c.cancel(nos[0]!);
    await cancelled;
    // The shared bucket is now nearly spent: further cancels queue briefly, then are refused with
    // CancelReject Throttled (never sent late), while at least the reserved ones went through.
    c.cancelAll();
    await until(() => log.some((m) => m.name === "CancelReject"), 5000, "a throttled cancel");
    const throttled = log.filter((m) => m.name === "CancelReject");
    expect(throttled.every((m) => m.body.reason === 6)).toBe(true);
    const cancels = t.h.sim!.counters.requests("DELETE /trade/api/v2/order");
    expect(cancels).toBeGreaterThanOrEqual(1);
    expect(cancels).toBeLessThanOrEqual(10);
  });
});
