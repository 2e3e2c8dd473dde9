/** Pre-trade reject codes and their short texts, as data. The gateway sends both to the strategy. */
export const RISK_REJECTS = {
  UNKNOWN_INSTRUMENT: "instrument not known to the gateway",
  INSTRUMENT_INACTIVE: "instrument is not trading",
  BAD_PRICE: "price must be a positive integer number of ticks",
  BAD_QTY: "quantity must be a positive integer number of lots",
  QTY_BELOW_MIN: "quantity below the instrument minimum",
  QTY_ABOVE_MAX: "quantity above the instrument or configured maximum",
  NOTIONAL_BELOW_MIN: "order value below the instrument minimum notional",
  NOTIONAL_ABOVE_MAX: "order value above the configured maximum",
  OPEN_ORDERS_INSTRUMENT: "too many open orders on this instrument",
  OPEN_ORDERS_SESSION: "too many open orders in this session",
  POSITION_INSTRUMENT: "order could breach the instrument position limit",
  POSITION_SESSION: "order could breach the session position limit",
  PRICE_BAND: "price too far from the reference price",
  NO_REFERENCE_PRICE: "no reference price known for this instrument",
  DUPLICATE_ORDER: "same order sent moments ago",
  TRADING_HALTED: "trading is halted",
  REDUCE_ONLY: "trading is reducing: only orders that reduce the position are allowed",
} as const;

export type RiskRejectCode = keyof typeof RISK_REJECTS;

export function riskRejectText(code: RiskRejectCode): string {
  return RISK_REJECTS[code];
}
