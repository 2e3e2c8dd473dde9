import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, registerSecret } from "../../src/telemetry/logger.js";
import { Registry } from "../../src/telemetry/metrics.js";

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { stream, text: () => chunks.join("") };
}

describe("logger", () => {
  it("redacts secret keys by path and scrubs registered secret values anywhere", () => {
    const secret = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
    registerSecret(secret);
    const { stream, text } = capture();
    const log = createLogger({ destination: stream, level: "info" });
    log.info({ keys: { secretKey: "abc" }, token: "t0k3n-value" }, "configured");
    log.info({ detail: `oops ${secret.toUpperCase()} leaked` }, `message with ${secret}`);
    log.error(new Error(`failed with ${secret}`));
    const out = text();
    expect(out).not.toContain(secret);
    expect(out).not.toContain(secret.toUpperCase());
    expect(out).not.toContain("t0k3n-value");
    expect(out).toContain("[redacted]");
    expect(out.split("\n").filter(Boolean)).toHaveLength(3);
  });
});

describe("metrics", () => {
  it("renders counters, gauges and histograms in Prometheus text format", () => {
    const r = new Registry();
    const c = r.counter("hftgate_orders_total", "orders by outcome", { outcome: "acked" });
    r.counter("hftgate_orders_total", "orders by outcome", { outcome: "rejected" }).inc(2);
    const h = r.histogram("hftgate_stage_seconds", "stage latency", { stage: "assembly" });
    r.gauge("hftgate_sessions", "open sessions", undefined, () => 3);
    c.inc();
    h.record(1500); // 1.5 µs
    h.record(3_000_000); // 3 ms
    const text = r.render();
    expect(text).toContain('hftgate_orders_total{outcome="acked"} 1');
    expect(text).toContain('hftgate_orders_total{outcome="rejected"} 2');
    expect(text.match(/# TYPE hftgate_orders_total counter/g)).toHaveLength(1);
    expect(text).toContain('hftgate_stage_seconds_bucket{stage="assembly",le="0.000002"} 1');
    expect(text).toContain('hftgate_stage_seconds_bucket{stage="assembly",le="0.005"} 2');
    expect(text).toContain('hftgate_stage_seconds_count{stage="assembly"} 2');
    expect(text).toContain("hftgate_sessions 3");
    expect(h.quantileNs(0.5)).toBe(2000);
  });

  it("holds counters to `_total` and gauges away from it, and reads counters kept elsewhere", () => {
    const r = new Registry();
    expect(() => r.counter("hftgate_polls", "polls")).toThrow(/_total/);
    expect(() => r.gauge("hftgate_polls_total", "polls")).toThrow(/counter/);
    const stats = { polls: 0 };
    r.counter("hftgate_polls_total", "polls", undefined, () => stats.polls);
    stats.polls = 7;
    expect(r.render()).toContain("# TYPE hftgate_polls_total counter\nhftgate_polls_total 7\n");
  });
});
