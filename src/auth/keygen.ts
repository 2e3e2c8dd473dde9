/** New Ed25519 key pairs in the exchange's hex form (the CLI's `keygen`, the embedded venue's accounts). */
import { generateKeyPairSync } from "node:crypto";

/** A fresh Ed25519 key pair in the exchange's hex form. */
export function generateKeyHex(): { apiKey: string; secretKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const pkcs8 = privateKey.export({ format: "der", type: "pkcs8" });
  const spki = publicKey.export({ format: "der", type: "spki" });
  return {
    apiKey: Buffer.from(spki.subarray(spki.length - 32)).toString("hex"),
    secretKey: Buffer.from(pkcs8.subarray(pkcs8.length - 32)).toString("hex"),
  };
}
