/** `hftgate sim`: the exchange simulator standalone (paper-trading sandbox). */
import { readFileSync } from "node:fs";
import type { CredentialAuth, DeepPartial, SimNatsMode, SimOptions } from "../../sim/index.js";
import { generateKeyHex } from "../auth/keygen.js";
import { isApiKeyHex } from "../auth/keys.js";
import { bool, type CommandSpec, command, int, str, strs, UsageError } from "./args.js";

const NATS_MODES: readonly SimNatsMode[] = ["auto", "builtin", "server", "off"];
// The simulator's list (CREDENTIAL_AUTH), repeated so `--help` does not load the simulator.
const CREDENTIAL_AUTH: readonly CredentialAuth[] = ["userPass", "token", "tokenJoined", "connectFields"];

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
    nats: {
      type: "string",
      value: "MODE",
      help: "HFT streams over NATS: auto (nats-server when installed, else built-in), builtin, server, off (default)",
    },
    "nats-auth": {
      type: "string",
      value: "MAP",
      help: "how a socket credential must appear in the NATS CONNECT: userPass (default), token, tokenJoined, connectFields (all but userPass use the built-in endpoint)",
    },
    "no-options-allowlist": { type: "boolean", help: "the keys are not on the options allowlist" },
    "no-hft": { type: "boolean", help: "the keys may not use HFT (signed /v5 and /dma calls refused)" },
    "clock-skew-ms": {
      type: "string",
      value: "MS",
      help: "the server clock runs this far ahead (negative: behind)",
    },
    cert: { type: "string", value: "FILE", help: "serve HTTPS with this PEM certificate (with --key)" },
    key: { type: "string", value: "FILE", help: "PEM private key for --cert" },
  },
  notes: [
    "Runs until SIGINT or SIGTERM. Fault knobs and the admin API: docs/simulator.md.",
    "--nats-auth, --no-options-allowlist, --no-hft and --clock-skew-ms make a venue that differs from the gateway's defaults (what `hftgate preflight` must catch, docs/going-live.md).",
  ],
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
  const natsMode = str(a, "nats") ?? (str(a, "nats-auth") !== undefined ? "builtin" : "off");
  if (!NATS_MODES.includes(natsMode as SimNatsMode))
    throw new UsageError(`--nats must be one of ${NATS_MODES.join(", ")}`);
  const natsAuth = str(a, "nats-auth") ?? "userPass";
  if (!(CREDENTIAL_AUTH as readonly string[]).includes(natsAuth))
    throw new UsageError(`--nats-auth must be one of ${CREDENTIAL_AUTH.join(", ")}`);
  const skew = str(a, "clock-skew-ms");
  const clockSkewMs = skew === undefined ? 0 : Number(skew);
  if (!Number.isInteger(clockSkewMs)) throw new UsageError("--clock-skew-ms must be an integer (ms)");
  const opts: DeepPartial<SimOptions> = {
    host: str(a, "host") ?? "127.0.0.1",
    port: int(a, "port", 8080),
    seed: int(a, "seed", 1),
    apiKeys: keys,
    adminPort: int(a, "admin-port"),
    market: { synthetic: !bool(a, "no-synthetic"), ...(tickMs !== undefined ? { tickMs } : {}) },
    rateLimits: { enabled: !bool(a, "no-rate-limits") },
    hft: { optionsAllowlisted: !bool(a, "no-options-allowlist"), entitled: !bool(a, "no-hft") },
    faults: { clockSkewMs },
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
  const { startSimNats, startSimulator } = await import("../../sim/index.js");
  const nats = await startSimNats(natsMode as SimNatsMode, undefined, natsAuth as CredentialAuth);
  if (nats !== undefined) opts.nats = nats.sim;
  const sim = await startSimulator(opts).catch(async (e: unknown) => {
    await nats?.server.stop();
    throw e;
  });
  process.stdout.write(`simulator listening on ${sim.baseUrl}\n`);
  process.stdout.write(`socket.io streams at ${sim.baseUrl}/pro/realtime-rates-socket/spot/...\n`);
  if (nats !== undefined)
    process.stdout.write(`nats (HFT streams, ${nats.server.kind}, ${natsAuth}) at ${nats.server.wsUrl}\n`);
  if (sim.adminUrl !== undefined) process.stdout.write(`admin (fault injection) on ${sim.adminUrl}\n`);
  process.stdout.write(`accounts: ${keys.join(", ")}\n`);
  await new Promise<void>((resolve) => {
    const done = () => resolve();
    process.once("SIGINT", done);
    process.once("SIGTERM", done);
  });
  await sim.stop();
  await nats?.server.stop();
  return 0;
});
