import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";

/** Raised when key material is malformed or inconsistent. Never carries the secret itself. */
export class KeyError extends Error {
  override readonly name = "KeyError";
}

const HEX64 = /^[0-9a-fA-F]{64}$/;
// PKCS#8 DER prefix for an Ed25519 private key; the 32-byte seed follows it.
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export interface KeyPair {
  /** Lower-case hex of the 32-byte Ed25519 public key: the exchange's API key. */
  readonly apiKey: string;
  /** Native private key object, built once. */
  readonly privateKey: KeyObject;
  /** The raw 32-byte seed, for the pure-JS signer and workers. Never log it. */
  readonly seed: Uint8Array;
}

/**
 * Loads a hex Ed25519 seed (either case), derives the public key, and checks it against a configured
 * API key when one is given. Errors describe the problem, never the value.
 */
export function loadKeyPair(secretHex: string | undefined, configuredApiKey?: string): KeyPair {
  if (secretHex === undefined || secretHex.trim() === "") {
    throw new KeyError("secret key is missing (expected 64 hex characters, a 32-byte Ed25519 seed)");
  }
  const secret = secretHex.trim();
  if (!HEX64.test(secret)) {
    throw new KeyError(
      `secret key is malformed: expected 64 hex characters (a 32-byte Ed25519 seed), got ${secret.length} characters${
        /^[0-9a-fA-F]*$/.test(secret) ? "" : " including non-hex characters"
      }`,
    );
  }
  const seed = new Uint8Array(Buffer.from(secret, "hex"));
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
  const apiKey = publicKeyHex(privateKey);
  if (configuredApiKey !== undefined && configuredApiKey.trim() !== "") {
    const given = configuredApiKey.trim();
    if (!HEX64.test(given)) {
      throw new KeyError("API key is malformed: expected 64 hex characters (an Ed25519 public key)");
    }
    if (given.toLowerCase() !== apiKey) {
      throw new KeyError(
        "API key does not match the secret key: the public key derived from the secret differs",
      );
    }
  }
  return { apiKey, privateKey, seed };
}

function publicKeyHex(privateKey: KeyObject): string {
  const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
  return Buffer.from(spki.subarray(spki.length - 32)).toString("hex");
}

/** Checks an API key string for shape only (64 hex characters). */
export function isApiKeyHex(s: string): boolean {
  return HEX64.test(s);
}
