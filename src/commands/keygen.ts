/** `hftgate keygen`: prints a new key pair (src/auth/keygen.ts) as JSON. */
import { generateKeyHex } from "../auth/keygen.js";
import { type CommandSpec, command } from "./args.js";

export const spec: CommandSpec = {
  name: "keygen",
  summary: "print a new Ed25519 key pair as JSON ({apiKey, secretKey}, hex)",
  options: {},
};

export const run = command(spec, async () => {
  process.stdout.write(`${JSON.stringify(generateKeyHex())}\n`);
  return 0;
});
