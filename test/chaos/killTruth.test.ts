/**
 * The kill scenarios with their truth assertions (harness/killRun.ts, harness/crashTruth.ts):
 * `hftgate sim` and `hftgate start` as real processes, SIGKILL or SIGTERM (the drain: exit 0, 1001,
 * every order answered before the close) mid-burst, or a Spot listing failing 503 after the restart,
 * and after every restart the venue's signed listings = the gateway's Query answers = what the
 * strategy was told. CI runs the few
 * seeds below; the soak runs every scenario with many (`npm run soak -- --seeds 20`). Other choices:
 * HFTGATE_KILL_SCENARIOS=kill3,throttle HFTGATE_KILL_SEEDS=1,2,3 npx vitest run test/chaos/killTruth.test.ts
 */
import { afterAll, describe, expect, it } from "vitest";
import { KILL_SCENARIOS, type KillScenario, problems, runKill } from "./harness/killRun.js";
import { record, report } from "./harness/results.js";

/** The CI runs: scenario and seed (bounded: 10–30 s each on a 2-core machine). */
const CI_RUNS: Array<[string, number]> = [
  ["kill3-default-fsync", 1],
  ["kill3-forget", 2],
  ["kill3-quiet", 1],
  ["lost-answers", 2],
  ["counterparty", 3],
  ["term3", 1],
  ["reconcile-503", 2],
];

function runs(): Array<[KillScenario, number]> {
  const names = process.env.HFTGATE_KILL_SCENARIOS?.split(",");
  const seeds = process.env.HFTGATE_KILL_SEEDS?.split(",").map(Number);
  const pick = (n: string) => {
    const sc = KILL_SCENARIOS.find((s) => s.name === n);
    if (sc === undefined) throw new Error(`no kill scenario ${n}`);
    return sc;
  };
  if (names === undefined && seeds === undefined) return CI_RUNS.map(([n, seed]) => [pick(n), seed]);
  return (names ?? CI_RUNS.map(([n]) => n)).flatMap((n) =>
    (seeds ?? [1]).map((seed): [KillScenario, number] => [pick(n), seed]),
  );
}

describe("kill scenarios: venue listings = gateway Query = what the strategy was told", () => {
  for (const [sc, seed] of runs()) {
    it(`${sc.name}, seed ${seed}: nothing lost, duplicated or mismatched across ${sc.kills} kill(s)`, async () => {
      const r = await runKill(sc, seed);
      record({
        scenario: `kill truth: ${sc.name}, seed ${seed}`,
        orders: r.orders,
        faults: r.kills,
        lost: r.lost,
        duplicated: r.duplicated,
        mismatched: r.fillMismatches + r.stateMismatches + r.rejectedAtVenue,
        note: `${r.venueOrders} venue orders, ${r.fills} fills, ${r.checks} checks, resume lost ${r.resumeLost}, late creates landed ${r.lateCreates.landed}${r.stops.length > 0 ? `, stops ${JSON.stringify(r.stops)}, unanswered at close ${r.unansweredAtClose}` : ""}`,
      });
      expect(r.checks).toBe(sc.kills + 1);
      if (sc.signal === "SIGTERM") {
        expect(r.stops.map((x) => [x.exit, x.close])).toEqual(r.stops.map(() => [0, 1001]));
        expect(r.stops).toHaveLength(sc.kills);
        expect(r.unansweredAtClose).toBe(0);
      }
      expect(r.venueOrders).toBeGreaterThan(0);
      expect(r.details).toEqual([]);
      expect(problems(r)).toBe(0);
    }, 120_000);
  }
});

afterAll(() => report());
