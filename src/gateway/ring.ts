/**
 * Bounded replay ring of encoded sequenced frames for one session. Slots are reused so the hot path
 * copies bytes instead of allocating; frames larger than a slot get their own copy. The index arrays
 * start small and double up to `capacity`, so a session that sends little costs little.
 */
const SLOT = 256;
const FIRST = 16;

export class ReplayRing {
  private slots: Buffer[];
  private lens: Uint32Array;
  private seqs: Float64Array;
  private head = 0; // next write index
  private count = 0;

  constructor(readonly capacity: number) {
    const n = Math.min(capacity, FIRST);
    this.slots = new Array<Buffer>(n);
    this.lens = new Uint32Array(n);
    this.seqs = new Float64Array(n);
  }

  push(seq: number, frame: Uint8Array): void {
    if (this.capacity === 0) return;
    if (this.count === this.slots.length && this.count < this.capacity) this.grow();
    const size = this.slots.length;
    const i = this.head;
    let slot = this.slots[i];
    if (frame.length <= SLOT) {
      if (slot === undefined || slot.length !== SLOT) slot = this.slots[i] = Buffer.allocUnsafe(SLOT);
      slot.set(frame, 0);
    } else this.slots[i] = Buffer.from(frame);
    this.lens[i] = frame.length;
    this.seqs[i] = seq;
    this.head = (i + 1) % size;
    if (this.count < size) this.count++;
  }

  /** Doubles the index arrays (full, below capacity): entries re-laid oldest first from index 0. */
  private grow(): void {
    const old = this.slots.length;
    const n = Math.min(this.capacity, old * 2);
    const slots = new Array<Buffer>(n);
    const lens = new Uint32Array(n);
    const seqs = new Float64Array(n);
    for (let k = 0; k < this.count; k++) {
      const i = (this.head - this.count + k + old) % old;
      slots[k] = this.slots[i]!;
      lens[k] = this.lens[i]!;
      seqs[k] = this.seqs[i]!;
    }
    this.slots = slots;
    this.lens = lens;
    this.seqs = seqs;
    this.head = this.count;
  }

  /** Oldest seq still stored, or 0 when empty. */
  oldestSeq(): number {
    if (this.count === 0) return 0;
    const size = this.slots.length;
    return this.seqs[(this.head - this.count + size) % size]!;
  }

  /** Frames with seq ≥ fromSeq, oldest first (views valid until the next push). */
  *from(fromSeq: number): Generator<Buffer> {
    const size = this.slots.length;
    for (let k = this.count; k > 0; k--) {
      const i = (this.head - k + size) % size;
      if (this.seqs[i]! >= fromSeq) yield this.slots[i]!.subarray(0, this.lens[i]);
    }
  }

  size(): number {
    return this.count;
  }
}
