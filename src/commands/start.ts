/**
 * `hftgate start [--config file]`: the gateway. With no configuration it runs the embedded simulator
 * as the venue (generated key pair), the engine and the command API on 127.0.0.1:7700, prints one
 * short block (URL, token, venue, how to run the demo), writes the same to `engine.stateFile`
 * (mode 0600) for `hftgate demo`, and stays up until SIGINT/SIGTERM.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { EngineHandle } from "../engine/lifecycle.js";
import type { InstanceLock } from "../journal/lock.js";
import { bool, type CommandSpec, command, str } from "./args.js";

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
    "recover-from-venue": {
      type: "boolean",
      help: "a damaged journal is moved aside (never deleted) and the gateway starts from the venue's listings (journal.recoverFromVenue for this start)",
    },
  },
  notes: [
    "Runs until SIGINT or SIGTERM. Writes the connection (URL, tokens) to engine.stateFile (mode 0600) for hftgate demo and hftgate top.",
    "One gateway per journal directory and state file: a second start on either is refused, naming the first (pid, port).",
    "A damaged journal refuses the start; `hftgate replay --check` shows where, --recover-from-venue recovers (docs/operator.md).",
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

/** Removes the state file only if it is this process's (never another gateway's connection). */
export function removeOwnStateFile(path: string): void {
  try {
    const st = JSON.parse(readFileSync(path, "utf8")) as Partial<GatewayStateFile>;
    if (st.pid !== process.pid) return;
  } catch {
    return; // gone or unreadable: not ours to remove
  }
  rmSync(path, { force: true });
}

/** The state file's lock (`<stateFile>.lock`): one `hftgate start` writes a given state file. */
async function lockStateFile(path: string): Promise<InstanceLock> {
  const { InstanceLock } = await import("../journal/lock.js");
  mkdirSync(dirname(path), { recursive: true });
  return InstanceLock.acquire(`${path}.lock`, `state file ${path}`, (old) =>
    process.stderr.write(
      `hftgate start: lock of ${path} left by pid ${old?.pid ?? "?"} (no longer running): taken over\n`,
    ),
  );
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
  let config: ReturnType<typeof loadConfig>;
  try {
    const recover = bool(args, "recover-from-venue");
    config = loadConfig({
      file: str(args, "config"),
      overrides: recover ? { "journal.recoverFromVenue": true } : {},
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // Refused before the engine's modules load: a typo answers at once.
    process.stderr.write(`hftgate start: ${err.message}\n`);
    return 2;
  }
  const { StartupError, startEngine } = await import("../engine/lifecycle.js");
  const { JournalError } = await import("../journal/records.js");
  let handle: EngineHandle;
  let stateFile: string;
  let stateLock: InstanceLock | undefined;
  try {
    stateFile = config.engine.stateFile;
    // Before anything else: a second gateway on this state file would overwrite the first's connection.
    stateLock = await lockStateFile(stateFile);
    handle = await startEngine(config);
  } catch (err) {
    stateLock?.release();
    if (err instanceof ConfigError || err instanceof StartupError || err instanceof JournalError) {
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
  stateLock.update({ port: handle.gateway.port });
  const h = handle;
  const file = stateFile;
  const lock = stateLock;
  const { onStopSignals } = await import("../engine/stopSignals.js");
  // The handlers are in place before the banner says the gateway runs: a signal right after it drains.
  const stopped = new Promise<number>((resolve) => {
    // The first signal drains (docs/operator.md); a second one exits at once with 128 + its number.
    onStopSignals(h, (code) => {
      removeOwnStateFile(file);
      lock.release();
      resolve(code);
      if (code !== 0) process.exit(code);
      // Everything is flushed and closed; do not wait for idle keep-alive sockets to time out.
      setTimeout(() => process.exit(0), 100).unref();
    });
  });
  process.stdout.write(banner(h, file));
  return stopped;
});
