/**
 * Engine level: eight strategies trade at once through one gateway while create and cancel answers
 * are lost and fills arrive. Besides the final truth for everyone, no strategy may ever be told about
 * another's order (every OrderUpdate and Fill it receives is for an order it placed).
 */
import { describe, expect, it } from "vitest";
import { engineTruth, fillsAddUp } from "../harness/checks.js";
import { startEngineRig } from "../harness/engineRig.js";
import { record } from "../harness/results.js";
import type { Strategy } from "../harness/strategy.js";
import { counterHft, counterSpot, sleep, startVenue, until } from "../harness/venue.js";

export function manySessionsScenario(): void {
  describe("many sessions under faults (engine level)", () => {
    it("eight strategies with lost answers and fills: truth for everyone, nobody told about another's order", async () => {
      const v = await startVenue();
      const rig = await startEngineRig(v);
      try {
        const spotId = rig.inst("spot", "BTC/INR");
        const hftId = rig.inst("hft", "ETHUSDT");
        const strategies: Strategy[] = [];
        const seen = new Map<Strategy, Set<string>>();
        for (let k = 0; k < 8; k++) {
          const s = await rig.strategy(`desk-${k}`);
          const ids = new Set<string>();
          s.client.on("update", (b) => {
            if (b.exchangeOrderId !== "") ids.add(b.exchangeOrderId);
          });
          s.client.on("ack", (b) => ids.add(b.exchangeOrderId));
          seen.set(s, ids);
          strategies.push(s);
        }
        for (const ep of ["POST /trade/api/v2/order", "POST /v5/order/create"]) {
          v.faults.add({ kind: "reset", endpoint: ep, probability: 0.2, count: 4 });
          v.faults.add({ kind: "error5xx", endpoint: ep, probability: 0.2, count: 4 });
        }
        for (const ep of ["DELETE /trade/api/v2/order", "POST /v5/order/cancel"]) {
          v.faults.add({ kind: "timeout", endpoint: ep, probability: 0.3, count: 3 });
        }
        let p = 0;
        for (let round = 0; round < 4; round++) {
          for (const s of strategies) {
            p += 10;
            s.place(spotId, "buy", 5_300_000 - p, 100);
            s.place(hftId, "buy", 320_000 - p, 5);
          }
        }
        await until(() => strategies.every((s) => s.unanswered().length === 0), 5_000, "answers");
        await counterSpot(v, "sell", 5_299_000, 0.006);
        await counterHft(v, "Sell", "3190.00", "0.3");
        for (const s of strategies) {
          s.cancel(s.placed[6]!);
          s.cancel(s.placed[7]!);
        }
        await sleep(800);
        const t = await engineTruth(v, strategies, 10_000);
        record({
          scenario: "engine: 8 strategies at once, lost answers and fills",
          orders: strategies.reduce((a, s) => a + s.placed.length, 0),
          faults: v.faults.fired(),
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(t.details).toEqual([]);
        // Isolation: every exchange order id a strategy heard of is one of its own orders.
        for (const s of strategies) {
          const own = new Set((await s.views()).map((g) => g.exchangeId).filter((x) => x !== ""));
          expect([...seen.get(s)!].filter((id) => !own.has(id))).toEqual([]);
          expect(await fillsAddUp(s)).toEqual([]);
        }
      } finally {
        await rig.close();
        await v.sim.stop();
      }
    }, 40_000);
  });
}
