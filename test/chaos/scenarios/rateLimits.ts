/**
 * Scenario: a burst of creates and cancels against a saturated order bucket, then a 429 storm from the
 * venue. Cancels must overtake queued creates, a 429 must open the create circuit (later creates are
 * refused locally, never sent late) without blocking cancels, and the final truth must hold.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMIT_TABLE } from "../../../src/limits/index.js";
import type { Order } from "../../../src/orders/index.js";
import { Status } from "../../../src/orders/index.js";
import { MiniGateway } from "../harness/mini.js";
import { record } from "../harness/results.js";
import { converge, venueOrders } from "../harness/truth.js";
import { sleep, startVenue, until } from "../harness/venue.js";

const HFT_CREATE = "POST /v5/order/create";
const HFT_CANCEL = "POST /v5/order/cancel";

/** The HFT order bucket scaled down so a 40-order burst saturates it: 16 creates + 4 cancel-only per second. */
const TABLE = {
  ...DEFAULT_LIMIT_TABLE,
  buckets: {
    ...DEFAULT_LIMIT_TABLE.buckets,
    "hft.order": { capacity: 20, windowMs: 1_000, cancelReserve: 4 },
  },
};

export function rateLimitScenarios(): void {
  describe("429 storm (component level)", () => {
    it("burst of creates and cancels: cancels first, 429 opens the create circuit, truth holds", async () => {
      const v = await startVenue();
      const gw = await MiniGateway.start({
        sim: v.sim,
        keys: v.keys,
        limiter: { table: TABLE, marginMs: 20, circuit: { baseMs: 300, maxMs: 2_000, jitter: 0 } },
        createWaitMs: 3_000,
        cancelWaitMs: 3_000,
      });
      try {
        // Phase 1: 40 creates at once: 16 leave now, 24 queue behind the window.
        const burst: Order[] = [];
        for (let i = 0; i < 40; i++) {
          burst.push(
            gw.place({
              surface: "hft",
              symbol: "ETHUSDT",
              side: "buy",
              price: (3200 - i * 0.1).toFixed(2),
              qty: "0.05",
            }),
          );
        }
        await new Promise((r) => setImmediate(r));
        expect(gw.sent.filter((k) => k === "create").length).toBe(16);
        // Cancels for 10 of the orders already sent: they overtake the 24 queued creates.
        await until(() => burst.slice(0, 10).every((o) => o.status === Status.New), 2_000, "first acks");
        for (let i = 0; i < 10; i++) gw.cancel(burst[i]!);
        await gw.idle();
        // The first 16 entries are the creates granted at once; every cancel left before the 24 queued creates.
        const firstQueuedCreate = gw.sent.indexOf("create", 16);
        expect(gw.sent.slice(0, firstQueuedCreate).filter((k) => k === "cancel").length).toBe(10);
        expect(gw.sent.filter((k) => k === "create").length).toBe(40); // queued, then sent within their deadline

        // Phase 2: the venue answers 429 to creates; the circuit opens, cancels keep flowing.
        v.faults.add({ kind: "rate429", endpoint: HFT_CREATE, count: 30 });
        const createsAtVenueBefore = v.sim.counters.requests(HFT_CREATE);
        const cancelsAtVenueBefore = v.sim.counters.requests(HFT_CANCEL);
        const storm: Order[] = [];
        // 30 creates over ~1.5 s while the venue answers every create with 429; 20 cancels among them.
        for (let i = 0; i < 30; i++) {
          storm.push(
            gw.place({
              surface: "hft",
              symbol: "ETHUSDT",
              side: "buy",
              price: (3100 - i * 0.1).toFixed(2),
              qty: "0.05",
            }),
          );
          if (i < 20) gw.cancel(burst[10 + i]!);
          await sleep(50);
        }
        await gw.idle();
        const stormCreatesSent = v.sim.counters.requests(HFT_CREATE) - createsAtVenueBefore;
        // While the circuit was open nothing was sent: only the first create and the half-open probes
        // reached the venue, and each of them was answered 429.
        expect(stormCreatesSent).toBeLessThan(8);
        expect(stormCreatesSent).toBe(v.faults.fired());
        expect(gw.throttleReasons.get("CIRCUIT_OPEN") ?? 0).toBeGreaterThan(0);
        // Every cancel of a live order reached the venue despite the storm.
        expect(v.sim.counters.requests(HFT_CANCEL) - cancelsAtVenueBefore).toBe(20);
        const fired = v.faults.fired();
        v.faults.clearRules();
        await gw.settle();
        const t = await converge(
          () => gw.views(),
          () => venueOrders(v.sim, v.keys.apiKey),
          3_000,
        );
        record({
          scenario: "429 storm during a burst of creates and cancels",
          orders: burst.length + storm.length,
          faults: fired,
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(t.details).toEqual([]);
        // Throttled creates are rejected at the gateway and absent at the venue (checked by the truth above).
        expect(storm.filter((o) => o.status === Status.Rejected).length).toBeGreaterThan(0);
      } finally {
        await gw.stop();
        await v.sim.stop();
      }
    }, 30_000);
  });
}
