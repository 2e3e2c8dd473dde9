/**
 * `hftgate config [--config FILE]`: the effective configuration (defaults, the file, `HFTGATE_*`
 * variables, validated as `hftgate start` does) with where each value came from; secrets are shown
 * only as set or not. `--markdown` prints the configuration reference (docs/config.md) instead.
 */
import { bool, type CommandSpec, command, str } from "./args.js";

export const spec: CommandSpec = {
  name: "config",
  summary: "print the effective configuration and where each value came from (secrets hidden)",
  options: {
    config: { type: "string", value: "FILE", help: "JSON configuration, as for hftgate start" },
    json: { type: "boolean", help: "one JSON object: key -> {value, source, env}" },
    markdown: { type: "boolean", help: "print the configuration reference (docs/config.md) and exit" },
  },
  notes: [
    "Sources: default, file, env NAME. Exit 2 with the reason when the configuration is refused",
    "(unknown key or HFTGATE_* variable, bad value, file not JSON), as hftgate start would.",
  ],
};

export const run = command(spec, async (args) => {
  const { ConfigError, configReference, explainConfig } = await import("../config/load.js");
  if (bool(args, "markdown")) {
    process.stdout.write(configReference());
    return 0;
  }
  const { envName, KNOBS } = await import("../config/schema.js");
  let explained: ReturnType<typeof explainConfig>;
  try {
    explained = explainConfig({ file: str(args, "config") });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`hftgate config: ${err.message}\n`);
    return 2;
  }
  const rows = KNOBS.map((k) => {
    const v = k.path
      .split(".")
      .reduce<unknown>((o, p) => (o as Record<string, unknown>)[p], explained.config);
    const secret = k.type.kind === "string" && k.type.secret === true;
    // A secret is never printed, not even in part: only whether it is set.
    const value = secret ? (v === null ? null : "(set, hidden)") : v;
    return { key: k.path, value, source: explained.sources.get(k.path) ?? "default", env: envName(k.path) };
  });
  if (bool(args, "json")) {
    const out: Record<string, unknown> = {};
    for (const r of rows) out[r.key] = { value: r.value, source: r.source, env: r.env };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  }
  const shown = rows.map((r) => [r.key, JSON.stringify(r.value), r.source] as const);
  const w0 = Math.max(...shown.map((r) => r[0].length));
  const w1 = Math.min(48, Math.max(...shown.map((r) => r[1].length)));
  const lines = shown.map(([k, v, s]) => `${k.padEnd(w0)}  ${v.padEnd(w1)}  ${s}`);
  process.stdout.write(`${"key".padEnd(w0)}  ${"value".padEnd(w1)}  source\n${lines.join("\n")}\n`);
  return 0;
});
