/**
 * A Map kept as several smaller Maps, the shard chosen from a key's low bits (an integer) or its last
 * two characters (a string: minted ids end in a counter, venue ids in random or counting digits).
 *
 * Why: V8 rebuilds a Map's whole table when it grows, and again whenever deleted entries have filled
 * it. A store that keeps 100,000 finished orders while it forgets the oldest meets such a rebuild every
 * ~160,000 inserts per Map, and at that size one rebuild holds the event loop for tens of
 * milliseconds (the `retention` suite's steady store). Split in 32, keys spread evenly rebuild one
 * shard at a time: each order pays a thirty-second of it. The total work is the same; keys that all
 * fall in one shard behave as one Map.
 */
export class ShardedMap<K extends string | number, V> {
  private readonly shards: Map<K, V>[] = [];
  private readonly mask: number;

  /** `shards`: a power of two from 1 (one Map, as a plain Map behaves) to 1024. */
  constructor(shards = 32) {
    if (!Number.isInteger(shards) || shards < 1 || shards > 1024 || (shards & (shards - 1)) !== 0)
      throw new RangeError("shards must be a power of two from 1 to 1024");
    this.mask = shards - 1;
    for (let i = 0; i < shards; i++) this.shards.push(new Map<K, V>());
  }

  private shardOf(key: K): Map<K, V> {
    const m = this.mask;
    if (typeof key === "number") return this.shards[key & m]!;
    const s = key as string;
    const n = s.length;
    const h = n > 1 ? s.charCodeAt(n - 1) + 7 * s.charCodeAt(n - 2) : n === 1 ? s.charCodeAt(0) : 0;
    return this.shards[h & m]!;
  }

  get(key: K): V | undefined {
    return this.shardOf(key).get(key);
  }

  has(key: K): boolean {
    return this.shardOf(key).has(key);
  }

  set(key: K, value: V): this {
    this.shardOf(key).set(key, value);
    return this;
  }

  delete(key: K): boolean {
    return this.shardOf(key).delete(key);
  }

  get size(): number {
    let n = 0;
    for (const s of this.shards) n += s.size;
    return n;
  }
}
