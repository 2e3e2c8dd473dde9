/**
 * The sharded map answers as one Map would, whatever the keys, and spreads the order store's keys
 * (minted client ids, venue ids, order numbers) over its shards.
 */
import { describe, expect, it } from "vitest";
import { ClientIdMinter } from "../../src/orders/index.js";
import { ShardedMap } from "../../src/util/shardedMap.js";

/** A deterministic pseudo-random stream (xorshift32). */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x1_0000_0000;
  };
}

const shardSizes = (m: ShardedMap<string | number, unknown>): number[] =>
  (m as unknown as { shards: Map<unknown, unknown>[] }).shards.map((s) => s.size);

describe("ShardedMap", () => {
  const KEY_SETS: [string, (i: number) => string | number][] = [
    [
      "minted client ids",
      (() => {
        const minter = new ClientIdMinter("hq1x2y3z-");
        const ids: string[] = [];
        return (i: number) => {
          while (ids.length <= i) ids.push(minter.next());
          return ids[i]!;
        };
      })(),
    ],
    ["venue UUIDs", (i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`],
    ["order numbers", (i) => i + 1],
    ["edge keys", (i) => ["", "a", "é", "€€", -1, 0, 2 ** 53 - 1, 1.5, Number.NaN, "ab"][i % 10]!],
  ];

  it.each(KEY_SETS)("answers get, has, size and delete as a Map does: %s", (_name, key) => {
    for (const shards of [1, 2, 32]) {
      const m = new ShardedMap<string | number, number>(shards);
      const model = new Map<string | number, number>();
      const r = rng(shards * 7919);
      for (let step = 0; step < 6_000; step++) {
        const k = key(Math.floor(r() * 1_500));
        const op = r();
        if (op < 0.5) {
          expect(m.set(k, step)).toBe(m);
          model.set(k, step);
        } else if (op < 0.75) expect(m.delete(k)).toBe(model.delete(k));
        else {
          expect(m.get(k)).toBe(model.get(k));
          expect(m.has(k)).toBe(model.has(k));
        }
        if (step % 1_000 === 0) expect(m.size).toBe(model.size);
      }
      expect(m.size).toBe(model.size);
      for (const [k, v] of model) expect(m.get(k)).toBe(v);
    }
  });

  it.each(KEY_SETS.slice(0, 3))("spreads %s over its 32 shards", (_name, key) => {
    const m = new ShardedMap<string | number, number>(32);
    for (let i = 0; i < 32_000; i++) m.set(key(i), i);
    const sizes = shardSizes(m);
    expect(sizes).toHaveLength(32);
    // Even spread is 1,000 a shard: none empty, none with more than three times that.
    expect(Math.min(...sizes)).toBeGreaterThan(0);
    expect(Math.max(...sizes)).toBeLessThan(3_000);
  });

  it("refuses a shard count that is not a power of two from 1 to 1024", () => {
    for (const n of [0, 3, 6, 1.5, -2, 2048, Number.NaN]) expect(() => new ShardedMap(n)).toThrow(RangeError);
    expect(shardSizes(new ShardedMap(1))).toHaveLength(1);
    expect(shardSizes(new ShardedMap(1024))).toHaveLength(1024);
  });
});
