/**
 * Reads a V8 sampling heap profile (`.heapprofile`: HFTGATE_BENCH_PROFILE with
 * HFTGATE_BENCH_PROFILE_HEAP=1, every allocation sampled, the collected ones included) and prints the
 * bytes allocated in the window: in all, by the bench's own code (a frame under `bench/` and what it
 * calls: the floors the gateway process also runs), and by the rest, per area and heaviest functions,
 * each per operation when the number of operations in the window is given.
 *
 *   node dist/bench/lib/heapProfile.js FILE.heapprofile [operations] [top]
 */
import { readFileSync } from "node:fs";
import { areaOf, type Frame, heaviestFirst } from "./profile.js";

interface HeapNode {
  callFrame: Frame;
  selfSize: number;
  children: HeapNode[];
}
export interface HeapProfile {
  head: HeapNode;
}

export interface HeapSummary {
  /** Bytes allocated in the window. */
  total: number;
  /** Of them, by the bench's own code. */
  bench: number;
  /** The rest per area and per function (heaviest first). */
  areas: [string, number][];
  functions: [string, number][];
}

/** The bench's own code, compiled or not. */
const BENCH = /\/(dist\/)?bench\/(lib|suites)\//;

export function summarizeHeap(p: HeapProfile): HeapSummary {
  let total = 0;
  let bench = 0;
  const areas = new Map<string, number>();
  const fns = new Map<string, number>();
  const walk = (n: HeapNode, inBench: boolean): void => {
    const f = n.callFrame;
    const b = inBench || BENCH.test(f.url);
    total += n.selfSize;
    if (b) bench += n.selfSize;
    else if (n.selfSize > 0) {
      const a = areaOf(f);
      areas.set(a, (areas.get(a) ?? 0) + n.selfSize);
      const key = `${f.functionName || "(anonymous)"} ${a}:${f.lineNumber + 1}`;
      fns.set(key, (fns.get(key) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c, b);
  };
  walk(p.head, false);
  return { total, bench, areas: heaviestFirst(areas), functions: heaviestFirst(fns) };
}

function main(): void {
  const [file, opsArg, topArg] = process.argv.slice(2);
  if (!file) {
    process.stderr.write("usage: node dist/bench/lib/heapProfile.js FILE.heapprofile [operations] [top]\n");
    process.exitCode = 2;
    return;
  }
  const s = summarizeHeap(JSON.parse(readFileSync(file, "utf8")) as HeapProfile);
  const ops = Number(opsArg ?? 0);
  const top = Number(topArg ?? 25);
  const rest = s.total - s.bench;
  const per = (b: number) =>
    ops > 0
      ? `${Math.round(b / ops)
          .toLocaleString("en")
          .padStart(7)} B/op`
      : "";
  const mb = (b: number) => `${(b / 1e6).toFixed(1).padStart(7)} MB`;
  process.stdout.write(
    `allocated ${mb(s.total)}; the bench's own code ${mb(s.bench)}; the rest ${mb(rest)} ${per(rest)}\n\n`,
  );
  for (const [a, b] of s.areas) process.stdout.write(`${a.padEnd(28)} ${mb(b)} ${per(b)}\n`);
  process.stdout.write("\n");
  for (const [f, b] of s.functions.slice(0, top)) process.stdout.write(`${mb(b)} ${per(b)}  ${f}\n`);
}

if (process.argv[1]?.endsWith("heapProfile.js")) main();
