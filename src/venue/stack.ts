/**
 * Wiring for the signed request pipeline: keys -> epoch source (+ clock offset) -> pre-signer ->
 * request signer (with the clock guard) -> REST client with the venues' verbs. One call for the
 * engine, tests and benches (`hftgate/rest` exports it). The venues' facts the venue-neutral layers
 * below are handed live here: the real hosts and which order requests are pre-signed.
 */
import { type EpochPolicy, EpochSource } from "../auth/epoch.js";
import type { KeyPair } from "../auth/keys.js";
import { Presigner, type PresignerOptions } from "../auth/presigner.js";
import { RequestSigner } from "../auth/requestSigner.js";
import { makeSigner } from "../auth/signer.js";
import { type ClockOptions, ClockSync } from "../clock/clockSync.js";
import type { Config } from "../config/load.js";
import { buildCatalogue, ENDPOINT_ROWS, type EndpointId } from "../rest/catalogue.js";
import type { HttpOptions } from "../rest/client.js";
import { VenueClient } from "./client.js";

/** The venues' real hosts ([assumed] default for tests and the simulator: DEFAULT_BASE_URL). */
export const REAL_HOSTS = { spot: "https://coinswitch.co", hft: "https://dma.coinswitch.co" } as const;

/**
 * The order-path requests signed ahead by the pre-signer (their bodies are not signed, so a signature
 * depends on the epoch alone), in prefix-id order: HFT create and cancel, Spot create and cancel.
 */
export const PRESIGNED: readonly EndpointId[] = [
  "hft.createOrder",
  "hft.cancelOrder",
  "spot.createOrder",
  "spot.cancelOrder",
];

/** The config's paths for the catalogue's assumed endpoints (`venue.hftCancelPath`, …) as overrides. */
export function pathOverrides(
  v: Pick<Config["venue"], "hftCancelPath" | "futuresCancelPath" | "hftAmendPath">,
): Partial<Record<EndpointId, string>> {
  return {
    "hft.cancelOrder": v.hftCancelPath,
    "futures.cancelOrder": v.futuresCancelPath,
    "hft.amendOrder": v.hftAmendPath,
  };
}

/** The pre-signer's prefixes (METHOD + path) for PRESIGNED, with the catalogue's own paths. */
export const HOT_PREFIXES: readonly string[] = hotPrefixes();

export interface RestStackOptions {
  keys: KeyPair;
  spotBaseUrl?: string;
  hftBaseUrl?: string;
  http?: HttpOptions;
  epochPolicy?: EpochPolicy;
  maxAheadMs?: number;
  /** `clock` policy: epochs are multiples of this many ms (default 50, as `signing.epochStepMs`). */
  epochStepMs?: number;
  signerKind?: "native" | "pure-js";
  /** false disables pre-signing (every request signs inline). */
  presign?: false | Omit<PresignerOptions, "clockMs" | "prefixes">;
  /** false disables the clock sync (offset stays 0, no guard). */
  clock?: false | Omit<ClockOptions, "serverTime">;
  /** Overrides for assumed paths, e.g. `{ "hft.cancelOrder": "/v5/order/cancel" }`. */
  pathOverrides?: Partial<Record<EndpointId, string>>;
}

export interface RestStack {
  client: VenueClient;
  signer: RequestSigner;
  epochs: EpochSource;
  presigner: Presigner | undefined;
  clock: ClockSync | undefined;
  /** Clock sync, pool pre-warm, then the first pre-sign fill (which needs the offset). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createRestStack(o: RestStackOptions): RestStack {
  let clock: ClockSync | undefined;
  const epochs = new EpochSource({
    policy: o.epochPolicy ?? "clock",
    maxAheadMs: o.maxAheadMs ?? 50,
    stepMs: o.epochStepMs ?? 50,
    offset: () => clock?.offsetMs ?? 0,
  });
  const hot = hotPrefixes(o.pathOverrides);
  const presigner =
    o.presign === false
      ? undefined
      : new Presigner(o.keys, {
          ...o.presign,
          prefixes: hot,
          stepMs: epochs.stepMs,
          clockMs: () => epochs.clockMs(),
        });
  const signer = new RequestSigner(makeSigner(o.keys, o.signerKind ?? "native"), epochs, presigner, {
    assertCanSign: () => clock?.assertCanSign(),
  });
  const client = new VenueClient({
    apiKey: o.keys.apiKey,
    signer,
    spotBaseUrl: o.spotBaseUrl,
    hftBaseUrl: o.hftBaseUrl,
    http: o.http,
    catalogue: buildCatalogue(hot, o.pathOverrides),
    // A 401 holds signing and re-syncs the clock; without a clock there is nothing to ask.
    onUnauthorized: (epochMs) => clock?.unauthorized(epochMs).catch(() => true) ?? Promise.resolve(false),
  });
  if (o.clock !== false)
    clock = new ClockSync({ epochStepMs: epochs.stepMs, ...o.clock, serverTime: () => client.spotTime() });
  return {
    client,
    signer,
    epochs,
    presigner,
    clock,
    async start() {
      await client.start();
      await clock?.start();
      await presigner?.start();
    },
    async stop() {
      clock?.stop();
      await presigner?.stop();
      await client.close();
    },
  };
}

/** The pre-signer's prefixes for PRESIGNED, an overridden path in place of the catalogue's own. */
function hotPrefixes(overrides: Partial<Record<EndpointId, string>> = {}): string[] {
  return PRESIGNED.map((id) => {
    const row = ENDPOINT_ROWS.find((r) => r.id === id)!;
    return row.method + (overrides[id] ?? row.path);
  });
}
