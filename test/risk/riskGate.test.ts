import { describe, expect, it } from "vitest";
import type { Instrument } from "../../src/domain/types.js";
import { RISK_REJECTS, riskRejectText } from "../../src/risk/codes.js";
import { DEFAULT_RISK_CONFIG, type RiskConfig } from "../../src/risk/config.js";
import { type OrderIntent, RiskConfigError, RiskGate } from "../../src/risk/riskGate.js";
import { RateTrigger, type TradingStateChange } from "../../src/risk/tradingState.js";

const BTC: Instrument = {
  id: 1,
  surface: "spot",
  symbol: "BTC/INR",
  venue: "coinswitchx",
  base: "BTC",
  quote: "INR",
  tickSize: "1",
  qtyStep: "0.0001",
  minQty: "0.0002",
  maxQty: "1",
  minNotional: "100",
  active: true,
};
const DEAD: Instrument = { ...BTC, id: 2, symbol: "DEAD/INR", active: false };

function mk(cfg: Partial<RiskConfig> = {}) {
  const clock = {
    t: 1_000_000,
    now() {
      return this.t;
    },
  };
  const changes: TradingStateChange[] = [];
  const gate = new RiskGate(cfg, clock);
  gate.addListener({ onTradingState: (c) => changes.push(c) });
  gate.addInstrument(BTC);
  gate.addInstrument(DEAD);
  return { gate, clock, changes };
}

/** 5,000,000 INR per BTC = 5,000,000 ticks; 10 lots = 0.001 BTC = 5,000 INR. */
function order(over: Partial<OrderIntent> = {}): OrderIntent {
  return {
    sessionId: "s1",
    instrumentId: 1,
    side: "buy",
    type: "limit",
    priceTicks: 5_000_000,
    qtyLots: 10,
    ...over,
  };
}

describe("pre-trade checks", () => {
  it("passes a good order and every code has a text", () => {
    const { gate } = mk();
    expect(gate.check(order())).toBeNull();
    for (const code of Object.keys(RISK_REJECTS) as (keyof typeof RISK_REJECTS)[]) {
      expect(riskRejectText(code).length).toBeGreaterThan(5);
    }
  });

  it("instrument known and active", () => {
    const { gate } = mk();
    expect(gate.check(order({ instrumentId: 99 }))).toBe("UNKNOWN_INSTRUMENT");
    expect(gate.check(order({ instrumentId: 2 }))).toBe("INSTRUMENT_INACTIVE");
  });

  it("price and qty must be positive integer ticks and lots", () => {
    const { gate } = mk();
    expect(gate.check(order({ priceTicks: 0 }))).toBe("BAD_PRICE");
    expect(gate.check(order({ priceTicks: 1.5 }))).toBe("BAD_PRICE");
    expect(gate.check(order({ priceTicks: -3 }))).toBe("BAD_PRICE");
    expect(gate.check(order({ priceTicks: Number.NaN }))).toBe("BAD_PRICE");
    expect(gate.check(order({ type: "market", priceTicks: 7 }))).toBe("BAD_PRICE");
    expect(gate.check(order({ qtyLots: 0 }))).toBe("BAD_QTY");
    expect(gate.check(order({ qtyLots: 2.5 }))).toBe("BAD_QTY");
    expect(gate.check(order({ qtyLots: 2 ** 60 }))).toBe("BAD_QTY");
  });

  it("min and max quantity, configured max order qty", () => {
    const { gate } = mk();
    expect(gate.check(order({ qtyLots: 1 }))).toBe("QTY_BELOW_MIN");
    expect(gate.check(order({ qtyLots: 2, priceTicks: 5_000_000 }))).toBeNull();
    expect(gate.check(order({ qtyLots: 10_001, priceTicks: 50 }))).toBe("QTY_ABOVE_MAX");
    const { gate: g2 } = mk({ instruments: { "BTC/INR": { maxOrderQty: "0.0005" } } });
    expect(g2.check(order({ qtyLots: 5 }))).toBeNull();
    expect(g2.check(order({ qtyLots: 6 }))).toBe("QTY_ABOVE_MAX");
  });

  it("min and max notional (market orders valued at the reference)", () => {
    const { gate } = mk({ priceBandBps: 0 });
    // 2 lots at 1,000 INR = 0.2 INR < 100 INR minimum
    expect(gate.check(order({ qtyLots: 2, priceTicks: 1000 }))).toBe("NOTIONAL_BELOW_MIN");
    // 1,000,000 INR default maximum: 0.3 BTC at 5,000,000 = 1,500,000
    expect(gate.check(order({ qtyLots: 3000 }))).toBe("NOTIONAL_ABOVE_MAX");
    expect(gate.check(order({ qtyLots: 2000 }))).toBeNull();
    // No reference price: the default refuses a market order (its value cannot be known).
    expect(gate.check(order({ type: "market", priceTicks: 0, qtyLots: 3000 }))).toBe("NO_REFERENCE_PRICE");
    gate.setReferencePrice(1, 5_000_000);
    expect(gate.check(order({ type: "market", priceTicks: 0, qtyLots: 3000 }))).toBe("NOTIONAL_ABOVE_MAX");
    const { gate: g2 } = mk({ instruments: { "BTC/INR": { maxOrderNotional: "5000" } } });
    expect(g2.check(order({ qtyLots: 10 }))).toBeNull();
    expect(g2.check(order({ qtyLots: 11 }))).toBe("NOTIONAL_ABOVE_MAX");
  });

  it("price band around the reference, skipped without one", () => {
    const { gate } = mk({ priceBandBps: 100 });
    expect(gate.check(order({ priceTicks: 9_000_000 }))).toBeNull();
    gate.setReferencePrice(1, 5_000_000);
    expect(gate.check(order({ priceTicks: 5_050_000 }))).toBeNull(); // exactly 1 %
    expect(gate.check(order({ priceTicks: 5_050_001 }))).toBe("PRICE_BAND");
    expect(gate.check(order({ side: "sell", priceTicks: 4_949_999 }))).toBe("PRICE_BAND");
    gate.setReferencePrice(1, 0);
    expect(gate.check(order({ priceTicks: 4_000_000 }))).toBeNull();
  });

  it("no reference price: market refused and limit allowed (counted) by default; both knobs either way", () => {
    const { gate } = mk();
    const market = order({ type: "market", priceTicks: 0 });
    expect(gate.check(market)).toBe("NO_REFERENCE_PRICE");
    expect(gate.check(order())).toBeNull();
    expect(gate.stats).toEqual({ unreferencedLimit: 1, unreferencedMarket: 0 });
    const { gate: flipped } = mk({ noReference: { market: "allow", limit: "refuse" } });
    expect(flipped.check(market)).toBeNull();
    expect(flipped.check(order())).toBe("NO_REFERENCE_PRICE");
    expect(flipped.stats).toEqual({ unreferencedLimit: 0, unreferencedMarket: 1 });
    // With a reference nothing is counted.
    flipped.setReferencePrice(1, 5_000_000);
    expect(flipped.check(order())).toBeNull();
    expect(flipped.check(market)).toBeNull();
    expect(flipped.stats).toEqual({ unreferencedLimit: 0, unreferencedMarket: 1 });
  });

  it("a reference price older than referenceMaxAgeMs counts as none", () => {
    const { gate, clock } = mk({ referenceMaxAgeMs: 1000 });
    gate.setReferencePrice(1, 5_000_000);
    expect(gate.check(order({ priceTicks: 2_500_000 }))).toBe("PRICE_BAND");
    expect(gate.referencePrice(1)).toBe(5_000_000);
    clock.t += 1001;
    expect(gate.referencePrice(1)).toBe(0);
    expect(gate.check(order({ priceTicks: 2_500_000 }))).toBeNull(); // limit: allowed without one
    expect(gate.check(order({ type: "market", priceTicks: 0 }))).toBe("NO_REFERENCE_PRICE");
    gate.setReferencePrice(1, 5_000_000);
    expect(gate.check(order({ priceTicks: 2_500_000 }))).toBe("PRICE_BAND");
  });

  it("max open orders per instrument and per session; released on close", () => {
    const { gate } = mk({ maxOpenOrdersPerInstrument: 3, maxOpenOrdersPerSession: 2 });
    gate.onOpen("a", order());
    gate.onOpen("b", order());
    expect(gate.check(order())).toBe("OPEN_ORDERS_SESSION");
    expect(gate.check(order({ sessionId: "s2" }))).toBeNull();
    gate.onOpen("c", order({ sessionId: "s2" }));
    expect(gate.check(order({ sessionId: "s3" }))).toBe("OPEN_ORDERS_INSTRUMENT");
    gate.onClosed("a");
    gate.onClosed("a"); // twice changes nothing
    expect(gate.exposure(1)?.openOrders).toBe(2);
    expect(gate.check(order())).toBeNull();
  });

  it("position limits count open orders as filled, per instrument and per session", () => {
    const { gate } = mk({
      instruments: { "BTC/INR": { maxPosition: "0.005", maxSessionPosition: "0.003" } },
    });
    gate.onOpen("a", order({ qtyLots: 20 }));
    expect(gate.check(order({ qtyLots: 10 }))).toBeNull();
    expect(gate.check(order({ qtyLots: 11 }))).toBe("POSITION_SESSION");
    expect(gate.check(order({ sessionId: "s2", qtyLots: 30 }))).toBeNull();
    gate.onOpen("b", order({ sessionId: "s2", qtyLots: 30 }));
    expect(gate.check(order({ sessionId: "s3", qtyLots: 1 + 2 }))).toBe("POSITION_INSTRUMENT");
    // Fills move exposure from open to position; sells are checked on the other side.
    gate.onFill("a", 20);
    expect(gate.exposure(1)).toEqual({ position: 20, openBuy: 30, openSell: 0, openOrders: 2 });
    expect(gate.check(order({ side: "sell", qtyLots: 50 }))).toBeNull(); // 20 - 50 = -30 >= -30 (session)
    expect(gate.check(order({ side: "sell", qtyLots: 51 }))).toBe("POSITION_SESSION");
    gate.onClosed("a");
    gate.onClosed("b");
    expect(gate.exposure(1)).toEqual({ position: 20, openBuy: 0, openSell: 0, openOrders: 0 });
  });

  it("duplicate-order protection within the window, off by default", () => {
    const { gate: off } = mk();
    off.onOpen("a", order());
    expect(off.check(order())).toBeNull();
    const { gate, clock } = mk({ duplicateWindowMs: 200 });
    gate.onOpen("a", order());
    expect(gate.check(order())).toBe("DUPLICATE_ORDER");
    expect(gate.check(order({ qtyLots: 11 }))).toBeNull();
    expect(gate.check(order({ sessionId: "s2" }))).toBeNull();
    clock.t += 200;
    expect(gate.check(order())).toBeNull();
  });

  it("rejects bad configuration with a typed error", () => {
    const { gate } = mk();
    expect(() => gate.addInstrument({ ...BTC, id: 5, tickSize: "0" })).toThrow(RiskConfigError);
    expect(() =>
      new RiskGate({ instruments: { "BTC/INR": { maxPosition: "-1" } } }).addInstrument(BTC),
    ).toThrow(RiskConfigError);
  });
});

describe("trading state", () => {
  it("halted refuses new orders; reducing allows only position-reducing orders", () => {
    const { gate, changes } = mk();
    gate.setPosition(1, 50);
    gate.setState("reducing", "operator");
    expect(gate.check(order())).toBe("REDUCE_ONLY");
    expect(gate.check(order({ side: "sell", qtyLots: 50 }))).toBeNull();
    gate.onOpen("s", order({ side: "sell", qtyLots: 40 }));
    expect(gate.check(order({ side: "sell", qtyLots: 11 }))).toBe("REDUCE_ONLY");
    gate.setState("halted", "operator");
    expect(gate.check(order({ side: "sell", qtyLots: 10 }))).toBe("TRADING_HALTED");
    gate.setState("active", "operator");
    expect(gate.check(order())).toBeNull();
    expect(changes.map((c) => `${c.from}>${c.to}:${c.source}`)).toEqual([
      "active>reducing:command",
      "reducing>halted:command",
      "halted>active:command",
    ]);
    expect(gate.setState("active", "again")).toBe(false);
    expect(gate.setState("bogus" as "active", "x")).toBe(false);
  });

  it("kill switch halts and returns every open order", () => {
    const { gate, changes } = mk();
    gate.onOpen("a", order());
    gate.onOpen("b", order({ sessionId: "s2" }));
    gate.onOpen("c", order());
    gate.onClosed("c");
    expect(gate.openOrderIds("s2")).toEqual(["b"]);
    expect(gate.kill("panic").sort()).toEqual(["a", "b"]);
    expect(gate.state).toBe("halted");
    expect(changes.at(-1)).toMatchObject({ to: "halted", source: "kill", reason: "panic" });
  });

  it("a venue reject spike halts (default), only within the window", () => {
    const { gate, clock, changes } = mk();
    const t = DEFAULT_RISK_CONFIG.triggers.venueRejects;
    for (let i = 0; i < t.count - 1; i++) gate.recordVenueReject();
    expect(gate.state).toBe("active");
    clock.t += t.windowMs; // the earlier ones age out
    gate.recordVenueReject();
    expect(gate.state).toBe("active");
    for (let i = 0; i < t.count - 1; i++) gate.recordVenueReject();
    expect(gate.state).toBe("halted");
    expect(changes[0]).toMatchObject({ from: "active", to: "halted", source: "trigger" });
  });

  it("repeated unknown outcomes move to reducing; triggers never de-escalate", () => {
    const { gate } = mk({
      triggers: {
        ...DEFAULT_RISK_CONFIG.triggers,
        unknownOutcomes: { count: 3, windowMs: 1000, action: "reducing" },
      },
    });
    gate.setState("halted", "operator");
    for (let i = 0; i < 3; i++) gate.recordUnknownOutcome();
    expect(gate.state).toBe("halted");
    gate.setState("active", "operator");
    gate.recordUnknownOutcome();
    gate.recordUnknownOutcome();
    expect(gate.state).toBe("active"); // counts reset on return to active
    gate.recordUnknownOutcome();
    expect(gate.state).toBe("reducing");
  });

  it("order-stream loss beyond the limit escalates, seen by tick and by check", () => {
    const { gate, clock } = mk();
    gate.setCovered("spot", false);
    clock.t += 29_999;
    expect(gate.tick()).toBe("active");
    gate.setCovered("spot", true);
    gate.setCovered("spot", false);
    clock.t += 29_999;
    expect(gate.tick()).toBe("active");
    clock.t += 1;
    expect(gate.check(order())).toBe("REDUCE_ONLY");
    expect(gate.state).toBe("reducing");
  });

  it("RateTrigger counts within a sliding window", () => {
    const tr = new RateTrigger(3, 100);
    expect(tr.hit(0)).toBe(false);
    expect(tr.hit(50)).toBe(false);
    expect(tr.hit(100)).toBe(false); // 0 has left the window
    expect(tr.hit(120)).toBe(true);
    expect(new RateTrigger(0, 100).hit(0)).toBe(false);
  });
});
