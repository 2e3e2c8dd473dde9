/** `hftgate bench [suite...]`: the same runner as `npm run bench` (from a source checkout). */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type CommandSpec, command } from "./args.js";

export const spec: CommandSpec = {
  name: "bench",
  summary: "run the benchmark suites (all, or those whose name contains a given word)",
  positionals: "[suite...]",
  options: {},
  notes: ["Results go to bench/results/ (latest.json for a full run, partial-<names>.json otherwise)."],
};

export const run = command(spec, async (a) => {
  const runner = new URL("../../bench/run.js", import.meta.url);
  if (!existsSync(fileURLToPath(runner))) {
    process.stderr.write(
      "hftgate bench: the benchmarks ship with the source, not the package: npm run bench\n",
    );
    return 2;
  }
  process.argv = [process.argv[0]!, "bench", ...a.positionals];
  await import(runner.href);
  return 0;
});
