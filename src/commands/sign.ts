/**
 * `hftgate sign --method M --path P [--epoch E]`: prints the signed message and its hex signature.
 * `--path` is the wire form (still encoded); the secret comes from HFTGATE_SECRET_KEY only.
 */
import { KeyError, loadKeyPair } from "../auth/keys.js";
import { signedMessage } from "../auth/signedMessage.js";
import { nativeSigner } from "../auth/signer.js";
import { type CommandSpec, command, str, UsageError } from "./args.js";

export const spec: CommandSpec = {
  name: "sign",
  summary: "print the signed message and the Ed25519 signature of one request",
  options: {
    method: { type: "string", value: "M", help: "HTTP method (GET, POST, DELETE)" },
    path: {
      type: "string",
      value: "P",
      help: "request target as sent, e.g. '/trade/api/v2/orders?open=true'",
    },
    epoch: { type: "string", value: "MS", help: "X-AUTH-EPOCH in Unix milliseconds (default: now)" },
  },
  notes: ["The secret key comes from HFTGATE_SECRET_KEY (hex seed) only, never from a flag."],
};

export const run = command(spec, async (a) => {
  const method = str(a, "method");
  const path = str(a, "path");
  const epoch = str(a, "epoch") ?? String(Date.now());
  if (method === undefined || path === undefined) throw new UsageError("--method and --path are required");
  if (!/^\d+$/.test(epoch)) throw new UsageError("--epoch must be Unix milliseconds (digits only)");
  try {
    const keys = loadKeyPair(process.env.HFTGATE_SECRET_KEY);
    const message = signedMessage(method, path, epoch);
    process.stdout.write(`${message}\n${nativeSigner(keys).signHex(message)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof KeyError) {
      process.stderr.write(`hftgate sign: HFTGATE_SECRET_KEY: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
});
