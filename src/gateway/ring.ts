/**
 * Bounded replay ring of encoded sequenced frames for one session. Slots are preallocated so the hot
 * path copies bytes instead of allocating; frames larger than a slot get their own copy.
 */
const SLOT = 256;

export class ReplayRing {
  private readonly slots: Buffer[];
  private readonly lens: Uint32Array;
  private readonly seqs: Float64Array;
  private head = 0; // next write index
  private count = 0;

  constructor(readonly capacity: number) {
    this.slots = new Array<Buffer>(capacity);
    this.lens = new Uint32Array(capacity);
    this.seqs = new Float64Array(capacity);
  }

  push(seq: number, frame: Uint8Array): void {
    const i = this.head;
    let slot = this.slots[i];
    if (frame.length <= SLOT) {
      if (slot === undefined || slot.length !== SLOT) slot = this.slots[i] = Buffer.allocUnsafe(SLOT);
      slot.set(frame, 0);
    } else this.slots[i] = Buffer.from(frame);
    this.lens[i] = frame.length;
    this.seqs[i] = seq;
    this.head = (i + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  /** Oldest seq still stored, or 0 when empty. */
  oldestSeq(): number {
    if (this.count === 0) return 0;
    return this.seqs[(this.head - this.count + this.capacity) % this.capacity]!;
  }

  /** Frames with seq ≥ fromSeq, oldest first (views valid until the next push). */
  *from(fromSeq: number): Generator<Buffer> {
    for (let k = this.count; k > 0; k--) {
      const i = (this.head - k + this.capacity) % this.capacity;
      if (this.seqs[i]! >= fromSeq) yield this.slots[i]!.subarray(0, this.lens[i]);
    }
  }

  size(): number {
    return this.count;
  }
}
