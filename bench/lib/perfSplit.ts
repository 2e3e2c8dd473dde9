/**
 * Where a process's CPU goes, from `perf record -g` call graphs (diagnosis only): per thread, the
 * share of samples in the kernel (system calls, page faults, interrupts) and in user space, user space
 * split into the JIT's code (`JS:` frames; run the process with `node --perf-basic-prof` to name them),
 * V8's builtins, the rest of V8 and Node (runtime, GC, bindings) and libc, then the JavaScript function
 * each user-space sample was in (the innermost JS frame: its own time plus the builtins it called).
 * Multiply a share by the CPU per order the benchmark measured in the same run to get µs per order.
 *
 *   perf script -i FILE.data -F tid,ip,sym | node dist/bench/lib/perfSplit.js [minSamples] [top]
 */
import { readFileSync } from "node:fs";

interface ThreadSplit {
  samples: number;
  kernel: number;
  jit: number;
  builtins: number;
  v8node: number;
  libc: number;
  /** `[unknown]`: JIT code of a process run without --perf-basic-prof, mostly. */
  unnamed: number;
  byFunction: Map<string, number>;
}

const KERNEL_ENTRY = /^(entry_SYSCALL|asm_exc_|asm_sysvec_|asm_common_interrupt|ret_from_fork)/;

/** One sample: its thread and its frames, innermost first. */
function* samples(text: string): Generator<{ tid: string; frames: string[] }> {
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.trim().split("\n");
    if (lines.length < 2) continue;
    const tid = lines[0]!.trim().split(/\s+/)[0]!;
    const frames = lines.slice(1).map((l) => l.trim().replace(/^[0-9a-f]+\s+/, ""));
    yield { tid, frames };
  }
}

export function splitPerf(text: string): Map<string, ThreadSplit> {
  const out = new Map<string, ThreadSplit>();
  for (const { tid, frames } of samples(text)) {
    let t = out.get(tid);
    if (t === undefined) {
      t = {
        ...{ samples: 0, kernel: 0, jit: 0, builtins: 0, v8node: 0, libc: 0, unnamed: 0 },
        byFunction: new Map(),
      };
      out.set(tid, t);
    }
    t.samples++;
    // A sample in the kernel has a kernel entry frame above it (or is a kernel address with none).
    if (frames.some((f) => KERNEL_ENTRY.test(f)) || /^(pvm_|native_|__raw_callee)/.test(frames[0]!)) {
      t.kernel++;
      continue;
    }
    const leaf = frames[0]!;
    if (leaf.startsWith("JS:")) t.jit++;
    else if (leaf === "[unknown]") t.unnamed++;
    else if (leaf.startsWith("Builtins_")) t.builtins++;
    else if (/^(__|_int_|malloc|free|epoll_pwait|read|write|pthread_|mem|str)/.test(leaf)) t.libc++;
    else t.v8node++;
    const js = frames.find((f) => f.startsWith("JS:"));
    const key =
      js === undefined
        ? "(no JavaScript frame)"
        : js.replace(/^JS:[*^~]?/, "").replace(/file:\/\/\S*\/dist\//, "");
    t.byFunction.set(key, (t.byFunction.get(key) ?? 0) + 1);
  }
  return out;
}

function pct(n: number, of: number): string {
  return `${((100 * n) / Math.max(1, of)).toFixed(1)} %`;
}

function main(): void {
  const min = Number(process.argv[2] ?? 500);
  const top = Number(process.argv[3] ?? 25);
  const split = splitPerf(readFileSync(0, "utf8"));
  for (const [tid, t] of [...split].sort((a, b) => b[1].samples - a[1].samples)) {
    if (t.samples < min) continue;
    const user = t.samples - t.kernel;
    console.log(
      `\nthread ${tid}: ${t.samples} samples; kernel ${pct(t.kernel, t.samples)}, user ${pct(user, t.samples)}`,
    );
    console.log(
      `  user: JIT code ${pct(t.jit, t.samples)}, V8 builtins ${pct(t.builtins, t.samples)}, ` +
        `V8 and Node otherwise ${pct(t.v8node, t.samples)}, libc ${pct(t.libc, t.samples)}, ` +
        `unnamed (JIT code without --perf-basic-prof) ${pct(t.unnamed, t.samples)}`,
    );
    const fns = [...t.byFunction].sort((a, b) => b[1] - a[1]).slice(0, top);
    for (const [f, n] of fns) console.log(`  ${pct(n, t.samples).padStart(7)}  ${f}`);
  }
}

if (process.argv[1]?.endsWith("perfSplit.js")) main();
