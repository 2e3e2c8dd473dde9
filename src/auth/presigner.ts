/**
 * Pre-signer: the body is not signed, so for the fixed hot-path prefixes (METHOD + path, the venues'
 * order create and cancel: src/venue/stack.ts) the signature depends on the epoch alone. The piscina
 * pool's threads sign the coming `horizonMs` epochs straight into a shared ring per prefix
 * (src/auth/presignRing.ts), indexed by `epoch & mask`.
 * The hot path reads the ring in O(1) with no message; a refill costs the main thread one pool task
 * per thread per period, whatever the order rate. A miss is counted and the caller signs inline.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import type { KeyPair } from "./keys.js";
import { newSharedRing, RingReader, type SharedRing } from "./presignRing.js";
import type { PresignDone, PresignJob } from "./presignWorker.js";

export interface PresignerOptions {
  /** Signed prefixes (METHOD + path); a prefix id is the index in this list (src/venue/stack.ts's). */
  prefixes: readonly string[];
  /** How far ahead of the corrected clock to keep signatures (ms). Default 200. */
  horizonMs?: number;
  /** Refill timer period (ms). Default 20. */
  refillMs?: number;
  /**
   * Signatures for epochs older than the grid point in use (now floored to the step) minus graceMs are
   * dropped. Default 20.
   */
  graceMs?: number;
  /** Worker threads (prefixes are shared out among them). Default 1. */
  threads?: number;
  /** Most epochs in one signing run (bounds one refill's work per prefix). Default 64. */
  batch?: number;
  /**
   * Nice value of the worker threads (Linux; 0..19), default null = unchanged. At 19 a busy event
   * loop on the same vCPU starves the worker (measured: 59 hits in 2,917 lookups), and every request
   * then signs inline, which costs more than the refills it would spare.
   */
  nice?: number | null;
  /**
   * A prefix not asked for during this long stops being refilled (ms; 0 = never stops). Its next use
   * signs inline once (a counted miss) and resumes its refills. Default 60,000.
   */
  idleMs?: number;
  /** Only epochs that are multiples of this are signed (the epoch source's `stepMs`). Default 1. */
  stepMs?: number;
  /** The corrected clock in ms (epoch source). */
  clockMs: () => number;
}

interface Ring {
  readonly prefix: string;
  readonly shared: SharedRing;
  readonly reader: RingReader;
  /** Highest epoch requested from the worker so far (filled or in flight). */
  requestedTo: number;
  /** Clock (ms) of the last `get` for this prefix; start-up counts as a use. */
  usedMs: number;
}

export class Presigner {
  hits = 0;
  misses = 0;
  /** Signatures produced by the workers. */
  produced = 0;
  /** Refills that failed (the ring just stays empty there; callers sign inline). */
  failures = 0;
  /**
   * Nice value the pool's threads report with each refill (null: priority unchanged; undefined until
   * the first refill ends). Every thread applies the same `nice` option.
   */
  niced: number | null | undefined = undefined;
  readonly prefixes: readonly string[];
  private readonly rings: Ring[];
  private readonly horizonMs: number;
  private readonly graceMs: number;
  private readonly refillMs: number;
  private readonly batch: number;
  private readonly clockMs: () => number;
  private readonly idleMs: number;
  private readonly step: number;
  /** The design's worker pool: one task per refill and thread share; results land in the rings. */
  private readonly pool: Piscina<PresignJob, PresignDone>;
  private readonly threads: number;
  private nextJob = 1;
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(keys: KeyPair, opts: PresignerOptions) {
    this.prefixes = opts.prefixes;
    this.horizonMs = opts.horizonMs ?? 200;
    this.graceMs = opts.graceMs ?? 20;
    this.refillMs = opts.refillMs ?? 20;
    this.batch = opts.batch ?? 64;
    this.clockMs = opts.clockMs;
    this.idleMs = opts.idleMs ?? 60_000;
    this.step = Math.max(1, Math.floor(opts.stepMs ?? 1));
    const nice = opts.nice ?? null;
    // Ring must hold grace + horizon + one refill period of slack without aliasing.
    let size = 64;
    while (size < this.horizonMs + this.graceMs + 2 * this.refillMs + this.batch * this.step) size <<= 1;
    this.rings = this.prefixes.map((prefix) => {
      const shared = newSharedRing(size);
      return { prefix, shared, reader: new RingReader(shared), requestedTo: 0, usedMs: 0 };
    });
    this.threads = Math.max(1, Math.min(opts.threads ?? 1, this.prefixes.length));
    this.pool = new Piscina<PresignJob, PresignDone>({
      filename: workerFile(),
      minThreads: this.threads,
      maxThreads: this.threads,
      // The threads live as long as the pre-signer: a refill never waits for a thread to start.
      idleTimeout: Number.POSITIVE_INFINITY,
      // The seed is copied to each thread once; it is never part of a task, a result or a log line.
      workerData: {
        seed: keys.seed,
        prefixes: [...this.prefixes],
        rings: this.rings.map((r) => r.shared),
        nice,
      },
    });
    // A failed thread is replaced by the pool, and its refill's task rejects: refill counts that
    // failure. The listener only keeps the pool's "error" event from being thrown.
    this.pool.on("error", () => {});
  }

  /** Starts the refill timer and fills the first horizon. Resolves when that first fill is done. */
  async start(): Promise<void> {
    const now = this.clockMs();
    for (const r of this.rings) r.usedMs = now;
    await this.refill();
    if (this.stopped) return;
    this.timer = setInterval(() => void this.refill(), this.refillMs);
    this.timer.unref();
  }

  /** O(1): the hex signature for `prefixes[prefixId] + epochMs`, or undefined (counted as a miss). */
  get(prefixId: number, epochMs: number): string | undefined {
    const ring = this.rings[prefixId];
    if (ring === undefined) {
      this.misses++;
      return undefined;
    }
    // The epoch is the corrected clock (or just ahead of it): the use time needs no clock read.
    ring.usedMs = epochMs;
    const sig = this.stopped ? undefined : ring.reader.get(epochMs);
    if (sig === undefined) this.misses++;
    else this.hits++;
    return sig;
  }

  /**
   * Asks the workers for [now, now + horizon] not yet requested and to drop epochs older than the
   * grace; resolves when they have written it.
   */
  refill(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const now = this.clockMs();
    const until = now + this.horizonMs;
    const step = this.step;
    const jobs: Promise<void>[] = [];
    for (let w = 0; w < this.threads; w++) {
      const runs: PresignJob["runs"] = [];
      const sweepRings: number[] = [];
      for (let k = w; k < this.rings.length; k += this.threads) {
        const ring = this.rings[k]!;
        sweepRings.push(k);
        // An idle prefix is not signed ahead (each costs a signature per ms); its next use resumes it.
        if (this.idleMs > 0 && now - ring.usedMs > this.idleMs) continue;
        // A backwards jump of the corrected clock (offset resync) restarts the fill at now.
        if (ring.requestedTo > until + this.horizonMs) ring.requestedTo = now - step;
        // Epochs on the step grid only; the one in use now is the grid point at or before now.
        let from = ring.requestedTo + step;
        const first = now - (now % step);
        if (from < first) from = first;
        from -= from % step;
        while (from <= until) {
          const count = Math.min(this.batch, Math.floor((until - from) / step) + 1);
          runs.push([k, from, count]);
          from += count * step;
        }
        if (from - step > ring.requestedTo) ring.requestedTo = from - step;
      }
      const job: PresignJob = {
        runs,
        sweepRings,
        oldest: this.oldestKept(now),
        sweep: this.refillMs * 2 + this.batch * step,
        step,
        id: this.nextJob++,
      };
      this.inFlight++;
      jobs.push(
        this.pool.run(job).then(
          (done) => {
            this.inFlight--;
            this.niced = done.nice;
            for (const r of runs) this.produced += r[2];
          },
          () => {
            this.inFlight--;
            if (this.stopped) return;
            // A failed refill leaves holes: those epochs fall back to inline signing, which is correct.
            this.failures++;
            for (const [k, from] of runs) {
              const ring = this.rings[k]!;
              if (ring.requestedTo >= from) ring.requestedTo = from - step;
            }
          },
        ),
      );
    }
    return Promise.all(jobs).then(() => undefined);
  }

  /**
   * The oldest epoch kept at clock `now`: the grace counts from the grid point in use, which is up to
   * step - 1 ms behind the clock, so it is never swept while in use.
   */
  private oldestKept(now: number): number {
    return now - (now % this.step) - this.graceMs;
  }

  /** How many valid signatures a prefix holds for epochs >= now - grace (for tests and metrics). */
  held(prefixId: number): number {
    const ring = this.rings[prefixId];
    if (ring === undefined) return 0;
    const oldest = this.oldestKept(this.clockMs());
    let n = 0;
    const epochs = ring.reader.epochs;
    for (let i = 0; i < epochs.length; i++) if (epochs[i]! >= oldest) n++;
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

  /** Stops the timer and destroys the pool (its threads end); idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    // Refills still out are abandoned (their tasks reject and are ignored).
    await this.pool.destroy();
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
