/**
 * A bounded record of ids lately seen (the HFT private stream's order ids of the gateway's own
 * orders): a ring of `capacity` slots and a Set over it. Adding a new id evicts the oldest; an id
 * already held is not added again, so an order's many messages take one slot. Nothing grows past
 * `capacity` and an add allocates nothing of its own (hot path: one add per stream message).
 */
export class RecentIds {
  private readonly ring: string[];
  private readonly set = new Set<string>();
  private pos = 0;

  constructor(readonly capacity: number) {
    if (!(Number.isInteger(capacity) && capacity > 0)) throw new RangeError("capacity must be > 0");
    this.ring = new Array<string>(capacity).fill("");
  }

  add(id: string): void {
    if (id === "" || this.set.has(id)) return;
    const old = this.ring[this.pos]!;
    if (old !== "") this.set.delete(old);
    this.ring[this.pos] = id;
    this.set.add(id);
    this.pos = this.pos + 1 === this.capacity ? 0 : this.pos + 1;
  }

  has(id: string): boolean {
    return id !== "" && this.set.has(id);
  }

  get size(): number {
    return this.set.size;
  }
}
