/**
 * Engine-level target: the real engine and command API (`startEngine`, the same start path as
 * `hftgate start`) configured for an external venue — the simulator this test started — with the
 * journal in a temp dir. Strategies connect with the TypeScript client over a real socket.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { type Config, loadConfig } from "../../../src/config/load.js";
import { type EngineHandle, type StartOptions, startEngine } from "../../../src/index.js";
import { Strategy } from "./strategy.js";
import { type ChaosVenue, secretHex } from "./venue.js";

export const TOKEN = "chaos-token-5d1f0c2a9b";
export const ADMIN_TOKEN = "chaos-admin-token-77e3a1";

/** Knobs for an engine trading against `venue` (overrides win). Secrets go in as config values. */
export function engineConfig(
  venue: ChaosVenue,
  dir: string,
  overrides: Record<string, unknown> = {},
): Config {
  return loadConfig({
    env: {},
    overrides: engineOverrides(venue, dir, overrides),
  });
}

export function engineOverrides(
  venue: ChaosVenue,
  dir: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    "venue.kind": "exchange",
    "venue.spotBaseUrl": venue.sim.baseUrl,
    "venue.hftBaseUrl": venue.sim.baseUrl,
    "venue.streamUrl": venue.sim.baseUrl,
    "venue.spotExchanges": ["coinswitchx"],
    "keys.secretKey": secretHex(venue.keys),
    "gateway.port": 0,
    "gateway.token": TOKEN,
    "gateway.adminToken": ADMIN_TOKEN,
    "gateway.badTokenDelayMs": 50,
    "journal.enabled": true,
    "journal.dir": join(dir, "journal"),
    "journal.fsync": "none",
    "engine.stateFile": join(dir, "gateway.json"),
    "signing.presign": false,
    "streams.pollIntervalMs": 100,
    "orders.unknownQueryIntervalMs": 50,
    "http.headersTimeoutMs": 400,
    "http.bodyTimeoutMs": 400,
    "log.level": "silent",
    ...overrides,
  };
}

export interface EngineRig {
  h: EngineHandle;
  dir: string;
  /** Instrument id by surface and symbol (Spot: coinswitchx). */
  inst(surface: "spot" | "hft", symbol: string): number;
  strategy(name: string, opts?: { autoReconnect?: boolean; token?: string }): Promise<Strategy>;
  close(): Promise<void>;
}

export async function startEngineRig(
  venue: ChaosVenue,
  overrides: Record<string, unknown> = {},
  opts: StartOptions = {},
): Promise<EngineRig> {
  const dir = mkdtempSync(join(tmpdir(), "hftgate-chaos-"));
  const h = await startEngine(engineConfig(venue, dir, overrides), {
    logger: pino({ level: "silent" }),
    ...opts,
  });
  const strategies: Strategy[] = [];
  return {
    h,
    dir,
    inst(surface, symbol) {
      const i = h.instruments.all().find((x) => x.surface === surface && x.symbol === symbol);
      if (i === undefined) throw new Error(`no instrument ${surface} ${symbol}`);
      return i.id;
    },
    async strategy(name, o = {}) {
      const s = new Strategy(h.url, o.token ?? TOKEN, name, o);
      await s.connect();
      strategies.push(s);
      return s;
    },
    async close() {
      for (const s of strategies) await s.close().catch(() => {});
      await h.stop("test");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
