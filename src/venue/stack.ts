/**
 * Wiring for the signed request pipeline: keys -> epoch source (+ clock offset) -> pre-signer ->
 * request signer (with the clock guard) -> REST client. One call for the engine, tests and benches.
 */
import { type EpochPolicy, EpochSource } from "../auth/epoch.js";
import type { KeyPair } from "../auth/keys.js";
import { HOT_PREFIXES, Presigner, type PresignerOptions } from "../auth/presigner.js";
import { RequestSigner } from "../auth/requestSigner.js";
import { makeSigner } from "../auth/signer.js";
import { type ClockOptions, ClockSync } from "../clock/clockSync.js";
import { buildCatalogue, type EndpointId } from "../rest/catalogue.js";
import { type HttpOptions, RestClient } from "../rest/client.js";

export interface RestStackOptions {
  keys: KeyPair;
  spotBaseUrl?: string;
  hftBaseUrl?: string;
  http?: HttpOptions;
  epochPolicy?: EpochPolicy;
  maxAheadMs?: number;
  /** `clock` policy: epochs are multiples of this many ms (default 5, as `signing.epochStepMs`). */
  epochStepMs?: number;
  signerKind?: "native" | "pure-js";
  /** false disables pre-signing (every request signs inline). */
  presign?: false | Omit<PresignerOptions, "clockMs">;
  /** false disables the clock sync (offset stays 0, no guard). */
  clock?: false | Omit<ClockOptions, "serverTime">;
  /** Overrides for assumed paths, e.g. `{ "hft.cancelOrder": "/v5/order/cancel" }`. */
  pathOverrides?: Partial<Record<EndpointId, string>>;
}

export interface RestStack {
  client: RestClient;
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
    stepMs: o.epochStepMs ?? 5,
    offset: () => clock?.offsetMs ?? 0,
  });
  const hot = o.pathOverrides?.["hft.cancelOrder"]
    ? HOT_PREFIXES.map((p) =>
        p === "POST/v5/order/cancel" ? `POST${o.pathOverrides!["hft.cancelOrder"]}` : p,
      )
    : [...HOT_PREFIXES];
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
  const client = new RestClient({
    apiKey: o.keys.apiKey,
    signer,
    spotBaseUrl: o.spotBaseUrl,
    hftBaseUrl: o.hftBaseUrl,
    http: o.http,
    catalogue: buildCatalogue(hot, o.pathOverrides),
    // A 401 holds signing and re-syncs the clock; without a clock there is nothing to ask.
    onUnauthorized: (epochMs) => clock?.unauthorized(epochMs).catch(() => true) ?? Promise.resolve(false),
  });
  if (o.clock !== false) clock = new ClockSync({ ...o.clock, serverTime: () => client.spotTime() });
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
