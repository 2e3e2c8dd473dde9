/**
 * The signed FIX Logon: RawData(96) is the base64 Ed25519 signature of the values of MsgType(35),
 * SenderCompID(49), TargetCompID(56), MsgSeqNum(34) and SendingTime(52) joined by SOH. Keys are the
 * client's raw 32-byte public keys in hex (the project's key format).
 */
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410) before the 32 key bytes. */
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
/** DER prefix of an Ed25519 PKCS#8 private key before the 32 seed bytes. */
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** The signed text: 35, 49, 56, 34, 52 values joined by SOH. */
export function logonPayload(
  msgType: string,
  sender: string,
  target: string,
  seq: number,
  sendingTime: string,
): Buffer {
  return Buffer.from(`${msgType}\x01${sender}\x01${target}\x01${seq}\x01${sendingTime}`, "latin1");
}

/** A hex raw public key → KeyObject; undefined when it is not 32 bytes of hex. */
export function publicKeyOf(hex: string): KeyObject | undefined {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return undefined;
  return createPublicKey({
    key: Buffer.concat([SPKI_PREFIX, Buffer.from(hex, "hex")]),
    format: "der",
    type: "spki",
  });
}

/** True when `b64` is a valid signature of `payload` under `key` (malformed input is simply false). */
export function verifyLogon(key: KeyObject, payload: Buffer, b64: string): boolean {
  const sig = Buffer.from(b64, "base64");
  if (sig.length !== 64) return false;
  try {
    return verify(null, payload, key, sig);
  } catch {
    return false;
  }
}

/** Signs a Logon payload with a hex 32-byte seed (clients, tests, docs' worked example). */
export function signLogon(seedHex: string, payload: Buffer): string {
  const key = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, Buffer.from(seedHex, "hex")]),
    format: "der",
    type: "pkcs8",
  });
  return sign(null, payload, key).toString("base64");
}
