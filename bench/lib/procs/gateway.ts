/**
 * The gateway process of the end-to-end benchmark: the real engine and gateway (`startEngine`) with
 * the venue at the given URL, the production hot path (pre-signer, journal with interval fsync,
 * risk checks), and the rate limiter off (the exchange's 50 orders/s HFT bucket would throttle any
 * benchmark). Also measures the raw-socket HTTP floor from this process to the venue's stub.
 *
 * argv: venue base URL, token, JSON of extra config overrides. Ready info: { url, tpl, instruments }.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type EventLoopUtilization,
  monitorEventLoopDelay,
  PerformanceObserver,
  performance,
} from "node:perf_hooks";
import pino from "pino";
import { loadKeyPair } from "../../../src/auth/keys.js";
import { loadConfig } from "../../../src/config/load.js";
import { type EngineHandle, startEngine } from "../../../src/index.js";
import { BENCH_SECRET, HFT_CREATE_BODY } from "../benchKeys.js";
import { callCountHandlers, post } from "../calls.js";
import { failChild, serveChild } from "../child.js";
import { openRawHttp, type RoundTripper, rawRequest, timeBlock } from "../floors.js";
import { newHistogram, summarize } from "../stats.js";
import { startBare } from "./bare.js";

const [venueUrl = "", token = "", extra = "{}"] = process.argv.slice(2);

let floor: RoundTripper | undefined;
/** A journaled bare forwarder inside this process (HFTGATE_BENCH_BARE_IN_GATEWAY), once started. */
let inProcessBare: { port: number; stop: () => void } | undefined;
let profiler: Session | undefined;
/** HFTGATE_BENCH_PROFILE_HEAP=1: the profile hooks sample allocations instead of CPU. */
const HEAP = process.env.HFTGATE_BENCH_PROFILE_HEAP === "1";

let hHttp = newHistogram();

/** The create request as the gateway sends it (headers of the same size), pre-built once. */
function floorRequest(port: number, apiKey: string): Buffer {
  return rawRequest(
    "POST",
    "/v5/order/create",
    port,
    [
      "content-type",
      "application/json",
      "x-auth-apikey",
      apiKey,
      "x-auth-signature",
      "0".repeat(128),
      "x-auth-epoch",
      String(Date.now()),
    ],
    JSON.stringify(HFT_CREATE_BODY),
  );
}

/** Knobs that differ from the defaults, reported with the results. */
const OVERRIDES: Record<string, unknown> = {
  "venue.kind": "exchange",
  "venue.spotBaseUrl": venueUrl,
  "venue.hftBaseUrl": venueUrl,
  "venue.streamUrl": venueUrl,
  "keys.secretKey": BENCH_SECRET,
  "gateway.port": 0,
  "gateway.token": token,
  "limits.enabled": false,
  "risk.maxOpenOrdersPerSession": 1_000_000,
  "risk.maxOpenOrdersPerInstrument": 1_000_000,
  "risk.priceBandBps": 0,
  // With the limiter on, the query right after an HFT ack is bounded by the query bucket (~50/s,
  // negligible at thousands of creates/s); with it off it would follow every single create.
  "orders.hftQueryAfterAck": false,
  // Tens of thousands of resting orders accumulate (no real account holds that many): the venue
  // feeds' pollers and reconciler would page through them and hold new orders meanwhile. They are
  // not on the create → ack path, so the benchmark runs without them and polls rarely.
  "streams.enabled": false,
  "streams.pollIntervalMs": 60_000,
  "log.level": "warn",
  // HFTGATE_BENCH_OVERRIDES='{"knob.path": value}' for A/B diagnosis runs (reported in `info`).
  ...(JSON.parse(process.env.HFTGATE_BENCH_OVERRIDES ?? "{}") as Record<string, unknown>),
  ...(JSON.parse(extra) as Record<string, unknown>),
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "hftgate-e2e-bench-"));
  let h: EngineHandle;
  try {
    const config = loadConfig({ env: {}, overrides: { ...OVERRIDES, "journal.dir": join(dir, "journal") } });
    h = await startEngine(config, { logger: pino({ level: "warn" }, pino.destination(2)) });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const btc = h.instruments.all().find((i) => i.surface === "hft" && i.symbol === "BTCUSDT");
  if (!btc) throw new Error("venue lists no HFT BTCUSDT");
  // 0.005 BTC at 1000.0 USDT: on the tick/step grid, at the minimum notional, far below the market
  // (it rests on the simulator), and a small margin reservation so tens of thousands fit.
  const tpl = { instrumentId: btc.id, side: 1, priceTicks: 10_000, qtyLots: 5 };
  // Spot BTC/INR (tick 1 INR, step 0.00001 BTC): 0.00005 at 2,000,000 INR, the minimum notional, far
  // below the market; used where a cancel must be answered with the order's record (bench stub).
  const spot = h.instruments.all().find((i) => i.surface === "spot" && i.symbol === "BTC/INR");
  const spotTpl = spot ? { instrumentId: spot.id, side: 1, priceTicks: 2_000_000, qtyLots: 5 } : undefined;
  let diag: Diag | undefined;
  const apiKey = loadKeyPair(BENCH_SECRET).apiKey;
  serveChild(
    { url: h.url, tpl, spotTpl, instruments: h.instruments.size },
    {
      ...callCountHandlers(),
      async httpBlock(a) {
        floor ??= await openRawHttp(a.port as number, floorRequest(a.port as number, apiKey));
        await timeBlock(floor, a.n as number, a.record ? hHttp : undefined);
        return null;
      },
      /**
       * A journaled bare forwarder in this process beside the gateway, on its own port: the same
       * forwarder code inside the gateway's process (heap, threads, timers) as a control.
       */
      async bareStart() {
        inProcessBare ??= await startBare({
          venuePort: Number(new URL(venueUrl).port),
          apiKey,
          journal: "sync",
          connections: 4,
        });
        return { port: inProcessBare.port };
      },
      httpResults() {
        const s = summarize(hHttp);
        hHttp = newHistogram();
        return s;
      },
      /** GC pauses, event-loop delay and utilisation over a phase (where a tail comes from). */
      diagStart() {
        diag = startDiag();
        return null;
      },
      diagStop() {
        const r = diag?.stop();
        diag = undefined;
        return r ?? null;
      },
      /** CPU profile of this process around a phase (HFTGATE_BENCH_PROFILE=DIR; diagnosis only). */
      async profStart() {
        profiler = new Session();
        profiler.connect();
        if (HEAP) {
          // Every allocation sampled, the ones collected since included: where the young generation's
          // traffic comes from, not only what is kept.
          await post(profiler, "HeapProfiler.startSampling", {
            samplingInterval: 1024,
            includeObjectsCollectedByMajorGC: true,
            includeObjectsCollectedByMinorGC: true,
          });
          return null;
        }
        await post(profiler, "Profiler.enable");
        await post(profiler, "Profiler.start");
        return null;
      },
      async profStop(a) {
        if (!profiler) return null;
        const r = (await post(profiler, HEAP ? "HeapProfiler.stopSampling" : "Profiler.stop")) as {
          profile: unknown;
        };
        const ext = HEAP ? "heapprofile" : "cpuprofile";
        mkdirSync(a.dir as string, { recursive: true });
        const file = join(a.dir as string, `gateway-${a.label as string}-${process.pid}.${ext}`);
        writeFileSync(file, JSON.stringify(r.profile));
        profiler.disconnect();
        profiler = undefined;
        return file;
      },
      /** The engine's per-stage latency histograms as cumulative {count, sumNs} (the suite takes deltas). */
      stages() {
        const out: Record<string, { count: number; sumNs: number }> = {};
        const re = /^hftgate_stage_latency_seconds_(sum|count)\{stage="([a-z_]+)"\} (\S+)$/gm;
        for (const m of h.metrics.render().matchAll(re)) {
          const row = out[m[2]!] ?? { count: 0, sumNs: 0 };
          if (m[1] === "sum") row.sumNs = Number(m[3]) * 1e9;
          else row.count = Number(m[3]);
          out[m[2]!] = row;
        }
        return out;
      },
      info() {
        return {
          engine: "startEngine (real engine and gateway)",
          transport: h.gateway.transportKind,
          presigner: h.rest.presigner
            ? { hits: h.rest.presigner.hits, misses: h.rest.presigner.misses }
            : "off",
          config_overrides: Object.fromEntries(
            Object.entries(OVERRIDES).filter(([k]) => !k.startsWith("venue.") && !k.startsWith("keys.")),
          ),
          journal: "on (default fsync policy), in a temporary directory",
        };
      },
    },
    async () => {
      floor?.close();
      inProcessBare?.stop();
      await h.stop("bench");
      rmSync(dir, { recursive: true, force: true });
    },
  );
}

interface Diag {
  stop(): Record<string, number>;
}

function startDiag(): Diag {
  let gcs = 0;
  let gcMs = 0;
  let gcMax = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcs++;
      gcMs += e.duration;
      if (e.duration > gcMax) gcMax = e.duration;
    }
  });
  obs.observe({ entryTypes: ["gc"] });
  const eld = monitorEventLoopDelay({ resolution: 1 });
  eld.enable();
  const elu0: EventLoopUtilization = performance.eventLoopUtilization();
  const t0 = performance.now();
  return {
    stop() {
      obs.disconnect();
      eld.disable();
      const elu = performance.eventLoopUtilization(elu0);
      const r2 = (v: number) => Math.round(v * 100) / 100;
      return {
        seconds: r2((performance.now() - t0) / 1000),
        gc_count: gcs,
        gc_total_ms: r2(gcMs),
        gc_max_ms: r2(gcMax),
        event_loop_delay_p99_ms: r2(eld.percentile(99) / 1e6),
        event_loop_delay_max_ms: r2(eld.max / 1e6),
        event_loop_utilization: r2(elu.utilization),
      };
    },
  };
}

main().catch(failChild);
