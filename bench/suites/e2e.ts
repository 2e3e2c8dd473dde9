/**
 * End-to-end suite: strategy process (GatewayClient) → gateway + engine → exchange → ack back to the
 * strategy, against a trivial exchange stub (isolates the gateway's cost) and against the simulator.
 * Reported beside floors measured in the same run on the legs they bound: WebSocket echo from the
 * strategy to a uWebSockets.js server placed where the gateway runs, and a raw-socket HTTP round trip
 * from the gateway process to the stub; plus the exchange's reference-client pattern (strategy →
 * exchange directly, global fetch + Ed25519 sign per call). Every process is pinned with taskset when
 * available; the placement is reported with each figure.
 *
 * Targets (design.md §2): strategy→ack p50 ≤ 2.5 × (WS floor + HTTP floor); ≥ 20,000 creates/s
 * through the gateway to a trivial server on 2 cores.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadKeyPair } from "../../src/auth/keys.js";
import { BENCH_SECRET } from "../lib/benchKeys.js";
import { ChildProc } from "../lib/child.js";
import { cpuCount, hasTaskset, nodeLauncher, pinSelf } from "../lib/placement.js";
import type { LatencySummary } from "../lib/stats.js";
import { ratio } from "../lib/stats.js";

export const name = "e2e";

const here = dirname(fileURLToPath(import.meta.url));
const proc = (f: string) => join(here, "..", "lib", "procs", f);
const TOKEN = "e2e-bench-token";

/** Where each process runs: a taskset vCPU list, or null (not pinned). */
interface Layout {
  label: string;
  strategy: string | null;
  gateway: string | null;
  exchange: string | null;
}

function layouts(): Layout[] {
  if (!hasTaskset()) return [{ label: "unpinned", strategy: null, gateway: null, exchange: null }];
  const same: Layout = { label: "all on vCPU 0", strategy: "0", gateway: "0", exchange: "0" };
  if (cpuCount() < 2) return [same];
  return [
    same,
    {
      label: "gateway on vCPU 1; strategy and exchange on vCPU 0",
      strategy: "0",
      gateway: "1",
      exchange: "0",
    },
  ];
}

interface Sizes {
  blocks: number;
  perBlock: number;
  warm: number;
  windowN: number;
  window: number;
  referenceN: number;
}

const SIZES: Sizes = {
  blocks: 10,
  perBlock: 500,
  warm: 2_000,
  windowN: 30_000,
  window: 256,
  referenceN: 3_000,
};

interface RunOut {
  layout: string;
  venue: "stub" | "sim";
  [k: string]: unknown;
}

/** One (layout, venue) configuration: fresh gateway, strategy and echo; alternating timed blocks. */
async function measure(
  layout: Layout,
  venue: "stub" | "sim",
  venueInfo: { port: number; simPort: number },
  sizes: Sizes,
  withReference: boolean,
): Promise<RunOut> {
  const procs: ChildProc[] = [];
  try {
    const echo = await ChildProc.start(nodeLauncher(layout.gateway), proc("wsEcho.js"));
    procs.push(echo);
    const venuePort = venue === "stub" ? venueInfo.port : venueInfo.simPort;
    const gw = await ChildProc.start(nodeLauncher(layout.gateway), proc("gateway.js"), [
      `http://127.0.0.1:${venuePort}`,
      TOKEN,
    ]);
    procs.push(gw);
    const st = await ChildProc.start(nodeLauncher(layout.strategy), proc("strategy.js"));
    procs.push(st);
    const tpl = gw.info.tpl;
    await st.call("connect", { url: gw.info.url, token: TOKEN, tpl });
    const echoPort = echo.info.port as number;
    const stubPort = venueInfo.port;
    // Warm-up of every path, then alternate the three measurements in blocks.
    await st.call("wsBlock", { port: echoPort, n: sizes.warm, record: false });
    await gw.call("httpBlock", { port: stubPort, n: sizes.warm, record: false });
    await st.call("orderBlock", { n: sizes.warm, record: false });
    for (let b = 0; b < sizes.blocks; b++) {
      await st.call("wsBlock", { port: echoPort, n: sizes.perBlock, record: true });
      await gw.call("httpBlock", { port: stubPort, n: sizes.perBlock, record: true });
      await st.call("orderBlock", { n: sizes.perBlock, record: true });
    }
    const s = await st.call<{
      ws_echo_floor: LatencySummary;
      order: Record<string, LatencySummary>;
      answers: Record<string, unknown>;
      frame_bytes: number;
    }>("results");
    const http = await gw.call<LatencySummary>("httpResults");
    const throughput = await st.call<Record<string, unknown>>("windowed", {
      n: sizes.windowN,
      window: sizes.window,
    });
    const reference = withReference
      ? await st.call<LatencySummary>("reference", { port: stubPort, n: sizes.referenceN, warm: 500 })
      : undefined;
    const gwInfo = await gw.call<Record<string, unknown>>("info");
    const total = s.order.total!;
    const floorSum = s.ws_echo_floor.p50_us + http.p50_us;
    return {
      layout: layout.label,
      venue,
      gateway: gwInfo,
      floors: {
        ws_echo_uws: s.ws_echo_floor,
        http_raw_socket: http,
        ws_frame_bytes: s.frame_bytes,
      },
      sequential: s.order,
      answers: s.answers,
      ratio_p50_vs_floor_sum: ratio(total.p50_us, floorSum),
      ratio_p99_vs_floor_sum: ratio(total.p99_us, s.ws_echo_floor.p99_us + http.p99_us),
      ...(reference
        ? {
            reference_client_fetch_sign: reference,
            ratio_reference_p50_vs_http_floor: ratio(reference.p50_us, http.p50_us),
          }
        : {}),
      throughput,
    };
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
}

export async function run(): Promise<Record<string, unknown>> {
  const plan = layouts();
  const restore = pinSelf(plan[0]!.strategy ?? `0-${cpuCount() - 1}`);
  const apiKey = loadKeyPair(BENCH_SECRET).apiKey;
  const runs: RunOut[] = [];
  let venue: ChildProc | undefined;
  let venueCpu: string | null | undefined;
  try {
    const configs: [Layout, "stub" | "sim", boolean][] = [
      [plan[0]!, "stub", true],
      [plan[0]!, "sim", false],
      ...plan.slice(1).map((l): [Layout, "stub" | "sim", boolean] => [l, "stub", false]),
    ];
    for (const [layout, kind, ref] of configs) {
      if (venue === undefined || venueCpu !== layout.exchange) {
        await venue?.stop();
        venue = await ChildProc.start(nodeLauncher(layout.exchange), proc("venue.js"), [apiKey]);
        venueCpu = layout.exchange;
      }
      const info = venue.info as { port: number; simPort: number };
      try {
        runs.push(await measure(layout, kind, info, SIZES, ref));
      } catch (err) {
        runs.push({
          layout: layout.label,
          venue: kind,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
  } finally {
    await venue?.stop();
    restore();
  }
  const stubSame = runs.find((r) => r.venue === "stub" && r.error === undefined);
  const cross = runs.find((r) => r !== runs[0] && r.venue === "stub" && r.error === undefined);
  return {
    placement: plan.map(
      (l) => `${l.label} (strategy ${l.strategy}, gateway ${l.gateway}, exchange ${l.exchange})`,
    ),
    targets: {
      latency: "strategy→ack p50 ≤ 2.5× (WS echo floor + HTTP floor)",
      throughput: "≥ 20,000 creates/s through the gateway to a trivial server on 2 cores",
      latency_ratio_same_vcpu: stubSame?.ratio_p50_vs_floor_sum,
      throughput_2_cores_per_s: (cross?.throughput as { per_s?: number } | undefined)?.per_s,
    },
    runs,
  };
}
