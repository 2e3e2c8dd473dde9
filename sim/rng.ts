/** Seeded PRNG (mulberry32): tiny, fast and deterministic, so a seed replays the same market. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 0x9e3779b9;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  /** 32 random bits as 8 hex characters. */
  hex8(): string {
    return (Math.floor(this.next() * 4294967296) >>> 0).toString(16).padStart(8, "0");
  }
}

/** Deterministic UUID-shaped ids (version nibble 4) drawn from a seeded generator. */
export function uuidFrom(rng: Rng): string {
  const a = rng.hex8();
  const b = rng.hex8();
  const c = rng.hex8();
  const d = rng.hex8();
  return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${((Number.parseInt(c[0]!, 16) & 3) | 8).toString(16)}${c.slice(1, 4)}-${c.slice(4)}${d}`;
}
