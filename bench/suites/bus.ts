/**
 * The NATS bus (docs/bus.md): strategy → ack over NATS (a remote session through one local
 * nats-server) against the same over the gateway's WebSocket, in alternating blocks against the
 * trivial exchange stub; the drop copy's lag (gateway send → reader receipt, same host monotonic
 * clock) and the events/s a windowed burst produces. Processes: the stub and the gateway as in the
 * e2e suite (bench/lib/procs), nats-server, and this process as strategy and drop-copy reader.
 * Skipped (with a note) when no nats-server binary is installed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { findNatsServer } from "../../sim/index.js";
import { loadKeyPair } from "../../src/auth/keys.js";
import { inboxOf, roles } from "../../src/bus/permissions.js";
import { readDropCopy } from "../../src/bus/reader.js";
import { streamName } from "../../src/bus/subjects.js";
import { GatewayClient, natsTransport } from "../../src/client/index.js";
import { monoNs } from "../../src/protocol/clock.js";
import { NatsCluster } from "../../test/bus/natsCluster.js";
import { BENCH_SECRET } from "../lib/benchKeys.js";
import { ChildProc } from "../lib/child.js";
import { nodeLauncher } from "../lib/placement.js";
import { newHistogram, ratio, recordNs, summarize } from "../lib/stats.js";

export const name = "bus";

const here = dirname(fileURLToPath(import.meta.url));
const proc = (f: string) => join(here, "..", "lib", "procs", f);
const TOKEN = "bus-bench-token";
const PASS = "bus-bench-password";
const ACCOUNT = "bench";
const BLOCKS = 5;
const PER_BLOCK = 300;
const BURST = 3000;
const WINDOW = 64;

interface Tpl {
  instrumentId: number;
  side: number;
  priceTicks: number;
  qtyLots: number;
}

/** Sequential place → ack round trips on one client. */
async function block(
  c: GatewayClient,
  tpl: Tpl,
  n: number,
  h?: ReturnType<typeof newHistogram>,
): Promise<void> {
  for (let i = 0; i < n; i++) {
    const t0 = monoNs();
    const acked = new Promise<void>((r) => {
      const on = () => {
        c.off("ack", on);
        c.off("reject", on);
        r();
      };
      c.on("ack", on);
      c.on("reject", on);
    });
    c.placeOrder(tpl);
    await acked;
    if (h) recordNs(h, monoNs() - t0);
  }
}

export async function run(): Promise<Record<string, unknown>> {
  if (findNatsServer() === undefined)
    return { skipped: "no nats-server binary (Debian package nats-server)" };
  const users = [roles.gateway(ACCOUNT, "gw", PASS), roles.strategy(ACCOUNT, "strat", PASS, true)];
  const nats = await NatsCluster.start(1, users);
  const dir = mkdtempSync(join(tmpdir(), "hftgate-bus-bench-"));
  const procs: ChildProc[] = [];
  try {
    const venue = await ChildProc.start(nodeLauncher(null), proc("venue.js"), [
      loadKeyPair(BENCH_SECRET).apiKey,
    ]);
    procs.push(venue);
    const gw = await ChildProc.start(nodeLauncher(null), proc("gateway.js"), [
      `http://127.0.0.1:${(venue.info as { port: number }).port}`,
      TOKEN,
      JSON.stringify({
        "bus.nats.servers": nats.servers,
        "bus.nats.user": "gw",
        "bus.nats.password": PASS,
        "bus.account": ACCOUNT,
        "bus.dropCopy.spoolDir": join(dir, "dropcopy"),
      }),
    ]);
    procs.push(gw);
    const info = gw.info as { url: string; tpl: Tpl };
    const nc = await connect({
      servers: nats.servers,
      user: "strat",
      pass: PASS,
      inboxPrefix: inboxOf("strat"),
    });
    const ws = new GatewayClient({ url: info.url, token: TOKEN, sessionName: "bench-ws" });
    const bus = new GatewayClient({
      transport: natsTransport({ nc, account: ACCOUNT }),
      token: TOKEN,
      sessionName: "bench-nats",
    });
    await ws.connect();
    // The gateway joins the bus in the background: retry the remote logon until it answers.
    for (let i = 0; ; i++) {
      try {
        await bus.connect();
        break;
      } catch (err) {
        if (i >= 100) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const hWs = newHistogram();
    const hBus = newHistogram();
    await block(ws, info.tpl, PER_BLOCK);
    await block(bus, info.tpl, PER_BLOCK);
    for (let b = 0; b < BLOCKS; b++) {
      await block(ws, info.tpl, PER_BLOCK, hWs);
      await block(bus, info.tpl, PER_BLOCK, hBus);
    }
    // Drop copy: lag per event and the rate of a windowed burst, read live from the stream's end.
    const lag = newHistogram();
    let first = 0;
    let last = 0;
    let count = 0;
    let recording = false;
    // Start reading after everything the latency blocks produced (the stream's end, once it is still).
    const jsm = await jetstreamManager(nc);
    let lastSeq = -1;
    for (;;) {
      await new Promise((r) => setTimeout(r, 300));
      const now = (await jsm.streams.info(streamName(ACCOUNT))).state.last_seq;
      if (now === lastSeq) break;
      lastSeq = now;
    }
    const reader = await readDropCopy(nc, {
      account: ACCOUNT,
      fromSeq: lastSeq + 1,
      onEvent: (e) => {
        if (!recording) return;
        const now = monoNs();
        if (count === 0) first = now;
        last = now;
        count++;
        if (e.msg.header.sendNs > 0) recordNs(lag, now - e.msg.header.sendNs);
      },
    });
    recording = true;
    const t0 = monoNs();
    let sent = 0;
    let answered = 0;
    await new Promise<void>((done) => {
      const on = () => {
        answered++;
        if (sent < BURST) {
          sent++;
          ws.placeOrder(info.tpl);
        } else if (answered === BURST) done();
      };
      ws.on("ack", on);
      ws.on("reject", on);
      for (; sent < WINDOW; sent++) ws.placeOrder(info.tpl);
    });
    const until = Date.now() + 20_000;
    while (count < BURST && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const burstMs = Number(monoNs() - t0) / 1e6;
    await reader.stop();
    await ws.logout();
    await bus.logout();
    await nc.close();
    const sWs = summarize(hWs);
    const sBus = summarize(hBus);
    return {
      placement:
        "unpinned; strategy and reader in the bench process, gateway, stub and nats-server each in their own",
      ackWs: sWs,
      ackNats: sBus,
      natsOverWs: { p50: ratio(sBus.p50_us, sWs.p50_us), p99: ratio(sBus.p99_us, sWs.p99_us) },
      dropCopy: {
        events: count,
        eventsPerSec: count > 1 ? Math.round((count - 1) / (Number(last - first) / 1e9)) : 0,
        burstOrders: BURST,
        burstMs: Math.round(burstMs),
        /** Orders/s the burst itself reached (the drop copy cannot outpace what the gateway produces). */
        burstOrdersPerSec: Math.round(BURST / (burstMs / 1000)),
        lag: summarize(lag),
      },
    };
  } finally {
    for (const p of procs.reverse()) await p.stop().catch(() => {});
    await nats.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
