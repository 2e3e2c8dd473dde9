/**
 * One builder for the crash scenarios' rig: a temp dir, the gateway's config file (venue `exchange`
 * at the given simulator, journal in the temp dir), `hftgate start` as a child process with the secret
 * in the environment, strategies over real sockets, and one close() that stops everything it started.
 * The venue may be an in-process simulator or `hftgate sim` in its own process: only its URL and the
 * account's keys are needed.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../../sim/index.js";
import type { KeyPair } from "../../../src/auth/keys.js";
import { ensureBuilt, GatewayProcess } from "./child.js";
import { ADMIN_TOKEN, TOKEN } from "./engineRig.js";
import { Strategy } from "./strategy.js";
import { secretHex } from "./venue.js";

/** Where the gateway trades: the venue's base URL and the strategy account's keys. */
export interface VenueAddress {
  baseUrl: string;
  keys: KeyPair;
}

export interface ProcessRigOptions {
  /** Temp dir prefix (names the scenario in /tmp). */
  prefix: string;
  /** Changes to the default config (deep keys replaced by section, e.g. `{ journal: {...} }`). */
  config?: (base: Record<string, Record<string, unknown>>) => Record<string, unknown>;
  /** The compiled CLI to run (default: the scenarios' build). */
  cli?: string;
}

export interface ProcessRig {
  dir: string;
  cfgFile: string;
  secret: string;
  gp: GatewayProcess;
  /** A strategy logged on over a real socket (closed by close()). */
  strategy(
    name: string,
    opts?: {
      autoReconnect?: boolean;
      codPolicy?: number;
      token?: string;
      heartbeatMs?: number;
      logonOptions?: number;
    },
  ): Promise<Strategy>;
  /** Stops the strategies and the gateway and removes the temp dir (unless `keepDir`). */
  close(keepDir?: boolean): Promise<void>;
}

export { freePort };

/** The child's configuration: venue `exchange` at `baseUrl`, journal and state file in `dir`. */
export function gatewayConfig(
  baseUrl: string,
  dir: string,
  port: number,
): Record<string, Record<string, unknown>> {
  return {
    venue: {
      kind: "exchange",
      spotBaseUrl: baseUrl,
      hftBaseUrl: baseUrl,
      streamUrl: baseUrl,
      spotExchanges: ["coinswitchx"],
    },
    gateway: { port, token: TOKEN, adminToken: ADMIN_TOKEN, badTokenDelayMs: 50 },
    journal: { enabled: true, dir: join(dir, "journal"), fsync: "interval", fsyncIntervalMs: 100 },
    engine: { stateFile: join(dir, "gateway.json") },
    streams: { pollIntervalMs: 100 },
    orders: { unknownQueryIntervalMs: 50 },
    http: { headersTimeoutMs: 500, bodyTimeoutMs: 500 },
    log: { level: "debug", pretty: "false" },
  };
}

/**
 * Builds the rig and starts the gateway once. The gateway port is one the OS just handed out, bound
 * explicitly: a listener first bound with port 0 cannot be re-bound on that port while its connections
 * sit in TIME_WAIT (on Linux). Another process may grab the port in between: then try another.
 */
export async function startProcessRig(venue: VenueAddress, o: ProcessRigOptions): Promise<ProcessRig> {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), `hftgate-chaos-${o.prefix}-`));
  const cfgFile = join(dir, "config.json");
  const secret = secretHex(venue.keys);
  // The secret goes in the way the docs recommend: the environment.
  const gp = new GatewayProcess(cfgFile, { HFTGATE_SECRET_KEY: secret }, o.cli);
  const strategies: Strategy[] = [];
  const rig: ProcessRig = {
    dir,
    cfgFile,
    secret,
    gp,
    async strategy(name, opts = {}) {
      const s = new Strategy(gp.url, opts.token ?? TOKEN, name, opts);
      strategies.push(s);
      return s.connect();
    },
    async close(keepDir = false) {
      for (const s of strategies) await s.close().catch(() => {});
      await gp.stop();
      if (!keepDir) rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await gp.startOnFreePort((port) => {
      const base = gatewayConfig(venue.baseUrl, dir, port);
      writeFileSync(cfgFile, JSON.stringify(o.config ? o.config(base) : base));
    });
  } catch (e) {
    await rig.close();
    throw e;
  }
  return rig;
}

/** Instrument ids and lot steps as the gateway numbers them: asked over the protocol, never assumed. */
export async function instrumentIds(
  s: Strategy,
): Promise<{ spot: number; hft: number; spotStep: number; hftStep: number }> {
  const list = await s.client.instruments();
  const spot = list.find((i) => i.surface === 1 && i.symbol === "BTC/INR" && i.venue === "coinswitchx");
  const hft = list.find((i) => i.surface === 2 && i.symbol === "ETHUSDT");
  if (!spot || !hft) throw new Error("instruments missing");
  return {
    spot: spot.instrumentId,
    hft: hft.instrumentId,
    spotStep: Number(spot.qtyStep),
    hftStep: Number(hft.qtyStep),
  };
}
