/**
 * In-process engine vs WebSocket: strategy → ack through the same engine in the same run, once with
 * the strategy on the in-process link (`EngineHandle.client()`, no socket) and once with the same
 * GatewayClient over the gateway's WebSocket on loopback. Strategy and engine share this process (and
 * its event loop) in both cases; the venue is the benchmark's trivial exchange stub in its own process,
 * so the figures isolate the gateway's cost. Floor, same run: a raw-socket HTTP round trip from this
 * process to the stub (what any order pays). Timed blocks alternate between the two transports.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { loadKeyPair } from "../../src/auth/keys.js";
import { GatewayClient } from "../../src/client/client.js";
import { loadConfig } from "../../src/config/load.js";
import { startEngine } from "../../src/index.js";
import { BENCH_SECRET, HFT_CREATE_BODY } from "../lib/benchKeys.js";
import { ChildProc } from "../lib/child.js";
import { openRawHttp, rawRequest, timeBlock } from "../lib/floors.js";
import { LegHistograms, OrderDriver } from "../lib/orderLoad.js";
import { nodeLauncher } from "../lib/placement.js";
import { progress } from "../lib/progress.js";
import { newHistogram, ratio, summarize } from "../lib/stats.js";

export const name = "inProcess";

const here = dirname(fileURLToPath(import.meta.url));
const TOKEN = "in-process-bench-token";
const BLOCKS = 10;
const PER_BLOCK = 500;
const WARM = 2_000;

export async function run(): Promise<Record<string, unknown>> {
  const apiKey = loadKeyPair(BENCH_SECRET).apiKey;
  const venue = await ChildProc.start(nodeLauncher(null), join(here, "..", "lib", "procs", "venue.js"), [
    apiKey,
  ]);
  const dir = mkdtempSync(join(tmpdir(), "hftgate-inproc-bench-"));
  const stubPort = venue.info.port as number;
  const stubUrl = `http://127.0.0.1:${stubPort}`;
  const h = await startEngine(
    loadConfig({
      env: {},
      overrides: {
        "venue.kind": "exchange",
        "venue.spotBaseUrl": stubUrl,
        "venue.hftBaseUrl": stubUrl,
        "venue.streamUrl": stubUrl,
        "keys.secretKey": BENCH_SECRET,
        "gateway.port": 0,
        "gateway.token": TOKEN,
        "journal.dir": join(dir, "journal"),
        // As the e2e suite: the exchange's own rate limits would throttle any benchmark, and the
        // pollers would page through the resting orders that accumulate.
        "limits.enabled": false,
        "risk.maxOpenOrdersPerSession": 1_000_000,
        "risk.maxOpenOrdersPerInstrument": 1_000_000,
        "risk.priceBandBps": 0,
        "orders.hftQueryAfterAck": false,
        "streams.enabled": false,
        "streams.pollIntervalMs": 60_000,
        "log.level": "warn",
      },
    }),
    { logger: pino({ level: "warn" }, pino.destination(2)) },
  );
  const floor = await openRawHttp(
    stubPort,
    rawRequest(
      "POST",
      "/v5/order/create",
      stubPort,
      ["content-type", "application/json", "x-auth-apikey", apiKey, "x-auth-signature", "0".repeat(128)],
      JSON.stringify(HFT_CREATE_BODY),
    ),
  );
  const local = h.client({ sessionName: "bench-in-process", heartbeatMs: 5_000 });
  const ws = new GatewayClient({ url: h.url, token: TOKEN, sessionName: "bench-ws", heartbeatMs: 5_000 });
  try {
    await local.connect();
    await ws.connect();
    const btc = h.instruments.all().find((i) => i.surface === "hft" && i.symbol === "BTCUSDT");
    if (!btc) throw new Error("venue lists no HFT BTCUSDT");
    const tpl = { instrumentId: btc.id, side: 1, priceTicks: 10_000, qtyLots: 5 };
    const drivers = { in_process: new OrderDriver(local, tpl), websocket: new OrderDriver(ws, tpl) };
    const legs = { in_process: new LegHistograms(), websocket: new LegHistograms() };
    const hHttp = newHistogram();
    await drivers.in_process.sequential(WARM);
    await drivers.websocket.sequential(WARM);
    await timeBlock(floor, WARM);
    const bar = progress(name, BLOCKS);
    for (let b = 0; b < BLOCKS; b++) {
      await drivers.in_process.sequential(PER_BLOCK, legs.in_process);
      await drivers.websocket.sequential(PER_BLOCK, legs.websocket);
      await timeBlock(floor, PER_BLOCK, hHttp);
      bar.step();
    }
    bar.done();
    for (const [k, d] of Object.entries(drivers)) {
      if (d.answers.acks !== WARM + BLOCKS * PER_BLOCK)
        throw new Error(`${k}: not every order was acked (${JSON.stringify(d.answers)})`);
    }
    const inProc = legs.in_process.summary();
    const overWs = legs.websocket.summary();
    const http = summarize(hHttp);
    return {
      placement: "strategy and engine in this process (unpinned); exchange stub in a child process",
      orders_per_transport: BLOCKS * PER_BLOCK,
      floor_http_raw_socket: http,
      in_process: inProc,
      websocket: overWs,
      ratio_p50_in_process_vs_websocket: ratio(inProc.total!.p50_us, overWs.total!.p50_us),
      ratio_p99_in_process_vs_websocket: ratio(inProc.total!.p99_us, overWs.total!.p99_us),
      ratio_p50_vs_http_floor: {
        in_process: ratio(inProc.total!.p50_us, http.p50_us),
        websocket: ratio(overWs.total!.p50_us, http.p50_us),
      },
      saved_p50_us: Math.round((overWs.total!.p50_us - inProc.total!.p50_us) * 100) / 100,
    };
  } finally {
    floor.close();
    await local.close().catch(() => {});
    await ws.close().catch(() => {});
    await h.stop("bench");
    await venue.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
