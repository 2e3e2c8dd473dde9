/**
 * `hftgate start [--config file]`: the gateway. With no configuration it runs the embedded simulator
 * as the venue (generated key pair), the engine and the command API on 127.0.0.1:7700, prints one
 * short block (URL, token, venue, how to run the demo), writes the same to `engine.stateFile`
 * (mode 0600) for `hftgate demo`, and stays up until SIGINT/SIGTERM.
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { EngineHandle } from "../engine/lifecycle.js";
import { type CommandSpec, command, str } from "./args.js";

export const spec: CommandSpec = {
  name: "start",
  summary:
    "run the gateway (the embedded simulator is the venue unless the configuration names the exchange)",
  options: {
    config: {
      type: "string",
      value: "FILE",
      help: "JSON configuration (knobs in config/default.json); environment variables override it",
    },
  },
  notes: [
    "Runs until SIGINT or SIGTERM. Writes the connection (URL, tokens) to engine.stateFile (mode 0600) for hftgate demo and hftgate top.",
  ],
};

/** What `hftgate demo` reads from the state file. */
export interface GatewayStateFile {
  url: string;
  httpUrl: string;
  token: string;
  adminToken: string;
  venue: string;
  /** The venue's REST base URL (the embedded simulator's, or the Spot host): market data for the demo. */
  venueUrl: string;
  pid: number;
  startedAt: string;
}

export function writeStateFile(path: string, h: EngineHandle): void {
  const body: GatewayStateFile = {
    url: h.url,
    httpUrl: h.httpUrl,
    token: h.token,
    adminToken: h.adminToken,
    venue: h.venue,
    venueUrl: h.venueUrl,
    pid: process.pid,
    startedAt: new Date().toISOString(),
  };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // an existing file keeps its old mode otherwise
}

export function banner(h: EngineHandle, stateFile: string): string {
  const venue =
    h.venue === "sim" ? `embedded simulator (${h.sim?.baseUrl ?? "?"})` : "CoinSwitch PRO (real orders)";
  return [
    "",
    "hftgate is running",
    `  command API  ${h.url}`,
    `  token        ${h.tokenGenerated ? `${h.token}  (generated; set HFTGATE_TOKEN to fix it)` : "(from your configuration)"}`,
    `  venue        ${venue}`,
    `  health       ${h.httpUrl}/health   metrics ${h.httpUrl}/metrics`,
    `  demo         npm run demo   (reads ${stateFile})`,
    `               or: hftgate demo --url ${h.url} --token <token>`,
    "  stop         Ctrl-C (drains in-flight orders first; twice: at once)",
    "",
  ].join("\n");
}

export const run = command(spec, async (args) => {
  const { ConfigError, loadConfig } = await import("../config/load.js");
  const { StartupError, startEngine } = await import("../engine/lifecycle.js");
  let handle: EngineHandle;
  let stateFile: string;
  try {
    const config = loadConfig({ file: str(args, "config") });
    stateFile = config.engine.stateFile;
    handle = await startEngine(config);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof StartupError) {
      process.stderr.write(`hftgate start: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  try {
    writeStateFile(stateFile, handle);
  } catch (err) {
    process.stderr.write(`hftgate start: could not write ${stateFile}: ${(err as Error).message}\n`);
  }
  process.stdout.write(banner(handle, stateFile));
  const h = handle;
  const file = stateFile;
  const { onStopSignals } = await import("../engine/stopSignals.js");
  return new Promise<number>((resolve) => {
    // The first signal drains (docs/operator.md); a second one exits at once with 128 + its number.
    onStopSignals(h, (code) => {
      rmSync(file, { force: true });
      resolve(code);
      if (code !== 0) process.exit(code);
      // Everything is flushed and closed; do not wait for idle keep-alive sockets to time out.
      setTimeout(() => process.exit(0), 100).unref();
    });
  });
});
