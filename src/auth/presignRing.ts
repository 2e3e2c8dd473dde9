/**
 * The pre-signer's shared ring (one per signed prefix): slot `epoch & (size - 1)` holds the epoch and
 * its signature as hex ASCII; a per-slot sequence number is odd while the worker writes the slot, so a
 * reader that sees an odd or changed sequence treats the slot as a miss (a torn read is never used).
 */

/** Hex characters of an Ed25519 signature. */
export const SIG_HEX = 128;

export interface SharedRing {
  size: number;
  seq: SharedArrayBuffer;
  epochs: SharedArrayBuffer;
  sigs: SharedArrayBuffer;
}

export function newSharedRing(size: number): SharedRing {
  const ring: SharedRing = {
    size,
    seq: new SharedArrayBuffer(4 * size),
    epochs: new SharedArrayBuffer(8 * size),
    sigs: new SharedArrayBuffer(SIG_HEX * size),
  };
  new Float64Array(ring.epochs).fill(-1);
  return ring;
}

/** The main thread's view of a ring, with the last decoded string per slot (reused within a ms). */
export class RingReader {
  readonly seq: Int32Array;
  readonly epochs: Float64Array;
  private readonly sigs: Buffer;
  private readonly mask: number;
  private readonly cacheSeq: Int32Array;
  private readonly cacheEpoch: Float64Array;
  private readonly cacheSig: string[];

  constructor(r: SharedRing) {
    this.seq = new Int32Array(r.seq);
    this.epochs = new Float64Array(r.epochs);
    this.sigs = Buffer.from(r.sigs);
    this.mask = r.size - 1;
    this.cacheSeq = new Int32Array(r.size).fill(-1);
    this.cacheEpoch = new Float64Array(r.size).fill(-1);
    this.cacheSig = new Array<string>(r.size).fill("");
  }

  /** The signature of `epoch`, or undefined when the slot holds another epoch or is being written. */
  get(epoch: number): string | undefined {
    const i = epoch & this.mask;
    const s1 = Atomics.load(this.seq, i);
    if ((s1 & 1) === 1 || this.epochs[i] !== epoch) return undefined;
    if (this.cacheSeq[i] === s1 && this.cacheEpoch[i] === epoch) return this.cacheSig[i];
    const sig = this.sigs.toString("latin1", i * SIG_HEX, i * SIG_HEX + SIG_HEX);
    if (Atomics.load(this.seq, i) !== s1) return undefined;
    this.cacheSeq[i] = s1;
    this.cacheEpoch[i] = epoch;
    this.cacheSig[i] = sig;
    return sig;
  }
}
