/**
 * The Grafana dashboard (dashboards/grafana/hftgate.json) against the metric names a live gateway
 * really exports: every `hftgate_*` series a panel queries is on the /metrics page of a gateway
 * running on the simulator (scraped here), with histogram suffixes resolved to their family.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Side } from "../../src/protocol/schema.js";
import { type Harness, next, startHarness } from "../e2e/harness.js";

const FILE = resolve(import.meta.dirname, "..", "..", "dashboards", "grafana", "hftgate.json");
let hx: Harness;

beforeAll(async () => {
  hx = await startHarness({ "limits.enabled": true });
  // One order, so the latency histograms and outcome counters have samples.
  const c = await hx.client("grafana");
  const no = c.placeOrder({
    instrumentId: hx.inst("linear", "BTCUSDT"),
    side: Side.Buy,
    priceTicks: 600_000,
    qtyLots: 1,
  });
  await next(c, "ack", (b) => b.clOrdNo === no);
});
afterAll(() => hx.close());

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

describe("Grafana dashboard", () => {
  it("queries only metric names the gateway exports", async () => {
    const page = await (await fetch(`${hx.h.httpUrl}/metrics`)).text();
    const fams = families(page);
    expect(fams.get("hftgate_stage_latency_seconds")).toBe("histogram");
    const dash = JSON.parse(readFileSync(FILE, "utf8")) as { panels: Panel[]; uid: string };
    expect(dash.uid).toBe("hftgate-gateway");
    const used = new Set<string>();
    for (const p of dash.panels) {
      expect(p.targets?.length ?? 0, p.title).toBeGreaterThan(0);
      for (const t of p.targets!) for (const m of t.expr.matchAll(/\bhftgate_[a-z0-9_]+/g)) used.add(m[0]);
    }
    const missing: string[] = [];
    for (const name of used) {
      const base = name.replace(/_(bucket|sum|count)$/, "");
      const ok = fams.has(name) || (base !== name && fams.get(base) === "histogram");
      if (!ok) missing.push(name);
      // A histogram is queried through its buckets, never as a bare gauge.
      if (fams.get(name) === "histogram") missing.push(`${name} (histogram queried without _bucket)`);
    }
    expect(missing).toEqual([]);
    // The panels cover the page's main families.
    for (const f of [
      "hftgate_stage_latency_seconds_bucket",
      "hftgate_orders_total",
      "hftgate_ratelimit_credit",
      "hftgate_sessions_connected",
      "hftgate_stream_up",
    ])
      expect(used).toContain(f);
  });
});
