/**
 * Process and Node.js runtime metrics under the names Prometheus' Node client uses (process_cpu_*,
 * process_resident_memory_bytes, process_open_fds, nodejs_heap_*, nodejs_eventloop_lag_*,
 * nodejs_gc_duration_seconds), so standard dashboards read them. Off the hot path: the event-loop
 * delay is sampled by libuv's own timer, GC pauses arrive in batched observer callbacks, the rest is
 * read when /metrics is scraped. One collector per process (they describe the process).
 */
import { readdirSync, readFileSync } from "node:fs";
import {
  constants,
  type IntervalHistogram,
  monitorEventLoopDelay,
  PerformanceObserver,
} from "node:perf_hooks";
import { type Collector, type LatencyHistogram, Registry } from "./metrics.js";

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
};

/** Soft limit of open files, from /proc (Linux); -1 where unknown. */
function maxFds(): number {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"));
    return m ? Number(m[1]) : -1;
  } catch {
    return -1;
  }
}

/** Open file descriptors (Linux); -1 where /proc is not there. */
function openFds(): number {
  try {
    return readdirSync("/proc/self/fd").length - 1; // less the directory's own descriptor
  } catch {
    return -1;
  }
}

class RuntimeMetrics {
  private readonly r = new Registry();
  private readonly loop: IntervalHistogram;
  private readonly gc = new Map<string, LatencyHistogram>();

  constructor() {
    const r = this.r;
    // 10 ms resolution: a timer of libuv's, not on any JavaScript path.
    this.loop = monitorEventLoopDelay({ resolution: 10 });
    this.loop.enable();
    const cpu = () => process.cpuUsage();
    r.counter(
      "process_cpu_user_seconds_total",
      "User CPU time spent, in seconds",
      undefined,
      () => cpu().user / 1e6,
    );
    r.counter(
      "process_cpu_system_seconds_total",
      "System CPU time spent, in seconds",
      undefined,
      () => cpu().system / 1e6,
    );
    r.counter("process_cpu_seconds_total", "User and system CPU time spent, in seconds", undefined, () => {
      const c = cpu();
      return (c.user + c.system) / 1e6;
    });
    const started = Math.round(Date.now() / 1000 - process.uptime());
    r.gauge(
      "process_start_time_seconds",
      "Start time of the process since the Unix epoch, in seconds",
      undefined,
      () => started,
    );
    r.gauge("process_resident_memory_bytes", "Resident memory size, in bytes", undefined, () =>
      process.memoryUsage.rss(),
    );
    r.gauge("process_open_fds", "Open file descriptors (-1: unknown on this OS)", undefined, openFds);
    const max = maxFds();
    r.gauge("process_max_fds", "Maximum number of open file descriptors (-1: unknown)", undefined, () => max);
    r.gauge(
      "nodejs_heap_size_total_bytes",
      "V8 heap size, in bytes",
      undefined,
      () => process.memoryUsage().heapTotal,
    );
    r.gauge(
      "nodejs_heap_size_used_bytes",
      "V8 heap used, in bytes",
      undefined,
      () => process.memoryUsage().heapUsed,
    );
    r.gauge(
      "nodejs_external_memory_bytes",
      "Memory of C++ objects bound to JavaScript objects, in bytes",
      undefined,
      () => process.memoryUsage().external,
    );
    const ns = (v: number) => (Number.isFinite(v) ? v / 1e9 : 0);
    const loop = this.loop;
    const lag = (name: string, what: string, read: () => number) =>
      r.gauge(
        `nodejs_eventloop_lag_${name}_seconds`,
        `Event-loop delay since the previous scrape: ${what}`,
        undefined,
        () => (loop.count === 0 ? 0 : ns(read())),
      );
    lag("mean", "mean", () => loop.mean);
    lag("p50", "50th percentile", () => loop.percentile(50));
    lag("p99", "99th percentile", () => loop.percentile(99));
    lag("max", "maximum", () => loop.max);
    for (const kind of Object.values(GC_KINDS))
      this.gc.set(
        kind,
        r.histogram("nodejs_gc_duration_seconds", "Garbage collection pauses by kind, in seconds", { kind }),
      );
    const obs = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const kind = GC_KINDS[(e as { detail?: { kind?: number } }).detail?.kind ?? -1];
        if (kind !== undefined) this.gc.get(kind)!.record(e.duration * 1e6);
      }
    });
    obs.observe({ entryTypes: ["gc"] });
  }

  readonly collector: Collector = (out) => {
    const text = this.r.render();
    out.push(text.slice(0, -1));
    this.loop.reset(); // the event-loop figures cover one scrape interval
  };
}

let shared: RuntimeMetrics | undefined;

/** The process's runtime metrics collector (created, and its sampling started, on first use). */
export function runtimeCollector(): Collector {
  shared ??= new RuntimeMetrics();
  return shared.collector;
}
