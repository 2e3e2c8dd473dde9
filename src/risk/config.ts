/**
 * Risk limits as one plain object. Every field has a documented default (docs/reliability.md);
 * a caller passes only what it changes. Quantities and values are decimal strings in the
 * instrument's own units; they are turned into integer lots/ticks once, when an instrument is added.
 */
import type { Config } from "../config/load.js";
import type { TradingState } from "./tradingState.js";

export interface InstrumentLimits {
  /** Largest single order (base qty); the instrument's own maxQty always applies too. */
  readonly maxOrderQty?: string;
  /** Largest single order value in quote currency; overrides `maxOrderNotionalByQuote`. */
  readonly maxOrderNotional?: string;
  /** Account-wide position limit (base qty, absolute), open orders counted as if filled. */
  readonly maxPosition?: string;
  /** Per-session position limit on this instrument (base qty, absolute). */
  readonly maxSessionPosition?: string;
  readonly maxOpenOrders?: number;
  readonly priceBandBps?: number;
}

export type NoReferencePolicy = "refuse" | "allow";

export interface TriggerSpec {
  /** This many events inside `windowMs` fire the trigger; count 0 disables it. */
  readonly count: number;
  readonly windowMs: number;
  readonly action: Exclude<TradingState, "active">;
}

export interface RiskConfig {
  /** Open orders per session across all instruments. */
  readonly maxOpenOrdersPerSession: number;
  /** Open orders per instrument across all sessions (account-wide). */
  readonly maxOpenOrdersPerInstrument: number;
  /** Max order value by quote currency; a quote not listed has no value limit. */
  readonly maxOrderNotionalByQuote: Readonly<Record<string, string>>;
  /** Limit prices further than this from the reference (last trade or mid) are refused; 0 = off. */
  readonly priceBandBps: number;
  /**
   * What happens to an order when the instrument has no (fresh) reference price, by order type. A market
   * order is refused by default: with no price, neither the band nor the value cap can be checked. A
   * limit order is allowed by default (its own price bounds its value) and counted in `stats`.
   */
  readonly noReference: { readonly market: NoReferencePolicy; readonly limit: NoReferencePolicy };
  /** A reference price older than this counts as none (0 = never too old). */
  readonly referenceMaxAgeMs: number;
  /** Identical orders (session, instrument, side, price, qty) within this window are refused; 0 = off. */
  readonly duplicateWindowMs: number;
  /** Per-symbol overrides (exchange spelling: "BTC/INR", "BTCUSDT"). */
  readonly instruments: Readonly<Record<string, InstrumentLimits>>;
  readonly triggers: {
    readonly venueRejects: TriggerSpec;
    readonly unknownOutcomes: TriggerSpec;
    /**
     * A surface with neither a trusted order stream nor a working poll for longer than `afterMs` moves
     * the state to `action`; 0 = off.
     */
    readonly streamLoss: { readonly afterMs: number; readonly action: Exclude<TradingState, "active"> };
    /**
     * A state set by `unknownOutcomes` or `streamLoss` returns by itself (to what it was before) once no
     * order outcome is open, every surface is covered and the venue has answered normally for this
     * long; 0 = off (an admin ends it). `venueRejects` always waits for an admin.
     */
    readonly healAfterMs: number;
  };
}

export const DEFAULT_RISK_CONFIG: RiskConfig = {
  maxOpenOrdersPerSession: 500,
  maxOpenOrdersPerInstrument: 200,
  maxOrderNotionalByQuote: { INR: "1000000", USDT: "10000" },
  priceBandBps: 1000,
  noReference: { market: "refuse", limit: "allow" },
  referenceMaxAgeMs: 300_000,
  duplicateWindowMs: 0,
  instruments: {},
  triggers: {
    venueRejects: { count: 20, windowMs: 10_000, action: "halted" },
    unknownOutcomes: { count: 5, windowMs: 60_000, action: "reducing" },
    streamLoss: { afterMs: 30_000, action: "reducing" },
    healAfterMs: 10_000,
  },
};

/** Shallow-merges a partial config over the defaults (triggers merged one level deeper). */
export function riskConfig(partial: Partial<RiskConfig> = {}): RiskConfig {
  return {
    ...DEFAULT_RISK_CONFIG,
    ...partial,
    noReference: { ...DEFAULT_RISK_CONFIG.noReference, ...partial.noReference },
    triggers: { ...DEFAULT_RISK_CONFIG.triggers, ...partial.triggers },
  };
}

/**
 * The config's `risk.*` knobs as a RiskConfig: knobs named as a RiskConfig field pass through as they
 * are (the type below refuses one that is neither a field nor mapped here); the reference-price knobs
 * belong to the reference prices, not the gate.
 */
export function riskFromKnobs(k: Config["risk"]): Partial<RiskConfig> {
  const {
    maxOrderNotionalInr,
    maxOrderNotionalUsdt,
    noReferenceMarket,
    noReferenceLimit,
    spotReferenceStream: _stream,
    hftReferencePollMs: _poll,
    triggers,
    ...same
  } = k;
  const passed: Pick<RiskConfig, keyof typeof same> = same;
  return {
    ...passed,
    maxOrderNotionalByQuote: { INR: maxOrderNotionalInr, USDT: maxOrderNotionalUsdt },
    noReference: { market: noReferenceMarket, limit: noReferenceLimit },
    triggers: { ...DEFAULT_RISK_CONFIG.triggers, healAfterMs: triggers.healAfterMs },
  };
}
