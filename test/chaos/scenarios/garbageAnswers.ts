/**
 * Engine level: the venue handles every create and cancel, but some answers come back as garbage —
 * an HTML page with status 200 or 502, or a JSON body cut in half — as from a CDN or load balancer in
 * front of the exchange. None of them is a rejection: each is an unknown outcome, resolved by client id.
 */
import { describe, expect, it } from "vitest";
import { engineTruth, fillsAddUp } from "../harness/checks.js";
import { startEngineRig } from "../harness/engineRig.js";
import { ManglingProxy } from "../harness/mangler.js";
import { CuttableProxy } from "../harness/proxy.js";
import { record } from "../harness/results.js";
import { counterHft, counterSpot, sleep, startVenue, until } from "../harness/venue.js";

export function garbageAnswersScenario(): void {
  describe("garbage answers from the venue's front (engine level)", () => {
    it("HTML pages (200 and 502) and truncated JSON for handled creates and cancels: resolved, never rejected", async () => {
      const v = await startVenue();
      const proxy = await new ManglingProxy(v.sim.baseUrl).start();
      const rig = await startEngineRig(v, {
        "venue.spotBaseUrl": proxy.url,
        "venue.hftBaseUrl": proxy.url,
      });
      try {
        const s = await rig.strategy("alpha");
        const spotId = rig.inst("spot", "BTC/INR");
        const hftId = rig.inst("hft", "ETHUSDT");
        for (const ep of ["POST /trade/api/v2/order", "POST /v5/order/create"]) {
          proxy.add({ endpoint: ep, kind: "html200", probability: 0.3, count: 3 });
          proxy.add({ endpoint: ep, kind: "html502", probability: 0.3, count: 3 });
          proxy.add({ endpoint: ep, kind: "truncated", probability: 0.3, count: 3 });
        }
        for (let i = 0; i < 12; i++) {
          s.place(spotId, "buy", 5_300_000 - i * 10, 100);
          s.place(hftId, "buy", 320_000 - i * 10, 5);
        }
        await until(() => s.unanswered().length === 0, 5_000, "answers");
        await counterSpot(v, "sell", 5_299_000, 0.0015);
        await counterHft(v, "Sell", "3190.00", "0.08");
        for (const ep of ["DELETE /trade/api/v2/order", "POST /v5/order/cancel"]) {
          proxy.add({ endpoint: ep, kind: "html200", probability: 0.5, count: 2 });
          proxy.add({ endpoint: ep, kind: "truncated", probability: 0.5, count: 2 });
        }
        for (let i = 4; i < 24; i += 3) s.cancel(s.placed[i]!);
        await sleep(800);
        const t = await engineTruth(v, [s], 8_000);
        record({
          scenario: "engine: HTML / truncated answers for handled requests",
          orders: s.placed.length,
          faults: proxy.mangled,
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(proxy.mangled).toBeGreaterThan(5);
        expect(t.details).toEqual([]);
        expect(t.venueOrders).toBe(s.placed.length);
        expect([...s.told.values()].filter((x) => x.rejects.length > 0)).toEqual([]);
        expect(await fillsAddUp(s)).toEqual([]);
      } finally {
        await rig.close();
        await proxy.stop();
        await v.sim.stop();
      }
    }, 40_000);

    it("an HTML 404 page from the front is not the venue saying 'no such order'", async () => {
      // Spot answers an unknown order with a JSON 404 [assumed]; a 404 *page* from a CDN or load
      // balancer says nothing about the order. Reading it as "not found" would re-send, then declare
      // rejected, an order that is working at the venue.
      const v = await startVenue();
      const proxy = await new ManglingProxy(v.sim.baseUrl).start();
      const stream = await new CuttableProxy(v.sim.port).start();
      const rig = await startEngineRig(v, {
        "venue.spotBaseUrl": proxy.url,
        "venue.hftBaseUrl": proxy.url,
        "venue.streamUrl": stream.url,
      });
      try {
        const s = await rig.strategy("alpha");
        const spotId = rig.inst("spot", "BTC/INR");
        // Only targeted queries can resolve: no stream push, and the open-order list answers 502 pages.
        stream.cut(3_000);
        proxy.add({ endpoint: "GET /trade/api/v2/orders", kind: "html502", probability: 1, count: 1_000 });
        proxy.add({ endpoint: "GET /trade/api/v2/order", kind: "html404", probability: 1, count: 1_000 });
        v.faults.add({ kind: "timeout", endpoint: "POST /trade/api/v2/order", count: 4 });
        for (let i = 0; i < 10; i++) s.place(spotId, "buy", 5_300_000 - i * 10, 100);
        await until(() => s.unanswered().length === 0, 5_000, "answers");
        await sleep(2_500);
        proxy.clear();
        const t = await engineTruth(v, [s], 8_000);
        record({
          scenario: "engine: HTML 404 pages answering order queries",
          orders: s.placed.length,
          faults: proxy.mangled + v.faults.fired(),
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(proxy.mangled).toBeGreaterThan(0);
        expect(t.details).toEqual([]);
        expect([...s.told.values()].filter((x) => x.rejects.length > 0)).toEqual([]);
      } finally {
        await rig.close();
        await proxy.stop();
        await stream.stop();
        await v.sim.stop();
      }
    }, 40_000);
  });
}
