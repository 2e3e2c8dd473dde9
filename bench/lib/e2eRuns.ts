/**
 * Several e2e runs of one build, summarized: for each figure the gateway is judged by against
 * bareSync (the same-driver ratios), the runs' lowest, median and highest value and how many runs met
 * the goal. On a shared 2-vCPU VM one run's ratio moves by more than a code step is worth (a factor
 * ~1.4 between runs of one build), so the median of several runs is the figure to read.
 *
 *   node dist/bench/lib/e2eRuns.js DIR...
 *
 * Each DIR holds a run's JSON (`partial-e2e.json` or `latest.json`, as `--out DIR` writes them).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

/** A figure of `vs_bare_sync_same_driver`, its goal (a ratio at most), and where it is judged. */
interface Figure {
  readonly label: string;
  readonly key: string;
  readonly goal: number;
  readonly layout: "one" | "own";
}

/** The goals, as data: one vCPU for latency, the gateway on its own vCPU for CPU per order. */
export const FIGURES: readonly Figure[] = [
  { label: "create p50, one vCPU", key: "p50", goal: 1.3, layout: "one" },
  { label: "create p99, one vCPU", key: "p99", goal: 1.5, layout: "one" },
  { label: "cancel p50, one vCPU", key: "cancel_p50", goal: 1.3, layout: "one" },
  { label: "cancel p99, one vCPU", key: "cancel_p99", goal: 1.5, layout: "one" },
  { label: "CPU per order, own vCPU", key: "cpu_per_order", goal: 1.5, layout: "own" },
];

const ONE_VCPU = "all on vCPU 0";
const OWN_VCPU = "gateway on vCPU 1";

export interface Row {
  label: string;
  runs: number;
  min: number;
  median: number;
  max: number;
  goal: number;
  met: number;
}

interface Run {
  layout?: string;
  vs_bare_sync_same_driver?: Record<string, unknown>;
}

/** The e2e runs in one result document (bench/run.ts's JSON); none when it has no e2e suite. */
function runsOf(doc: unknown): Run[] {
  const runs = (doc as { results?: { e2e?: { runs?: unknown } } })?.results?.e2e?.runs;
  return Array.isArray(runs) ? (runs as Run[]) : [];
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** One row per figure that at least one document has. */
export function summarizeE2eRuns(docs: readonly unknown[]): Row[] {
  const rows: Row[] = [];
  for (const f of FIGURES) {
    const prefix = f.layout === "one" ? ONE_VCPU : OWN_VCPU;
    const xs: number[] = [];
    for (const doc of docs) {
      for (const r of runsOf(doc)) {
        if (!r.layout?.startsWith(prefix)) continue;
        const v = r.vs_bare_sync_same_driver?.[f.key];
        if (typeof v === "number" && Number.isFinite(v)) xs.push(v);
      }
    }
    if (xs.length === 0) continue;
    rows.push({
      label: f.label,
      runs: xs.length,
      min: Math.min(...xs),
      median: median(xs),
      max: Math.max(...xs),
      goal: f.goal,
      met: xs.filter((x) => x <= f.goal).length,
    });
  }
  return rows;
}

export function formatRows(rows: readonly Row[]): string[] {
  const out = ["| vs bareSync, same driver | runs | lowest | median | highest | goal | runs meeting it |"];
  out.push("|---|---|---|---|---|---|---|");
  for (const r of rows) {
    out.push(
      `| ${r.label} | ${r.runs} | ${r.min.toFixed(2)}× | ${r.median.toFixed(2)}× | ${r.max.toFixed(2)}× | ≤ ${r.goal}× | ${r.met} of ${r.runs} |`,
    );
  }
  return out;
}

/** The command: the table for the runs in `dirs`, or why there is none (exit code 2). */
export function e2eRunsCli(dirs: readonly string[]): { out: string; err: string; code: number } {
  let err = "";
  const docs: unknown[] = [];
  for (const d of dirs) {
    const file = ["partial-e2e.json", "latest.json"].map((f) => join(d, f)).find((f) => existsSync(f));
    if (file === undefined) {
      err += `${d}: no partial-e2e.json or latest.json, left out\n`;
      continue;
    }
    docs.push(JSON.parse(readFileSync(file, "utf8")));
  }
  const rows = summarizeE2eRuns(docs);
  if (rows.length === 0) {
    return {
      out: "",
      err: `${err}no e2e runs with a same-driver comparison in ${dirs.length} director${dirs.length === 1 ? "y" : "ies"}\n`,
      code: 2,
    };
  }
  return { out: `${formatRows(rows).join("\n")}\n`, err, code: 0 };
}

function main(): void {
  const { positionals: dirs } = parseArgs({ args: process.argv.slice(2), allowPositionals: true });
  if (dirs.length === 0) {
    process.stderr.write("usage: node dist/bench/lib/e2eRuns.js DIR...\n");
    process.exitCode = 2;
    return;
  }
  const r = e2eRunsCli(dirs);
  process.stdout.write(r.out);
  process.stderr.write(r.err);
  process.exitCode = r.code;
}

if (process.argv[1]?.endsWith("e2eRuns.js")) main();
