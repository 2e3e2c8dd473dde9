/**
 * What the preflight checks share: the context they run in (the configuration, the read-only probe,
 * the stream URLs, what earlier checks learned), the shape of a check and its outcome, and the small
 * readings and fix texts more than one check uses.
 */
import type { Config } from "../config/load.js";
import type { VenueProbe } from "./probe.js";
import { retCodeOf, venueText } from "./probe.js";
import type { CheckStatus } from "./report.js";

export interface PreflightContext {
  readonly config: Config;
  readonly probe: VenueProbe;
  /** Socket.IO origin of the Spot streams. */
  readonly streamUrl: string;
  /** NATS WebSocket URL of the HFT streams; undefined when none is known. */
  readonly natsUrl: string | undefined;
  readonly timeoutMs: number;
  /** Set by the clock check: the venue answered. Later checks skip when it did not. */
  reachable: boolean;
  /** Set by the hft check: the key has no HFT access (the options check then says so, not "allowlist"). */
  hftRefused?: boolean;
}

export interface Outcome {
  status: CheckStatus;
  detail: string;
  fix?: string;
  data?: Record<string, unknown>;
}

export interface CheckDef {
  readonly id: string;
  readonly title: string;
  /** Required for this configuration; a check that is not may still run and report. */
  required(c: Config): boolean;
  /** Not run at all for this configuration (a surface not traded, a stream turned off). */
  skip?(c: Config): string | undefined;
  run(ctx: PreflightContext): Promise<Outcome>;
  /** Ids of docs/going-live.md's table of venue facts that a pass confirms. */
  readonly verifies: readonly string[];
}

export const has = (c: Config, s: "spot" | "hft" | "futures"): boolean => c.venue.surfaces.includes(s);
/** Spot and Futures share the Spot host and its unsigned time endpoint. */
export const spotHost = (c: Config): boolean => has(c, "spot") || has(c, "futures");

export function errText(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ").slice(0, 200);
}

/** A v5 answer read as: ok, refused by auth (HTTP 401), or refused with a retCode. */
export function v5Outcome(status: number, body: unknown): { ok: boolean; why: string } {
  const code = retCodeOf(body);
  if (status === 200 && code === 0) return { ok: true, why: "" };
  const text = venueText(body);
  return {
    ok: false,
    why: `HTTP ${status}${code !== undefined ? `, retCode ${code}` : ""}${text ? `: ${text}` : ""}`,
  };
}

export const REGISTER =
  "register this public key (hftgate keygen's apiKey) with CoinSwitch, or set the matching secret in HFTGATE_SECRET_KEY";

export const HFT_FIX =
  "HFT needs an HFT account for the key (the venue opens it at the first funds transfer to HFT) and the host's IP on the key's allowlist; or remove hft from venue.surfaces";
