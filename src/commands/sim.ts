/**
 * `hftgate sim`: the exchange simulator standalone (paper-trading sandbox).
 *   --port N            listen port (default 8080; 0 = ephemeral)
 *   --host H            listen address (default 127.0.0.1)
 *   --api-key HEX       register an account (repeatable); without it a key pair is generated and printed
 *   --seed S            seed of the synthetic market and ids (default 1)
 *   --admin-port N      enable the fault-injection admin endpoint on 127.0.0.1:N
 *   --tick-ms N         synthetic market interval (0 = frozen unless stepped via admin)
 *   --no-synthetic      no synthetic liquidity at all
 *   --no-rate-limits    disable the §9 rate-limit buckets
 *   --cert F --key F    serve HTTPS with these PEM files
 */
import { readFileSync } from "node:fs";
import { type DeepPartial, type SimOptions, startSimulator } from "../../sim/index.js";
import { isApiKeyHex } from "../auth/keys.js";
import { flag, flagAll, parseArgs } from "./args.js";
import { generateKeyHex } from "./keygen.js";

function intFlag(v: string | undefined, name: string, fallback: number | undefined): number | undefined {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer`);
  return n;
}

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  let keys = flagAll(args, "api-key");
  for (const k of keys) {
    if (!isApiKeyHex(k)) {
      process.stderr.write("hftgate sim: --api-key must be 64 hex characters (an Ed25519 public key)\n");
      return 2;
    }
  }
  if (keys.length === 0) {
    const kp = generateKeyHex();
    keys = [kp.apiKey];
    process.stdout.write(`generated sandbox key pair (use it with the gateway):\n${JSON.stringify(kp)}\n`);
  }
  const cert = flag(args, "cert");
  const key = flag(args, "key");
  const opts: DeepPartial<SimOptions> = {
    host: flag(args, "host") ?? "127.0.0.1",
    port: intFlag(flag(args, "port"), "port", 8080)!,
    seed: intFlag(flag(args, "seed"), "seed", 1)!,
    apiKeys: keys,
    adminPort: intFlag(flag(args, "admin-port"), "admin-port", undefined),
    market: {
      synthetic: flag(args, "no-synthetic") === undefined,
      ...(flag(args, "tick-ms") !== undefined
        ? { tickMs: intFlag(flag(args, "tick-ms"), "tick-ms", 250)! }
        : {}),
    },
    rateLimits: { enabled: flag(args, "no-rate-limits") === undefined },
    ...(cert !== undefined && key !== undefined
      ? { tls: { cert: readFileSync(cert), key: readFileSync(key) } }
      : {}),
  };
  const sim = await startSimulator(opts);
  process.stdout.write(`simulator listening on ${sim.baseUrl}\n`);
  process.stdout.write(`socket.io streams at ${sim.baseUrl}/pro/realtime-rates-socket/spot/...\n`);
  if (sim.adminUrl !== undefined) process.stdout.write(`admin (fault injection) on ${sim.adminUrl}\n`);
  process.stdout.write(`accounts: ${keys.join(", ")}\n`);
  await new Promise<void>((resolve) => {
    const done = () => resolve();
    process.once("SIGINT", done);
    process.once("SIGTERM", done);
  });
  await sim.stop();
  return 0;
}
