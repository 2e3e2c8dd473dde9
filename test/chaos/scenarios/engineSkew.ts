/**
 * Engine level, venue clock skew. 30 s: the engine logs a warning, corrects epochs, keeps trading.
 * 90 s: beyond the 60 s refuse bound, signed requests are refused locally — strategies get retryable
 * rejects and nothing reaches the venue — until a periodic resync measures a sane offset again.
 */
import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { RejectSource } from "../../../src/protocol/schema.js";
import { engineTruth } from "../harness/checks.js";
import { startEngineRig } from "../harness/engineRig.js";
import { record } from "../harness/results.js";
import { counterHft, counterSpot, startVenue, until } from "../harness/venue.js";

const SPOT_CREATE = "POST /trade/api/v2/order";
const HFT_CREATE = "POST /v5/order/create";

/** A pino logger whose JSON lines are kept in memory. */
function captureLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  return { logger: pino({ level: "info" }, sink), lines };
}

export function engineSkewScenarios(): void {
  describe("venue clock skew (engine level)", () => {
    it("30 s skew: warning logged, trading continues, truth holds", async () => {
      const v = await startVenue();
      v.faults.setSkew(30_000);
      const { logger, lines } = captureLogger();
      const rig = await startEngineRig(v, {}, { logger });
      try {
        expect(lines.some((l) => /"level":40/.test(l) && /clock offset 3\d{4} ms/.test(l))).toBe(true);
        const s = await rig.strategy("alpha");
        const spotId = rig.inst("spot", "BTC/INR");
        const hftId = rig.inst("hft", "ETHUSDT");
        for (let i = 0; i < 10; i++) {
          s.place(spotId, "buy", 5_300_000 - i * 10, 100);
          s.place(hftId, "buy", 320_000 - i * 10, 5);
        }
        await until(() => s.unanswered().length === 0, 3_000, "answers");
        expect(s.placed.every((n) => s.told.get(n)!.acks === 1)).toBe(true);
        await counterSpot(v, "sell", 5_299_000, 0.0025);
        await counterHft(v, "Sell", "3190.00", "0.12");
        for (let i = 6; i < 20; i += 3) s.cancel(s.placed[i]!);
        const t = await engineTruth(v, [s]);
        record({
          scenario: "engine: venue clock skew 30 s",
          orders: s.placed.length,
          faults: v.faults.fired(),
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

    it.each([90_000, -90_000])(
      "%i ms skew: retryable rejects and nothing sent until a resync within bounds; then trading resumes",
      async (skew) => {
        const v = await startVenue();
        const rig = await startEngineRig(v, { "clock.resyncMs": 1_000 });
        try {
          const s = await rig.strategy("alpha");
          const spotId = rig.inst("spot", "BTC/INR");
          const hftId = rig.inst("hft", "ETHUSDT");
          for (let i = 0; i < 4; i++) s.place(hftId, "buy", 320_000 - i * 10, 5);
          await until(() => s.unanswered().length === 0, 3_000, "answers before the skew");
          // The venue's clock jumps 90 s ahead; the next resync measures it.
          v.faults.setSkew(skew);
          await until(() => rig.h.rest.clock?.state === "refuse", 3_000, "clock refuse");
          const createsBefore = v.sim.counters.requests(SPOT_CREATE) + v.sim.counters.requests(HFT_CREATE);
          const refused: number[] = [];
          for (let i = 0; i < 8; i++) {
            refused.push(s.place(spotId, "buy", 5_300_000 - i * 10, 100));
            refused.push(s.place(hftId, "buy", 319_000 - i * 10, 5));
          }
          await until(() => s.unanswered().length === 0, 3_000, "answers during the skew");
          const rejects = refused.flatMap((n) => s.told.get(n)!.rejects);
          expect(rejects.length).toBe(refused.length);
          expect(rejects.every((r) => r.retryable === 1 && r.source !== RejectSource.Risk)).toBe(true);
          expect(v.sim.counters.requests(SPOT_CREATE) + v.sim.counters.requests(HFT_CREATE)).toBe(
            createsBefore,
          );
          // The venue's clock is fixed; the periodic resync brings signing back.
          v.faults.setSkew(0);
          await until(() => rig.h.rest.clock?.state === "ok", 3_000, "clock ok");
          const ok: number[] = [];
          for (let i = 0; i < 8; i++) {
            ok.push(s.place(spotId, "buy", 5_200_000 - i * 10, 100));
            ok.push(s.place(hftId, "buy", 318_000 - i * 10, 5));
          }
          await until(() => s.unanswered().length === 0, 3_000, "answers after the resync");
          expect(ok.every((n) => s.told.get(n)!.acks === 1)).toBe(true);
          const t = await engineTruth(v, [s]);
          record({
            scenario: `engine: venue clock skew ${skew / 1000} s`,
            orders: s.placed.length,
            faults: v.faults.fired(),
            lost: t.lost,
            duplicated: t.duplicated,
            mismatched: t.mismatched.length,
          });
          expect(t.details).toEqual([]);
        } finally {
          await rig.close();
          await v.sim.stop();
        }
      },
      30_000,
    );
  });
}
