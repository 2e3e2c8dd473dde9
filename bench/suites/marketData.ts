/**
 * Market data fan-out to 8 sessions: a venue publish (the simulator's own emit of one public trade,
 * Spot over Socket.IO, HFT over NATS through a real nats-server) → gateway (adapter, hub, one encode)
 * → each of 8 TypeScript client sessions, timed to the client's `trade` event (frame decoded). One
 * print at a time: the next is published once all 8 sessions have the previous one. Everything runs
 * in this one process (simulator, gateway, 8 clients, and nats-server's process for HFT), so the 8
 * receipts are serialised on one event loop: the p99 is the 8th session's.
 * Floor, same run: a bare WebSocket fan-out of an 85-byte binary frame to 8 clients on the same
 * server kind the gateway uses (uWebSockets.js when native, else `ws`), same process, same timing.
 */

import type * as UWS from "uWebSockets.js";
import { createRequire } from "node:module";
import type { RecordableHistogram } from "node:perf_hooks";
import WebSocket, { WebSocketServer } from "ws";
import { findNatsServer, NatsServer } from "../../sim/index.js";
import { GatewayClient } from "../../src/client/index.js";
import { loadConfig } from "../../src/config/load.js";
import { detectUws } from "../../src/gateway/native.js";
import { type EngineHandle, startEngine } from "../../src/index.js";
import { monoNs } from "../../src/protocol/clock.js";
import { MdFlags, MdStatus } from "../../src/protocol/schema.js";
import { newHistogram, ratio, recordNs, summarize } from "../lib/stats.js";

export const name = "marketData";

const SESSIONS = 8;
const ROUNDS = 3_000;
const WARMUP = 300;
const PUBLISHER = { user: "bench-publisher", password: "bench-publisher-pw-md" };

/** Publishes one round and resolves when every receiver has it (each records its own latency). */
interface FanOut {
  round(h: RecordableHistogram | undefined): Promise<void>;
  close(): Promise<void>;
}

async function run(f: FanOut): Promise<ReturnType<typeof summarize>> {
  for (let i = 0; i < WARMUP; i++) await f.round(undefined);
  const h = newHistogram();
  for (let i = 0; i < ROUNDS; i++) await f.round(h);
  await f.close();
  return summarize(h);
}

/** Shared by both: `SESSIONS` receivers, each calls `got(ns)` once per round. */
function barrier() {
  let left = 0;
  let t0 = 0;
  let hist: RecordableHistogram | undefined;
  let done: (() => void) | undefined;
  return {
    start(h: RecordableHistogram | undefined): Promise<void> {
      hist = h;
      left = SESSIONS;
      return new Promise<void>((r) => {
        done = r;
        t0 = monoNs();
      });
    },
    get t0() {
      return t0;
    },
    got(): void {
      if (hist !== undefined) recordNs(hist, monoNs() - t0);
      if (--left === 0) done?.();
    },
  };
}

async function wsFloor(): Promise<FanOut> {
  const frame = Buffer.alloc(85, 7);
  const b = barrier();
  const native = detectUws().native;
  const clients: WebSocket[] = [];
  let send: () => void;
  let stop: () => Promise<void>;
  let port: number;
  if (native) {
    const uws = createRequire(import.meta.url)("uWebSockets.js") as typeof UWS;
    const conns: UWS.WebSocket<unknown>[] = [];
    const app = uws.App().ws("/*", { open: (ws) => void conns.push(ws), compression: uws.DISABLED });
    const ls = await new Promise<UWS.us_listen_socket>((r, j) =>
      app.listen("127.0.0.1", 0, (s) => (s ? r(s) : j(new Error("uws listen")))),
    );
    port = uws.us_socket_local_port(ls as unknown as UWS.us_socket);
    send = () => {
      for (const c of conns) c.cork(() => c.send(frame, true));
    };
    stop = async () => uws.us_listen_socket_close(ls);
  } else {
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
    await new Promise<void>((r) => wss.once("listening", () => r()));
    port = (wss.address() as { port: number }).port;
    send = () => {
      for (const c of wss.clients) c.send(frame, { binary: true });
    };
    stop = () => new Promise<void>((r) => wss.close(() => r()));
  }
  for (let i = 0; i < SESSIONS; i++) {
    const c = new WebSocket(`ws://127.0.0.1:${port}/`, { perMessageDeflate: false });
    c.binaryType = "nodebuffer";
    c.on("message", () => b.got());
    await new Promise<void>((r) => c.once("open", () => r()));
    clients.push(c);
  }
  await new Promise((r) => setTimeout(r, 50));
  return {
    round(h) {
      const p = b.start(h);
      send();
      return p;
    },
    async close() {
      for (const c of clients) c.terminate();
      await stop();
    },
  };
}

async function engine(server: NatsServer | undefined): Promise<EngineHandle> {
  const config = loadConfig({
    env: {},
    overrides: {
      "gateway.port": 0,
      "gateway.token": "bench-token-marketdata",
      "journal.enabled": false,
      "signing.presign": false,
      "sim.syntheticMarket": false,
      "sim.tickMs": 0,
      "sim.nats": "off",
      "streams.hftNats.enabled": server !== undefined,
      "log.level": "silent",
    },
  });
  return startEngine(config, {
    sim:
      server !== undefined
        ? { nats: { url: server.wsUrl, ...PUBLISHER, authority: (u) => server.setUsers(u) } }
        : {},
  });
}

/** 8 sessions subscribed to one instrument; each round the simulator publishes one print. */
async function gatewayFanOut(h: EngineHandle, venue: string, symbol: string): Promise<FanOut> {
  const inst = h.instruments.all().find((i) => i.venue === venue && i.symbol === symbol)!;
  const sim = h.sim!;
  const surface = inst.surface === "spot" ? "spot" : "hft";
  const book = sim.exchange.book(surface, venue, symbol)!;
  const publishTrade = sim.exchange.listener!.trade.bind(sim.exchange.listener);
  if (surface === "hft") sim.market.step(); // a depth message: the instrument goes live
  const b = barrier();
  const clients: GatewayClient[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const c = new GatewayClient({ url: h.url, token: h.token, sessionName: `md-bench-${i}` });
    await c.connect();
    const live = new Promise<void>((r) =>
      c.on("marketDataStatus", (s) => {
        if (s.status === MdStatus.Live) r();
      }),
    );
    c.on("trade", (t) => {
      if ((t.flags & MdFlags.Snapshot) === 0) b.got();
    });
    await c.subscribe(inst.id);
    await live;
    clients.push(c);
  }
  let n = 0;
  const base = book.lastTicks;
  return {
    round(hist) {
      n++;
      const p = b.start(hist);
      publishTrade(book, {
        time: Date.now(),
        priceTicks: base + (n % 50),
        lots: 1 + (n % 3),
        takerBuy: n % 2 === 0,
        id: 1e9 + n,
      });
      return p;
    },
    async close() {
      for (const c of clients) await c.close();
    },
  };
}

export async function runSuite(): Promise<Record<string, unknown>> {
  const floor = await run(await wsFloor());
  const bin = findNatsServer();
  const server = bin !== undefined ? await NatsServer.start({ users: [PUBLISHER], bin }) : undefined;
  const h = await engine(server);
  try {
    const spot = await run(await gatewayFanOut(h, "coinswitchx", "BTC/INR"));
    const hft = server !== undefined ? await run(await gatewayFanOut(h, "linear", "BTCUSDT")) : undefined;
    const floor2 = await run(await wsFloor());
    return {
      sessions: SESSIONS,
      rounds: ROUNDS,
      placement: "one process (simulator, gateway, 8 clients); nats-server its own process",
      transport: h.gateway.transportKind,
      floor_ws_fanout_before: floor,
      floor_ws_fanout_after: floor2,
      spot_socketio_to_8_sessions: spot,
      spot_ratio_p50: ratio(spot.p50_us, Math.min(floor.p50_us, floor2.p50_us)),
      spot_ratio_p99: ratio(spot.p99_us, Math.min(floor.p99_us, floor2.p99_us)),
      ...(hft !== undefined
        ? {
            hft_nats_to_8_sessions: hft,
            hft_ratio_p50: ratio(hft.p50_us, Math.min(floor.p50_us, floor2.p50_us)),
            hft_ratio_p99: ratio(hft.p99_us, Math.min(floor.p99_us, floor2.p99_us)),
          }
        : { hft_nats_to_8_sessions: "skipped: no nats-server installed" }),
      gatewayFrames: h.gateway.md.stats.frames,
    };
  } finally {
    await h.stop("bench");
    await server?.stop();
  }
}
export { runSuite as run };
