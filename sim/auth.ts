/**
 * Request authentication as docs/venue-api.md §2: Ed25519 over METHOD + formDecode(raw target) + epoch,
 * verified with the registered public key named by X-AUTH-APIKEY. Independent of the client signer:
 * it only shares the message rule (signedMessage).
 */
import { createPublicKey, type KeyObject, verify } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { signedMessage } from "../src/auth/signedMessage.js";
import type { SimAccount } from "./account.js";
import type { SimOptions } from "./config.js";

const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const HEX64 = /^[0-9a-fA-F]{64}$/;
const HEX128 = /^[0-9a-fA-F]{128}$/;
const EPOCH = /^[0-9]{1,16}$/;
const VERIFIED_CACHE = 4096;

export type AuthResult = { ok: true; account: SimAccount } | { ok: false; status: number; message: string };

const INVALID: AuthResult = { ok: false, status: 401, message: "Invalid Access" };

export function publicKeyFromHex(hex: string): KeyObject {
  if (!HEX64.test(hex)) throw new Error("API key must be 64 hex characters (an Ed25519 public key)");
  return createPublicKey({
    key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(hex, "hex")]),
    format: "der",
    type: "spki",
  });
}

export class Verifier {
  private readonly keys = new Map<string, { key: KeyObject; account: SimAccount }>();
  private readonly verified = new Map<string, { key: string; text: string }>();
  private readonly auth: SimOptions["auth"];
  /** Server clock (includes injected skew). */
  private readonly serverNow: () => number;

  constructor(auth: SimOptions["auth"], serverNow: () => number) {
    this.auth = auth;
    this.serverNow = serverNow;
  }

  register(account: SimAccount): void {
    this.keys.set(account.apiKey, { key: publicKeyFromHex(account.apiKey), account });
  }

  has(apiKey: string): boolean {
    return this.keys.has(apiKey.toLowerCase());
  }

  verify(method: string, rawTarget: string, headers: IncomingHttpHeaders, hft: boolean): AuthResult {
    const epoch = headers["x-auth-epoch"];
    if (typeof epoch !== "string" || epoch === "") {
      if (hft) return { ok: false, status: 400, message: "X-AUTH-EPOCH header is required" };
      return this.auth.spotMissingEpochStatus === 400
        ? { ok: false, status: 400, message: "X-AUTH-EPOCH header is required" }
        : INVALID;
    }
    const apiKey = headers["x-auth-apikey"];
    const sig = headers["x-auth-signature"];
    if (typeof apiKey !== "string" || typeof sig !== "string" || !HEX128.test(sig) || !EPOCH.test(epoch))
      return INVALID;
    const entry = this.keys.get(apiKey.length === 64 ? apiKey.toLowerCase() : "");
    if (entry === undefined) return INVALID;
    if (!hft || this.auth.hftDriftCheck) {
      const drift = Math.abs(Number(epoch) - this.serverNow());
      if (drift > this.auth.maxDriftMs) return INVALID;
      if (this.auth.rejectSoftDrift && drift > this.auth.softDriftMs) return INVALID;
    }
    const text = signedMessage(method, rawTarget, epoch);
    // Ed25519 is deterministic: a (key, message, signature) triple verified once verifies forever, and
    // pre-signing clients reuse one signature for every request in the same epoch millisecond.
    const sigKey = sig.length === 128 ? sig.toLowerCase() : sig;
    const seen = this.verified.get(sigKey);
    if (seen !== undefined && seen.key === entry.account.apiKey && seen.text === text)
      return { ok: true, account: entry.account };
    if (!verify(null, Buffer.from(text, "utf8"), entry.key, Buffer.from(sig, "hex"))) return INVALID;
    if (this.verified.size >= VERIFIED_CACHE) this.verified.clear();
    this.verified.set(sigKey, { key: entry.account.apiKey, text });
    return { ok: true, account: entry.account };
  }
}
