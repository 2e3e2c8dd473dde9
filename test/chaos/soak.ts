/**
 * The kill soak: the kill scenarios (SIGKILL, SIGTERM drains, a failing Spot reconciliation), each
 * with N seeds, one run after the other, then a summary table. Every run starts `hftgate sim` and
 * `hftgate start` as real processes and compares the venue's signed listings, the gateway's Query
 * answers and what the strategy was told after every restart.
 *
 *   npm run soak -- --seeds 20                       # every scenario, seeds 1..20
 *   npm run soak -- --seeds 5 --first-seed 100 --scenarios kill3,throttle --json /tmp/soak.json
 *
 * Exit status 1 when any run found a problem (lost, duplicated, fill or state mismatch, a Rejected
 * order at the venue, a sequence gap or duplicate, a SIGTERM that did not exit 0 with a 1001 close or
 * left an order unanswered, a scenario fault that answered no request). HFTGATE_KEEP_RUNS=1 keeps the journal of a failing
 * run for `hftgate replay`.
 */
import { writeFileSync } from "node:fs";
import { badStops, KILL_SCENARIOS, type KillReport, problems, runKill } from "./harness/killRun.js";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const COLUMNS: Array<[string, (r: KillReport[]) => string]> = [
  ["scenario", (r) => r[0]!.scenario],
  ["seeds", (r) => String(r.length)],
  ["orders", (r) => sum(r, (x) => x.orders)],
  ["kills", (r) => sum(r, (x) => x.kills)],
  ["venue orders", (r) => sum(r, (x) => x.venueOrders)],
  ["fills", (r) => sum(r, (x) => x.fills)],
  ["lost", (r) => sum(r, (x) => x.lost)],
  ["duplicated", (r) => sum(r, (x) => x.duplicated)],
  ["fill mism.", (r) => sum(r, (x) => x.fillMismatches)],
  ["state mism.", (r) => sum(r, (x) => x.stateMismatches)],
  ["rejected at venue", (r) => sum(r, (x) => x.rejectedAtVenue)],
  ["seq gaps/dups", (r) => sum(r, (x) => x.seqGaps + x.seqDuplicates)],
  ["resume lost", (r) => sum(r, (x) => x.resumeLost)],
  ["late creates landed", (r) => sum(r, (x) => x.lateCreates.landed)],
  [
    "stops exit 0 + 1001",
    (r) => `${sum(r, (x) => x.stops.length - badStops(x))}/${sum(r, (x) => x.stops.length)}`,
  ],
  ["in flight at stop", (r) => sum(r, (x) => x.stops.reduce((a, y) => a + y.inFlight, 0))],
  ["unanswered at close", (r) => sum(r, (x) => x.unansweredAtClose)],
  ["scenario faults answered", (r) => faultsAnswered(r)],
  ["failed seeds", (r) => String(r.filter((x) => problems(x) > 0).length)],
];

/** Requests the scenario's own faults answered (e.g. the 503s of the Spot listing), "-" when it has none. */
function faultsAnswered(r: KillReport[]): string {
  if (r.every((x) => x.faultsExpected.length === 0)) return "-";
  return sum(r, (x) => x.faultsExpected.reduce((a, k) => a + (x.faultHits[k] ?? 0), 0));
}

function sum(r: KillReport[], f: (x: KillReport) => number): string {
  return String(r.reduce((a, x) => a + f(x), 0));
}

export function summaryTable(reports: KillReport[]): string {
  const groups = new Map<string, KillReport[]>();
  for (const r of reports) groups.set(r.scenario, [...(groups.get(r.scenario) ?? []), r]);
  const rows = [...groups.values()].map((g) => COLUMNS.map(([, f]) => f(g)));
  if (groups.size > 1) {
    const all = COLUMNS.map(([, f]) => f(reports));
    all[0] = "**total**";
    rows.push(all);
  }
  const head = COLUMNS.map(([h]) => h);
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    `| ${r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join(" | ")} |`;
  const sep = `|${w.map((n, i) => (i === 0 ? "-".repeat(n + 2) : `${"-".repeat(n + 1)}:`)).join("|")}|`;
  return [line(head), sep, ...rows.map(line)].join("\n");
}

async function main(): Promise<number> {
  const seeds = Number(arg("seeds") ?? 20);
  const first = Number(arg("first-seed") ?? 1);
  const only = arg("scenarios")?.split(",");
  const scenarios = KILL_SCENARIOS.filter((s) => only === undefined || only.includes(s.name));
  if (!Number.isInteger(seeds) || seeds < 1 || scenarios.length === 0) {
    process.stderr.write(
      `usage: soak --seeds N [--first-seed S] [--scenarios ${KILL_SCENARIOS.map((s) => s.name).join(",")}] [--json file]\n`,
    );
    return 2;
  }
  const reports: KillReport[] = [];
  let failedRigs = 0;
  const t0 = Date.now();
  for (const sc of scenarios) {
    for (let seed = first; seed < first + seeds; seed++) {
      let r: KillReport;
      try {
        r = await runKill(sc, seed);
      } catch (e) {
        // The rig itself failed (a process did not start): a failed run, and the soak goes on.
        process.stdout.write(`${sc.name} seed ${seed}: rig failed: ${String(e).slice(0, 300)} FAIL\n`);
        failedRigs++;
        continue;
      }
      reports.push(r);
      const p = problems(r);
      process.stdout.write(
        `${sc.name} seed ${seed}: ${r.orders} orders, ${r.kills} kills, ${r.venueOrders} at the venue, ` +
          `lost ${r.lost} dup ${r.duplicated} fill ${r.fillMismatches} state ${r.stateMismatches} ` +
          `rejected@venue ${r.rejectedAtVenue} gaps ${r.seqGaps + r.seqDuplicates} resumeLost ${r.resumeLost}` +
          (sc.keepFinishedMs !== undefined ? ` forgotten ${r.forgotten}` : "") +
          ` pending updates ${r.pendingUpdates}` +
          ` rejects ${JSON.stringify(r.rejects)}` +
          (r.faultsExpected.length > 0
            ? ` faults ${JSON.stringify(Object.fromEntries(r.faultsExpected.map((k) => [k, r.faultHits[k] ?? 0])))}`
            : "") +
          (r.stops.length > 0
            ? ` stops ${JSON.stringify(r.stops)} unansweredAtClose ${r.unansweredAtClose}`
            : "") +
          ` (${(r.ms / 1000).toFixed(1)} s)${p > 0 ? " FAIL" : ""}${r.keptDir ? ` journal kept in ${r.keptDir}` : ""}\n`,
      );
      for (const d of r.details.slice(0, 8)) process.stdout.write(`    ${d}\n`);
      if (r.details.length > 8) process.stdout.write(`    … ${r.details.length - 8} more\n`);
    }
  }
  if (failedRigs > 0)
    process.stdout.write(`\n${failedRigs} run(s) could not start their rig (not in the table)\n`);
  process.stdout.write(`\nkill soak: ${reports.length} runs in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  process.stdout.write(`${summaryTable(reports)}\n`);
  const json = arg("json");
  if (json) writeFileSync(json, `${JSON.stringify(reports, null, 2)}\n`);
  return failedRigs > 0 || reports.some((r) => problems(r) > 0) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`soak failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(2);
  },
);
