/**
 * CPU placement for benchmarks that span processes. Round trips on loopback cost ~45 µs more when the
 * peer sits on an idle vCPU that must be woken (docs/benchmarks.md, placement), so every multi-process suite pins its
 * processes with `taskset` when it exists and reports the placement it used.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { cpus } from "node:os";

let tasksetKnown: boolean | undefined;

export function hasTaskset(): boolean {
  if (tasksetKnown === undefined) {
    try {
      execFileSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" });
      tasksetKnown = true;
    } catch {
      tasksetKnown = false;
    }
  }
  return tasksetKnown;
}

export function cpuCount(): number {
  return cpus().length;
}

/** How to start a node process: `taskset -c CPU node ...` when pinned, plain `node ...` otherwise. */
export interface Launcher {
  readonly cmd: string;
  readonly args: readonly string[];
  /** The vCPU list the process runs on ("0", "1", "0-1"), or null when not pinned. */
  readonly cpu: string | null;
}

export function nodeLauncher(cpu: string | null, execArgv: readonly string[] = []): Launcher {
  if (cpu === null || !hasTaskset()) return { cmd: process.execPath, args: [...execArgv], cpu: null };
  return { cmd: "taskset", args: ["-c", cpu, process.execPath, ...execArgv], cpu };
}

/** Current affinity list of a process or thread id ("0-1"), undefined when unknown. */
export function affinityOf(pid: number | string): string | undefined {
  if (!hasTaskset()) return undefined;
  const out = execFileSync("taskset", ["-cp", String(pid)]).toString();
  return /:\s*(\S+)\s*$/.exec(out)?.[1];
}

/** Pins every thread of `pid` to `cpu` (a taskset list). No-op without taskset. */
export function pin(pid: number | string, cpu: string): void {
  if (hasTaskset()) execFileSync("taskset", ["-a", "-cp", cpu, String(pid)], { stdio: "ignore" });
}

/** Pins this process (all threads) to `cpu`; returns a function restoring the previous affinity. */
export function pinSelf(cpu: string): () => void {
  if (!hasTaskset()) return () => {};
  const before = affinityOf(process.pid) ?? `0-${cpuCount() - 1}`;
  pin(process.pid, cpu);
  return () => pin(process.pid, before);
}

/** Kernel thread ids of this process (Linux); empty elsewhere. */
export function threadIds(): string[] {
  try {
    return readdirSync("/proc/self/task");
  } catch {
    return [];
  }
}

/** CPU time (user + system, all threads) a process has used, in ms; NaN where /proc is missing. */
export function cpuTimeMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th fields.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU time of a process in ns, all its threads (the scheduler's own accounting in
 * /proc/PID/task/TID/schedstat, ns resolution; a thread that ended since is not counted). NaN off Linux.
 */
export function cpuTimeNs(pid: number): number {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) ns += threadCpuNs(pid, tid);
    return ns;
  } catch {
    return Number.NaN;
  }
}

/** CPU time of one thread of a process in ns (its schedstat); NaN off Linux or once it has ended. */
export function threadCpuNs(pid: number, tid: number | string): number {
  try {
    const s = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8");
    return Number(s.slice(0, s.indexOf(" ")));
  } catch {
    return Number.NaN;
  }
}

/**
 * A process's wake-up and syscall counters: its main thread's voluntary and involuntary context
 * switches (/proc/PID/status) and its read(2)- and write(2)-family syscalls, all threads (/proc/PID/io:
 * libuv's socket and file reads and writes count; uWebSockets.js's send(2)/recv(2) do not). NaNs off Linux.
 */
export function wakeCounters(pid: number): [vol: number, invol: number, syscr: number, syscw: number] {
  try {
    const st = readFileSync(`/proc/${pid}/status`, "utf8");
    const io = readFileSync(`/proc/${pid}/io`, "utf8");
    const num = (text: string, key: string) => {
      const k = text.indexOf(key);
      return k < 0 ? Number.NaN : Number.parseInt(text.slice(k + key.length).trimStart(), 10);
    };
    return [
      num(st, "\nvoluntary_ctxt_switches:"),
      num(st, "\nnonvoluntary_ctxt_switches:"),
      num(io, "syscr:"),
      num(io, "syscw:"),
    ];
  } catch {
    return [Number.NaN, Number.NaN, Number.NaN, Number.NaN];
  }
}

/** USER_HZ: 100 on every Linux configuration Node supports. */
const CLOCK_TICKS = 100;

/** Share of one vCPU each process used between two `cpuTimeMs` snapshots over `wallMs`. */
export function cpuShare(before: number[], after: number[], wallMs: number): number[] {
  return after.map((a, i) => Math.round(((a - before[i]!) / wallMs) * 100) / 100);
}
