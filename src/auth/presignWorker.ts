/**
 * Pre-signer task module, run by the piscina pool's worker threads: signs `prefix + epoch` for runs of
 * consecutive epochs straight into the shared ring (hex ASCII), so the main thread reads signatures
 * without any message per batch. One task per refill (the runs to sign and the stale bound); its
 * result is the job id and this thread's nice value.
 * The seed arrives once through workerData and never leaves this thread (no logging here at all).
 */
import { createPrivateKey, sign } from "node:crypto";
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { workerData } from "node:worker_threads";
import { type SharedRing, SIG_HEX } from "./presignRing.js";

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export interface PresignJob {
  /** Ring (prefix) index, first epoch (ms) to sign, how many epochs `step` ms apart. */
  runs: [ring: number, from: number, count: number][];
  /** Spacing of the signed epochs (ms). */
  step: number;
  /** Slots of these rings (this worker's) holding epochs below `oldest` are invalidated first. */
  sweepRings: number[];
  oldest: number;
  /** How many slots behind `oldest` may hold stale epochs (one refill's worth). */
  sweep: number;
  id: number;
}

interface Init {
  seed: Uint8Array;
  prefixes: string[];
  rings: SharedRing[];
  /** Nice value for this thread alone (Linux), or null to leave it. */
  nice: number | null;
}

/** A finished refill: its id, and this thread's nice value when it lowered it (else null). */
export interface PresignDone {
  id: number;
  nice: number | null;
}

const init = workerData as Init;

/**
 * On one vCPU a refill (tens of signatures, ~1-2 ms) can preempt the event loop mid-order; a nice
 * value trades that against the signer falling behind. On Linux, setpriority on a thread id (from
 * /proc/thread-self) changes that thread only.
 */
function lowerPriority(nice: number | null): number | null {
  if (nice === null) return null;
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isSafeInteger(tid) || tid <= 0) return null;
    setPriority(tid, nice);
    return nice;
  } catch {
    return null; // not Linux, or not allowed: the thread keeps the process's priority
  }
}
const niced = lowerPriority(init.nice);
const key = createPrivateKey({
  key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(init.seed)]),
  format: "der",
  type: "pkcs8",
});
const rings = init.rings.map((r) => ({
  seq: new Int32Array(r.seq),
  epochs: new Float64Array(r.epochs),
  sigs: Buffer.from(r.sigs),
  mask: r.size - 1,
}));

function write(ringIdx: number, epoch: number, value: Buffer | undefined): void {
  const r = rings[ringIdx]!;
  const i = epoch & r.mask;
  // Odd while writing: a reader that sees an odd or changed sequence treats the slot as a miss.
  Atomics.add(r.seq, i, 1);
  if (value === undefined) r.epochs[i] = -1;
  else {
    value.copy(r.sigs, i * SIG_HEX);
    r.epochs[i] = epoch;
  }
  Atomics.add(r.seq, i, 1);
}

export default function presign(job: PresignJob): PresignDone {
  // Only grid epochs (multiples of `step`) are ever signed, so only their slots can hold stale ones.
  const step = job.step;
  const firstStale = Math.ceil((job.oldest - job.sweep) / step) * step;
  for (const k of job.sweepRings) {
    const r = rings[k]!;
    for (let e = firstStale; e < job.oldest; e += step) {
      const i = e & r.mask;
      const held = r.epochs[i]!;
      if (held !== -1 && held < job.oldest) write(k, e, undefined);
    }
  }
  for (const [ring, from, count] of job.runs) {
    const prefix = init.prefixes[ring]!;
    const end = from + count * job.step;
    for (let e = from; e < end; e += job.step) {
      const hex = Buffer.from(sign(null, Buffer.from(prefix + e, "utf8"), key).toString("hex"), "latin1");
      write(ring, e, hex);
    }
  }
  return { id: job.id, nice: niced };
}
