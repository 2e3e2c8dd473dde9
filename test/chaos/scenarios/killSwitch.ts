/**
 * Engine level: the admin pulls the kill switch in the middle of a burst whose create answers are
 * being lost. Every order must end not live at the venue — including those whose outcome was still
 * unknown when the switch was pulled (their cancels wait for the resolution) — trading stays halted,
 * and the final truth holds.
 */
import { describe, expect, it } from "vitest";
import { TradingStateValue } from "../../../src/protocol/schema.js";
import { engineTruth } from "../harness/checks.js";
import { ADMIN_TOKEN, startEngineRig } from "../harness/engineRig.js";
import { record } from "../harness/results.js";
import { LIVE, venueOrders } from "../harness/truth.js";
import { sleep, startVenue, until } from "../harness/venue.js";

export function killSwitchScenario(): void {
  describe("kill switch under faults (engine level)", () => {
    it("kill switch mid-burst with lost create answers: nothing left live at the venue, halted, truth holds", async () => {
      const v = await startVenue();
      const rig = await startEngineRig(v);
      try {
        const s = await rig.strategy("alpha");
        const admin = await rig.strategy("ops", { token: ADMIN_TOKEN });
        const states: number[] = [];
        s.client.on("tradingState", (b) => states.push(b.state));
        const spotId = rig.inst("spot", "BTC/INR");
        const hftId = rig.inst("hft", "ETHUSDT");
        for (const ep of ["POST /trade/api/v2/order", "POST /v5/order/create"]) {
          v.faults.add({ kind: "timeout", endpoint: ep, probability: 0.3, count: 3 });
          v.faults.add({ kind: "error5xx", endpoint: ep, probability: 0.3, count: 3 });
          v.faults.add({ kind: "latency", endpoint: ep, ms: 100, count: 6 });
        }
        for (let i = 0; i < 15; i++) {
          s.place(spotId, "buy", 5_300_000 - i * 10, 100);
          s.place(hftId, "buy", 320_000 - i * 10, 5);
        }
        await sleep(30);
        admin.client.cancelAll(undefined, true); // the kill switch
        await until(() => states.includes(TradingStateValue.Halted), 2_000, "halted");
        await until(() => s.unanswered().length === 0, 5_000, "every order answered");
        await sleep(1_000);
        const t = await engineTruth(v, [s], 8_000);
        const stillLive = venueOrders(v.sim, v.keys.apiKey).filter((o) => LIVE.has(o.status));
        record({
          scenario: "engine: kill switch mid-burst with lost answers",
          orders: s.placed.length,
          faults: v.faults.fired() + 1,
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(t.details).toEqual([]);
        expect(stillLive).toEqual([]);
        expect(rig.h.risk.state).toBe("halted");
      } finally {
        await rig.close();
        await v.sim.stop();
      }
    }, 30_000);
  });
}
