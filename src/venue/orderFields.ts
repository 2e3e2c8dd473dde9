/**
 * The order fields every venue's request bodies share, each checked once at the edge so the body can
 * be built by string concatenation (every value is JSON-safe when it passes, so no escaping is
 * needed): the instrument's price and quantity grid, sides, times in force, client and order ids.
 * Invalid input throws InvalidRequestError naming the field, and nothing is sent. The bodies
 * themselves are in each venue's folder (src/venue/{spot,hft,futures}/).
 */
import type { EndpointId } from "../rest/catalogue.js";
import { InvalidRequestError } from "../rest/errors.js";
import { type Dec, formatDec, isMultipleOf, tryParseDec } from "../util/decimal.js";

/** Price and quantity grid of one instrument, parsed once. */
export interface OrderGrid {
  readonly tickSize: Dec;
  readonly qtyStep: Dec;
  /** The steps as (JS-number mantissa, scale) for the allocation-free fast check. */
  readonly tickM: number;
  readonly tickS: number;
  readonly qtyM: number;
  readonly qtyS: number;
}

export function makeGrid(tickSize: string, qtyStep: string): OrderGrid {
  const t = tryParseDec(tickSize);
  const q = tryParseDec(qtyStep);
  if (t === undefined || t.m <= 0n)
    throw new InvalidRequestError(`tickSize must be a positive decimal`, undefined, "tickSize");
  if (q === undefined || q.m <= 0n)
    throw new InvalidRequestError(`qtyStep must be a positive decimal`, undefined, "qtyStep");
  return { tickSize: t, qtyStep: q, tickM: Number(t.m), tickS: t.s, qtyM: Number(q.m), qtyS: q.s };
}

/**
 * Fast grid check on the text itself (no regex, no BigInt): returns the canonical decimal text when
 * `text` is a plain positive decimal that is a multiple of `stepM * 10^-stepS`, "" when it is
 * definitely not, and undefined when it cannot decide cheaply (too many digits): use the exact path.
 */
function fastGrid(text: string, stepM: number, stepS: number): string | undefined {
  const n = text.length;
  if (n === 0 || n > 30 || stepM > 2 ** 40) return undefined;
  let m = 0;
  let digits = 0;
  let dot = -1;
  let lastNonZeroFrac = -1;
  let firstSig = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (dot !== -1 || i === 0 || i === n - 1) return "";
      dot = i;
      continue;
    }
    if (c < 48 || c > 57) return "";
    if (dot !== -1) {
      if (c !== 48) lastNonZeroFrac = i;
      // Beyond the step's scale only zeros may follow.
      if (i - dot > stepS) {
        if (c !== 48) return "";
        continue;
      }
    }
    if (firstSig === -1 && c !== 48) firstSig = i;
    m = m * 10 + (c - 48);
    if (firstSig !== -1 && ++digits > 15) return undefined;
  }
  const fracLen = dot === -1 ? 0 : Math.min(n - dot - 1, stepS);
  for (let k = fracLen; k < stepS; k++) m *= 10;
  if (m > Number.MAX_SAFE_INTEGER) return undefined;
  if (m === 0 || m % stepM !== 0) return "";
  // Canonical already (no leading zero before a digit, no trailing fractional zero)? Return as is.
  const leadingZero = text.charCodeAt(0) === 48 && n > 1 && text.charCodeAt(1) !== 46;
  const trailing = dot !== -1 && lastNonZeroFrac !== n - 1;
  if (!leadingZero && !trailing) return text;
  return undefined;
}

export const SIDES: readonly string[] = ["buy", "sell"];
export const TIFS: readonly string[] = ["GTC", "IOC", "FOK"];

// Printable ASCII without `"` and `\`: JSON-safe as-is, and at most 36 characters (exchange limit).
const CLIENT_ID = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,36}$/;
const ORDER_ID = /^[A-Za-z0-9_\-:.]{1,64}$/;

/** Refuses one field of one request: InvalidRequestError, nothing sent. */
export function refuse(endpoint: EndpointId, field: string, why: string): never {
  throw new InvalidRequestError(`${field}: ${why}`, endpoint, field);
}

/** A venue's order id, safe to write into a body as it is. */
export function isOrderId(v: unknown): v is string {
  return typeof v === "string" && ORDER_ID.test(v);
}

/** A positive decimal on the grid, in canonical text (valid as both a JSON number and a string). */
export function gridValue(
  endpoint: EndpointId,
  field: string,
  text: unknown,
  grid: OrderGrid,
  tick: boolean,
): string {
  const step = tick ? grid.tickSize : grid.qtyStep;
  const stepName = tick ? "tickSize" : "qtyStep";
  if (typeof text !== "string") refuse(endpoint, field, "must be a decimal string");
  // Common case decided without allocation; anything else (including every error) takes the exact path.
  const fast = tick ? fastGrid(text, grid.tickM, grid.tickS) : fastGrid(text, grid.qtyM, grid.qtyS);
  if (fast !== undefined && fast !== "") return fast;
  const d = tryParseDec(text);
  if (d === undefined) refuse(endpoint, field, "must be a plain decimal number");
  if (d.m <= 0n) refuse(endpoint, field, "must be positive");
  if (!isMultipleOf(d, step)) refuse(endpoint, field, `must be a multiple of ${stepName} ${formatDec(step)}`);
  return formatDec(d);
}

/** A client order id: JSON-safe as it is, within the venue's length. */
export function clientIdText(endpoint: EndpointId, field: string, v: unknown): string {
  if (typeof v !== "string" || !CLIENT_ID.test(v)) {
    refuse(endpoint, field, "must be 1-36 printable ASCII characters without quotes or backslashes");
  }
  return v;
}

/** Which order a v2 get-order read asks for (Spot and Futures name the two the same way). */
export type OrderRef = { orderId: string } | { clientOrderId: string };

/** The v2 get-order query pair for `by`, checked: `order_id` or `client_order_id`, a non-empty string. */
export function orderRefQuery(endpoint: EndpointId, by: OrderRef): [string, string] {
  const q: [string, string] =
    "orderId" in by ? ["order_id", by.orderId] : ["client_order_id", by.clientOrderId];
  if (typeof q[1] !== "string" || q[1] === "") {
    throw new InvalidRequestError(`${q[0]}: must be a non-empty string`, endpoint, q[0]);
  }
  return q;
}
