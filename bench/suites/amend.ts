/**
 * Amend round trip vs create round trip, same run, same engine: strategy (GatewayClient over the
 * gateway's WebSocket) → gateway → embedded simulator (HFT `/v5/order/amend`, in place) → the
 * OrderUpdate carrying the new price, against strategy → create → Ack. Each round places one resting
 * order, amends its price once and cancels it, so both figures come from interleaved samples under the
 * same load. Everything runs in this process (the simulator included); the ratio is the figure to read.
 */
import pino from "pino";
import { GatewayClient } from "../../src/client/client.js";
import { loadConfig } from "../../src/config/load.js";
import { startEngine } from "../../src/index.js";
import { monoNs } from "../../src/protocol/clock.js";
import { OrderStatus, Side } from "../../src/protocol/schema.js";
import { progress } from "../lib/progress.js";
import { newHistogram, ratio, recordNs, summarize } from "../lib/stats.js";

export const name = "amend";

const TOKEN = "amend-bench-token";
const WARM = 200;
const ROUNDS = 2_000;

export async function run(): Promise<Record<string, unknown>> {
  const h = await startEngine(
    loadConfig({
      env: {},
      overrides: {
        "gateway.port": 0,
        "gateway.token": TOKEN,
        "journal.enabled": false,
        "sim.syntheticMarket": false,
        "sim.tickMs": 0,
        "sim.nats": "off",
        "limits.enabled": false,
        "risk.priceBandBps": 0,
        "orders.hftQueryAfterAck": false,
        "streams.pollIntervalMs": 60_000,
        "log.level": "warn",
      },
    }),
    { logger: pino({ level: "warn" }, pino.destination(2)), sim: { rateLimits: { enabled: false } } },
  );
  const c = new GatewayClient({ url: h.url, token: TOKEN, sessionName: "bench-amend", heartbeatMs: 5_000 });
  try {
    await c.connect();
    const inst = h.instruments.all().find((i) => i.venue === "linear" && i.symbol === "BTCUSDT")!.id;
    const create = newHistogram();
    const amend = newHistogram();
    // One waiter at a time: the next matching message resolves it.
    let want:
      | ((name: string, b: { clOrdNo: number; status?: number; priceTicks?: number }) => boolean)
      | null = null;
    let done: (() => void) | null = null;
    c.on("message", (m) => {
      if (want !== null && "body" in m && want(m.name, m.body as never)) {
        want = null;
        done?.();
      }
    });
    const wait = (pred: NonNullable<typeof want>) =>
      new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error("bench: no answer in 5 s")), 5_000);
        done = () => {
          clearTimeout(t);
          resolve();
        };
        want = pred;
      });
    const prog = progress(name, Math.ceil((WARM + ROUNDS) / 500));
    for (let i = 0; i < WARM + ROUNDS; i++) {
      const px = 500_000 + (i % 1_000) * 10;
      let t0 = monoNs();
      let w = wait((n) => n === "Ack" || n === "Reject");
      const no = c.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: px, qtyLots: 1 });
      await w;
      const tCreate = monoNs() - t0;
      t0 = monoNs();
      w = wait(
        (n, b) =>
          n === "OrderUpdate" && b.clOrdNo === no && b.priceTicks === px + 1 && b.status === OrderStatus.New,
      );
      c.amend(no, { priceTicks: px + 1 });
      await w;
      const tAmend = monoNs() - t0;
      w = wait((n, b) => n === "OrderUpdate" && b.clOrdNo === no && b.status === OrderStatus.Cancelled);
      c.cancel(no);
      await w;
      if (i >= WARM) {
        recordNs(create, tCreate);
        recordNs(amend, tAmend);
      }
      if ((i + 1) % 500 === 0) prog.step();
    }
    prog.done();
    const cs = summarize(create);
    const as = summarize(amend);
    return {
      what: "strategy → amended OrderUpdate vs strategy → Ack of a create, HFT, embedded simulator, one process",
      rounds: ROUNDS,
      create_us: cs,
      amend_us: as,
      amend_over_create_p50: ratio(as.p50_us, cs.p50_us),
      amend_over_create_p99: ratio(as.p99_us, cs.p99_us),
    };
  } finally {
    await c.close().catch(() => {});
    await h.stop("bench");
  }
}
