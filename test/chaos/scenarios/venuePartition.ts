/**
 * Engine level: the venue becomes unreachable — REST and streams both go through cuttable proxies
 * that are cut for 2 s in the middle of a burst. Requests in flight are reset (outcome unknown), new
 * ones cannot connect, the stream drops. After the partition the gateway must resolve everything by
 * client id, with nothing lost and nothing duplicated, and tell the strategy the truth.
 */
import { describe, expect, it } from "vitest";
import { engineTruth, fillsAddUp } from "../harness/checks.js";
import { startEngineRig } from "../harness/engineRig.js";
import { CuttableProxy } from "../harness/proxy.js";
import { record } from "../harness/results.js";
import { counterSpot, sleep, startVenue, until } from "../harness/venue.js";

export function venuePartitionScenario(): void {
  describe("venue unreachable (engine level)", () => {
    it("REST and streams partitioned for 2 s mid-burst: resolved by client id, nothing lost or duplicated", async () => {
      const v = await startVenue();
      const rest = await new CuttableProxy(v.sim.port).start();
      const stream = await new CuttableProxy(v.sim.port).start();
      const rig = await startEngineRig(v, {
        "venue.spotBaseUrl": rest.url,
        "venue.hftBaseUrl": rest.url,
        "venue.streamUrl": stream.url,
      });
      try {
        const s = await rig.strategy("alpha");
        const spotId = rig.inst("spot", "BTC/INR");
        const hftId = rig.inst("hft", "ETHUSDT");
        // Slow venue answers so a good part of the burst is in flight when the link is cut.
        v.faults.add({ kind: "latency", endpoint: "POST /trade/api/v2/order", ms: 150, count: 8 });
        v.faults.add({ kind: "latency", endpoint: "POST /v5/order/create", ms: 150, count: 8 });
        for (let i = 0; i < 12; i++) {
          s.place(spotId, "buy", 5_300_000 - i * 10, 100);
          s.place(hftId, "buy", 320_000 - i * 10, 5);
        }
        await sleep(60);
        rest.cut(2_000);
        stream.cut(2_000);
        // The venue trades on; the strategy keeps sending (creates and cancels) into the partition.
        await counterSpot(v, "sell", 5_299_000, 0.0015);
        for (let i = 0; i < 6; i++) {
          s.place(hftId, "buy", 315_000 - i * 10, 5);
          s.cancel(s.placed[i]!);
          await sleep(200);
        }
        await until(() => !rest.isCut, 3_000, "partition over");
        await sleep(500);
        await counterSpot(v, "sell", 5_299_000, 0.0011);
        const t = await engineTruth(v, [s], 10_000);
        record({
          scenario: "engine: venue unreachable 2 s mid-burst (REST + streams)",
          orders: s.placed.length,
          faults:
            v.faults.fired() +
            rest.stats.cuts +
            rest.stats.refused +
            stream.stats.cuts +
            stream.stats.refused,
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(t.details).toEqual([]);
        expect(await fillsAddUp(s)).toEqual([]);
        // Every order got exactly one first answer, and none that exists at the venue was rejected.
        expect(s.unanswered()).toEqual([]);
      } finally {
        await rig.close();
        await rest.stop();
        await stream.stop();
        await v.sim.stop();
      }
    }, 40_000);
  });
}
