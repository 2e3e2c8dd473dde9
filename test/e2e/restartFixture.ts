/**
 * A venue that outlives gateway restarts: one simulator per test file, reached as venue "exchange"
 * with fixed keys, and one temp directory whose journal each restarted gateway replays.
 */
import { mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { type SimHandle, startSimulator } from "../../sim/index.js";
import { generateKeyHex } from "../../src/auth/keygen.js";
import type { Config } from "../../src/config/load.js";
import { type EngineHandle, type StartOptions, startEngine } from "../../src/index.js";
import type { Journal } from "../../src/journal/writer.js";
import { silent, testConfig } from "./harness.js";

export interface RestartVenue {
  /** The simulator (set in beforeAll). */
  readonly sim: SimHandle;
  /** The temp directory; the journal is `<dir>/journal`. */
  readonly dir: string;
  /** The gateway's keys at the venue. */
  readonly keys: { secretKey: string; apiKey: string };
  /** A second account's keys (a counterparty trading while the gateway is down). */
  readonly other: { secretKey: string; apiKey: string };
  /** Gateway config for this venue and journal, plus `extra` knobs. */
  config(extra?: Record<string, unknown>): Config;
  /** Starts a gateway on this venue, replaying the journal (silent logger). */
  start(extra?: Record<string, unknown>, opts?: StartOptions): Promise<EngineHandle>;
  /** Closes a hand-written journal and names it as an older run's file (replayed in name order). */
  asOlderRun(j: Journal): Promise<void>;
}

/** Registers the venue's beforeAll / afterAll in the calling test file. */
export function restartVenue(prefix: string, base: Record<string, unknown> = {}): RestartVenue {
  const keys = generateKeyHex();
  const other = generateKeyHex();
  let sim: SimHandle | undefined;
  let dir = "";
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `hftgate-${prefix}-`));
    sim = await startSimulator({
      apiKeys: [keys.apiKey, other.apiKey],
      market: { synthetic: false, tickMs: 0 },
    });
  });
  afterAll(async () => {
    await sim?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const v: RestartVenue = {
    get sim() {
      if (sim === undefined) throw new Error("restartVenue: simulator not started (use inside a test)");
      return sim;
    },
    get dir() {
      return dir;
    },
    keys,
    other,
    config(extra = {}) {
      return testConfig(
        {
          "venue.kind": "exchange",
          "venue.spotBaseUrl": v.sim.baseUrl,
          "venue.hftBaseUrl": v.sim.baseUrl,
          "keys.secretKey": keys.secretKey,
          "shutdown.timeoutMs": 500,
          ...base,
          ...extra,
        },
        dir,
      );
    },
    start(extra = {}, opts = {}) {
      return startEngine(v.config(extra), { logger: silent, ...opts });
    },
    async asOlderRun(j) {
      await j.close();
      renameSync(j.path, join(dir, "journal", "hftgate-20260101T000000Z-1.hgj"));
    },
  };
  return v;
}
