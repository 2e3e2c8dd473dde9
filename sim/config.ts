/**
 * Simulator options and their defaults. Every behaviour that docs/venue-api.md leaves open is a knob
 * here, with the chosen default marked [assumed]; docs/simulator.md explains each.
 */
import type { FaultRule, StreamFaults } from "./faults.js";
import type { SimNatsOptions } from "./nats/streams.js";

export interface RateBucket {
  limit: number;
  windowMs: number;
}

export interface SimOptions {
  host: string;
  /** 0 = ephemeral. */
  port: number;
  /** Admin HTTP endpoint (fault control); undefined = disabled. 0 = ephemeral port. Always loopback. */
  adminPort?: number;
  /** HTTPS instead of plain HTTP when both are given (PEM). */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /**
   * Publish the HFT private streams to this NATS server (WebSocket URL; the sim connects as the
   * publisher `user`/`password`); `authority` lets it install issued socket credentials. Unset = no
   * NATS streams (the gateway then covers HFT orders by polling).
   */
  nats?: SimNatsOptions;
  seed: number;
  /** API keys (hex Ed25519 public keys) registered as funded accounts at start. */
  apiKeys: string[];
  /** "real": wall clock and timers; "manual": virtual time moved by `handle.advance(ms)`. */
  timeMode: "real" | "manual";
  auth: {
    /** Reject when |epoch - server time| exceeds this (ms). */
    maxDriftMs: number;
    /** [assumed] what to do between 5 s and maxDriftMs: accept (default) or reject. */
    softDriftMs: number;
    rejectSoftDrift: boolean;
    /** [assumed] Spot request without X-AUTH-EPOCH: 401 (default) — the legacy scheme is retired. */
    spotMissingEpochStatus: 401 | 400;
    /** [assumed] DISAGREEMENT in the docs: HFT drift check on (default, same as Spot) or off. */
    hftDriftCheck: boolean;
  };
  market: {
    /** Synthetic liquidity + aggressive flow. */
    synthetic: boolean;
    /** Interval of the synthetic process in ms; 0 = only when driven by `market.step()`. */
    tickMs: number;
    /** Synthetic price levels per side and their spacing in ticks. */
    levels: number;
    levelSpacingTicks: number;
    /** Half spread in ticks of the synthetic quotes around the mid. */
    halfSpreadTicks: number;
    /** Probability per step of one synthetic aggressive (market) order per symbol. */
    aggressorProbability: number;
    /** Max random-walk move of the mid per step, in ticks. */
    midStepTicks: number;
  };
  spot: {
    /** Delay between CANCELLATION_RAISED and CANCELLED. */
    cancelConfirmMs: number;
    /** Delay between EXPIRATION_RAISED and EXPIRED. */
    expiryConfirmMs: number;
    defaultExpirySec: number;
    maxExpirySec: number;
    fees: { maker: number; taker: number };
    /** [assumed] HTTP status for validation failures (400 or 422). */
    validationStatus: 400 | 422;
    /** Starting balances of every new account. */
    balances: Record<string, number>;
    tdsRate: number;
  };
  hft: {
    /** [assumed] positionIdx required? Default optional, 0. */
    requirePositionIdx: boolean;
    /**
     * The key is on the options allowlist (§3.3). false: every private call with `category: "option"`
     * is refused with retCode 10005 [assumed code]; option market data stays public [assumed].
     */
    optionsAllowlisted: boolean;
    /**
     * The keys may use HFT. false: every signed `/v5` and `/dma` call is refused with retCode 10005
     * "permission denied: HFT is not enabled for this API key" [assumed code] (public market data
     * stays open), as a key without an HFT account would be.
     */
    entitled: boolean;
    /** [assumed, Bybit-style] POST /v5/order/cancel exists; false → 404. */
    cancelEnabled: boolean;
    /** How long closed orders stay visible in /v5/order/realtime [assumed 6 h]. */
    closedVisibleMs: number;
    pageSize: number;
    fees: { maker: number; taker: number };
    startingMargin: number;
    defaultLeverage: number;
  };
  futures: {
    /** Delay between CANCELLATION_RAISED and CANCELLED / PARTIALLY_EXECUTED [assumed]. */
    cancelConfirmMs: number;
    fees: { maker: number; taker: number };
  };
  /** Per-bucket limits per API key; `enabled: false` switches all off. */
  rateLimits: { enabled: boolean; buckets: Record<string, RateBucket> };
  faults: { rules: FaultRule[]; streams: StreamFaults; clockSkewMs: number };
}

export type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends object ? (T[K] extends unknown[] ? T[K] : DeepPartial<T[K]>) : T[K];
};

export function defaultOptions(): SimOptions {
  return {
    host: "127.0.0.1",
    port: 0,
    seed: 1,
    apiKeys: [],
    timeMode: "real",
    auth: {
      maxDriftMs: 60_000,
      softDriftMs: 5_000,
      rejectSoftDrift: false,
      spotMissingEpochStatus: 401,
      hftDriftCheck: true,
    },
    market: {
      synthetic: true,
      tickMs: 250,
      levels: 10,
      levelSpacingTicks: 5,
      halfSpreadTicks: 5,
      aggressorProbability: 0.5,
      midStepTicks: 3,
    },
    spot: {
      cancelConfirmMs: 50,
      expiryConfirmMs: 50,
      defaultExpirySec: 90,
      maxExpirySec: 30 * 24 * 3600,
      fees: { maker: 0.001, taker: 0.001 },
      validationStatus: 400,
      balances: { INR: 10_000_000, USDT: 100_000, BTC: 1, ETH: 10 },
      tdsRate: 0.01,
    },
    hft: {
      requirePositionIdx: false,
      optionsAllowlisted: true,
      entitled: true,
      cancelEnabled: true,
      closedVisibleMs: 6 * 3600_000,
      pageSize: 50,
      fees: { maker: 0.0002, taker: 0.0005 },
      startingMargin: 100_000,
      defaultLeverage: 10,
    },
    futures: {
      cancelConfirmMs: 50,
      fees: { maker: 0.0002, taker: 0.0005 },
    },
    rateLimits: {
      enabled: true,
      buckets: {
        spotOrder: { limit: 100, windowMs: 10_000 },
        spotOrders: { limit: 10_000, windowMs: 10_000 },
        spotPortfolio: { limit: 5_000, windowMs: 10_000 },
        spotTds: { limit: 25, windowMs: 10_000 },
        spotOther: { limit: 10_000, windowMs: 10_000 },
        hft: { limit: 100_000, windowMs: 10_000 },
        // Futures v2 (§9): per endpoint, per 60 s.
        futuresPlace: { limit: 20, windowMs: 60_000 },
        futuresCancel: { limit: 10, windowMs: 60_000 },
        futuresStatus: { limit: 20, windowMs: 60_000 },
        futuresOpenOrders: { limit: 20, windowMs: 60_000 },
        futuresMarket: { limit: 100, windowMs: 60_000 },
      },
    },
    faults: {
      rules: [],
      streams: { dropProbability: 0, duplicateProbability: 0, reorderProbability: 0 },
      clockSkewMs: 0,
    },
  };
}

/** Deep-merges user options over the defaults (arrays and leaf values replace). */
export function resolveOptions(partial: DeepPartial<SimOptions> | undefined): SimOptions {
  return merge(defaultOptions(), partial ?? {}) as SimOptions;
}

function merge(base: unknown, over: unknown): unknown {
  if (over === undefined) return base;
  if (
    base === null ||
    typeof base !== "object" ||
    Array.isArray(base) ||
    over === null ||
    typeof over !== "object" ||
    Array.isArray(over) ||
    Buffer.isBuffer(over)
  ) {
    return over;
  }
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(over as Record<string, unknown>)) out[k] = merge(out[k], v);
  return out;
}
