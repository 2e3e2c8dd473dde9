/**
 * Engine level, Spot order stream faults: a network partition of the stream (through a cuttable
 * proxy: REST stays direct) while orders fill and get cancelled, and a stream that duplicates and
 * reorders its messages. The strategy must end up told every fill exactly once.
 */
import { describe, expect, it } from "vitest";
import { engineTruth, fillsAddUp } from "../harness/checks.js";
import { startEngineRig } from "../harness/engineRig.js";
import { CuttableProxy } from "../harness/proxy.js";
import { record } from "../harness/results.js";
import { counterSpot, sleep, startVenue, until } from "../harness/venue.js";

const CUT_MS = 3_000;

export function engineStreamScenarios(): void {
  describe("order stream faults (engine level)", () => {
    it(`stream partitioned ${CUT_MS} ms during fills and cancels: truth holds, every fill told once`, async () => {
      const v = await startVenue();
      const proxy = await new CuttableProxy(v.sim.port).start();
      const rig = await startEngineRig(v, { "venue.streamUrl": proxy.url });
      try {
        const s = await rig.strategy("alpha");
        const spotId = rig.inst("spot", "BTC/INR");
        const N = 30;
        for (let i = 0; i < N; i++) s.place(spotId, "buy", 5_300_000 - i * 10, 100);
        await until(() => s.unanswered().length === 0, 3_000, "acks");
        proxy.cut(CUT_MS);
        await counterSpot(v, "sell", 5_299_000, 0.0045);
        for (let i = 10; i < N; i += 3) s.cancel(s.placed[i]!);
        await sleep(300);
        await counterSpot(v, "sell", 5_299_000, 0.0021);
        // New orders while the stream is down and while it is reconciled: accepted or refused with a
        // retryable reject, never lost.
        for (let i = 0; i < 6; i++) {
          s.place(spotId, "buy", 5_250_000 - i * 10, 100);
          await sleep(400);
        }
        await until(() => !proxy.isCut, CUT_MS + 1_000, "cut over");
        await sleep(1_000);
        await counterSpot(v, "sell", 5_299_000, 0.0013);
        const t = await engineTruth(v, [s]);
        record({
          scenario: `engine: order stream partitioned ${CUT_MS / 1000} s during fills`,
          orders: s.placed.length,
          faults: proxy.stats.cuts + proxy.stats.refused,
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(t.details).toEqual([]);
        for (const n of s.placed) {
          for (const r of s.told.get(n)!.rejects) expect(r.retryable).toBe(1);
        }
        expect(await fillsAddUp(s)).toEqual([]);
      } finally {
        await rig.close();
        await proxy.stop();
        await v.sim.stop();
      }
    }, 40_000);

    it("stream closed by the venue five times during fills (server and transport disconnects)", async () => {
      const v = await startVenue();
      const rig = await startEngineRig(v);
      try {
        const s = await rig.strategy("alpha");
        const spotId = rig.inst("spot", "BTC/INR");
        for (let i = 0; i < 30; i++) s.place(spotId, "buy", 5_300_000 - i * 10, 100);
        await until(() => s.unanswered().length === 0, 3_000, "acks");
        let dropped = 0;
        for (let k = 0; k < 5; k++) {
          dropped += v.sim.faults.disconnectStreams(k % 2 === 0 ? "server" : "transport");
          await counterSpot(v, "sell", 5_299_000, 0.0007);
          if (k % 2 === 1) s.cancel(s.placed[20 + k]!);
          await sleep(250);
        }
        await sleep(500);
        await counterSpot(v, "sell", 5_299_000, 0.0004);
        const t = await engineTruth(v, [s]);
        record({
          scenario: "engine: order stream closed by the venue 5x during fills",
          orders: s.placed.length,
          faults: dropped,
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(dropped).toBeGreaterThanOrEqual(5);
        expect(t.details).toEqual([]);
        expect(await fillsAddUp(s)).toEqual([]);
      } finally {
        await rig.close();
        await v.sim.stop();
      }
    }, 30_000);

    it("gateway started while the order stream is unreachable: trades on polling, then the stream joins", async () => {
      const v = await startVenue();
      const proxy = await new CuttableProxy(v.sim.port).start();
      proxy.cut(3_000);
      const rig = await startEngineRig(v, { "venue.streamUrl": proxy.url });
      try {
        const s = await rig.strategy("alpha");
        const spotId = rig.inst("spot", "BTC/INR");
        for (let i = 0; i < 20; i++) s.place(spotId, "buy", 5_300_000 - i * 10, 100);
        await until(() => s.unanswered().length === 0, 3_000, "answers");
        expect(s.placed.every((n) => s.told.get(n)!.acks === 1)).toBe(true);
        await counterSpot(v, "sell", 5_299_000, 0.0025);
        for (let i = 10; i < 20; i += 3) s.cancel(s.placed[i]!);
        await until(() => !proxy.isCut, 4_000, "stream reachable");
        await sleep(1_000);
        await counterSpot(v, "sell", 5_299_000, 0.0012);
        const t = await engineTruth(v, [s]);
        record({
          scenario: "engine: started with the order stream unreachable",
          orders: s.placed.length,
          faults: proxy.stats.cuts + proxy.stats.refused,
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(t.details).toEqual([]);
        expect(await fillsAddUp(s)).toEqual([]);
      } finally {
        await rig.close();
        await proxy.stop();
        await v.sim.stop();
      }
    }, 30_000);

    it("stream messages duplicated and reordered: every fill told once, truth holds", async () => {
      const v = await startVenue({
        faults: { streams: { duplicateProbability: 0.3, reorderProbability: 0.3 } },
      });
      const rig = await startEngineRig(v);
      try {
        const s = await rig.strategy("alpha");
        const spotId = rig.inst("spot", "BTC/INR");
        const N = 30;
        for (let i = 0; i < N; i++) s.place(spotId, "buy", 5_300_000 - i * 10, 100);
        await until(() => s.unanswered().length === 0, 3_000, "acks");
        for (let k = 0; k < 12; k++) await counterSpot(v, "sell", 5_299_000, 0.0004);
        for (let i = 15; i < N; i += 2) s.cancel(s.placed[i]!);
        await sleep(200);
        for (let k = 0; k < 4; k++) await counterSpot(v, "sell", 5_299_000, 0.0003);
        // The simulator delivers a held (reordered) message after the next one: stop the faults and
        // cause one more push (a new order) so nothing stays held, as on a stream that keeps flowing.
        v.sim.faults.setStreams({ duplicateProbability: 0, reorderProbability: 0 });
        s.place(spotId, "buy", 5_000_000, 100);
        const t = await engineTruth(v, [s]);
        const c = v.sim.counters.streams;
        record({
          scenario: "engine: order stream messages duplicated and reordered",
          orders: s.placed.length,
          faults: c.duplicated + c.reordered,
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(c.duplicated + c.reordered).toBeGreaterThan(10);
        expect(t.details).toEqual([]);
        expect(await fillsAddUp(s)).toEqual([]);
      } finally {
        await rig.close();
        await v.sim.stop();
      }
    }, 40_000);

    it("a Spot order-stream message lost while the connection stays up is recovered", async () => {
      // Known gap: while the order stream is up and trusted, nothing re-checks the venue, and the
      // venue's pushes carry no sequence number to reveal a gap. A record lost in transit (here: the
      // fills of two orders) leaves the gateway believing those orders are still live.
      const v = await startVenue();
      const rig = await startEngineRig(v);
      try {
        const s = await rig.strategy("alpha");
        const spotId = rig.inst("spot", "BTC/INR");
        for (let i = 0; i < 10; i++) s.place(spotId, "buy", 5_300_000 - i * 10, 100);
        await until(() => s.unanswered().length === 0, 3_000, "acks");
        await sleep(200);
        v.sim.faults.setStreams({ dropProbability: 1 });
        await counterSpot(v, "sell", 5_299_000, 0.0015); // order 1 filled, order 2 half filled
        await sleep(100);
        v.sim.faults.setStreams({ dropProbability: 0 });
        const t = await engineTruth(v, [s], 5_000);
        record({
          scenario: "engine: order stream message lost, connection up",
          orders: s.placed.length,
          faults: v.sim.counters.streams.dropped,
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(v.sim.counters.streams.dropped).toBeGreaterThan(0);
        expect(t.details).toEqual([]);
      } finally {
        await rig.close();
        await v.sim.stop();
      }
    }, 20_000);
  });
}
