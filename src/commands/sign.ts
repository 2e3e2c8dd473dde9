import { KeyError, loadKeyPair } from "../auth/keys.js";
import { signedMessage } from "../auth/signedMessage.js";
import { nativeSigner } from "../auth/signer.js";
import { flag, parseArgs } from "./args.js";

/**
 * `hftgate sign --method M --path P --epoch E`: prints the signed message and its hex signature.
 * `--path` is the wire form (still encoded); the secret comes from HFTGATE_SECRET_KEY only.
 */
export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const method = flag(args, "method");
  const path = flag(args, "path");
  const epoch = flag(args, "epoch") ?? String(Date.now());
  if (method === undefined || path === undefined) {
    process.stderr.write(
      "usage: hftgate sign --method GET --path '/trade/api/v2/orders?open=true' [--epoch MS]\n",
    );
    return 2;
  }
  if (!/^\d+$/.test(epoch)) {
    process.stderr.write("hftgate sign: --epoch must be Unix milliseconds (digits only)\n");
    return 2;
  }
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
}
