/**
 * `npm run bench [-- suite...] [--save] [--out DIR] [--json]`: runs every suite in bench/suites (or
 * those named), prints the headline table (bench/lib/summary.ts) and writes the results as JSON
 * (latest.json for a full run, partial-<names>.json otherwise) with an HDR-style percentile plot
 * (SVG) per latency group in plots/, into var/bench/ (untracked) unless `--save` (bench/results/,
 * the recorded figures the docs quote) or `--out DIR`. `--json` also prints each suite's figures.
 * Each suite module exports `name` and `run(): Promise<object>`; figures are p50/p99/p99.9 and ratios
 * to a floor measured in the same run.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, hostname } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writePlots } from "./lib/plot.js";
import { summaryLines } from "./lib/summary.js";

interface Suite {
  name: string;
  run(): Promise<Record<string, unknown>>;
}

const here = dirname(fileURLToPath(import.meta.url));

/** The repository (dist/bench/run.js is two levels below it). */
const repo = join(here, "..", "..");

async function main(): Promise<void> {
  const { values: flags, positionals: only } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: { save: { type: "boolean" }, out: { type: "string" }, json: { type: "boolean" } },
  });
  const files = readdirSync(join(here, "suites"))
    .filter((f) => f.endsWith(".js"))
    .sort();
  const results: Record<string, unknown> = {};
  // Results live in the source tree, not in dist: the tracked bench/results only when asked.
  const resultsDir =
    flags.out !== undefined
      ? resolve(flags.out)
      : flags.save
        ? join(repo, "bench", "results")
        : join(repo, "var", "bench");
  const plots: string[] = [];
  for (const f of files) {
    const suite = (await import(join(here, "suites", f))) as Suite;
    if (only.length > 0 && !only.some((o) => suite.name.includes(o) || f.includes(o))) continue;
    process.stdout.write(`\n== ${suite.name} ==\n`);
    const t0 = Date.now();
    try {
      const r = await suite.run();
      results[suite.name] = r;
      if (flags.json) {
        // The distributions go to the JSON file and the plots, not to the terminal.
        const shown = JSON.stringify(r, (k, v: unknown) => (k === "dist" ? undefined : v), 2);
        process.stdout.write(`${shown}\n`);
      }
      process.stdout.write(`(${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
      plots.push(...writePlots(suite.name, r, join(resultsDir, "plots")));
    } catch (err) {
      results[suite.name] = { error: err instanceof Error ? err.message : String(err) };
      process.stdout.write(`suite failed: ${String(err)}\n`);
      process.exitCode = 1;
    }
  }
  const out = {
    measuredAt: new Date().toISOString(),
    machine: { host: hostname(), cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
    results,
  };
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, only.length > 0 ? `partial-${only.join("-")}.json` : "latest.json");
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  const shown = (p: string) => (p.startsWith(repo) ? relative(process.cwd(), p) || "." : p);
  process.stdout.write(
    `\n${summaryLines(out).join("\n")}\n\nresults: ${shown(file)}` +
      (plots.length > 0 ? `\nplots: ${plots.length} in ${shown(join(resultsDir, "plots"))}` : "") +
      (flags.save || flags.out !== undefined ? "" : "  (untracked; --save writes bench/results/)") +
      "\n",
  );
}

main().catch((err) => {
  process.stderr.write(`${String(err)}\n`);
  process.exitCode = 1;
});
