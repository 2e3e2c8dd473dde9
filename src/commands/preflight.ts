/**
 * `hftgate preflight [--config file] [--json]`: read-only checks against the configured venue (clock,
 * key, instruments, entitlements, the Spot and HFT stream credentials, rate-limit headers), each with
 * pass/fail and what to change (src/preflight). Never places, cancels or changes anything. Exit 0 only
 * when every required check passes.
 */
import { bool, type CommandSpec, command, int, str } from "./args.js";

export const spec: CommandSpec = {
  name: "preflight",
  summary: "read-only checks against the configured venue before going live (never places an order)",
  options: {
    config: {
      type: "string",
      value: "FILE",
      help: "JSON configuration, as for hftgate start; environment variables override it",
    },
    json: { type: "boolean", help: "print the report as one JSON object" },
    assumptions: {
      type: "boolean",
      help: "print the table of every assumed venue fact (what, knob, how to verify) and exit",
    },
    "timeout-ms": { type: "string", value: "MS", help: "per request and connection attempt (default 5000)" },
  },
  notes: [
    "Exit code 0 when every required check passes, 1 when one fails, 2 on a configuration error.",
    "venue.kind sim checks a freshly started embedded simulator; docs/going-live.md walks through a real venue.",
  ],
};

export const run = command(spec, async (a) => {
  if (bool(a, "assumptions")) {
    const { assumptionTable } = await import("../preflight/assumptions.js");
    const { verifiedBy } = await import("../preflight/checks.js");
    process.stdout.write(`${assumptionTable(verifiedBy)}\n`);
    return 0;
  }
  const { ConfigError, loadConfig } = await import("../config/load.js");
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig({ file: str(a, "config") });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`hftgate preflight: ${err.message}\n`);
    return 2;
  }
  const { runPreflight } = await import("../preflight/run.js");
  const { renderText } = await import("../preflight/report.js");
  const report = await runPreflight(config, { timeoutMs: int(a, "timeout-ms", 5_000) });
  process.stdout.write(bool(a, "json") ? `${JSON.stringify(report)}\n` : renderText(report));
  return report.ok ? 0 : 1;
});
