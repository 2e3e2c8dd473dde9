/**
 * HFT private streams (NATS) vs the 1 s realtime poll, gateway in-process against the simulator, the
 * stream served by the simulator's built-in NATS endpoint and by a real nats-server (when installed):
 *  - resting HFT order → the strategy's Fill, timed from just before another account's crossing create
 *    is sent (its REST round trip is in both figures), the order resting 100–1,100 ms first, stream
 *    vs poll;
 *  - HFT state queries (`/v5/order/realtime` + `/v5/execution/list`) per minute with 100 live resting
 *    orders, stream trusted vs no stream, counted at the simulator over a 30 s window.
 * Floor: the counterparty's own create round trip in the same run.
 */

import {
  findNatsServer,
  type NatsBackend,
  type NatsBackendKind,
  simNatsOptions,
  startNatsBackend,
} from "../../sim/index.js";
import { generateKeyHex } from "../../src/auth/keygen.js";
import { loadKeyPair } from "../../src/auth/keys.js";
import { GatewayClient } from "../../src/client/index.js";
import { loadConfig } from "../../src/config/load.js";
import type { StreamsFeed } from "../../src/engine/streamsFeed.js";
import { type EngineHandle, startEngine } from "../../src/index.js";
import { Side } from "../../src/protocol/schema.js";
import { makeGrid } from "../../src/venue/orderFields.js";
import { createRestStack } from "../../src/venue/stack.js";
import { newHistogram, recordNs, summarize } from "../lib/stats.js";

export const name = "hftStream";

const PUBLISHER = { user: "bench-publisher", password: "bench-publisher-pw-77" };
const FILLS = 40;
const WINDOW_MS = 30_000;

async function engine(stream: boolean, server: NatsBackend | undefined): Promise<EngineHandle> {
  const config = loadConfig({
    env: {},
    overrides: {
      "gateway.port": 0,
      "gateway.token": "bench-token-hftstream",
      "journal.enabled": false,
      "signing.presign": false,
      "sim.syntheticMarket": false,
      "sim.tickMs": 0,
      "sim.nats": "off",
      "streams.hftNats.enabled": stream,
      "log.level": "silent",
    },
  });
  return startEngine(config, {
    sim: stream && server !== undefined ? { nats: simNatsOptions(server, PUBLISHER) } : {},
  });
}

const until = async (cond: () => boolean, ms: number): Promise<void> => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
};

async function measure(server: NatsBackend | undefined): Promise<Record<string, unknown>> {
  const stream = server !== undefined;
  const h = await engine(stream, server);
  const sync = (h.feeds[0] as StreamsFeed).sync;
  if (stream) await until(() => sync.hftTrusted, 15_000);
  const kp = generateKeyHex();
  h.sim!.registerAccount(kp.apiKey);
  const other = createRestStack({
    keys: loadKeyPair(kp.secretKey),
    spotBaseUrl: h.sim!.baseUrl,
    hftBaseUrl: h.sim!.baseUrl,
    presign: false,
    clock: false,
  });
  const c = new GatewayClient({
    url: h.url,
    token: "bench-token-hftstream",
    sessionName: "bench-hft",
    heartbeatMs: 1000,
  });
  await c.connect();
  const btc = h.instruments.all().find((i) => i.venue === "linear" && i.symbol === "BTCUSDT")!.id;
  const grid = makeGrid("0.1", "0.001");
  const lat = newHistogram();
  const rtt = newHistogram();
  try {
    for (let i = 0; i < FILLS; i++) {
      const acked = new Promise<void>((r) => c.once("ack", () => r()));
      c.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: 640_000, qtyLots: 1 });
      await acked;
      // The order rests a while (uniform 100–1,100 ms) before it is hit, as a quote is hit at a random
      // moment; right after the ack an HFT query is due anyway, which would flatter the poll figure.
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 1_000));
      const filled = new Promise<bigint>((r) => c.once("fill", () => r(process.hrtime.bigint())));
      const t0 = process.hrtime.bigint();
      await other.client.createHftOrder(
        {
          category: "linear",
          symbol: "BTCUSDT",
          side: "sell",
          orderType: "limit",
          qty: "0.001",
          price: "64000",
          positionIdx: 0,
          timeInForce: "GTC",
        },
        grid,
      );
      recordNs(rtt, process.hrtime.bigint() - t0);
      recordNs(lat, (await filled) - t0);
    }
    // 100 live resting orders, then count the state queries the gateway makes.
    for (let i = 0; i < 100; i++) {
      // Inside the risk price band, below anything the counterparty sells at; a throttle reject
      // (the gateway's own HFT create bucket) is retried after its hint.
      for (;;) {
        const answer = new Promise<number>((r) => {
          const onAck = () => done(0);
          const onReject = (b: { retryable?: number | boolean }) => done(b.retryable ? 50 : -1);
          const done = (v: number) => {
            c.off("ack", onAck);
            c.off("reject", onReject);
            r(v);
          };
          c.on("ack", onAck);
          c.on("reject", onReject);
        });
        c.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: 639_000 - i, qtyLots: 1 });
        const wait = await answer;
        if (wait === 0) break;
        if (wait < 0) throw new Error("resting order refused");
        await new Promise((r) => setTimeout(r, wait));
      }
    }
    await new Promise((r) => setTimeout(r, 2_000));
    const q = () =>
      h.sim!.counters.requests("GET /v5/order/realtime") + h.sim!.counters.requests("GET /v5/execution/list");
    const before = q();
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    const perMin = ((q() - before) * 60_000) / WINDOW_MS;
    return {
      source: server === undefined ? "1 s realtime poll" : `NATS stream (${server.kind})`,
      restingFillToStrategy: summarize(lat),
      floorCounterpartyCreateRtt: summarize(rtt),
      hftStateQueriesPerMinute_100live: perMin,
    };
  } finally {
    await c.close().catch(() => {});
    await other.stop();
    await h.stop("bench");
  }
}

async function viaBackend(kind: NatsBackendKind): Promise<Record<string, unknown>> {
  const server = await startNatsBackend(kind, [PUBLISHER]);
  try {
    return await measure(server);
  } finally {
    await server.stop();
  }
}

export async function run(): Promise<Record<string, unknown>> {
  const viaBuiltin = await viaBackend("builtin");
  const viaNatsServer =
    findNatsServer() === undefined
      ? { skipped: "nats-server not installed (apt-get install nats-server)" }
      : await viaBackend("nats-server");
  const viaPoll = await measure(undefined);
  return { viaBuiltin, viaNatsServer, viaPoll };
}
