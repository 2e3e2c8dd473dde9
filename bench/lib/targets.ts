/**
 * The e2e targets as one table, built from the suite's runs: each row names the figure, its p50 and
 * p99 ratios to the floors measured in the same configuration (the WS + HTTP floor sum, and the bare
 * forwarder), the goal, whether it was met, the placement and the 1-minute load average meanwhile.
 */

type Json = Record<string, unknown>;

export interface TargetRow {
  target: string;
  figure: string;
  p50_ratio: number | null;
  p99_ratio: number | null;
  goal: string;
  met: boolean | null;
  placement: string;
  load_average_1m: string;
}

function get(o: unknown, path: string): unknown {
  let v: unknown = o;
  for (const k of path.split(".")) v = v !== null && typeof v === "object" ? (v as Json)[k] : undefined;
  return v;
}

const n = (o: unknown, path: string): number | null => {
  const v = get(o, path);
  return typeof v === "number" && Number.isFinite(v) ? v : null;
};

function loadOf(r: Json | undefined, path = "load_average_1m"): string {
  const b = n(r, `${path}.before`);
  const a = n(r, `${path}.after`);
  return b === null || a === null ? "—" : `${b} → ${a}`;
}

function lat(r: Json | undefined, path: string): string {
  const p50 = n(r, `${path}.p50_us`);
  const p99 = n(r, `${path}.p99_us`);
  return p50 === null ? "—" : `p50 ${p50} / p99 ${p99} µs`;
}

const atMost = (v: number | null, goal: number) => (v === null ? null : v <= goal);
const atLeast = (v: number | null, goal: number) => (v === null ? null : v >= goal);
const both = (a: boolean | null, b: boolean | null) => (a === null || b === null ? null : a && b);

export function targetRows(runs: Json[]): TargetRow[] {
  const find = (layoutPrefix: string, variant: string) =>
    runs.find(
      (r) =>
        r.error === undefined &&
        r.venue === "stub" &&
        String(r.layout).startsWith(layoutPrefix) &&
        r.variant === variant,
    );
  const one = find("all on", "default");
  const own = find("gateway on", "default");
  const loaded = find("all on", "under load");
  const place = (r: Json | undefined) => (r === undefined ? "—" : String(r.layout));
  const rows: TargetRow[] = [];
  const p50 = n(one, "ratio_p50_vs_floor_sum");
  const p99 = n(one, "ratio_p99_vs_floor_sum");
  rows.push({
    target: "strategy → ack, journal on",
    figure: lat(one, "sequential.total"),
    p50_ratio: p50,
    p99_ratio: p99,
    goal: "p50 ≤ 2.0× (moonshot 1.5×), p99 ≤ 3× floor sum",
    met: both(atMost(p50, 2), atMost(p99, 3)),
    placement: place(one),
    load_average_1m: loadOf(one),
  });
  const ownWork = n(one, "gateway_own_p50_us");
  rows.push({
    target: "gateway's own work per order (inside p50 − HTTP floor p50)",
    figure: ownWork === null ? "—" : `${ownWork} µs`,
    p50_ratio: null,
    p99_ratio: null,
    goal: "≤ 15 µs",
    met: atMost(ownWork, 15),
    placement: place(one),
    load_average_1m: loadOf(one),
  });
  const c50 = n(one, "cancel_ratio_p50_vs_floor_sum");
  const c99 = n(one, "cancel_ratio_p99_vs_floor_sum");
  rows.push({
    target: "cancel round trip (Cancel → Cancelled), journal on",
    figure: lat(one, "cancel_round_trip"),
    p50_ratio: c50,
    p99_ratio: c99,
    goal: "p50 ≤ 2.0×, p99 ≤ 3× floor sum",
    met: both(atMost(c50, 2), atMost(c99, 3)),
    placement: place(one),
    load_average_1m: loadOf(one),
  });
  const perS = n(own, "throughput.per_s");
  rows.push({
    target: "creates acked/s, default connections",
    figure:
      perS === null ? "—" : `${perS}/s (gateway ${n(own, "throughput.cpu_share_of_one_vcpu.gateway")} vCPU)`,
    p50_ratio: null,
    p99_ratio: null,
    goal: "≥ 30,000/s (moonshot 40,000/s)",
    met: atLeast(perS, 30_000),
    placement: place(own),
    load_average_1m: loadOf(own),
  });
  const cpu = n(own, "throughput.gateway_cpu_us_per_order");
  rows.push({
    target: "gateway CPU per order, all its threads",
    figure: cpu === null ? "—" : `${cpu} µs`,
    p50_ratio: null,
    p99_ratio: null,
    goal: "≤ 30 µs",
    met: atMost(cpu, 30),
    placement: place(own),
    load_average_1m: loadOf(own),
  });
  const cPerS = n(own, "cancel_throughput.per_s");
  rows.push({
    target: "cancels answered/s, default connections",
    figure: cPerS === null ? "—" : `${cPerS}/s`,
    p50_ratio: null,
    p99_ratio: null,
    goal: "≥ 30,000/s",
    met: atLeast(cPerS, 30_000),
    placement: place(own),
    load_average_1m: loadOf(own),
  });
  // The limit: every figure beside the journaled bare forwarder measured in the same run
  // (procs/bare.ts), the journal-off one beside the gateway with its journal off.
  const off = find("all on", "journal off");
  const bare = (r: Json | undefined, v: string) => lat(r, `bare.${v}.sequential.total`);
  /** A one-vCPU latency judged against bareSync: p50 ≤ 1.3×, p99 ≤ 1.5× (`ratios`: vs_bare_sync…). */
  const vsBareSync = (target: string, figure: string, ratios: string, p: "" | "cancel_", goal: string) => {
    const r50 = n(one, `${ratios}.${p}p50`);
    const r99 = n(one, `${ratios}.${p}p99`);
    rows.push({
      target,
      figure,
      p50_ratio: r50,
      p99_ratio: r99,
      goal,
      met: both(atMost(r50, 1.3), atMost(r99, 1.5)),
      placement: place(one),
      load_average_1m: loadOf(one),
    });
  };
  const ackGoal = "p50 ≤ 1.3× (moonshot 1.1×), p99 ≤ 1.5× bareSync";
  const cancelGoal = "p50 ≤ 1.3×, p99 ≤ 1.5× bareSync";
  const bareCancel = lat(one, "bare.sync.cancel_round_trip");
  vsBareSync(
    "strategy → ack vs the journaled bare forwarder (bareSync)",
    `${lat(one, "sequential.total")}; bareSync ${bare(one, "sync")}`,
    "vs_bare_sync",
    "",
    ackGoal,
  );
  // The same comparison with the gateway driven by the bare forwarders' own driver: on one vCPU the
  // strategy's CPU per frame is in the round trip, and this takes GatewayClient's cost out of it.
  vsBareSync(
    "strategy → ack vs bareSync, the same strategy-side driver for both",
    `${lat(one, "same_driver.sequential.total")}; bareSync ${bare(one, "sync")}`,
    "vs_bare_sync_same_driver",
    "",
    ackGoal,
  );
  const o50 = n(off, "vs_bare_off.p50");
  const o99 = n(off, "vs_bare_off.p99");
  rows.push({
    target: "strategy → ack, journal off, vs the bare forwarder, journal off",
    figure: `${lat(off, "sequential.total")}; bare ${bare(off, "off")}`,
    p50_ratio: o50,
    p99_ratio: o99,
    goal: "reported",
    met: null,
    placement: place(off),
    load_average_1m: loadOf(off),
  });
  const ownB = n(one, "bare.sync.own_p50_us");
  rows.push({
    target: "own work (inside p50 − HTTP floor p50) vs bareSync's",
    figure: ownWork === null ? "—" : `${ownWork} µs; bareSync ${ownB ?? "—"} µs`,
    p50_ratio: n(one, "vs_bare_sync.own_work_p50"),
    p99_ratio: null,
    goal: "reported",
    met: null,
    placement: place(one),
    load_average_1m: loadOf(one),
  });
  vsBareSync(
    "cancel round trip vs bareSync's",
    `${lat(one, "cancel_round_trip")}; bareSync ${bareCancel}`,
    "vs_bare_sync",
    "cancel_",
    cancelGoal,
  );
  vsBareSync(
    "cancel round trip vs bareSync's, the same strategy-side driver for both",
    `${lat(one, "same_driver.cancel_round_trip")}; bareSync ${bareCancel}`,
    "vs_bare_sync_same_driver",
    "cancel_",
    cancelGoal,
  );
  const cpuB = n(own, "vs_bare_sync.cpu_per_order");
  rows.push({
    target: "gateway CPU per order vs bareSync's",
    figure: `${cpu ?? "—"} µs; bareSync ${n(own, "bare.sync.throughput.cpu_us_per_order") ?? "—"} µs`,
    p50_ratio: cpuB,
    p99_ratio: null,
    goal: "≤ 1.5× (moonshot 1.2×) bareSync",
    met: atMost(cpuB, 1.5),
    placement: place(own),
    load_average_1m: loadOf(own),
  });
  rows.push({
    target: "creates acked/s vs bareSync's",
    figure: `${perS ?? "—"}/s; bareSync ${n(own, "bare.sync.throughput.per_s") ?? "—"}/s`,
    p50_ratio: n(own, "vs_bare_sync.creates_per_s"),
    p99_ratio: null,
    goal: "reported",
    met: null,
    placement: place(own),
    load_average_1m: loadOf(own),
  });
  const l50 = n(loaded, "under_load.ratio_p50_vs_floor_sum");
  const l99 = n(loaded, "under_load.ratio_p99_vs_floor_sum");
  const bg = n(loaded, "under_load.background.commands_per_s");
  const ev = n(loaded, "under_load.stream_events_per_s");
  rows.push({
    target: `probe strategy → ack under load (${bg ?? "—"} commands/s + ${ev ?? "—"} stream events/s)`,
    figure: `${lat(loaded, "under_load.sequential.total")}; idle ${lat(loaded, "sequential.total")}`,
    p50_ratio: l50,
    p99_ratio: l99,
    goal: "reported beside the idle figure (idle: p99 ≤ 3×)",
    met: null,
    placement: place(loaded),
    load_average_1m: loadOf(loaded, "under_load.load_average_1m"),
  });
  return rows;
}

/** The rows as a Markdown table. */
export function targetTable(rows: readonly TargetRow[]): string {
  const yes = (m: boolean | null) => (m === null ? "—" : m ? "met" : "not met");
  const r = (v: number | null) => (v === null ? "" : `${v}×`);
  const out = [
    "| target | figure | p50 ratio | p99 ratio | goal | result | placement | load avg (1 min) |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const x of rows)
    out.push(
      `| ${x.target} | ${x.figure} | ${r(x.p50_ratio)} | ${r(x.p99_ratio)} | ${x.goal} | ${yes(x.met)} | ${x.placement} | ${x.load_average_1m} |`,
    );
  return out.join("\n");
}
