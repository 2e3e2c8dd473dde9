/** Someone else at the same venue: a second simulator account over signed REST (not through the gateway). */
import { generateKeyHex } from "../../src/auth/keygen.js";
import { loadKeyPair } from "../../src/auth/keys.js";
import { createRestStack, type RestStack } from "../../src/venue/stack.js";
import type { Harness } from "./harness.js";

export function otherAccount(t: Harness): RestStack {
  const kp = generateKeyHex();
  t.h.sim!.registerAccount(kp.apiKey);
  return createRestStack({
    keys: loadKeyPair(kp.secretKey),
    spotBaseUrl: t.h.sim!.baseUrl,
    hftBaseUrl: t.h.sim!.baseUrl,
    presign: false,
    clock: false,
  });
}

/** A venue price (or quantity) in whole ticks (lots) of the gateway's instrument. */
export function ticksOf(t: Harness, instrumentId: number, price: number): number {
  return Math.round(price / Number(t.h.instruments.byId(instrumentId)!.inst.tickSize));
}
export function lotsOf(t: Harness, instrumentId: number, qty: number): number {
  return Math.round(qty / Number(t.h.instruments.byId(instrumentId)!.inst.qtyStep));
}
