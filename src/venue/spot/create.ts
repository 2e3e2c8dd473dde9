/**
 * How a Spot order is created: `POST /trade/api/v2/order`, a GTC limit order (Spot v2 has no other
 * type and no time in force), its body validated once and built by concatenation with price and
 * quantity as JSON numbers, signed from the pre-signer's ring.
 */
import type { Side } from "../../domain/types.js";
import type { EndpointId } from "../../rest/catalogue.js";
import type { PreparedRequest, RestClient } from "../../rest/client.js";
import { clientIdText, gridValue, type OrderGrid, refuse, SIDES } from "../orderFields.js";

export interface SpotCreateParams {
  /** `BASE/QUOTE`, e.g. `BTC/INR`. */
  symbol: string;
  side: Side;
  price: string;
  quantity: string;
  /** `coinswitchx` | `c2c1` | `c2c2` (case-insensitive). */
  exchange: string;
  clientOrderId?: string;
  /** Order time-to-live in seconds (exchange default 90). */
  expirySeconds?: number;
}

export const SPOT_EXCHANGES = ["coinswitchx", "c2c1", "c2c2"] as const;
const SPOT_SYMBOL = /^[A-Za-z0-9]{1,20}\/[A-Za-z0-9]{1,20}$/;

/** Validates and builds the POST /trade/api/v2/order body. */
export function spotCreateBody(p: SpotCreateParams, grid: OrderGrid): string {
  const ep: EndpointId = "spot.createOrder";
  if (typeof p.symbol !== "string" || !SPOT_SYMBOL.test(p.symbol))
    refuse(ep, "symbol", "must look like BASE/QUOTE");
  if (!SIDES.includes(p.side)) refuse(ep, "side", "must be buy or sell");
  const exchange = typeof p.exchange === "string" ? p.exchange.toLowerCase() : "";
  if (!(SPOT_EXCHANGES as readonly string[]).includes(exchange))
    refuse(ep, "exchange", `must be one of ${SPOT_EXCHANGES.join(", ")}`);
  const price = gridValue(ep, "price", p.price, grid, true);
  const qty = gridValue(ep, "quantity", p.quantity, grid, false);
  let s = `{"side":"${p.side}","symbol":"${p.symbol}","type":"limit","price":${price},"quantity":${qty},"exchange":"${exchange}"`;
  if (p.clientOrderId !== undefined)
    s += `,"client_order_id":"${clientIdText(ep, "client_order_id", p.clientOrderId)}"`;
  if (p.expirySeconds !== undefined) {
    if (!Number.isInteger(p.expirySeconds) || p.expirySeconds <= 0)
      refuse(ep, "expiry_period", "must be a positive integer (seconds)");
    s += `,"expiry_period":${p.expirySeconds}`;
  }
  return `${s}}`;
}

/** The signed create, ready for the wire (throws InvalidRequestError, or the clock guard's error). */
export function prepareSpotCreate(rest: RestClient, p: SpotCreateParams, grid: OrderGrid): PreparedRequest {
  return rest.prepareBody("spot.createOrder", spotCreateBody(p, grid));
}
