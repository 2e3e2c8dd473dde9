/**
 * Pre-signer: the body is not signed, so for the fixed hot-path prefixes (`POST/v5/order/create`, ...)
 * the signature depends on the epoch alone. A piscina pool signs the coming `horizonMs` epochs in
 * batches, off the main thread, into one ring per prefix indexed by `epoch & mask`. The hot path
 * reads the ring in O(1); a miss is counted and the caller signs inline.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import type { KeyPair } from "./keys.js";
import type { PresignTask } from "./presignWorker.js";

/** The hot-path signed prefixes, in prefix-id order. The v5 cancel path is [assumed] (see catalogue). */
export const HOT_PREFIXES = [
  "POST/v5/order/create",
  "POST/v5/order/cancel",
  "POST/trade/api/v2/order",
  "DELETE/trade/api/v2/order",
] as const;

export interface PresignerOptions {
  /** Signed prefixes (METHOD + path); a prefix id is the index in this list. Default HOT_PREFIXES. */
  prefixes?: readonly string[];
  /** How far ahead of the corrected clock to keep signatures (ms). Default 200. */
  horizonMs?: number;
  /** Refill timer period (ms). Default 20. */
  refillMs?: number;
  /** Signatures for epochs older than now - graceMs are dropped. Default 20. */
  graceMs?: number;
  /** Worker threads. Default 1. */
  threads?: number;
  /** Most epochs signed per worker call (a batch, never one round trip per signature). Default 64. */
  batch?: number;
  /** The corrected clock in ms (epoch source). */
  clockMs: () => number;
}

interface Ring {
  readonly prefix: string;
  readonly epochs: Float64Array;
  readonly sigs: string[];
  /** Highest epoch requested from the pool so far (filled or in flight). */
  requestedTo: number;
}

export class Presigner {
  hits = 0;
  misses = 0;
  /** Signatures produced by the pool. */
  produced = 0;
  /** Worker calls that failed (the ring just stays empty there; callers sign inline). */
  failures = 0;
  readonly prefixes: readonly string[];
  private readonly rings: Ring[];
  private readonly mask: number;
  private readonly horizonMs: number;
  private readonly graceMs: number;
  private readonly refillMs: number;
  private readonly batch: number;
  private readonly clockMs: () => number;
  private pool: Piscina<PresignTask, string[]> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inFlight = 0;
  private stopped = false;

  constructor(keys: KeyPair, opts: PresignerOptions) {
    this.prefixes = opts.prefixes ?? HOT_PREFIXES;
    this.horizonMs = opts.horizonMs ?? 200;
    this.graceMs = opts.graceMs ?? 20;
    this.refillMs = opts.refillMs ?? 20;
    this.batch = opts.batch ?? 64;
    this.clockMs = opts.clockMs;
    // Ring must hold grace + horizon + one refill period of slack without aliasing.
    let size = 64;
    while (size < this.horizonMs + this.graceMs + 2 * this.refillMs + this.batch) size <<= 1;
    this.mask = size - 1;
    this.rings = this.prefixes.map((prefix) => ({
      prefix,
      epochs: new Float64Array(size).fill(-1),
      sigs: new Array<string>(size).fill(""),
      requestedTo: 0,
    }));
    const threads = opts.threads ?? 1;
    this.pool = new Piscina<PresignTask, string[]>({
      filename: workerFile(),
      minThreads: threads,
      maxThreads: threads,
      // The seed is copied to each worker once; it is never part of a task or a log line.
      workerData: { seed: keys.seed },
      idleTimeout: Number.POSITIVE_INFINITY,
    });
  }

  /** Starts the refill timer and fills the first horizon. Resolves when that first fill is done. */
  async start(): Promise<void> {
    await this.refill();
    if (this.stopped) return;
    this.timer = setInterval(() => void this.refill(), this.refillMs);
    this.timer.unref();
  }

  /** O(1): the hex signature for `prefixes[prefixId] + epochMs`, or undefined (counted as a miss). */
  get(prefixId: number, epochMs: number): string | undefined {
    const ring = this.rings[prefixId];
    if (ring !== undefined) {
      const i = epochMs & this.mask;
      if (ring.epochs[i] === epochMs) {
        this.hits++;
        return ring.sigs[i];
      }
    }
    this.misses++;
    return undefined;
  }

  /** Requests signatures for [now, now + horizon] that are not yet requested, and drops stale ones. */
  async refill(): Promise<void> {
    const pool = this.pool;
    if (pool === undefined || this.stopped) return;
    const now = this.clockMs();
    const until = now + this.horizonMs;
    const jobs: Promise<void>[] = [];
    for (const ring of this.rings) {
      this.dropStale(ring, now - this.graceMs);
      // A backwards jump of the corrected clock (offset resync) restarts the fill at now.
      if (ring.requestedTo > until + this.horizonMs) ring.requestedTo = now - 1;
      let from = ring.requestedTo + 1;
      if (from < now) from = now;
      while (from <= until) {
        const count = Math.min(this.batch, until - from + 1);
        jobs.push(this.runBatch(pool, ring, from, count));
        from += count;
      }
      if (from - 1 > ring.requestedTo) ring.requestedTo = from - 1;
    }
    if (jobs.length > 0) await Promise.all(jobs);
  }

  private async runBatch(pool: Piscina<PresignTask, string[]>, ring: Ring, from: number, count: number) {
    this.inFlight++;
    try {
      const sigs = await pool.run({ prefix: ring.prefix, from, count });
      if (this.stopped) return;
      const oldest = this.clockMs() - this.graceMs;
      for (let k = 0; k < sigs.length; k++) {
        const e = from + k;
        if (e < oldest) continue;
        const i = e & this.mask;
        ring.epochs[i] = e;
        ring.sigs[i] = sigs[k]!;
      }
      this.produced += sigs.length;
    } catch {
      // A failed batch leaves holes: those epochs fall back to inline signing, which is correct.
      this.failures++;
      if (ring.requestedTo >= from) ring.requestedTo = from - 1;
    } finally {
      this.inFlight--;
    }
  }

  private dropStale(ring: Ring, oldest: number): void {
    // Only the slots just behind the grace window can hold stale entries; sweep one refill's worth.
    const sweep = this.refillMs * 2 + this.batch;
    for (let e = oldest - sweep; e < oldest; e++) {
      const i = e & this.mask;
      if (ring.epochs[i] !== -1 && ring.epochs[i]! < oldest) {
        ring.epochs[i] = -1;
        ring.sigs[i] = "";
      }
    }
  }

  /** How many valid signatures a prefix holds for epochs >= now - grace (for tests and metrics). */
  held(prefixId: number): number {
    const ring = this.rings[prefixId];
    if (ring === undefined) return 0;
    const oldest = this.clockMs() - this.graceMs;
    let n = 0;
    for (let i = 0; i < ring.epochs.length; i++) if (ring.epochs[i]! >= oldest) n++;
    return n;
  }

  stats(): { hits: number; misses: number; produced: number; failures: number; inFlight: number } {
    return {
      hits: this.hits,
      misses: this.misses,
      produced: this.produced,
      failures: this.failures,
      inFlight: this.inFlight,
    };
  }

  /** Stops the timer and terminates the worker threads; idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    const pool = this.pool;
    this.pool = undefined;
    for (const ring of this.rings) {
      ring.epochs.fill(-1);
      ring.sigs.fill("");
    }
    if (pool !== undefined) await pool.destroy();
  }
}

/**
 * Worker threads cannot load .ts, so the worker is always the compiled file. From dist it is the
 * sibling; from TypeScript source (vitest) it is `<project>/dist/src/auth/presignWorker.js`.
 */
export function workerFile(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const sibling = join(here, "presignWorker.js");
  if (!import.meta.url.endsWith(".ts") && existsSync(sibling)) return sibling;
  const fromSource = resolve(here, "..", "..", "dist", "src", "auth", "presignWorker.js");
  if (existsSync(fromSource)) return fromSource;
  if (existsSync(sibling)) return sibling;
  throw new Error(`pre-signer worker not built: expected ${fromSource} (run \`npx tsc -p .\`)`);
}
