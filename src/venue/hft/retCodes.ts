/**
 * The HFT (v5) envelope's return codes, a leaf table: the REST layer stays venue-neutral and is handed
 * the codes it needs (`HFT_RATE_LIMIT_CODES`, by src/venue/client.ts); the verdicts read from them are
 * in ./fields.ts; the simulator answers with the same table.
 */

/** Known HFT return codes. Only 10001 is documented; the others are this project's assumption. */
export const V5_RET = {
  OK: 0,
  /** documented: missing or invalid parameter */
  PARAM: 10001,
  /** [assumed] authentication failure inside a 200 envelope is not used: auth failures are HTTP 401 */
  /** [assumed, Bybit's "permission denied"] a `category: "option"` call from a key not on the options allowlist */
  NOT_ALLOWLISTED: 10005,
  /** [assumed] order not found / not modifiable */
  ORDER_NOT_FOUND: 110001,
  /** [assumed] qty not a multiple of qtyStep, or out of range */
  QTY_INVALID: 10001,
  /** [assumed] insufficient balance */
  INSUFFICIENT_BALANCE: 110007,
  /** [assumed] duplicate orderLinkId with different content */
  DUPLICATE_LINK_ID: 110072,
  /** [assumed] rate limit inside an envelope (also HTTP 429) */
  RATE_LIMIT: 10006,
} as const;

/** Envelope codes that mean "rate limited" (a RateLimitedError, as an HTTP 429 is). */
export const HFT_RATE_LIMIT_CODES: readonly number[] = [V5_RET.RATE_LIMIT];
