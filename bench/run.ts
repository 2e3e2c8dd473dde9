/**
 * `npm run bench`: runs every suite in bench/suites (or those named on the command line), prints
 * a table per suite and writes bench/results/latest.json, plus an HDR-style percentile plot (SVG) per
 * latency group into bench/results/plots/. Each suite module exports
 * `name` and `run(): Promise<object>`; figures are p50/p99/p99.9 and ratios to a floor measured in the
 * same run.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, hostname } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writePlots } from "./lib/plot.js";

interface Suite {
  name: string;
  run(): Promise<Record<string, unknown>>;
}

const here = dirname(fileURLToPath(import.meta.url));

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const files = readdirSync(join(here, "suites"))
    .filter((f) => f.endsWith(".js"))
    .sort();
  const results: Record<string, unknown> = {};
  // Results live in the source tree (bench/results), not in dist.
  const resultsDir = join(here, "..", "..", "bench", "results");
  for (const f of files) {
    const suite = (await import(join(here, "suites", f))) as Suite;
    if (only.length > 0 && !only.some((o) => suite.name.includes(o) || f.includes(o))) continue;
    process.stdout.write(`\n== ${suite.name} ==\n`);
    const t0 = Date.now();
    try {
      const r = await suite.run();
      results[suite.name] = r;
      // The distributions go to the JSON file and the plots, not to the terminal.
      const shown = JSON.stringify(r, (k, v: unknown) => (k === "dist" ? undefined : v), 2);
      process.stdout.write(`${shown}\n(${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
      for (const file of writePlots(suite.name, r, join(resultsDir, "plots")))
        process.stdout.write(`plot: ${file}\n`);
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
  writeFileSync(
    join(resultsDir, only.length > 0 ? `partial-${only.join("-")}.json` : "latest.json"),
    `${JSON.stringify(out, null, 2)}\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`${String(err)}\n`);
  process.exitCode = 1;
});
