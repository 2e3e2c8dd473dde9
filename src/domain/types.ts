/**
 * Vocabulary shared by every part of hftgate: the two exchange surfaces and the order attributes
 * that both understand. Surface-specific spellings ("Buy" vs "buy") live in the REST codecs.
 */

/**
 * `spot` = Spot v2 (`/trade/api/v2/...`); `hft` = HFT (`/v5/...`, categories `linear` and `option`);
 * `futures` = Futures v2 (`/trade/api/v2/futures/...`, exchange `EXCHANGE_2`).
 */
export type Surface = "spot" | "hft" | "futures";

export type Side = "buy" | "sell";
export type OrderType = "limit" | "market";
export type TimeInForce = "GTC" | "IOC" | "FOK";
/** HFT position index: 0 one-way, 1 hedge long, 2 hedge short. Spot orders use 0. */
export type PositionIdx = 0 | 1 | 2;

/**
 * An instrument as the gateway trades it. Prices and quantities are decimal strings; the binary
 * protocol carries integers (ticks and lots) that are multiplied by `tickSize` / `qtyStep`.
 */
export interface Instrument {
  /** Gateway-wide numeric id, stable for the life of the process (used on the binary wire). */
  readonly id: number;
  readonly surface: Surface;
  /** Exchange spelling: `BTC/INR` on Spot, `BTCUSDT` on HFT and Futures. */
  readonly symbol: string;
  /** Spot exchange id (`coinswitchx`, `c2c1`, `c2c2`); HFT category (`linear`, `option`); `EXCHANGE_2`. */
  readonly venue: string;
  readonly base: string;
  readonly quote: string;
  readonly tickSize: string;
  readonly qtyStep: string;
  readonly minQty: string;
  readonly maxQty: string;
  /** Minimum notional in quote currency ("0" when the venue publishes none). */
  readonly minNotional: string;
  readonly active: boolean;
}
