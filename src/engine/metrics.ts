/**
 * The engine's Prometheus metrics, created once. Hot-path recording is a field access plus
 * `record(ns)` / `inc()`; everything that already lives elsewhere as a counter (pre-signer, limiter
 * credit, store drops, sessions) is read lazily when /metrics is scraped.
 */
import { type Counter, type LatencyHistogram, Registry } from "../telemetry/metrics.js";
import { runtimeCollector } from "../telemetry/runtime.js";

export const STAGES = [
  "decode",
  "risk",
  "assembly",
  "exchange_rtt",
  "ack_to_strategy",
  "stream_to_strategy",
] as const;
export type Stage = (typeof STAGES)[number];

export const OUTCOMES = [
  "acked",
  "rejected_risk",
  "rejected_throttle",
  "rejected_venue",
  "rejected_engine",
  "unknown",
  "filled",
  "cancelled",
  "expired",
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export class EngineMetrics {
  readonly registry = new Registry();
  readonly decode: LatencyHistogram;
  readonly risk: LatencyHistogram;
  readonly assembly: LatencyHistogram;
  readonly exchangeRtt: LatencyHistogram;
  readonly ackToStrategy: LatencyHistogram;
  readonly streamToStrategy: LatencyHistogram;
  readonly outcomes: Record<Outcome, Counter>;
  readonly reconnects: Counter;
  readonly invalidEvents: Counter;
  readonly cancelsSent: Counter;
  readonly cancelRejects: Counter;
  readonly resolutions: Counter;
  readonly escalations: Counter;

  constructor() {
    const r = this.registry;
    const h = (stage: Stage) =>
      r.histogram("hftgate_stage_latency_seconds", "Per-stage latency of the order path", { stage });
    this.decode = h("decode");
    this.risk = h("risk");
    this.assembly = h("assembly");
    this.exchangeRtt = h("exchange_rtt");
    this.ackToStrategy = h("ack_to_strategy");
    this.streamToStrategy = h("stream_to_strategy");
    const out = {} as Record<Outcome, Counter>;
    for (const o of OUTCOMES) out[o] = r.counter("hftgate_orders_total", "Orders by outcome", { outcome: o });
    this.outcomes = out;
    this.reconnects = r.counter("hftgate_stream_reconnects_total", "Venue stream reconnects");
    this.invalidEvents = r.counter(
      "hftgate_events_invalid_total",
      "Venue records that failed normalization (ignored)",
    );
    this.cancelsSent = r.counter("hftgate_cancels_sent_total", "Cancel requests sent to the venue");
    this.cancelRejects = r.counter(
      "hftgate_cancel_rejects_total",
      "Cancels refused (locally or by the venue)",
    );
    this.resolutions = r.counter("hftgate_resolution_queries_total", "Targeted queries to resolve orders");
    this.escalations = r.counter(
      "hftgate_resolution_escalations_total",
      "Orders whose outcome stayed unknown after the bounded queries",
    );
    // Process and runtime metrics (CPU, memory, fds, event-loop delay, GC), rendered after ours.
    r.collect(runtimeCollector());
  }

  gauge(name: string, help: string, read: () => number, labels?: Record<string, string>): void {
    this.registry.gauge(name, help, labels, read);
  }

  /** A counter kept elsewhere (a stats field), read at scrape time; its name ends in `_total`. */
  counter(name: string, help: string, read: () => number, labels?: Record<string, string>): void {
    this.registry.counter(name, help, labels, read);
  }

  render(): string {
    return this.registry.render();
  }
}
