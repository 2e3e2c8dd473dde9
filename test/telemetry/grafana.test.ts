/**
 * The Grafana dashboard (dashboards/grafana/hftgate.json) against the metrics a live gateway really
 * exports: every series a panel queries is on the /metrics page of a gateway running on the
 * simulator with its HFT NATS stream and the NATS bus on (scraped here; histogram suffixes resolved
 * to their family), rate() and increase() are applied to counters and histograms only, and the page
 * follows the Prometheus conventions (counters `_total`, no `_total` gauge, units in seconds).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Side } from "../../src/protocol/schema.js";
import { natsMissing, PASS, users } from "../bus/fixture.js";
import { NatsCluster } from "../bus/natsCluster.js";
import { type Harness, next, startHarness, until } from "../e2e/harness.js";

const FILE = resolve(import.meta.dirname, "..", "..", "dashboards", "grafana", "hftgate.json");
/** Families that exist only with nats-server installed (HFT stream, bus); absent otherwise. */
const NEEDS_NATS = /^hftgate_(bus|dropcopy|hft_stream)_/;
let hx: Harness;
let nats: NatsCluster | undefined;

beforeAll(async () => {
  nats = natsMissing ? undefined : await NatsCluster.start(1, users(["default"]));
  hx = await startHarness(
    nats === undefined
      ? { "limits.enabled": true }
      : {
          "limits.enabled": true,
          "sim.nats": "server",
          "bus.nats.servers": nats.servers,
          "bus.nats.user": "gw-default",
          "bus.nats.password": PASS,
        },
  );
  // One order, so the latency histograms and outcome counters have samples (and the drop copy an event).
  const c = await hx.client("grafana");
  const no = c.placeOrder({
    instrumentId: hx.inst("linear", "BTCUSDT"),
    side: Side.Buy,
    priceTicks: 600_000,
    qtyLots: 1,
  });
  await next(c, "ack", (b) => b.clOrdNo === no);
  if (nats !== undefined) await until(() => hx.h.bus!.dropCopy!.state === "streaming", 10_000, "drop copy");
}, 60_000);
afterAll(async () => {
  await hx?.close();
  await nats?.stop();
});

interface Panel {
  title: string;
  targets?: { expr: string }[];
}

/** Families on the page: name -> TYPE (counter, gauge, histogram). */
function families(page: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of page.matchAll(/^# TYPE (\S+) (\S+)$/gm)) out.set(m[1]!, m[2]!);
  return out;
}

const METRIC = /\b(?:hftgate|process|nodejs)_[a-z0-9_]+/g;

describe("Grafana dashboard", () => {
  it("queries only metric names the gateway exports, rating counters only", async () => {
    const page = await (await fetch(`${hx.h.httpUrl}/metrics`)).text();
    const fams = families(page);
    expect(fams.get("hftgate_stage_latency_seconds")).toBe("histogram");
    const dash = JSON.parse(readFileSync(FILE, "utf8")) as { panels: Panel[]; uid: string };
    expect(dash.uid).toBe("hftgate-gateway");
    const used = new Set<string>();
    const wrong: string[] = [];
    const familyOf = (name: string) => {
      const base = name.replace(/_(bucket|sum|count)$/, "");
      return fams.has(name) ? name : base !== name && fams.get(base) === "histogram" ? base : undefined;
    };
    for (const p of dash.panels) {
      expect(p.targets?.length ?? 0, p.title).toBeGreaterThan(0);
      for (const t of p.targets!) {
        for (const m of t.expr.matchAll(METRIC)) used.add(m[0]);
        // rate/irate/increase of a gauge is meaningless: only counters and histogram series.
        for (const m of t.expr.matchAll(/\b(rate|irate|increase)\(\s*([a-z_:][a-z0-9_:]*)/g)) {
          const fam = familyOf(m[2]!);
          const type = fam === undefined ? undefined : fams.get(fam);
          if (type === "gauge") wrong.push(`${p.title}: ${m[1]}(${m[2]}) of a gauge`);
        }
        // A gauge that is really a counter would be summed bare: a bare counter is a mistake too.
        for (const m of t.expr.matchAll(METRIC)) {
          const fam = familyOf(m[0]);
          if (
            fam !== undefined &&
            fams.get(fam) === "counter" &&
            !/\b(rate|irate|increase)\(\s*$/.test(t.expr.slice(0, m.index))
          )
            wrong.push(`${p.title}: counter ${m[0]} not rated`);
        }
      }
    }
    const missing: string[] = [];
    for (const name of used) {
      if (nats === undefined && NEEDS_NATS.test(name)) continue;
      if (familyOf(name) === undefined) missing.push(name);
      // A histogram is queried through its buckets, never as a bare gauge.
      if (fams.get(name) === "histogram") missing.push(`${name} (histogram queried without _bucket)`);
    }
    expect(missing).toEqual([]);
    expect(wrong).toEqual([]);
    // The panels cover the page's main families, the HFT stream, the bus and the runtime.
    for (const f of [
      "hftgate_stage_latency_seconds_bucket",
      "hftgate_orders_total",
      "hftgate_ratelimit_credit",
      "hftgate_sessions_connected",
      "hftgate_stream_up",
      "hftgate_hft_stream_lag_seconds",
      "hftgate_bus_up",
      "hftgate_dropcopy_error",
      "hftgate_dropcopy_lag_seconds",
      "nodejs_eventloop_lag_p99_seconds",
      "nodejs_gc_duration_seconds_sum",
      "process_cpu_seconds_total",
      "process_resident_memory_bytes",
      "process_open_fds",
    ])
      expect(used).toContain(f);
  });

  it("exports Prometheus conventions: counters _total, gauges not, seconds not ms, runtime metrics", async () => {
    const page = await (await fetch(`${hx.h.httpUrl}/metrics`)).text();
    const fams = families(page);
    const bad: string[] = [];
    for (const [name, type] of fams) {
      if (type === "counter" && !name.endsWith("_total")) bad.push(`${name}: counter without _total`);
      if (type !== "counter" && name.endsWith("_total")) bad.push(`${name}: ${type} named _total`);
      if (/_ms$|_millis/.test(name)) bad.push(`${name}: unit other than seconds`);
    }
    expect(bad).toEqual([]);
    // Families renamed to the conventions (docs/operator.md lists the old names).
    for (const [name, type] of [
      ["hftgate_presign_hits_total", "counter"],
      ["hftgate_venue_polls_total", "counter"],
      ["hftgate_journal_records_total", "counter"],
      ["hftgate_events_dropped_total", "counter"],
      ["hftgate_clock_offset_seconds", "gauge"],
      ["process_cpu_seconds_total", "counter"],
      ["nodejs_gc_duration_seconds", "histogram"],
      ["nodejs_eventloop_lag_p99_seconds", "gauge"],
      ["process_open_fds", "gauge"],
    ] as const)
      expect(fams.get(name), name).toBe(type);
    if (nats !== undefined) {
      for (const n of ["hftgate_hft_stream_messages_total", "hftgate_dropcopy_published_total"])
        expect(fams.get(n), n).toBe("counter");
      expect(page).toMatch(/^hftgate_dropcopy_up 1$/m);
      expect(page).toMatch(/^hftgate_dropcopy_error 0$/m);
      expect(page).toMatch(/^hftgate_bus_up 1$/m);
      // /health names the same states.
      const health = (await (await fetch(`${hx.h.httpUrl}/health`)).json()) as {
        hftStream?: { up: boolean };
        bus?: { up: boolean; dropCopy: { state: string } };
      };
      expect(health.hftStream?.up).toBe(true);
      expect(health.bus).toMatchObject({ up: true, dropCopy: { state: "streaming" } });
    }
    expect(Number(/^process_resident_memory_bytes (\d+)/m.exec(page)?.[1])).toBeGreaterThan(1e6);
    expect(Number(/^process_open_fds (\d+)/m.exec(page)?.[1])).toBeGreaterThan(3);
  });
});
