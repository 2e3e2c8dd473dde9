/**
 * Pre-trade risk checks and the trading state. `check` is O(1): a few map lookups and integer
 * comparisons on ticks and lots (decimal limits are converted once, when an instrument is added).
 * The gate also keeps its own ledger of open orders (by client id) so that exposure, open-order
 * counts and the kill switch never depend on another module's bookkeeping.
 */
import type { Instrument, Side } from "../domain/types.js";
import { type Dec, decToNumber, mulDec, parseDec } from "../util/decimal.js";
import type { RiskRejectCode } from "./codes.js";
import { type InstrumentLimits, type RiskConfig, riskConfig } from "./config.js";
import {
  RateTrigger,
  type RiskListener,
  STATE_RANK,
  type StateSource,
  type TradingState,
  type TradingStateChange,
} from "./tradingState.js";
import { VenueHealth, type VenueProbe } from "./venueHealth.js";

export type SessionKey = string | number;

/** What the gateway asks to trade, in integer ticks and lots. Market orders carry priceTicks 0. */
export interface OrderIntent {
  readonly sessionId: SessionKey;
  readonly instrumentId: number;
  readonly side: Side;
  readonly type: "limit" | "market";
  readonly priceTicks: number;
  readonly qtyLots: number;
}

interface Exposure {
  /** Signed filled position in lots (buy +, sell -). */
  position: number;
  openBuy: number;
  openSell: number;
}

interface InstrumentState extends Exposure {
  readonly inst: Instrument;
  readonly minLots: number;
  readonly maxLots: number;
  /** Notional limits in tick*lot units (value / (tickSize * qtyStep)). */
  readonly minNotionalTL: number;
  readonly maxNotionalTL: number;
  readonly maxPosLots: number;
  readonly maxSessionPosLots: number;
  readonly maxOpenOrders: number;
  readonly bandBps: number;
  openOrders: number;
  /** Reference price in ticks (last trade or mid); 0 = none (the no-reference policy applies). */
  refTicks: number;
  /** When refTicks was set (risk clock, ms). */
  refAtMs: number;
}

interface SessionState {
  openOrders: number;
  readonly byInstrument: Map<number, Exposure>;
}

interface OpenOrder {
  readonly inst: InstrumentState;
  readonly session: SessionState;
  readonly exposure: Exposure;
  readonly sessionId: SessionKey;
  readonly side: Side;
  openLots: number;
}

export interface RiskClock {
  now(): number;
}

export class RiskConfigError extends Error {
  override name = "RiskConfigError";
}

const INF = Number.POSITIVE_INFINITY;

/** Limit in whole steps; "" / undefined = no limit. Rounds down so the limit is never exceeded. */
function lotsLimit(value: string | undefined, step: Dec, what: string): number {
  if (value === undefined) return INF;
  const v = decToNumber(parseDec(value)) / decToNumber(step);
  if (!(v >= 0)) throw new RiskConfigError(`${what} must be >= 0`);
  return Math.floor(v + 1e-9);
}

export class RiskGate {
  readonly config: RiskConfig;
  private readonly byId = new Map<number, InstrumentState>();
  private readonly sessions = new Map<SessionKey, SessionState>();
  private readonly open = new Map<string, OpenOrder>();
  /** True inside checkAmend: the duplicate-order window does not apply to an amend. */
  private amending = false;
  private readonly recent = new Map<string, number>();
  private readonly listeners: RiskListener[] = [];
  private readonly clock: RiskClock;
  private readonly rejectTrigger: RateTrigger;
  private readonly unknownTrigger: RateTrigger;
  private readonly venue = new VenueHealth();
  private tradingState: TradingState = "active";
  /** The state was set by a venue-health trigger (and nothing else since): it heals by itself. */
  private healable = false;
  /** The reason of the venue-health trigger that set the state (named when it heals). */
  private healableReason = "";
  /** The state a heal returns to: the one before the venue-health trigger (an admin's stays). */
  private healTo: TradingState = "active";
  /** Orders that passed with no (fresh) reference price, by type (the `allow` policy). */
  readonly stats = { unreferencedLimit: 0, unreferencedMarket: 0 };

  constructor(config: Partial<RiskConfig> = {}, clock: RiskClock = { now: () => Date.now() }) {
    this.config = riskConfig(config);
    this.clock = clock;
    const t = this.config.triggers;
    this.rejectTrigger = new RateTrigger(t.venueRejects.count, t.venueRejects.windowMs);
    this.unknownTrigger = new RateTrigger(t.unknownOutcomes.count, t.unknownOutcomes.windowMs);
  }

  // ---- instrument table ----------------------------------------------------------------------

  /** Adds or replaces an instrument; limits are converted to lots/ticks here, once. */
  addInstrument(inst: Instrument): void {
    const cfg = this.config;
    const lim: InstrumentLimits = cfg.instruments[inst.symbol] ?? {};
    const tick = parseDec(inst.tickSize);
    const step = parseDec(inst.qtyStep);
    if (tick.m <= 0n || step.m <= 0n) throw new RiskConfigError(`${inst.symbol}: tick and step must be > 0`);
    const tl = decToNumber(mulDec(tick, step));
    const minLots = Math.max(1, Math.ceil(decToNumber(parseDec(inst.minQty)) / decToNumber(step) - 1e-9));
    // An instrument maxQty of "0" means the venue publishes none.
    const instMax = parseDec(inst.maxQty).m === 0n ? INF : lotsLimit(inst.maxQty, step, "maxQty");
    const maxLots = Math.min(instMax, lotsLimit(lim.maxOrderQty, step, "maxOrderQty"));
    const notional = lim.maxOrderNotional ?? cfg.maxOrderNotionalByQuote[inst.quote];
    const prev = this.byId.get(inst.id);
    this.byId.set(inst.id, {
      inst,
      minLots,
      maxLots,
      minNotionalTL: decToNumber(parseDec(inst.minNotional)) / tl,
      maxNotionalTL: notional === undefined ? INF : decToNumber(parseDec(notional)) / tl,
      maxPosLots: lotsLimit(lim.maxPosition, step, "maxPosition"),
      maxSessionPosLots: lotsLimit(lim.maxSessionPosition, step, "maxSessionPosition"),
      maxOpenOrders: lim.maxOpenOrders ?? cfg.maxOpenOrdersPerInstrument,
      bandBps: lim.priceBandBps ?? cfg.priceBandBps,
      position: prev?.position ?? 0,
      openBuy: prev?.openBuy ?? 0,
      openSell: prev?.openSell ?? 0,
      openOrders: prev?.openOrders ?? 0,
      refTicks: prev?.refTicks ?? 0,
      refAtMs: prev?.refAtMs ?? 0,
    });
  }

  /** Last trade or mid, in ticks (fed by src/engine/referencePrices.ts); 0 clears it. */
  setReferencePrice(instrumentId: number, ticks: number): void {
    const st = this.byId.get(instrumentId);
    if (st !== undefined && Number.isFinite(ticks) && ticks >= 0) {
      st.refTicks = ticks;
      st.refAtMs = this.clock.now();
    }
  }

  /** The reference price in ticks the checks would use now; 0 = none or too old. */
  referencePrice(instrumentId: number): number {
    const st = this.byId.get(instrumentId);
    return st === undefined ? 0 : this.freshRef(st);
  }

  private freshRef(st: InstrumentState): number {
    const ref = st.refTicks;
    if (ref <= 0) return 0;
    const maxAge = this.config.referenceMaxAgeMs;
    return maxAge > 0 && this.clock.now() - st.refAtMs > maxAge ? 0 : ref;
  }

  // ---- the check -------------------------------------------------------------------------------

  /** null = pass. Reads only; call `onOpen` once the order is actually accepted. */
  check(o: OrderIntent): RiskRejectCode | null {
    const st = this.byId.get(o.instrumentId);
    if (st === undefined) return "UNKNOWN_INSTRUMENT";
    if (!st.inst.active) return "INSTRUMENT_INACTIVE";
    const qty = o.qtyLots;
    if (!Number.isSafeInteger(qty) || qty <= 0) return "BAD_QTY";
    const isLimit = o.type === "limit";
    const price = o.priceTicks;
    if (isLimit ? !Number.isSafeInteger(price) || price <= 0 : price !== 0) return "BAD_PRICE";
    if (this.tradingState !== "active") {
      if (this.venue.uncovered > 0) this.tick();
      if (this.tradingState === "halted") return "TRADING_HALTED";
      if (this.tradingState === "reducing" && !reduces(st, o.side, qty)) return "REDUCE_ONLY";
    } else if (this.venue.uncovered > 0 && this.tick() !== "active") {
      return this.check(o);
    }
    if (qty < st.minLots) return "QTY_BELOW_MIN";
    if (qty > st.maxLots) return "QTY_ABOVE_MAX";
    const ref = this.freshRef(st);
    if (ref === 0 && this.config.noReference[o.type] === "refuse") return "NO_REFERENCE_PRICE";
    // A market order is valued at the reference price (unknown only under the `allow` policy).
    const valuePrice = isLimit ? price : ref;
    if (valuePrice > 0) {
      const tl = valuePrice * qty;
      if (tl < st.minNotionalTL - 1e-9) return "NOTIONAL_BELOW_MIN";
      if (tl > st.maxNotionalTL + 1e-9) return "NOTIONAL_ABOVE_MAX";
    }
    if (isLimit && ref > 0 && st.bandBps > 0) {
      const diff = price > ref ? price - ref : ref - price;
      if (diff * 10_000 > st.bandBps * ref) return "PRICE_BAND";
    }
    if (st.openOrders >= st.maxOpenOrders) return "OPEN_ORDERS_INSTRUMENT";
    const sess = this.sessions.get(o.sessionId);
    if (sess !== undefined && sess.openOrders >= this.config.maxOpenOrdersPerSession) {
      return "OPEN_ORDERS_SESSION";
    }
    if (breaches(st, o.side, qty, st.maxPosLots)) return "POSITION_INSTRUMENT";
    if (st.maxSessionPosLots !== INF) {
      const ex = sess?.byInstrument.get(o.instrumentId);
      if (breaches(ex ?? ZERO_EXPOSURE, o.side, qty, st.maxSessionPosLots)) return "POSITION_SESSION";
    }
    const dupMs = this.config.duplicateWindowMs;
    if (dupMs > 0 && !this.amending) {
      const seen = this.recent.get(dupKey(o));
      if (seen !== undefined && this.clock.now() - seen < dupMs) return "DUPLICATE_ORDER";
    }
    if (ref === 0) {
      if (isLimit) this.stats.unreferencedLimit++;
      else this.stats.unreferencedMarket++;
    }
    return null;
  }

  /**
   * An amend of an open order: the amended order (new price, new total quantity) passes the same
   * checks as a new one, with the order's own open exposure taken out first (it is replaced, not
   * added); the duplicate-order window does not apply. Reads only (the ledger is as before on return).
   */
  checkAmend(clientId: string, o: OrderIntent): RiskRejectCode | null {
    const oo = this.open.get(clientId);
    if (oo !== undefined) this.onClosed(clientId);
    this.amending = true;
    try {
      return this.check(o);
    } finally {
      this.amending = false;
      if (oo !== undefined) this.reopen(clientId, oo);
    }
  }

  /** An accepted amend: the order's open exposure is now `leavesLots` (its new leaves). */
  onAmended(clientId: string, leavesLots: number): void {
    const oo = this.open.get(clientId);
    if (oo === undefined) return;
    this.onClosed(clientId);
    oo.openLots = leavesLots;
    this.reopen(clientId, oo);
  }

  private reopen(clientId: string, oo: OpenOrder): void {
    this.open.set(clientId, oo);
    if (oo.side === "buy") {
      oo.inst.openBuy += oo.openLots;
      oo.exposure.openBuy += oo.openLots;
    } else {
      oo.inst.openSell += oo.openLots;
      oo.exposure.openSell += oo.openLots;
    }
    oo.inst.openOrders++;
    oo.session.openOrders++;
  }

  // ---- the open-order ledger -------------------------------------------------------------------

  /** The order passed `check` and is now live (or in flight): count its full exposure. */
  onOpen(clientId: string, o: OrderIntent): void {
    const st = this.byId.get(o.instrumentId);
    if (st === undefined || this.open.has(clientId)) return;
    let sess = this.sessions.get(o.sessionId);
    if (sess === undefined) {
      sess = { openOrders: 0, byInstrument: new Map() };
      this.sessions.set(o.sessionId, sess);
    }
    let ex = sess.byInstrument.get(o.instrumentId);
    if (ex === undefined) {
      ex = { position: 0, openBuy: 0, openSell: 0 };
      sess.byInstrument.set(o.instrumentId, ex);
    }
    const lots = o.qtyLots;
    if (o.side === "buy") {
      st.openBuy += lots;
      ex.openBuy += lots;
    } else {
      st.openSell += lots;
      ex.openSell += lots;
    }
    st.openOrders++;
    sess.openOrders++;
    this.open.set(clientId, {
      inst: st,
      session: sess,
      exposure: ex,
      sessionId: o.sessionId,
      side: o.side,
      openLots: lots,
    });
    const dupMs = this.config.duplicateWindowMs;
    if (dupMs > 0) {
      const now = this.clock.now();
      if (this.recent.size > 10_000) this.pruneRecent(now);
      this.recent.set(dupKey(o), now);
    }
  }

  /** A fill of `lots` on an open order moves exposure from open to position. */
  onFill(clientId: string, lots: number): void {
    const oo = this.open.get(clientId);
    if (oo === undefined || !(lots > 0)) return;
    const n = Math.min(lots, oo.openLots);
    oo.openLots -= n;
    const signed = oo.side === "buy" ? lots : -lots;
    if (oo.side === "buy") {
      oo.inst.openBuy -= n;
      oo.exposure.openBuy -= n;
    } else {
      oo.inst.openSell -= n;
      oo.exposure.openSell -= n;
    }
    oo.inst.position += signed;
    oo.exposure.position += signed;
  }

  /** The order reached a terminal state (filled, cancelled, rejected, expired): release what is left. */
  onClosed(clientId: string): void {
    const oo = this.open.get(clientId);
    if (oo === undefined) return;
    this.open.delete(clientId);
    if (oo.side === "buy") {
      oo.inst.openBuy -= oo.openLots;
      oo.exposure.openBuy -= oo.openLots;
    } else {
      oo.inst.openSell -= oo.openLots;
      oo.exposure.openSell -= oo.openLots;
    }
    oo.inst.openOrders--;
    oo.session.openOrders--;
  }

  /** Sets the account position on an instrument (start-up or reconciliation), in signed lots. */
  setPosition(instrumentId: number, lots: number): void {
    const st = this.byId.get(instrumentId);
    if (st !== undefined && Number.isSafeInteger(lots)) st.position = lots;
  }

  openOrderIds(sessionId?: SessionKey): string[] {
    const out: string[] = [];
    for (const [id, oo] of this.open) if (sessionId === undefined || oo.sessionId === sessionId) out.push(id);
    return out;
  }

  exposure(instrumentId: number): Readonly<Exposure & { openOrders: number }> | undefined {
    const st = this.byId.get(instrumentId);
    return (
      st && { position: st.position, openBuy: st.openBuy, openSell: st.openSell, openOrders: st.openOrders }
    );
  }

  // ---- trading state ---------------------------------------------------------------------------

  get state(): TradingState {
    return this.tradingState;
  }

  addListener(l: RiskListener): void {
    this.listeners.push(l);
  }

  /**
   * Privileged command: any state to any state. The caller has checked the admin credential. A state
   * set here (by a command, the kill switch or the engine) never heals by itself.
   */
  setState(
    next: TradingState,
    reason: string,
    source: StateSource = "command",
    /** A venue-health state: returns to `to` by itself (a trigger, or one restored from the journal). */
    heals?: { to: TradingState; reason: string },
  ): boolean {
    if (next !== "active" && next !== "reducing" && next !== "halted") return false;
    if (next === this.tradingState) return false;
    this.healable = heals !== undefined;
    if (heals !== undefined) {
      this.healTo = heals.to;
      this.healableReason = heals.reason;
      // The quiet period a heal waits for starts now (after a restart: from the restore).
      this.venue.noteTrouble(this.clock.now());
    }
    const change: TradingStateChange = {
      from: this.tradingState,
      to: next,
      source,
      reason,
      at: this.clock.now(),
      ...(heals === undefined ? {} : { healsTo: heals.to }),
    };
    this.tradingState = next;
    if (next === "active") {
      this.rejectTrigger.reset();
      this.unknownTrigger.reset();
    }
    for (const l of this.listeners) l.onTradingState(change);
    return true;
  }

  /** Kill switch: halts and returns every open order's client id; the engine cancels them. */
  kill(reason: string): string[] {
    this.setState("halted", reason, "kill");
    return this.openOrderIds();
  }

  /** The venue rejected an order (a definite reject, not an unknown outcome): a manual trigger. */
  recordVenueReject(): void {
    const t = this.config.triggers.venueRejects;
    if (this.rejectTrigger.hit(this.clock.now())) {
      this.escalate(t.action, `${t.count} venue rejects within ${t.windowMs} ms`, false);
    }
  }

  /** A request's outcome is unknown (timeout, reset, 5xx): a venue-health trigger. */
  recordUnknownOutcome(): void {
    const t = this.config.triggers.unknownOutcomes;
    const now = this.clock.now();
    this.venue.noteTrouble(now);
    if (this.unknownTrigger.hit(now)) {
      this.escalate(t.action, `${t.count} unknown outcomes within ${t.windowMs} ms`, true);
    }
  }

  /**
   * A surface has a trusted order stream or a working poll (`covered`), or neither. The `streamLoss`
   * trigger counts only the time a surface has neither.
   */
  setCovered(surface: string, covered: boolean): void {
    this.venue.setCovered(surface, covered, this.clock.now());
  }

  /** Surfaces with neither a trusted stream nor a working poll now. */
  get uncovered(): number {
    return this.venue.uncovered;
  }

  /** What the heal rule reads about the venue (open outcomes, last answers); without it nothing heals. */
  watchVenue(probe: VenueProbe): void {
    this.venue.probe = probe;
  }

  /**
   * Evaluates the time-based rules; call about once a second (check() also does while a surface is
   * uncovered): `streamLoss`, then the heal of a state a venue-health trigger set.
   */
  tick(): TradingState {
    const now = this.clock.now();
    const sl = this.config.triggers.streamLoss;
    const gap = sl.afterMs > 0 ? this.venue.longestUncovered(now) : undefined;
    if (gap !== undefined && gap.ms >= sl.afterMs) {
      this.escalate(
        sl.action,
        `${gap.surface}: neither a trusted order stream nor a working poll for ${Math.round(gap.ms)} ms`,
        true,
      );
    }
    if (this.healable && this.tradingState !== this.healTo) {
      const why = this.venue.healReason(now, this.config.triggers.healAfterMs);
      if (why !== undefined) this.setState(this.healTo, `healed (${this.healableReason}): ${why}`, "heal");
    }
    return this.tradingState;
  }

  /** `heals`: a venue-health trigger (its state ends by itself); a manual one pins the state. */
  private escalate(to: TradingState, reason: string, heals: boolean): void {
    if (STATE_RANK[to] > STATE_RANK[this.tradingState]) {
      const back = this.healable ? this.healTo : this.tradingState;
      this.setState(to, reason, "trigger", heals ? { to: back, reason } : undefined);
    } else if (!heals && this.tradingState !== "active") {
      // A manual trigger fired while a venue-health one holds the state: a human decides now.
      this.healable = false;
    }
  }

  private pruneRecent(now: number): void {
    const w = this.config.duplicateWindowMs;
    for (const [k, t] of this.recent) if (now - t >= w) this.recent.delete(k);
  }
}

const ZERO_EXPOSURE: Exposure = { position: 0, openBuy: 0, openSell: 0 };

/** Would this order, plus every open order on the same side filling, exceed `max` lots? */
function breaches(ex: Exposure, side: Side, qty: number, max: number): boolean {
  if (max === INF) return false;
  return side === "buy" ? ex.position + ex.openBuy + qty > max : ex.position - ex.openSell - qty < -max;
}

/** Reduces the account position even if every open order on that side fills. */
function reduces(ex: Exposure, side: Side, qty: number): boolean {
  return side === "buy"
    ? ex.position < 0 && ex.openBuy + qty <= -ex.position
    : ex.position > 0 && ex.openSell + qty <= ex.position;
}

function dupKey(o: OrderIntent): string {
  return `${o.sessionId}|${o.instrumentId}|${o.side}|${o.priceTicks}|${o.qtyLots}`;
}
