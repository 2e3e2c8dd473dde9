/**
 * The strategy process of the end-to-end benchmark: a GatewayClient placing orders through the
 * gateway, the WebSocket echo floor (strategy → a uWebSockets.js echo placed where the gateway runs)
 * and the exchange's reference-client pattern (strategy → exchange directly, fetch + sign per call).
 *
 * Commands: connect, wsBlock, orderBlock, cancelBlock, windowed, windowedCancels, loadStart, loadStop,
 * reference, results; bareConnect, bareBlock, bareCancelBlock, bareWindowed, bareResults for the bare
 * forwarder floors (procs/bare.ts), one driver per variant; bareConnectGateway drives the gateway with
 * that same driver. Ready info: { pid }.
 */
import { loadKeyPair } from "../../../src/auth/keys.js";
import { GatewayClient } from "../../../src/client/client.js";
import { encodeC2G } from "../../../src/protocol/codec.js";
import { BackgroundLoad } from "../background.js";
import { BareDriver } from "../bareLoad.js";
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
let hCancel = newHistogram();
let legs = new LegHistograms();
let spotTpl: OrderTemplate | undefined;
let load: BackgroundLoad | undefined;

/** The bare forwarders by variant ("off", "sync") and what was recorded through each. */
interface BareState {
  driver: BareDriver;
  legs: LegHistograms;
  cancel: ReturnType<typeof newHistogram>;
}
const bares = new Map<string, BareState>();
function bare(key: unknown): BareState {
  const b = bares.get(key as string);
  if (!b) throw new Error(`bare forwarder ${String(key)} not connected`);
  return b;
}

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
        // Long: a gateway held up by the load phase on a busy machine must not be taken for gone.
        heartbeatMs: 20_000,
      });
      await client.connect();
      const insts = await client.instruments();
      driver = new OrderDriver(client, a.tpl as OrderTemplate);
      spotTpl = a.spotTpl as OrderTemplate | undefined;
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
    /** Spot order placed (untimed), then Cancel → Cancelled timed; see OrderDriver.sequentialCancels. */
    async cancelBlock(a) {
      if (!spotTpl) throw new Error("no Spot order template");
      await needDriver().sequentialCancels(a.n as number, spotTpl, a.record ? hCancel : undefined);
      return null;
    },
    /** Summaries of everything recorded since the last call; resets the histograms. */
    results() {
      const out = {
        ws_echo_floor: summarize(hWs),
        order: legs.summary(),
        cancel: hCancel.count > 0 ? summarize(hCancel) : undefined,
        answers: driver ? { ...driver.answers } : undefined,
        frame_bytes: ORDER_FRAME.length,
      };
      hWs = newHistogram();
      hCancel = newHistogram();
      legs = new LegHistograms();
      return out;
    },
    /** `n` Spot orders placed (untimed, `window` in flight), then all cancelled with `window` in flight. */
    async windowedCancels(a) {
      if (!spotTpl) throw new Error("no Spot order template");
      const d = needDriver();
      const live: number[] = [];
      await d.windowed(a.n as number, a.window as number, spotTpl, live);
      const before = { ...d.answers };
      const r = await d.windowedCancels(live, a.window as number);
      return {
        ...r,
        window: a.window,
        cancelled: d.answers.cancelled - before.cancelled,
        cancel_rejects: d.answers.cancelRejects - before.cancelRejects,
        first_reject: d.answers.firstReject,
      };
    },
    /** Background traffic through this session (the load of the latency-under-load measurement). */
    loadStart(a) {
      if (!client) throw new Error("connect first");
      load = new BackgroundLoad(
        client,
        a.tpl as OrderTemplate,
        a.spotTpl as OrderTemplate,
        a.rate as number,
        a.spotEvery as number,
      );
      load.start();
      return null;
    },
    loadStop() {
      const r = load?.stop();
      load = undefined;
      return r ?? null;
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
    async bareConnect(a) {
      const driver = await BareDriver.open(a.port as number, a.tpl as OrderTemplate);
      bares.set(a.key as string, { driver, legs: new LegHistograms(), cancel: newHistogram() });
      return null;
    },
    /** The gateway driven like a bare forwarder (same driver code), as its own session, under `key`. */
    async bareConnectGateway(a) {
      const driver = await BareDriver.openGateway(
        a.url as string,
        { token: a.token as string, sessionName: a.session as string, options: a.options as number },
        a.tpl as OrderTemplate,
        a.spotTpl as OrderTemplate,
      );
      bares.set(a.key as string, { driver, legs: new LegHistograms(), cancel: newHistogram() });
      return null;
    },
    async bareBlock(a) {
      const b = bare(a.key);
      if (!a.record) b.driver.heartbeats();
      await b.driver.sequential(a.n as number, a.record ? b.legs : undefined);
      return null;
    },
    async bareCancelBlock(a) {
      const b = bare(a.key);
      await b.driver.sequentialCancels(a.n as number, a.record ? b.cancel : undefined);
      return null;
    },
    async bareWindowed(a) {
      return await bare(a.key).driver.windowed(a.n as number, a.window as number);
    },
    bareResults(a) {
      const b = bare(a.key);
      const out = {
        order: b.legs.summary(),
        cancel: b.cancel.count > 0 ? summarize(b.cancel) : undefined,
        answers: b.driver.answers,
      };
      b.legs = new LegHistograms();
      b.cancel = newHistogram();
      return out;
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
    for (const b of bares.values()) b.driver.close();
    await client?.close();
  },
);
