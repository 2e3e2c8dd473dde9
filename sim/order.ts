/** The simulator's order: one shape for every surface; the wire records are built from it. */
import type { FuturesStatus, SpotStatus, V5OrderStatus } from "../src/rest/wire.js";
import type { SimInstrument } from "./instruments.js";

export type SimTif = "GTC" | "IOC" | "FOK";

export interface SimOrder {
  id: string;
  /** client_order_id / orderLinkId; "" when none. */
  clientId: string;
  /** Its book is the exchange's book for `inst`. */
  inst: SimInstrument;
  /** API key (lower-case hex) of the owning account; null = synthetic liquidity. */
  owner: string | null;
  buy: boolean;
  market: boolean;
  tif: SimTif;
  priceTicks: number;
  origLots: number;
  leavesLots: number;
  execLots: number;
  /** Filled notional (quote), fees paid (quote). */
  cumValue: number;
  cumFee: number;
  spotStatus: SpotStatus;
  v5Status: V5OrderStatus;
  futStatus: FuturesStatus;
  /** Futures `reduce_only` as placed (echoed only; the simulator keeps no Futures positions). */
  reduceOnly: boolean;
  createdAt: number;
  updatedAt: number;
  seq: number;
  inBook: boolean;
  closedAt: number;
  positionIdx: 0 | 1 | 2;
  lastPriceOnCreated: string;
  /** Spot buy: quote blocked per lot; HFT: margin reserved per lot. */
  reservePerLot: number;
}

export function isSpotTerminal(s: SpotStatus): boolean {
  return s === "EXECUTED" || s === "CANCELLED" || s === "EXPIRED" || s === "DISCARDED";
}

export function isV5Open(s: V5OrderStatus): boolean {
  return s === "New" || s === "PartiallyFilled";
}

/** Futures: RAISED and CANCELLATION_RAISED still work at the venue; the rest are terminal (§7.2). */
export function isFuturesOpen(s: FuturesStatus): boolean {
  return s === "RAISED" || s === "CANCELLATION_RAISED";
}
