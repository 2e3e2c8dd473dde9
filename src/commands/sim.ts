/** `hftgate sim`: the exchange simulator standalone (paper-trading sandbox). */
import { readFileSync } from "node:fs";
import type { DeepPartial, SimOptions } from "../../sim/index.js";
import { generateKeyHex } from "../auth/keygen.js";
import { isApiKeyHex } from "../auth/keys.js";
import { bool, type CommandSpec, command, int, str, strs, UsageError } from "./args.js";

export const spec: CommandSpec = {
  name: "sim",
  summary: "run the exchange simulator standalone (both surfaces, real signature checks, synthetic market)",
  options: {
    port: { type: "string", value: "N", help: "listen port (default 8080; 0 = ephemeral)" },
    host: { type: "string", value: "H", help: "listen address (default 127.0.0.1)" },
    "api-key": {
      type: "string",
      value: "HEX",
      multiple: true,
      help: "register an account; without one a key pair is generated and printed",
    },
    seed: { type: "string", value: "S", help: "seed of the synthetic market and ids (default 1)" },
    "admin-port": {
      type: "string",
      value: "N",
      help: "enable the fault-injection admin endpoint on 127.0.0.1:N",
    },
    "tick-ms": {
      type: "string",
      value: "N",
      help: "synthetic market interval (0 = frozen unless stepped via admin)",
    },
    "no-synthetic": { type: "boolean", help: "no synthetic liquidity at all" },
    "no-rate-limits": { type: "boolean", help: "disable the exchange's rate-limit buckets" },
    cert: { type: "string", value: "FILE", help: "serve HTTPS with this PEM certificate (with --key)" },
    key: { type: "string", value: "FILE", help: "PEM private key for --cert" },
  },
  notes: ["Runs until SIGINT or SIGTERM. Fault knobs and the admin API: docs/simulator.md."],
};

export const run = command(spec, async (a) => {
  let keys = strs(a, "api-key");
  for (const k of keys) {
    if (!isApiKeyHex(k)) throw new UsageError("--api-key must be 64 hex characters (an Ed25519 public key)");
  }
  const cert = str(a, "cert");
  const key = str(a, "key");
  if ((cert === undefined) !== (key === undefined)) throw new UsageError("--cert and --key go together");
  const tickMs = int(a, "tick-ms");
  const opts: DeepPartial<SimOptions> = {
    host: str(a, "host") ?? "127.0.0.1",
    port: int(a, "port", 8080),
    seed: int(a, "seed", 1),
    apiKeys: keys,
    adminPort: int(a, "admin-port"),
    market: { synthetic: !bool(a, "no-synthetic"), ...(tickMs !== undefined ? { tickMs } : {}) },
    rateLimits: { enabled: !bool(a, "no-rate-limits") },
    ...(cert !== undefined && key !== undefined
      ? { tls: { cert: readFileSync(cert), key: readFileSync(key) } }
      : {}),
  };
  if (keys.length === 0) {
    const kp = generateKeyHex();
    keys = [kp.apiKey];
    opts.apiKeys = keys;
    process.stdout.write(`generated sandbox key pair (use it with the gateway):\n${JSON.stringify(kp)}\n`);
  }
  const { startSimulator } = await import("../../sim/index.js");
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
});
