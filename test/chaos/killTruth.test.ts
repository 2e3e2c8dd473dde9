/**
 * Issue 17's kill scenarios with their truth assertions, a few seeds (the soak script runs more:
 * `npm run soak`). Each run: `hftgate sim` and `hftgate start` as real processes, SIGKILL mid-burst,
 * after every restart the venue's signed listings = the gateway's Query = what the strategy was told.
 */
import { describe, expect, it } from "vitest";
import { KILL_SCENARIOS, type KillReport, problems, runKill } from "./harness/killRun.js";
import { record } from "./harness/results.js";

const SEEDS = (process.env.HFTGATE_KILL_SEEDS ?? "1,2").split(",").map(Number);
const ONLY = process.env.HFTGATE_KILL_SCENARIOS?.split(",");

function row(r: KillReport): void {
  record({
    scenario: `kill truth: ${r.scenario} seed ${r.seed}`,
    orders: r.orders,
    faults: r.kills,
    lost: r.lost,
    duplicated: r.duplicated,
    mismatched: r.fillMismatches + r.stateMismatches + r.rejectedAtVenue,
  });
}

describe("kill scenarios: venue listings = gateway Query = what the strategy was told", () => {
  for (const sc of KILL_SCENARIOS.filter((s) => ONLY === undefined || ONLY.includes(s.name))) {
    for (const seed of SEEDS) {
      it(`${sc.name}, seed ${seed}`, async () => {
        const r = await runKill(sc, seed);
        row(r);
        process.stdout.write(`${JSON.stringify({ ...r, details: r.details.slice(0, 40) }, null, 1)}\n`);
        expect(r.details).toEqual([]);
        expect(problems(r)).toBe(0);
      }, 120_000);
    }
  }
});
