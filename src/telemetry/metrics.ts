/**
 * Counters, gauges and latency histograms rendered in the Prometheus text format. Recording is a
 * few arithmetic operations with no allocation, so it is safe on the hot path. Conventions: a
 * counter is a `counter` named `_total`, units are in the name (`_seconds`, `_bytes`); a value
 * counted elsewhere is read at scrape time (`read`), never copied on the hot path.
 */

type Kind = "counter" | "gauge" | "histogram";

interface Metric {
  readonly name: string;
  readonly help: string;
  readonly kind: Kind;
  render(out: string[]): void;
}

function labelText(labels: Record<string, string> | undefined, extra?: string): string {
  const parts = labels ? Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, "_")}"`) : [];
  if (extra) parts.push(extra);
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}

export class Counter implements Metric {
  readonly kind = "counter";
  value = 0;
  private readonly labels: string;
  constructor(
    readonly name: string,
    readonly help: string,
    labels?: Record<string, string>,
    /** A count kept elsewhere, read at scrape time (then `inc` is not used). */
    private readonly read?: () => number,
  ) {
    if (!name.endsWith("_total")) throw new Error(`counter ${name}: a counter's name ends in _total`);
    this.labels = labelText(labels);
  }
  inc(n = 1): void {
    this.value += n;
  }
  render(out: string[]): void {
    out.push(`${this.name}${this.labels} ${this.read ? this.read() : this.value}`);
  }
}

export class Gauge implements Metric {
  readonly kind = "gauge";
  value = 0;
  private readonly labels: string;
  constructor(
    readonly name: string,
    readonly help: string,
    labels?: Record<string, string>,
    private readonly read?: () => number,
  ) {
    if (name.endsWith("_total")) throw new Error(`gauge ${name}: _total names a counter`);
    this.labels = labelText(labels);
  }
  set(v: number): void {
    this.value = v;
  }
  render(out: string[]): void {
    out.push(`${this.name}${this.labels} ${this.read ? this.read() : this.value}`);
  }
}

/** Upper bounds in seconds: 1 µs .. 10 s, 1-2-5 steps. */
const BOUNDS_S = [
  1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 0.1, 0.2, 0.5, 1,
  2, 5, 10,
];
const BOUNDS_NS = BOUNDS_S.map((s) => s * 1e9);

export class LatencyHistogram implements Metric {
  readonly kind = "histogram";
  private readonly buckets = new Float64Array(BOUNDS_NS.length + 1);
  private sumNs = 0;
  count = 0;
  private readonly labels: Record<string, string> | undefined;
  constructor(
    readonly name: string,
    readonly help: string,
    labels?: Record<string, string>,
  ) {
    this.labels = labels;
  }
  /** Records a duration in nanoseconds. */
  record(ns: number): void {
    let i = 0;
    while (i < BOUNDS_NS.length && ns > BOUNDS_NS[i]!) i++;
    this.buckets[i]!++;
    this.sumNs += ns;
    this.count++;
  }
  /** Approximate quantile (upper bucket bound), in nanoseconds; for logs and health summaries. */
  quantileNs(q: number): number {
    const target = q * this.count;
    let acc = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      acc += this.buckets[i]!;
      if (acc >= target && acc > 0) return BOUNDS_NS[i] ?? Number.POSITIVE_INFINITY;
    }
    return 0;
  }
  render(out: string[]): void {
    let acc = 0;
    for (let i = 0; i < BOUNDS_S.length; i++) {
      acc += this.buckets[i]!;
      out.push(`${this.name}_bucket${labelText(this.labels, `le="${BOUNDS_S[i]}"`)} ${acc}`);
    }
    acc += this.buckets[BOUNDS_S.length]!;
    out.push(`${this.name}_bucket${labelText(this.labels, 'le="+Inf"')} ${acc}`);
    out.push(`${this.name}_sum${labelText(this.labels)} ${this.sumNs / 1e9}`);
    out.push(`${this.name}_count${labelText(this.labels)} ${this.count}`);
  }
}

/** Families rendered by someone else at scrape time (runtime metrics), after the registry's own. */
export type Collector = (out: string[]) => void;

export class Registry {
  private readonly metrics: Metric[] = [];
  private readonly collectors: Collector[] = [];

  counter(name: string, help: string, labels?: Record<string, string>, read?: () => number): Counter {
    return this.add(new Counter(name, help, labels, read));
  }
  collect(c: Collector): void {
    this.collectors.push(c);
  }
  gauge(name: string, help: string, labels?: Record<string, string>, read?: () => number): Gauge {
    return this.add(new Gauge(name, help, labels, read));
  }
  histogram(name: string, help: string, labels?: Record<string, string>): LatencyHistogram {
    return this.add(new LatencyHistogram(name, help, labels));
  }

  private add<T extends Metric>(m: T): T {
    this.metrics.push(m);
    return m;
  }

  /** Prometheus text exposition format (version 0.0.4). */
  render(): string {
    const families = new Map<string, Metric[]>();
    for (const m of this.metrics) {
      const fam = families.get(m.name);
      if (fam) fam.push(m);
      else families.set(m.name, [m]);
    }
    // Series of one family stay together under one HELP/TYPE header, as the format expects.
    const lines: string[] = [];
    for (const [name, fam] of families) {
      lines.push(`# HELP ${name} ${fam[0]!.help}`, `# TYPE ${name} ${fam[0]!.kind}`);
      for (const m of fam) m.render(lines);
    }
    for (const c of this.collectors) c(lines);
    return `${lines.join("\n")}\n`;
  }
}
