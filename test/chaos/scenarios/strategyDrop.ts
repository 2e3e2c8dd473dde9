/**
 * Engine level: the strategy's own connection drops (terminated, no logout) while its orders fill
 * and get cancelled; it reconnects by itself and resumes from its last seq. It must receive every
 * message it missed exactly once, in order (no gap), and the final truth must hold.
 */
import { describe, expect, it } from "vitest";
import { engineTruth, fillsAddUp } from "../harness/checks.js";
import { startEngineRig } from "../harness/engineRig.js";
import { record } from "../harness/results.js";
import { counterHft, counterSpot, sleep, startVenue, until } from "../harness/venue.js";

export function strategyDropScenario(): void {
  describe("strategy connection dropped (engine level)", () => {
    it("fills while the strategy is away are replayed on resume: each once, no gap", async () => {
      const v = await startVenue();
      const rig = await startEngineRig(v);
      try {
        const s = await rig.strategy("alpha", { autoReconnect: true });
        const gaps: Array<[number, number]> = [];
        s.client.on("gap", (a, b) => gaps.push([a, b]));
        let replayed = 0;
        s.client.on("logon", (ack) => {
          replayed += ack.replayCount;
        });
        const spotId = rig.inst("spot", "BTC/INR");
        const hftId = rig.inst("hft", "ETHUSDT");
        for (let i = 0; i < 15; i++) {
          s.place(spotId, "buy", 5_300_000 - i * 10, 100);
          s.place(hftId, "buy", 320_000 - i * 10, 5);
        }
        await until(() => s.unanswered().length === 0, 3_000, "acks");
        let drops = 0;
        for (let round = 0; round < 3; round++) {
          // Drop the socket without a logout; the venue keeps trading meanwhile.
          (s.client as unknown as { ws?: { terminate(): void } }).ws?.terminate();
          drops++;
          await counterSpot(v, "sell", 5_299_000, 0.0012);
          await counterHft(v, "Sell", "3190.00", "0.06");
          await sleep(150);
          await until(() => s.client.connected, 3_000, "reconnected");
          s.cancel(s.placed[20 + round]!);
        }
        await sleep(500);
        const t = await engineTruth(v, [s]);
        record({
          scenario: "engine: strategy connection dropped 3x during fills",
          orders: s.placed.length,
          faults: drops,
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(t.details).toEqual([]);
        expect(replayed).toBeGreaterThan(0); // messages produced while away came back on resume
        expect(gaps).toEqual([]);
        expect(await fillsAddUp(s)).toEqual([]);
        expect(s.client.duplicates).toBe(0);
      } finally {
        await rig.close();
        await v.sim.stop();
      }
    }, 30_000);
  });
}
