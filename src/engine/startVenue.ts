/**
 * Start-up steps that reach the venue: keys, the embedded simulator (and its nats-server) for venue
 * `sim`, and the REST stack (clock sync, warm connections, pre-signer) built from the config sections.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import { generateKeyHex } from "../auth/keygen.js";
import { KeyError, type KeyPair, loadKeyPair } from "../auth/keys.js";
import type { Config } from "../config/load.js";
import { HFT_NATS_URL } from "../streams/index.js";
import { registerSecret } from "../telemetry/logger.js";
import { createRestStack, pathOverrides, REAL_HOSTS, type RestStack } from "../venue/stack.js";
import {
  type EmbeddedVenue,
  type EmbeddedVenueOptions,
  startEmbeddedNats,
  startEmbeddedVenue,
} from "./embeddedVenue.js";
import { StartupError } from "./startupError.js";

/** Where the venue is, with the keys to reach it. */
export interface VenueStart {
  keys: KeyPair;
  /** The embedded simulator (venue `sim`), else undefined. */
  sim: EmbeddedVenue | undefined;
  spotBase: string;
  hftBase: string;
  streamBase: string;
  /** The HFT private streams' NATS URL, when they are on. */
  hftNatsUrl: string | undefined;
  stopNats: (() => Promise<void>) | undefined;
}

export async function startVenue(
  config: Config,
  simOpts: EmbeddedVenueOptions | undefined,
  log: Logger,
  cleanups: (() => Promise<void> | void)[],
): Promise<VenueStart> {
  let keys: KeyPair;
  let sim: EmbeddedVenue | undefined;
  let spotBase = config.venue.spotBaseUrl;
  let hftBase = config.venue.hftBaseUrl;
  let streamBase = config.venue.streamUrl;
  let stopNats: (() => Promise<void>) | undefined;
  let hftNatsUrl = config.streams.hftNats.enabled ? natsUrlFor(config) : undefined;
  if (config.venue.kind === "sim") {
    // A caller (test) may bring its own server through the simulator options.
    const given = simOpts?.nats?.url;
    let nats: Awaited<ReturnType<typeof startEmbeddedNats>>;
    try {
      nats =
        config.streams.hftNats.enabled && given === undefined
          ? await startEmbeddedNats(config.sim.nats, natsPidFile(config))
          : undefined;
    } catch (e) {
      throw new StartupError(
        `sim.nats=${config.sim.nats}: the NATS server for the HFT streams did not start: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    if (nats !== undefined) cleanups.push(() => nats.server.stop());
    const stale = nats !== undefined && "stale" in nats.server ? nats.server.stale : undefined;
    if (stale !== undefined)
      log.warn(
        stale,
        "stopped the nats-server an earlier gateway on this journal left running (killed before its stop)",
      );
    hftNatsUrl = config.streams.hftNats.enabled ? (given ?? nats?.server.wsUrl) : undefined;
    stopNats = nats !== undefined ? () => nats.server.stop() : undefined;
    const kp = config.keys.secretKey ? undefined : generateKeyHex();
    if (kp) registerSecret(kp.secretKey);
    keys = kp ? loadKeyPair(kp.secretKey) : loadKeys(config);
    sim = await startEmbeddedVenue(config, keys.apiKey, nats?.sim, simOpts);
    const s = sim;
    cleanups.push(() => s.stop());
    spotBase = hftBase = streamBase = sim.baseUrl;
    log.info({ url: sim.baseUrl, apiKey: keys.apiKey }, "embedded simulator started");
    if (hftNatsUrl !== undefined && nats !== undefined)
      log.info(
        { url: hftNatsUrl, natsServer: nats.server.kind },
        nats.server.kind === "builtin"
          ? `HFT private streams: simulator publishing through its built-in NATS endpoint (${config.sim.nats === "builtin" ? "sim.nats=builtin" : "no nats-server installed"}; a simulator endpoint, not a NATS server)`
          : "HFT private streams: simulator publishing through a nats-server",
      );
    else if (hftNatsUrl !== undefined)
      log.info(
        { url: hftNatsUrl },
        "HFT private streams: simulator publishing through the NATS server it was given",
      );
    else if (config.venue.surfaces.includes("hft"))
      log.info(
        { simNats: config.sim.nats, hftNats: config.streams.hftNats.enabled },
        "HFT private streams off (sim.nats=off or streams.hftNats.enabled=false): HFT orders are covered by polling",
      );
  } else {
    keys = loadKeys(config);
  }

  return { keys, sim, spotBase, hftBase, streamBase, hftNatsUrl, stopNats };
}

/**
 * The embedded nats-server's pid file: in the journal directory, which this process holds locked
 * (holdJournal), so a server recorded there can only be a dead gateway's. None with the journal off.
 */
function natsPidFile(config: Config): string | undefined {
  return config.journal.enabled ? join(config.journal.dir, "nats-server.pid") : undefined;
}

/** The REST stack, started: warm connections, the clock sync (unreachable venue: StartupError), the pre-signer. */
export async function startRest(
  config: Config,
  v: VenueStart,
  log: Logger,
  cleanups: (() => Promise<void> | void)[],
): Promise<RestStack> {
  const rest = createRest(config, v.keys, v.spotBase, v.hftBase, log);
  cleanups.push(() => rest.stop());
  const failedWarm = await rest.client.start();
  if (failedWarm > 0)
    log.warn(
      { failed: failedWarm },
      "some keep-alive connections could not be opened at start (they reopen on use)",
    );
  try {
    await rest.clock?.start();
  } catch (err) {
    throw new StartupError(`venue not reachable for the clock sync: ${(err as Error).message}`);
  }
  try {
    await rest.presigner?.start();
    // The worker reports its nice value before its first refill ends (null: priority not lowered).
    if (rest.presigner) log.info({ nice: rest.presigner.niced }, "pre-signer started");
  } catch (err) {
    // Slower, still correct: every hot-path request signs inline.
    log.warn({ err: (err as Error).message }, "pre-signer did not start; signing inline");
  }
  return rest;
}

/** `http.caFile`'s PEM text ("" when none); a file that cannot be read or holds no certificate stops the start. */
export function readCaFile(file: string): string {
  if (file === "") return "";
  let pem: string;
  try {
    pem = readFileSync(file, "utf8");
  } catch (err) {
    throw new StartupError(
      `http.caFile: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  if (!pem.includes("-----BEGIN CERTIFICATE-----"))
    throw new StartupError(`http.caFile: ${file} holds no PEM certificate`);
  return pem;
}

/** The REST stack from the config's http, signing and clock sections (started by the caller). */
function createRest(
  config: Config,
  keys: KeyPair,
  spotBase: string,
  hftBase: string,
  log: Logger,
): RestStack {
  return createRestStack({
    keys,
    spotBaseUrl: spotBase,
    hftBaseUrl: hftBase,
    http: { ...config.http, ca: readCaFile(config.http.caFile) },
    epochPolicy: config.signing.epochPolicy,
    maxAheadMs: config.signing.uniqueMaxAheadMs,
    epochStepMs: config.signing.epochStepMs,
    signerKind: config.signing.signer,
    presign: config.signing.presign
      ? {
          horizonMs: config.signing.presignHorizonMs,
          refillMs: config.signing.presignRefillMs,
          threads: config.signing.presignWorkers,
          nice: config.signing.presignNice < 0 ? null : config.signing.presignNice,
          idleMs: config.signing.presignIdleMs,
        }
      : false,
    clock: {
      ...config.clock,
      onWarn: (msg: string) => log.warn({}, msg),
      // Signing held or resumed: what an operator needs to see when orders start or stop being refused.
      onState: (state, reason) =>
        state === "checking" || state === "refuse"
          ? log.warn({ clock: state }, `clock ${state}: ${reason}; signed requests refused`)
          : log.info({ clock: state }, `clock ${state}: ${reason}`),
    },
    pathOverrides: pathOverrides(config.venue),
  });
}

function loadKeys(config: Config): KeyPair {
  try {
    return loadKeyPair(config.keys.secretKey ?? undefined, config.keys.apiKey ?? undefined);
  } catch (err) {
    if (err instanceof KeyError) {
      throw new StartupError(
        `venue "exchange" needs valid keys: ${err.message}. Set HFTGATE_SECRET_KEY (and optionally HFTGATE_API_KEY) or keys.secretKey in the config file.`,
      );
    }
    throw err;
  }
}

/** The HFT NATS URL for a real venue: the configured one, else the documented one for the documented host. */
function natsUrlFor(config: Config): string | undefined {
  const u = config.streams.hftNats.url;
  if (u !== "") return u;
  return config.venue.hftBaseUrl.replace(/\/+$/, "") === REAL_HOSTS.hft ? HFT_NATS_URL : undefined;
}
