/**
 * Engine level, rate limits: a burst that saturates the HFT order bucket, cancels right behind it
 * (they must reach the venue: the cancel reserve and cancel priority), then a 429 storm from the
 * venue on creates (the strategy gets retryable rejects, later creates are refused locally while the
 * circuit is open, cancels keep flowing). Final truth as always.
 */
import { describe, expect, it } from "vitest";
import { CancelRejectReason, RejectSource } from "../../../src/protocol/schema.js";
import { engineTruth } from "../harness/checks.js";
import { startEngineRig } from "../harness/engineRig.js";
import { record } from "../harness/results.js";
import { sleep, startVenue, until } from "../harness/venue.js";

const HFT_CREATE = "POST /v5/order/create";
const HFT_CANCEL = "POST /v5/order/cancel";

export function engineRateScenarios(): void {
  describe("429 storm (engine level)", () => {
    it("saturated order bucket and a venue 429 storm: cancels get through, throttled creates get retryable rejects", async () => {
      const v = await startVenue();
      const rig = await startEngineRig(v);
      try {
        const s = await rig.strategy("alpha");
        const cancelRejects: number[] = [];
        s.client.on("cancelReject", (b) => cancelRejects.push(b.reason));
        const hftId = rig.inst("hft", "ETHUSDT");
        // 1. 45 creates fill the shared part of the 50/s bucket; 10 cancels follow at once.
        for (let i = 0; i < 45; i++) s.place(hftId, "buy", 320_000 - i * 10, 5);
        await until(() => s.unanswered().length === 0, 3_000, "burst answered");
        const acked = s.placed.filter((n) => s.told.get(n)!.acks > 0);
        expect(acked.length).toBe(45);
        const cancelsBefore = v.sim.counters.requests(HFT_CANCEL);
        // (100 ms after the burst: the slot after the 5-cancel reserve frees within the cancel deadline.
        // Right behind the burst it does not — see the next test.)
        await sleep(100);
        for (let i = 0; i < 10; i++) s.cancel(acked[i]!);
        await until(
          () => v.sim.counters.requests(HFT_CANCEL) - cancelsBefore + cancelRejects.length >= 10,
          3_000,
          "cancels answered",
        );
        expect(cancelRejects.filter((r) => r === CancelRejectReason.Throttled)).toEqual([]);
        expect(v.sim.counters.requests(HFT_CANCEL) - cancelsBefore).toBe(10);

        // 2. The venue answers 429 to every create for a while.
        await sleep(1_100);
        v.faults.add({ kind: "rate429", endpoint: HFT_CREATE, count: 40 });
        const createsBefore = v.sim.counters.requests(HFT_CREATE);
        const storm: number[] = [];
        for (let i = 0; i < 30; i++) {
          storm.push(s.place(hftId, "buy", 310_000 - i * 10, 5));
          if (i < 20) s.cancel(acked[10 + i]!);
          await sleep(30);
        }
        await until(() => s.unanswered().length === 0, 3_000, "storm answered");
        await sleep(300);
        const rejects = storm.flatMap((n) => s.told.get(n)!.rejects);
        expect(rejects.length).toBe(storm.length); // every create refused: by the venue (429) or locally
        expect(rejects.every((r) => r.retryable === 1 && r.source === RejectSource.Throttle)).toBe(true);
        // The circuit kept most of the storm away from the venue.
        expect(v.sim.counters.requests(HFT_CREATE) - createsBefore).toBeLessThan(storm.length / 2);
        expect(cancelRejects.filter((r) => r === CancelRejectReason.Throttled)).toEqual([]);
        expect(v.sim.counters.requests(HFT_CANCEL) - cancelsBefore).toBe(30);
        const fired = v.faults.fired();
        v.faults.clearRules();
        const t = await engineTruth(v, [s]);
        record({
          scenario: "engine: saturated bucket + 429 storm",
          orders: s.placed.length,
          faults: fired,
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(t.details).toEqual([]);
      } finally {
        await rig.close();
        await v.sim.stop();
      }
    }, 30_000);

    it("cancels sent right behind a create burst that fills the HFT order bucket all reach the venue", async () => {
      // 45 creates take the bucket's shared part (50/s minus a 5-cancel reserve); in the same event-loop
      // turn 10 cancels of older orders follow. The reserve serves 5; the next slot frees 1 s + 50 ms
      // margin after the burst, later than the engine's default cancel deadline (limits.cancelWaitMs,
      // 1 s), so the other 5 are refused at once instead of waiting, ahead of any create, for it.
      const v = await startVenue();
      const rig = await startEngineRig(v);
      try {
        const s = await rig.strategy("alpha");
        const cancelRejects: number[] = [];
        s.client.on("cancelReject", (b) => cancelRejects.push(b.reason));
        const hftId = rig.inst("hft", "ETHUSDT");
        for (let i = 0; i < 10; i++) s.place(hftId, "buy", 320_000 - i * 10, 5);
        await until(() => s.unanswered().length === 0, 3_000, "first orders acked");
        await sleep(1_200); // an empty window
        const cancelsBefore = v.sim.counters.requests(HFT_CANCEL);
        const first = [...s.placed];
        for (let i = 0; i < 45; i++) s.place(hftId, "buy", 310_000 - i * 10, 5);
        for (const n of first) s.cancel(n);
        await until(
          () => v.sim.counters.requests(HFT_CANCEL) - cancelsBefore + cancelRejects.length >= 10,
          3_000,
          "cancels answered",
        );
        expect(cancelRejects).toEqual([]);
        expect(v.sim.counters.requests(HFT_CANCEL) - cancelsBefore).toBe(10);
      } finally {
        await rig.close();
        await v.sim.stop();
      }
    }, 20_000);
  });
}
