/**
 * Operations, the venue's clock: `hftgate sim` and `hftgate start` as real processes; the simulator's
 * clock jumps 90 s ahead for 1.5 s (its admin API) while a strategy keeps placing orders and asks for
 * a cancel. The venue's answer to an epoch outside its window is `401 Invalid Access`: the first signed
 * request that meets it makes the gateway re-sync its clock; while the clock is known wrong nothing
 * signed leaves (the simulator's request counters say so), strategies get the retryable ClockSkew
 * code (Reject 404, CancelReject / AmendReject reason ClockSkew), and once a re-sync measures a
 * plausible offset trading resumes by itself. The venue's signed listings are the truth at the end.
 */
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { type Body, CancelRejectReason, CODES } from "../../src/protocol/schema.js";
import { compareCrashTruth, findingCount, findingLines } from "./harness/crashTruth.js";
import { journalClOrdNos } from "./harness/killRun.js";
import { VenueReader } from "./harness/listings.js";
import { instrumentIds, startProcessRig } from "./harness/processRig.js";
import { record } from "./harness/results.js";
import { SimProcess } from "./harness/simProcess.js";
import type { GatewayView } from "./harness/truth.js";
import { newKeys, sleep, until } from "./harness/venue.js";

const CREATES = ["POST /trade/api/v2/order", "POST /v5/order/create"];
const CANCELS = ["DELETE /trade/api/v2/order", "POST /v5/order/cancel"];
const JUMP_MS = 90_000;
const JUMP_FOR_MS = 1_500;
/** One order every this many ms while the clock is wrong and until trading has resumed. */
const PACE_MS = 25;

interface SimState {
  requests: Record<string, number>;
  statuses: Record<string, number>;
}

/** The gateway's /health body (whatever its status code). */
async function health(httpUrl: string): Promise<{ clock: { state: string; offsetMs: number } }> {
  const r = await request(`${httpUrl}/health`);
  return (await r.body.json()) as { clock: { state: string; offsetMs: number } };
}

const sum = (st: SimState, keys: readonly string[]): number =>
  keys.reduce((a, k) => a + (st.requests[k] ?? 0), 0);

describe("operations: the venue's clock jumps 90 s ahead for 1.5 s (processes)", () => {
  it("one 401 at most per surface, then local retryable ClockSkew refusals; trading resumes by itself", async () => {
    const keys = newKeys();
    const sim = await SimProcess.start({ seed: 808, apiKeys: [keys.apiKey] });
    const rig = await startProcessRig({ baseUrl: sim.baseUrl, keys }, { prefix: "clock" }).catch(
      async (e: unknown) => {
        await sim.stop();
        throw e;
      },
    );
    let reader: VenueReader | undefined;
    try {
      const s = await rig.strategy("clock-alpha");
      const ids = await instrumentIds(s);
      reader = new VenueReader(sim.baseUrl, keys, { spot: ids.spotStep, hft: ids.hftStep });
      const ackedAt = new Map<number, number>();
      const cancelRejects: Body<"CancelReject">[] = [];
      s.client.on("ack", (b) => ackedAt.set(b.clOrdNo, Date.now()));
      s.client.on("cancelReject", (b) => cancelRejects.push({ ...b }));
      let k = 0;
      const place = (): number => {
        const spot = k++ % 2 === 0;
        const n = spot
          ? s.place(ids.spot, "buy", 5_000_000 - k * 10, 100)
          : s.place(ids.hft, "buy", 300_000 - k * 10, 5);
        return n;
      };

      // Before the jump: resting orders on both surfaces, all acknowledged.
      const before = [place(), place(), place(), place()];
      await until(() => before.every((n) => s.told.get(n)!.acks === 1), 5_000, "acks before the jump");
      const st0 = (await sim.admin("GET", "/state")) as SimState;

      // The venue's clock jumps; orders keep coming, and one cancel is asked for.
      await sim.admin("PUT", "/clock-skew", { ms: JUMP_MS });
      const jumped = Date.now();
      // Two at once (one per surface): both may leave before the venue's first 401 is back.
      let firstAnswer = 0;
      s.client.on("reject", () => {
        firstAnswer ||= s.placed.length;
      });
      const during: number[] = [place(), place()];
      let cancelAsked = false;
      while (Date.now() - jumped < JUMP_FOR_MS) {
        during.push(place());
        if (!cancelAsked && during.length === 8) {
          s.cancel(before[0]!);
          cancelAsked = true;
        }
        await sleep(PACE_MS);
      }
      // What an operator sees meanwhile.
      const healthWrong = await health(rig.gp.httpUrl);
      await sim.admin("PUT", "/clock-skew", { ms: 0 });
      const back = Date.now();
      const st1 = (await sim.admin("GET", "/state")) as SimState;

      // Until an order placed after the venue's clock came back is acknowledged.
      const after: number[] = [];
      const resumed = (): boolean => after.some((n) => ackedAt.has(n));
      while (!resumed() && Date.now() - back < 8_000) {
        after.push(place());
        await sleep(PACE_MS);
      }
      await until(() => s.unanswered().length === 0, 5_000, "every order answered");
      const firstAck = Math.min(...after.filter((n) => ackedAt.has(n)).map((n) => ackedAt.get(n)!));
      // A few more: orders flow again.
      const later = [place(), place(), place(), place()];
      await until(() => later.every((n) => s.told.get(n)!.acks === 1), 5_000, "acks after resuming");

      const rejects = during.flatMap((n) => s.told.get(n)!.rejects);
      const clock = CODES.ClockSkew.code;
      const figures = {
        placedWhileWrong: during.length,
        placedBeforeFirstRefusal: firstAnswer - before.length,
        createsAtVenueWhileWrong: sum(st1, CREATES) - sum(st0, CREATES),
        cancelsAtVenueWhileWrong: sum(st1, CANCELS) - sum(st0, CANCELS),
        venue401: (st1.statuses["401"] ?? 0) - (st0.statuses["401"] ?? 0),
        rejectsRetryable: rejects.filter((r) => r.retryable === 1).length,
        rejectsNotRetryable: rejects.filter((r) => r.retryable === 0).length,
        rejectsClockSkew: rejects.filter((r) => r.code === clock).length,
        ackedWhileWrong: during.filter((n) => s.told.get(n)!.acks > 0).length,
        resumeMs: firstAck - back,
        cancelRejects: cancelRejects.map((c) => `${c.reason} ${c.text}`),
        told401: rejects.filter((r) => r.text.includes("401")).length,
      };
      process.stdout.write(`clock jump figures: ${JSON.stringify(figures)}\n`);

      // Every order placed while the venue's clock was off got one answer: the retryable ClockSkew.
      // (An Ack is possible only for one the gateway read after the clock was back, on a slow box.)
      expect(during.every((n) => s.told.get(n)!.acks + s.told.get(n)!.rejects.length === 1)).toBe(true);
      expect(figures.rejectsClockSkew).toBe(rejects.length);
      expect(figures.rejectsNotRetryable).toBe(0);
      // Only creates placed before the first refusal came back can have met the venue's 401 (and were
      // told so, as ClockSkew); everything placed after it stayed home.
      expect(figures.createsAtVenueWhileWrong).toBeLessThanOrEqual(figures.placedBeforeFirstRefusal);
      expect(figures.placedBeforeFirstRefusal).toBeLessThan(during.length / 2);
      expect(figures.told401).toBe(figures.createsAtVenueWhileWrong);
      expect(figures.cancelsAtVenueWhileWrong).toBe(0);
      expect(during.length).toBeGreaterThan(20);
      // The cancel was refused locally, retryably, and the order was kept.
      const cr = cancelRejects.find((c) => c.clOrdNo === before[0]);
      expect(cr?.reason).toBe(CancelRejectReason.ClockSkew);
      // Resumed by itself after the venue's clock came back (re-sync while known wrong).
      expect(figures.resumeMs).toBeLessThan(2_000);

      expect(healthWrong.clock.state).toBe("refuse");
      expect(Math.abs(healthWrong.clock.offsetMs - JUMP_MS)).toBeLessThan(1_000);
      expect((await health(rig.gp.httpUrl)).clock.state).toBe("ok");

      // The cancel again, now signed correctly: it goes through.
      s.cancel(before[0]!);
      await until(() => s.told.get(before[0]!)!.lastStatus === 6, 5_000, "cancel after resuming");

      // Truth: the venue's signed listings, the gateway's Query answers, what the strategy was told.
      let findings: ReturnType<typeof compareCrashTruth>;
      for (const end = Date.now() + 8_000; ; await sleep(150)) {
        const list = await s.views();
        const views = new Map<number, GatewayView>(list.map((v, i) => [s.placed[i]!, v]));
        findings = compareCrashTruth({
          strategy: s,
          views,
          venue: await reader.read(),
          clOrdNoOf: journalClOrdNos(`${rig.dir}/journal`),
        });
        if (findingCount(findings) === 0 || Date.now() > end) break;
      }
      record({
        scenario: "operations: venue clock +90 s for 1.5 s (processes)",
        orders: s.placed.length,
        faults: 1,
        lost: findings.lost.size,
        duplicated: findings.duplicated.size,
        mismatched: findings.stateMismatches.size + findings.fillMismatches.size,
        note: `${figures.createsAtVenueWhileWrong} creates reached the venue while wrong, resumed ${figures.resumeMs} ms after`,
      });
      // Nothing told Rejected is held at the venue; every order is known alike on all three sides.
      expect(findingLines(findings)).toEqual([]);
    } finally {
      await reader?.close();
      await rig.close();
      await sim.stop();
    }
  }, 60_000);
});
