/**
 * Scenarios: the venue's clock runs 30 s and 90 s ahead of ours. Documented behaviour (docs/rest.md,
 * src/clock): beyond 5 s a warning is raised and epochs are corrected by the measured offset, so
 * trading continues; beyond 60 s signing is refused locally (ClockError: nothing is sent) until a
 * resync measures an offset within bounds again.
 */
import { describe, expect, it } from "vitest";
import { Status } from "../../../src/orders/index.js";
import { MiniGateway } from "../harness/mini.js";
import { record } from "../harness/results.js";
import { converge, venueOrders } from "../harness/truth.js";
import { counterHft, counterSpot, startVenue, until } from "../harness/venue.js";

const SPOT_CREATE = "POST /trade/api/v2/order";
const HFT_CREATE = "POST /v5/order/create";

export function clockSkewScenarios(): void {
  describe("venue clock skew (component level)", () => {
    it("30 s skew: a warning, epochs corrected, trading continues", async () => {
      const v = await startVenue();
      v.faults.setSkew(30_000);
      const warnings: number[] = [];
      const gw = await MiniGateway.start({
        sim: v.sim,
        keys: v.keys,
        clock: { onWarn: (_m, off) => warnings.push(off) },
      });
      try {
        expect(gw.stack.clock!.state).toBe("warn");
        expect(Math.abs(warnings[0]! - 30_000)).toBeLessThan(1_000);
        const N = 10;
        const orders = [];
        for (let i = 0; i < N; i++) {
          orders.push(
            gw.place({
              surface: "spot",
              symbol: "BTC/INR",
              side: "buy",
              price: String(5_300_000 - i * 10),
              qty: "0.001",
            }),
          );
          orders.push(
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
        expect(orders.every((o) => o.status === Status.New)).toBe(true);
        await counterSpot(v, "sell", 5_299_000, 0.0025);
        await counterHft(v, "Sell", "3190.00", "0.12");
        for (let i = 10; i < 2 * N; i += 2) gw.cancel(orders[i]!);
        await gw.settle();
        const t = await converge(
          () => gw.views(),
          () => venueOrders(v.sim, v.keys.apiKey),
          3_000,
        );
        record({
          scenario: "venue clock skew 30 s (warn, keep trading)",
          orders: 2 * N,
          faults: v.faults.fired(),
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(t.details).toEqual([]);
        expect(t.venueOrders).toBe(2 * N);
      } finally {
        await gw.stop();
        await v.sim.stop();
      }
    }, 20_000);

    it("90 s skew: signing refused locally (nothing sent) until a resync within bounds", async () => {
      const v = await startVenue();
      v.faults.setSkew(90_000);
      const warnings: string[] = [];
      const gw = await MiniGateway.start({
        sim: v.sim,
        keys: v.keys,
        clock: { resyncMs: 1_000, onWarn: (m) => warnings.push(m) },
      });
      try {
        expect(gw.stack.clock!.state).toBe("refuse");
        expect(warnings.some((m) => m.includes("refused"))).toBe(true);
        const refused = [];
        for (let i = 0; i < 10; i++) {
          refused.push(
            gw.place({
              surface: "spot",
              symbol: "BTC/INR",
              side: "buy",
              price: String(5_300_000 - i * 10),
              qty: "0.001",
            }),
          );
          refused.push(
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
        expect(refused.every((o) => o.status === Status.Rejected)).toBe(true);
        expect(v.sim.counters.requests(SPOT_CREATE) + v.sim.counters.requests(HFT_CREATE)).toBe(0);
        // The venue's clock is fixed; the periodic resync measures it and signing resumes.
        v.faults.setSkew(0);
        await until(() => gw.stack.clock!.state === "ok", 3_000, "resync within bounds");
        const ok = [];
        for (let i = 0; i < 10; i++) {
          ok.push(
            gw.place({
              surface: "spot",
              symbol: "BTC/INR",
              side: "buy",
              price: String(5_200_000 - i * 10),
              qty: "0.001",
            }),
          );
          ok.push(
            gw.place({
              surface: "hft",
              symbol: "ETHUSDT",
              side: "buy",
              price: (3100 - i * 0.1).toFixed(2),
              qty: "0.05",
            }),
          );
        }
        await gw.idle();
        expect(ok.every((o) => o.status === Status.New)).toBe(true);
        await gw.settle();
        const t = await converge(
          () => gw.views(),
          () => venueOrders(v.sim, v.keys.apiKey),
          3_000,
        );
        record({
          scenario: "venue clock skew 90 s (refuse, resync fixes)",
          orders: refused.length + ok.length,
          faults: v.faults.fired(),
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(t.details).toEqual([]);
        expect(t.venueOrders).toBe(ok.length);
      } finally {
        await gw.stop();
        await v.sim.stop();
      }
    }, 20_000);
  });
}
