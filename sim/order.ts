/** The simulator's order: one shape for both surfaces; the wire records are built from it. */
import type { SpotStatus, V5OrderStatus } from "../src/rest/wire.js";
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
