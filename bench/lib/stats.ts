import { createHistogram, type RecordableHistogram } from "node:perf_hooks";

/** Latency summary in microseconds; every benchmark reports these, never only a mean. */
export interface LatencySummary {
  n: number;
  p50_us: number;
  p99_us: number;
  p999_us: number;
  mean_us: number;
  max_us: number;
  /** The distribution as [percentile, µs] pairs (the histogram's percentile iteration): the plots. */
  dist?: [number, number][];
}

export function newHistogram(): RecordableHistogram {
  return createHistogram({ lowest: 1, highest: 60_000_000_000, figures: 3 });
}

/** Records one duration given in nanoseconds (bigint from process.hrtime.bigint()). */
export function recordNs(h: RecordableHistogram, ns: bigint | number): void {
  const v = typeof ns === "bigint" ? Number(ns) : ns;
  h.record(v < 1 ? 1 : Math.round(v));
}

export function summarize(h: RecordableHistogram): LatencySummary {
  const r = (ns: number) => Math.round(ns / 10) / 100;
  return {
    n: h.count,
    p50_us: r(h.percentile(50)),
    p99_us: r(h.percentile(99)),
    p999_us: r(h.percentile(99.9)),
    mean_us: r(h.mean),
    max_us: r(h.max),
    dist: h.count === 0 ? [] : [...h.percentiles].map(([p, ns]) => [p, r(ns)]),
  };
}

/** Times `fn` `iterations` times (after `warmup` untimed calls) into a histogram. */
export function timeSync(
  fn: () => unknown,
  iterations: number,
  warmup = Math.min(10_000, iterations),
): LatencySummary {
  for (let i = 0; i < warmup; i++) fn();
  const h = newHistogram();
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    recordNs(h, process.hrtime.bigint() - t0);
  }
  return summarize(h);
}

export async function timeAsync(
  fn: () => Promise<unknown>,
  iterations: number,
  warmup = Math.min(2_000, iterations),
): Promise<LatencySummary> {
  for (let i = 0; i < warmup; i++) await fn();
  const h = newHistogram();
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    recordNs(h, process.hrtime.bigint() - t0);
  }
  return summarize(h);
}

export function ratio(a: number, b: number): number {
  return Math.round((a / b) * 100) / 100;
}
