/**
 * Scenario: create accepted but the answer lost (reset, timeout, 5xx), on both surfaces, then fills,
 * then cancels whose answers are lost too. The gateway must end with every order's status and filled
 * quantity equal to the venue's, nothing duplicated (resends reuse the client id), nothing lost.
 */
import { describe, expect, it } from "vitest";
import { MiniGateway } from "../harness/mini.js";
import { record } from "../harness/results.js";
import { converge, venueOrders } from "../harness/truth.js";
import { counterHft, counterSpot, sleep, startVenue } from "../harness/venue.js";

const SPOT_CREATE = "POST /trade/api/v2/order";
const SPOT_CANCEL = "DELETE /trade/api/v2/order";
const HFT_CREATE = "POST /v5/order/create";
const HFT_CANCEL = "POST /v5/order/cancel";

export function lostResponses(): void {
  describe("lost responses (component level)", () => {
    it("create and cancel answers lost (reset, timeout, 5xx): final truth equals the venue", async () => {
      const v = await startVenue();
      const gw = await MiniGateway.start({ sim: v.sim, keys: v.keys });
      try {
        for (const ep of [SPOT_CREATE, HFT_CREATE]) {
          v.faults.add({ kind: "reset", endpoint: ep, probability: 0.3, count: 3 });
          v.faults.add({ kind: "timeout", endpoint: ep, probability: 0.3, count: 2 });
          v.faults.add({ kind: "error5xx", endpoint: ep, probability: 0.3, count: 3, status: 503 });
        }
        const N = 20;
        const spot = [];
        const hft = [];
        for (let i = 0; i < N; i++) {
          spot.push(
            gw.place({
              surface: "spot",
              symbol: "BTC/INR",
              side: "buy",
              price: String(5_300_000 - i * 10),
              qty: "0.001",
            }),
          );
          hft.push(
            gw.place({
              surface: "hft",
              symbol: "ETHUSDT",
              side: "buy",
              price: (3200 - i * 0.1).toFixed(2),
              qty: "0.05",
            }),
          );
        }
        await gw.idle();
        expect(gw.stats.createUnknown).toBeGreaterThan(0); // the faults did bite
        // Fills on both surfaces: 3.5 Spot orders' worth, 3.6 HFT orders' worth, taken from the top.
        await counterSpot(v, "sell", 5_299_000, 0.0035);
        await counterHft(v, "Sell", "3190.00", "0.18");
        await sleep(150);
        for (const ep of [SPOT_CANCEL, HFT_CANCEL]) {
          v.faults.add({ kind: "reset", endpoint: ep, probability: 0.5, count: 2 });
          v.faults.add({ kind: "timeout", endpoint: ep, probability: 0.5, count: 2 });
          v.faults.add({ kind: "error5xx", endpoint: ep, probability: 0.5, count: 2 });
        }
        // Cancel every other order (some are filled already or still unresolved: the guard decides).
        for (let i = 1; i < N; i += 2) {
          gw.cancel(spot[i]!);
          gw.cancel(hft[i]!);
        }
        // More fills while the cancels are in flight (Spot fills in the cancel gap are real fills).
        await counterSpot(v, "sell", 5_299_000, 0.0012);
        await counterHft(v, "Sell", "3190.00", "0.07");
        await gw.idle();
        const fired = v.faults.fired();
        v.faults.clearRules();
        await gw.settle();
        const t = await converge(
          () => gw.views(),
          () => venueOrders(v.sim, v.keys.apiKey),
          3_000,
        );
        record({
          scenario: "lost create/cancel answers (reset, timeout, 5xx)",
          orders: 2 * N,
          faults: fired,
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(t.details).toEqual([]);
        expect(t.venueOrders).toBe(2 * N); // every create reached the venue exactly once
        expect(fired).toBeGreaterThanOrEqual(8);
      } finally {
        await gw.stop();
        await v.sim.stop();
      }
    }, 30_000);
  });
}
