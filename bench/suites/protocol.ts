/**
 * Protocol suite: codec cost per message type, and a WebSocket round trip through the gateway for
 * commands answered without the exchange (Heartbeat echo, Query) against a raw uWebSockets.js echo
 * server measured in the same run. Servers run in child processes; everything is pinned to CPU 0
 * with taskset when available (docs/benchmarks.md, placement, on why it matters).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import { GatewayClient } from "../../src/client/client.js";
import { COMPILED, decodeC2G, decodeG2C, encodeC2G, encodeG2C } from "../../src/protocol/codec.js";
import { type C2GName, type G2CName, MESSAGES, WS_PATH } from "../../src/protocol/schema.js";
import { type LatencySummary, newHistogram, ratio, recordNs, summarize, timeSync } from "../lib/stats.js";

export const name = "protocol";

const here = dirname(fileURLToPath(import.meta.url));
const distSrc = join(here, "..", "..", "src");
const TOKEN = "bench-token";

function hasTaskset(): boolean {
  try {
    execFileSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

interface Placement {
  cmd: string;
  args: string[];
  note: string;
  /** Restores this process's CPU affinity (the bench runner runs other suites afterwards). */
  restore(): void;
}

/** Pins this process to CPU 0 and returns how children must be launched. */
function placement(): Placement {
  if (!hasTaskset()) {
    return { cmd: process.execPath, args: [], note: "unpinned (taskset not available)", restore: () => {} };
  }
  const pid = String(process.pid);
  const before = /:\s*(\S+)\s*$/.exec(execFileSync("taskset", ["-cp", pid]).toString())?.[1];
  execFileSync("taskset", ["-cp", "0", pid], { stdio: "ignore" });
  return {
    cmd: "taskset",
    args: ["-c", "0", process.execPath],
    note: "bench client and every server pinned to CPU 0 (taskset -c 0)",
    restore: () => {
      if (before) execFileSync("taskset", ["-cp", before, pid], { stdio: "ignore" });
    },
  };
}

function spawnServer(launch: { cmd: string; args: string[] }, code: string): Promise<[ChildProcess, number]> {
  const child = spawn(launch.cmd, [...launch.args, "--input-type=module", "-e", code], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve([child, Number(m[1])]);
    });
    child.once("exit", (c) => reject(new Error(`server exited early (${c})`)));
  });
}

const ECHO_SERVER = `
import { createRequire } from "node:module";
const uws = createRequire(${JSON.stringify(join(distSrc, "x.js"))})("uWebSockets.js");
uws.App().ws("${WS_PATH}", {
  compression: uws.DISABLED, idleTimeout: 0,
  message: (ws, msg, isBinary) => { ws.send(msg, isBinary); },
}).listen("127.0.0.1", 0, (ls) => { process.stdout.write("PORT " + uws.us_socket_local_port(ls) + "\\n"); });
`;

function gatewayServer(transport: "auto" | "ws"): string {
  return `
const { Gateway } = await import(${JSON.stringify(join(distSrc, "gateway", "index.js"))});
const engine = {
  instruments: () => [],
  onLogon() {}, onNewOrder() {}, onCancel() {}, onCancelAll() {},
  onQuery: () => [], onDisconnect() {},
};
const gw = new Gateway(engine, { token: ${JSON.stringify(TOKEN)}, port: 0, transport: "${transport}",
  logger: { info() {}, warn() {} } });
await gw.start();
process.stdout.write("PORT " + gw.port + " " + gw.transportKind + "\\n");
`;
}

async function openWs(port: number): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${WS_PATH}`, { perMessageDeflate: false });
  ws.binaryType = "nodebuffer";
  await new Promise<void>((res, rej) => {
    ws.once("open", () => res());
    ws.once("error", rej);
  });
  return ws;
}

/** Sends `frame`, waits for the next message; repeats. One outstanding request at a time. */
async function roundTrips(ws: WebSocket, frame: Buffer, n: number, warmup: number): Promise<LatencySummary> {
  const h = newHistogram();
  let resolveNext: (() => void) | undefined;
  const onMsg = () => resolveNext?.();
  ws.on("message", onMsg);
  for (let i = 0; i < warmup + n; i++) {
    const t0 = process.hrtime.bigint();
    await new Promise<void>((r) => {
      resolveNext = r;
      ws.send(frame);
    });
    if (i >= warmup) recordNs(h, process.hrtime.bigint() - t0);
  }
  ws.off("message", onMsg);
  return summarize(h);
}

/** Pipelined burst: sends `n` frames at once and times until `n` answers arrived; returns messages/s. */
async function burst(ws: WebSocket, frame: Buffer, n: number): Promise<number> {
  let got = 0;
  const t0 = process.hrtime.bigint();
  await new Promise<void>((res) => {
    const onMsg = () => {
      if (++got === n) {
        ws.off("message", onMsg);
        res();
      }
    };
    ws.on("message", onMsg);
    for (let i = 0; i < n; i++) ws.send(frame);
  });
  return Math.round(n / (Number(process.hrtime.bigint() - t0) / 1e9));
}

async function logonRaw(ws: WebSocket, sessionName: string): Promise<void> {
  await new Promise<void>((res) => {
    ws.once("message", () => res());
    ws.send(
      Buffer.from(
        encodeC2G("Logon", {
          token: TOKEN,
          sessionName,
          heartbeatMs: 60_000,
          codPolicy: 0,
          resumeFromSeq: 0,
          options: 0,
        }),
      ),
    );
  });
}

const SAMPLE_STR: Record<string, string> = {
  token: "bench-token",
  sessionName: "bench",
  exchangeOrderId: "6a1f0c2e-1111-4b7e-9a55-0123456789ab",
  execId: "exec-123456",
  text: "rejected",
  feeAsset: "USDT",
  asset: "INR",
};

function sampleBody(n: (typeof MESSAGES)[number]): Record<string, unknown> {
  const b: Record<string, unknown> = {};
  for (const [f, k] of n.fields) b[f] = k.startsWith("char") ? (SAMPLE_STR[f] ?? "x") : 1;
  if ("items" in n) b.instruments = [];
  return b;
}

function codecCosts(iter: number): Record<string, unknown> {
  const floor = timeSync(() => 0, iter);
  const out: Record<string, unknown> = { timer_floor: floor };
  const hdr = { sessionId: 1, seq: 1, recvNs: 1, sendNs: 2 };
  for (const m of MESSAGES) {
    if ("items" in m) continue;
    const body = sampleBody(m);
    const c2g = m.dir === "c2g";
    const enc = c2g
      ? () => encodeC2G(m.name as C2GName, body as never)
      : () => encodeG2C(m.name as G2CName, hdr, body as never);
    const bytes = Buffer.from(enc());
    const dec = c2g ? () => decodeC2G(bytes) : () => decodeG2C(bytes);
    out[m.name] = {
      bytes: COMPILED[m.name].fixedSize,
      encode: timeSync(enc, iter),
      decode: timeSync(dec, iter),
    };
  }
  return out;
}

export async function run(): Promise<Record<string, unknown>> {
  const launch = placement();
  const codec = codecCosts(50_000);
  const N = 20_000;
  const W = 2_000;
  const B = 50_000;
  const children: ChildProcess[] = [];
  try {
    const [echo, echoPort] = await spawnServer(launch, ECHO_SERVER);
    children.push(echo);
    const [gwNative, gwPort] = await spawnServer(launch, gatewayServer("auto"));
    children.push(gwNative);
    const [gwWs, gwWsPort] = await spawnServer(launch, gatewayServer("ws"));
    children.push(gwWs);

    const hb = Buffer.from(encodeC2G("Heartbeat", { echo: 7 }));
    const q = Buffer.from(encodeC2G("Query", { requestId: 1, scope: 2, clOrdNo: 0 }));

    const e = await openWs(echoPort);
    const floor = await roundTrips(e, hb, N, W);
    const floorBurst = await burst(e, hb, B);
    e.close();

    const g = await openWs(gwPort);
    await logonRaw(g, "bench-native");
    const gwHeartbeat = await roundTrips(g, hb, N, W);
    const gwQuery = await roundTrips(g, q, N, W); // answered by QueryEnd (engine.onQuery returns nothing)
    const gwBurst = await burst(g, hb, B);
    g.close();

    const f = await openWs(gwWsPort);
    await logonRaw(f, "bench-ws");
    const wsHeartbeat = await roundTrips(f, hb, N, W);
    const wsBurst = await burst(f, hb, B);
    f.close();

    // The same probe through the TypeScript client (its decode, events and promise included).
    const c = new GatewayClient({
      url: `ws://127.0.0.1:${gwPort}`,
      token: TOKEN,
      sessionName: "bench-client",
    });
    await c.connect();
    for (let i = 0; i < W; i++) await c.ping();
    const h = newHistogram();
    for (let i = 0; i < N; i++) recordNs(h, await c.ping());
    const clientPing = summarize(h);
    await c.close();

    return {
      placement: launch.note,
      codec_ns_note: "per single call incl. ~timer_floor of hrtime overhead",
      codec,
      ws_round_trip: {
        frame_bytes: hb.length,
        floor_uws_echo: floor,
        gateway_uws_heartbeat_echo: gwHeartbeat,
        gateway_uws_query_all_live: gwQuery,
        gateway_ws_fallback_heartbeat_echo: wsHeartbeat,
        client_ping_via_GatewayClient: clientPing,
        ratio_p50_heartbeat_vs_floor: ratio(gwHeartbeat.p50_us, floor.p50_us),
        ratio_p50_query_vs_floor: ratio(gwQuery.p50_us, floor.p50_us),
        ratio_p50_ws_fallback_vs_floor: ratio(wsHeartbeat.p50_us, floor.p50_us),
        ratio_p99_heartbeat_vs_floor: ratio(gwHeartbeat.p99_us, floor.p99_us),
      },
      pipelined_burst_msgs_per_s: {
        n: B,
        floor_uws_echo: floorBurst,
        gateway_uws_heartbeat_echo: gwBurst,
        gateway_ws_fallback_heartbeat_echo: wsBurst,
        ratio_gateway_vs_floor: ratio(gwBurst, floorBurst),
        ratio_ws_fallback_vs_floor: ratio(wsBurst, floorBurst),
      },
    };
  } finally {
    for (const ch of children) ch.kill();
    launch.restore();
  }
}
