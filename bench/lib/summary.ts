/**
 * Prints the headline figures of a results file (default bench/results/latest.json) as a Markdown
 * table, the form docs/benchmarks.md uses: `node dist/bench/lib/summary.js [file]`. Suites change
 * their output over time, so every figure is looked up defensively and shown as "—" when absent.
 */

import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type TargetRow, targetTable } from "./targets.js";

type Json = Record<string, unknown>;

const here = dirname(fileURLToPath(import.meta.url));

function at(o: unknown, path: string): unknown {
  let v: unknown = o;
  for (const k of path.split(".")) v = v !== null && typeof v === "object" ? (v as Json)[k] : undefined;
  return v;
}

const num = (v: unknown): string =>
  typeof v === "number" ? (Math.abs(v) >= 10_000 ? Math.round(v).toLocaleString("en-US") : String(v)) : "—";

/** "p50 / p99 / p99.9" of a latency summary in µs. */
function lat(v: unknown): string {
  if (v === null || typeof v !== "object") return "—";
  const s = v as Json;
  return `${num(s.p50_us)} / ${num(s.p99_us)} / ${num(s.p999_us)}`;
}

interface Row {
  suite: string;
  what: string;
  figure: string;
  floor: string;
  ratio: string;
  target: string;
}

function e2eRuns(r: Json): Json[] {
  const runs = at(r, "e2e.runs");
  return Array.isArray(runs) ? (runs as Json[]) : [];
}

function e2eRows(r: Json): Row[] {
  const rows: Row[] = [];
  for (const run of e2eRuns(r)) {
    const where = String(run.layout).startsWith("all on") ? "one vCPU" : "gateway on its own vCPU";
    const name = `${run.venue}, ${where}${run.variant === "default" ? "" : `, ${run.variant}`}`;
    if (run.error !== undefined) {
      rows.push({
        suite: "e2e",
        what: name,
        figure: `error: ${String(run.error)}`,
        floor: "",
        ratio: "",
        target: "",
      });
      continue;
    }
    const ws = at(run, "floors.ws_echo_uws.p50_us");
    const http = at(run, "floors.http_raw_socket.p50_us");
    rows.push({
      suite: "e2e",
      what: `strategy → ack, sequential (${name})`,
      figure: lat(at(run, "sequential.total")),
      floor: `WS ${num(ws)} + HTTP ${num(http)}`,
      ratio: `${num(run.ratio_p50_vs_floor_sum)}×`,
      target: where === "one vCPU" && run.venue === "stub" ? "≤ 2.5×" : "",
    });
    const thr = run.throughput as Json | undefined;
    rows.push({
      suite: "e2e",
      what: `creates acked/s, 256 in flight (${name})`,
      figure: `${num(thr?.per_s)} (passes ${Array.isArray(thr?.per_s_passes) ? (thr.per_s_passes as number[]).join(", ") : "—"})`,
      floor: `gateway CPU ${num(at(thr, "cpu_share_of_one_vcpu.gateway"))} vCPU`,
      ratio: "",
      target: where === "one vCPU" ? "" : "≥ 20,000",
    });
    if (run.reference_client_fetch_sign !== undefined) {
      rows.push({
        suite: "e2e",
        what: "reference client: strategy → exchange directly, fetch + sign per call",
        figure: lat(run.reference_client_fetch_sign),
        floor: `HTTP ${num(http)}`,
        ratio: `${num(run.ratio_reference_p50_vs_http_floor)}×`,
        target: "",
      });
    }
  }
  return rows;
}

function rows(r: Json): Row[] {
  const out: Row[] = [
    {
      suite: "rest",
      what: "Ed25519 sign, node:crypto inline",
      figure: lat(at(r, "rest.sign.native_inline")),
      floor: "",
      ratio: "",
      target: "",
    },
    {
      suite: "rest",
      what: "HFT create assembly, pre-signed",
      figure: lat(at(r, "rest.assembly.hft_create_presigned")),
      floor: "",
      ratio: "",
      target: "p99 ≤ 2",
    },
    {
      suite: "rest",
      what: "create round trip, REST client → trivial server",
      figure: lat(at(r, "rest.round_trip.rest_client_create")),
      floor: `raw socket ${num(at(r, "rest.round_trip.raw_socket_floor.p50_us"))}`,
      ratio: `${num(at(r, "rest.round_trip.rest_vs_floor_p50"))}×`,
      target: "≤ 1.7×",
    },
    {
      suite: "rest",
      what: "create round trip, fast path → trivial server",
      figure: lat(at(r, "rest.round_trip.fast_path_create")),
      floor: `raw socket ${num(at(r, "rest.round_trip.raw_socket_floor.p50_us"))}`,
      ratio: `${num(at(r, "rest.round_trip.fast_vs_floor_p50"))}× (CPU per request ${num(at(r, "rest.round_trip.fast_vs_floor_cpu"))}×)`,
      target: "",
    },
    {
      suite: "rest",
      what: "create round trip, fetch + sign per call",
      figure: lat(at(r, "rest.round_trip.fetch_sign_per_call")),
      floor: `raw socket ${num(at(r, "rest.round_trip.raw_socket_floor.p50_us"))}`,
      ratio: `${num(at(r, "rest.round_trip.fetch_vs_floor_p50"))}×`,
      target: "",
    },
    {
      suite: "protocol",
      what: "WS round trip through the gateway (heartbeat echo)",
      figure: lat(at(r, "protocol.ws_round_trip.gateway_uws_heartbeat_echo")),
      floor: `uWS echo ${num(at(r, "protocol.ws_round_trip.floor_uws_echo.p50_us"))}`,
      ratio: `${num(at(r, "protocol.ws_round_trip.ratio_p50_heartbeat_vs_floor"))}×`,
      target: "",
    },
    {
      suite: "protocol",
      what: "WS round trip, `ws` fallback server",
      figure: lat(at(r, "protocol.ws_round_trip.gateway_ws_fallback_heartbeat_echo")),
      floor: `uWS echo ${num(at(r, "protocol.ws_round_trip.floor_uws_echo.p50_us"))}`,
      ratio: `${num(at(r, "protocol.ws_round_trip.ratio_p50_ws_fallback_vs_floor"))}×`,
      target: "",
    },
    {
      suite: "protocol",
      what: "pipelined burst through the gateway, msgs/s",
      figure: num(at(r, "protocol.pipelined_burst_msgs_per_s.gateway_uws_heartbeat_echo")),
      floor: `uWS echo ${num(at(r, "protocol.pipelined_burst_msgs_per_s.floor_uws_echo"))}`,
      ratio: `${num(at(r, "protocol.pipelined_burst_msgs_per_s.ratio_gateway_vs_floor"))}×`,
      target: "",
    },
    {
      suite: "orders",
      what: "order-state events applied/s, one core (median of 5)",
      figure: num(at(r, "orders.events_per_sec_median_of_5")),
      floor: `Map lookup ${num(at(r, "orders.floor_lookup_per_sec"))}/s`,
      ratio: `${num(at(r, "orders.ratio_floor_over_apply"))}× slower`,
      target: "≥ 1,000,000/s",
    },
    {
      suite: "orders",
      what: "one event applied",
      figure: lat(at(r, "orders.apply_latency")),
      floor: "",
      ratio: "",
      target: "",
    },
    {
      suite: "journal",
      what: "journal append, binary, fsync every 100 ms",
      figure: `${lat(at(r, "journal.journal.binary_fsync_interval100ms.append"))}; ${num(at(r, "journal.journal.binary_fsync_interval100ms.appends_per_s"))}/s`,
      floor: `writeSync ${num(at(r, "journal.unbatched_writeSync_floor.p50_us"))}`,
      ratio: "",
      target: "",
    },
    {
      suite: "journal",
      what: "journal append, NDJSON, fsync every 100 ms",
      figure: `${lat(at(r, "journal.journal.ndjson_fsync_interval100ms.append"))}; ${num(at(r, "journal.journal.ndjson_fsync_interval100ms.appends_per_s"))}/s`,
      floor: `writeSync ${num(at(r, "journal.unbatched_writeSync_floor.p50_us"))}`,
      ratio: `${num(at(r, "journal.ratios.ndjson_append_p50_vs_unbatched_writeSync_p50"))}×`,
      target: "",
    },
    {
      suite: "journal",
      what: "rate limiter grant / risk check",
      figure: `${lat(at(r, "journal.limiter_acquire"))}; ${lat(at(r, "journal.risk_check"))}`,
      floor: `now() ${num(at(r, "journal.limiter_floor_performance_now.p50_us"))}; Map.get ${num(at(r, "journal.risk_floor_map_get.p50_us"))}`,
      ratio: `${num(at(r, "journal.limiter_acquire_vs_floor_p50"))}×; ${num(at(r, "journal.risk_check_vs_floor_p50"))}×`,
      target: "",
    },
    {
      suite: "sim",
      what: "simulator HFT create (IOC), signed, one process",
      figure: lat(at(r, "sim.sim_v5_create_ioc_signed")),
      floor: `trivial server ${num(at(r, "sim.floor_post_trivial_server.p50_us"))}`,
      ratio: `${num(at(r, "sim.ratio_create_p50_vs_floor"))}×`,
      target: "",
    },
    {
      suite: "sim",
      what: "simulator matching engine alone (HFT create)",
      figure: lat(at(r, "sim.engine_hft_create_ioc_no_http")),
      floor: "",
      ratio: "",
      target: "",
    },
    {
      suite: "streams",
      what: "Spot stream records validated + applied/s",
      figure: num(at(r, "streams.feedRecordsPerSec")),
      floor: `pre-built apply ${num(at(r, "streams.floorApplyPerSec"))}/s`,
      ratio: `${num(at(r, "streams.feedCostVsApply"))}×`,
      target: "",
    },
  ];
  return [...out, ...e2eRows(r)];
}

/** The headline table of a results document (what `npm run bench` prints at its end). */
export function summaryLines(doc: Json): string[] {
  const m = (doc.machine ?? {}) as Json;
  const load = at(doc, "results.e2e.load_average_1m") as Json | undefined;
  const lines = [
    `Measured ${String(doc.measuredAt)} on ${String(m.model)}, ${String(m.cpus)} vCPUs, Node ${String(m.node)}` +
      (load ? ` (1-minute load average ${num(load.before)} → ${num(load.after)} over the e2e suite).` : "."),
    "Latencies are p50 / p99 / p99.9 in µs; ratios are p50 against the floor measured in the same run.",
    "",
    "| suite | what | figure | floor (same run) | ratio | target |",
    "|---|---|---|---|---|---|",
  ];
  const results = (doc.results ?? {}) as Json;
  for (const row of rows(results)) {
    if (!(row.suite in results)) continue;
    lines.push(
      `| ${row.suite} | ${row.what} | ${row.figure} | ${row.floor} | ${row.ratio} | ${row.target} |`,
    );
  }
  // The e2e targets, as the suite recorded them (the table it printed after the suite).
  const targets = at(results, "e2e.targets") as TargetRow[] | undefined;
  if (Array.isArray(targets) && targets.length > 0) lines.push("", "Targets:", "", targetTable(targets));
  return lines;
}

function main(): void {
  const file = process.argv[2] ?? join(here, "..", "..", "..", "bench", "results", "latest.json");
  const doc = JSON.parse(readFileSync(file, "utf8")) as Json;
  process.stdout.write(`${summaryLines(doc).join("\n")}\n`);
}

// Run as a script (`node dist/bench/lib/summary.js [file]`), not when the runner imports it.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) main();
