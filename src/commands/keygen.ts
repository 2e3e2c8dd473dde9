import { generateKeyPairSync } from "node:crypto";
import { type CommandSpec, command } from "./args.js";

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

export const spec: CommandSpec = {
  name: "keygen",
  summary: "print a new Ed25519 key pair as JSON ({apiKey, secretKey}, hex)",
  options: {},
};

export const run = command(spec, async () => {
  process.stdout.write(`${JSON.stringify(generateKeyHex())}\n`);
  return 0;
});
