/**
 * What every HFT (v5) order request names first: the category (each order's is its instrument's
 * venue) and the symbol, checked once, the same way for create, cancel and amend; and the venue's
 * refusal of a category the key may not use.
 */
import type { EndpointId } from "../../rest/catalogue.js";
import { ValidationError } from "../../rest/errors.js";
import { refuse } from "../orderFields.js";
import { V5_RET } from "./retCodes.js";

export const HFT_CATEGORIES = ["linear", "option"] as const;
// Linear `BTCUSDT`; options `BTC-26DEC26-70000-C` [assumed Bybit-style].
const HFT_SYMBOL = /^[A-Za-z0-9][A-Za-z0-9-]{1,39}$/;

/** Refuses a request whose category or symbol is not one the venue takes (InvalidRequestError). */
export function checkCategorySymbol(ep: EndpointId, category: unknown, symbol: unknown): void {
  if (!(HFT_CATEGORIES as readonly unknown[]).includes(category))
    refuse(ep, "category", "must be linear or option");
  if (typeof symbol !== "string" || !HFT_SYMBOL.test(symbol)) refuse(ep, "symbol", "must look like BTCUSDT");
}

/** The venue's answer to an options call from a key not on the options allowlist (§3.3) [assumed code]. */
export function isNotAllowlisted(err: unknown): boolean {
  return err instanceof ValidationError && err.code === V5_RET.NOT_ALLOWLISTED;
}
