/**
 * The strategy process of the end-to-end benchmark: a GatewayClient placing orders through the
 * gateway, the WebSocket echo floor (strategy → a uWebSockets.js echo placed where the gateway runs)
 * and the exchange's reference-client pattern (strategy → exchange directly, fetch + sign per call).
 *
 * Commands: connect, wsBlock, orderBlock, windowed, reference, results. Ready info: { pid }.
 */
import { loadKeyPair } from "../../../src/auth/keys.js";
import { GatewayClient } from "../../../src/client/client.js";
import { encodeC2G } from "../../../src/protocol/codec.js";
import { BENCH_SECRET, HFT_CREATE_BODY } from "../benchKeys.js";
import { serveChild } from "../child.js";
import { openWsEcho, type RoundTripper, referenceClient, timeBlock } from "../floors.js";
import { LegHistograms, OrderDriver, type OrderTemplate } from "../orderLoad.js";
import { newHistogram, summarize } from "../stats.js";

const keys = loadKeyPair(BENCH_SECRET);
let client: GatewayClient | undefined;
let driver: OrderDriver | undefined;
let echo: RoundTripper | undefined;
let windowWarm = false;
let hWs = newHistogram();
let legs = new LegHistograms();

/** A NewOrder frame: the WS floor echoes frames of the size an order really has. */
const ORDER_FRAME = Buffer.from(
  encodeC2G("NewOrder", {
    clOrdNo: 1,
    instrumentId: 1,
    side: 1,
    ordType: 1,
    tif: 1,
    positionIdx: 0,
    priceTicks: 1,
    qtyLots: 1,
    flags: 0,
  }),
);

function needDriver(): OrderDriver {
  if (!driver) throw new Error("connect first");
  return driver;
}

serveChild(
  { pid: process.pid },
  {
    async connect(a) {
      client = new GatewayClient({
        url: a.url as string,
        token: a.token as string,
        sessionName: (a.session as string | undefined) ?? "e2e-bench",
        heartbeatMs: 5_000,
      });
      await client.connect();
      const insts = await client.instruments();
      driver = new OrderDriver(client, a.tpl as OrderTemplate);
      return { instruments: insts.length };
    },
    async wsBlock(a) {
      echo ??= await openWsEcho(a.port as number, ORDER_FRAME);
      await timeBlock(echo, a.n as number, a.record ? hWs : undefined);
      return null;
    },
    async orderBlock(a) {
      await needDriver().sequential(a.n as number, a.record ? legs : undefined);
      return null;
    },
    /** Summaries of everything recorded since the last call; resets the histograms. */
    results() {
      const out = {
        ws_echo_floor: summarize(hWs),
        order: legs.summary(),
        answers: driver ? { ...driver.answers } : undefined,
        frame_bytes: ORDER_FRAME.length,
      };
      hWs = newHistogram();
      legs = new LegHistograms();
      return out;
    },
    async windowed(a) {
      const d = needDriver();
      if (!windowWarm) await d.windowed(Math.min(2_000, a.n as number), a.window as number);
      windowWarm = true;
      const before = { ...d.answers };
      const r = await d.windowed(a.n as number, a.window as number);
      return {
        ...r,
        window: a.window,
        acks: d.answers.acks - before.acks,
        rejects: d.answers.rejects - before.rejects,
        unknowns: d.answers.unknowns - before.unknowns,
        first_reject: d.answers.firstReject,
      };
    },
    async reference(a) {
      const rt = referenceClient(
        `http://127.0.0.1:${a.port as number}`,
        "/v5/order/create",
        keys.apiKey,
        keys.privateKey,
        HFT_CREATE_BODY,
      );
      await timeBlock(rt, a.warm as number);
      const h = newHistogram();
      await timeBlock(rt, a.n as number, h);
      return summarize(h);
    },
  },
  async () => {
    echo?.close();
    await client?.close();
  },
);
