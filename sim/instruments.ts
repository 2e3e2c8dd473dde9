/**
 * The simulator's instrument catalogue. Tick sizes, steps and bounds are chosen to look like the
 * real venue's [assumed]; docs/simulator.md lists them. Prices are integer ticks and quantities
 * integer lots inside the exchange, so matching is exact; decimals appear only on the wire.
 */
import { decimalsOf, parseDec } from "../src/util/decimal.js";

export type SimSurface = "spot" | "hft" | "futures";

export interface SimInstrument {
  readonly surface: SimSurface;
  /** Spot exchange id, HFT category (`linear`, `option`) or `EXCHANGE_2` (Futures). */
  readonly venue: string;
  /** Wire symbol: `BTC/INR` (Spot) or `BTCUSDT` (HFT, Futures). */
  readonly symbol: string;
  readonly base: string;
  readonly quote: string;
  readonly tickSize: string;
  readonly qtyStep: string;
  readonly tick: number;
  readonly step: number;
  readonly priceDecimals: number;
  readonly qtyDecimals: number;
  readonly minQty: string;
  readonly maxQty: string;
  readonly minLots: number;
  readonly maxLots: number;
  /** Quote-currency notional bounds (Spot tradeInfo `quote.min/max`, HFT minNotionalValue). */
  readonly minNotional: number;
  readonly maxNotional: number;
  /** Starting mid price of the synthetic market. */
  readonly startMid: number;
  readonly maxLeverage: number;
}

interface Row {
  surface: SimSurface;
  venue: string;
  symbol: string;
  base: string;
  quote: string;
  tickSize: string;
  qtyStep: string;
  minQty: string;
  maxQty: string;
  minNotional: number;
  maxNotional: number;
  startMid: number;
  maxLeverage?: number;
}

const ROWS: Row[] = [
  {
    surface: "spot",
    venue: "coinswitchx",
    symbol: "BTC/INR",
    base: "BTC",
    quote: "INR",
    tickSize: "1",
    qtyStep: "0.00001",
    minQty: "0.00001",
    maxQty: "50",
    minNotional: 100,
    maxNotional: 5_000_000,
    startMid: 5_400_000,
  },
  {
    surface: "spot",
    venue: "coinswitchx",
    symbol: "ETH/INR",
    base: "ETH",
    quote: "INR",
    tickSize: "1",
    qtyStep: "0.0001",
    minQty: "0.0001",
    maxQty: "500",
    minNotional: 100,
    maxNotional: 1_500_000,
    startMid: 280_000,
  },
  {
    surface: "spot",
    venue: "c2c1",
    symbol: "BTC/USDT",
    base: "BTC",
    quote: "USDT",
    tickSize: "0.01",
    qtyStep: "0.00001",
    minQty: "0.00001",
    maxQty: "50",
    minNotional: 1,
    maxNotional: 100_000,
    startMid: 64_000,
  },
  {
    surface: "spot",
    venue: "c2c1",
    symbol: "ETH/USDT",
    base: "ETH",
    quote: "USDT",
    tickSize: "0.01",
    qtyStep: "0.0001",
    minQty: "0.0001",
    maxQty: "500",
    minNotional: 1,
    maxNotional: 100_000,
    startMid: 3_300,
  },
  {
    surface: "spot",
    venue: "c2c2",
    symbol: "BTC/USDT",
    base: "BTC",
    quote: "USDT",
    tickSize: "0.01",
    qtyStep: "0.00001",
    minQty: "0.00001",
    maxQty: "50",
    minNotional: 1,
    maxNotional: 100_000,
    startMid: 64_000,
  },
  {
    surface: "spot",
    venue: "c2c2",
    symbol: "ETH/USDT",
    base: "ETH",
    quote: "USDT",
    tickSize: "0.01",
    qtyStep: "0.0001",
    minQty: "0.0001",
    maxQty: "500",
    minNotional: 1,
    maxNotional: 100_000,
    startMid: 3_300,
  },
  {
    surface: "hft",
    venue: "linear",
    symbol: "BTCUSDT",
    base: "BTC",
    quote: "USDT",
    tickSize: "0.1",
    qtyStep: "0.001",
    minQty: "0.001",
    maxQty: "100",
    minNotional: 5,
    maxNotional: 10_000_000,
    startMid: 64_000,
    maxLeverage: 100,
  },
  {
    surface: "hft",
    venue: "linear",
    symbol: "ETHUSDT",
    base: "ETH",
    quote: "USDT",
    tickSize: "0.01",
    qtyStep: "0.01",
    minQty: "0.01",
    maxQty: "1000",
    minNotional: 5,
    maxNotional: 10_000_000,
    startMid: 3_300,
    maxLeverage: 100,
  },
  // HFT options (category `option`, allowlisted per key): Bybit-style symbol, premium in USDT [assumed].
  {
    surface: "hft",
    venue: "option",
    symbol: "BTC-26DEC26-70000-C",
    base: "BTC",
    quote: "USDT",
    tickSize: "5",
    qtyStep: "0.01",
    minQty: "0.01",
    maxQty: "100",
    minNotional: 1,
    maxNotional: 10_000_000,
    startMid: 2_500,
    maxLeverage: 1,
  },
  // Futures v2 (EXCHANGE_2): its own books, beside HFT's [assumed grids, like HFT linear].
  {
    surface: "futures",
    venue: "EXCHANGE_2",
    symbol: "BTCUSDT",
    base: "BTC",
    quote: "USDT",
    tickSize: "0.1",
    qtyStep: "0.001",
    minQty: "0.001",
    maxQty: "100",
    minNotional: 5,
    maxNotional: 10_000_000,
    startMid: 64_000,
    maxLeverage: 50,
  },
  {
    surface: "futures",
    venue: "EXCHANGE_2",
    symbol: "ETHUSDT",
    base: "ETH",
    quote: "USDT",
    tickSize: "0.01",
    qtyStep: "0.01",
    minQty: "0.01",
    maxQty: "1000",
    minNotional: 5,
    maxNotional: 10_000_000,
    startMid: 3_300,
    maxLeverage: 50,
  },
];

function build(r: Row): SimInstrument {
  const tick = Number(r.tickSize);
  const step = Number(r.qtyStep);
  return {
    surface: r.surface,
    venue: r.venue,
    symbol: r.symbol,
    base: r.base,
    quote: r.quote,
    tickSize: r.tickSize,
    qtyStep: r.qtyStep,
    tick,
    step,
    priceDecimals: decimalsOf(parseDec(r.tickSize)),
    qtyDecimals: decimalsOf(parseDec(r.qtyStep)),
    minQty: r.minQty,
    maxQty: r.maxQty,
    minLots: Math.round(Number(r.minQty) / step),
    maxLots: Math.round(Number(r.maxQty) / step),
    minNotional: r.minNotional,
    maxNotional: r.maxNotional,
    startMid: r.startMid,
    maxLeverage: r.maxLeverage ?? 1,
  };
}

export const INSTRUMENTS: readonly SimInstrument[] = ROWS.map(build);

/** Lookup key: `spot:coinswitchx:BTC/INR`, `hft:linear:BTCUSDT`, `futures:exchange_2:BTCUSDT` (upper-cased symbol, lower-cased venue). */
export function bookKey(surface: SimSurface, venue: string, symbol: string): string {
  return `${surface}:${venue.toLowerCase()}:${symbol.toUpperCase()}`;
}

/** Formats an integer tick count as a price string with the instrument's decimals. */
export function priceStr(inst: SimInstrument, ticks: number): string {
  return (ticks * inst.tick).toFixed(inst.priceDecimals);
}

export function qtyStr(inst: SimInstrument, lots: number): string {
  return (lots * inst.step).toFixed(inst.qtyDecimals);
}

/** Converts a wire number/string to integer steps, or undefined when it is off the grid. */
export function toSteps(value: number, step: number): number | undefined {
  if (!Number.isFinite(value)) return undefined;
  const n = Math.round(value / step);
  // Relative tolerance covers binary floating point noise of decimal input (0.1 + 0.2 style).
  if (Math.abs(n * step - value) > step * 1e-6) return undefined;
  return n;
}
