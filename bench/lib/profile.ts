/**
 * Reads a V8 .cpuprofile (HFTGATE_BENCH_PROFILE, or `node --cpu-prof`) and prints self time per area
 * of the code (src/<folder>, a package, node internals, GC, idle) and the heaviest functions, each as
 * µs per order when the number of orders in the profiled window is given.
 *
 *   node dist/bench/lib/profile.js FILE.cpuprofile [orders] [top]
 */
import { readFileSync } from "node:fs";

export interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfNode {
  id: number;
  callFrame: Frame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** The area a frame's code belongs to. */
export function areaOf(f: Frame): string {
  const u = f.url;
  if (u === "") {
    if (f.functionName.startsWith("(")) return f.functionName; // (garbage collector), (idle), (program)
    return "(native)";
  }
  const nm = u.lastIndexOf("/node_modules/");
  if (nm >= 0) {
    const rest = u.slice(nm + 14).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (u.startsWith("node:")) return `node:${u.slice(5).split("/")[1] ?? u.slice(5)}`;
  const src = /\/dist\/(src|bench|sim)\/([^/]+)\//.exec(u);
  if (src) return `${src[1]}/${src[2]}`;
  return u.replace(/^.*\//, "");
}

export interface ProfileSummary {
  wallMs: number;
  areas: [string, number][];
  functions: [string, number][];
}

/** A tally's entries, largest first. */
export function heaviestFirst(m: Map<string, number>): [string, number][] {
  return [...m].sort((x, y) => y[1] - x[1]);
}

/** Self time in ms per area and per function (sorted, heaviest first). */
export function summarizeProfile(p: CpuProfile): ProfileSummary {
  const byId = new Map<number, ProfNode>();
  for (const n of p.nodes) byId.set(n.id, n);
  const selfUs = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) {
    const id = p.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  const areas = new Map<string, number>();
  const fns = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const f = byId.get(id)!.callFrame;
    const a = areaOf(f);
    areas.set(a, (areas.get(a) ?? 0) + us / 1000);
    const key = `${f.functionName || "(anonymous)"} ${a}:${f.lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + us / 1000);
  }
  return {
    wallMs: (p.endTime - p.startTime) / 1000,
    areas: heaviestFirst(areas),
    functions: heaviestFirst(fns),
  };
}

function main(): void {
  const [file, ordersArg, topArg] = process.argv.slice(2);
  if (!file) {
    process.stderr.write("usage: node dist/bench/lib/profile.js FILE.cpuprofile [orders] [top]\n");
    process.exitCode = 2;
    return;
  }
  const s = summarizeProfile(JSON.parse(readFileSync(file, "utf8")) as CpuProfile);
  const orders = Number(ordersArg ?? 0);
  const top = Number(topArg ?? 25);
  const busy = s.areas.filter(([a]) => a !== "(idle)").reduce((t, [, ms]) => t + ms, 0);
  const per = (ms: number) => (orders > 0 ? `${((ms * 1000) / orders).toFixed(2).padStart(7)} µs/order` : "");
  process.stdout.write(`wall ${s.wallMs.toFixed(0)} ms, busy ${busy.toFixed(0)} ms ${per(busy)}\n\n`);
  for (const [a, ms] of s.areas)
    process.stdout.write(
      `${a.padEnd(28)} ${ms.toFixed(1).padStart(9)} ms ${((ms / s.wallMs) * 100).toFixed(1).padStart(5)} % ${per(ms)}\n`,
    );
  process.stdout.write("\n");
  for (const [f, ms] of s.functions.slice(0, top))
    process.stdout.write(`${ms.toFixed(1).padStart(9)} ms ${per(ms)}  ${f}\n`);
}

if (process.argv[1]?.endsWith("profile.js")) main();
