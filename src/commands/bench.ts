/** `hftgate bench [suite...]`: the same runner as `npm run bench` (from a source checkout). */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { bool, type CommandSpec, command, str } from "./args.js";

export const spec: CommandSpec = {
  name: "bench",
  summary: "run the benchmark suites (all, or those whose name contains a given word)",
  positionals: "[suite...]",
  options: {
    save: { type: "boolean", help: "write the results and plots to bench/results/ (the recorded figures)" },
    out: { type: "string", value: "DIR", help: "write the results and plots to DIR" },
    json: { type: "boolean", help: "also print each suite's figures as JSON" },
  },
  notes: [
    "Prints the headline table; results (latest.json for a full run, partial-<names>.json otherwise) and plots go to var/bench/ (untracked) unless --save or --out.",
  ],
};

export const run = command(spec, async (a) => {
  const runner = new URL("../../bench/run.js", import.meta.url);
  if (!existsSync(fileURLToPath(runner))) {
    process.stderr.write(
      "hftgate bench: the benchmarks ship with the source, not the package: npm run bench\n",
    );
    return 2;
  }
  const flags = [
    ...(bool(a, "save") ? ["--save"] : []),
    ...(bool(a, "json") ? ["--json"] : []),
    ...(str(a, "out") !== undefined ? ["--out", str(a, "out")!] : []),
  ];
  process.argv = [process.argv[0]!, "bench", ...a.positionals, ...flags];
  await import(runner.href);
  return 0;
});
