/**
 * How much code an operation runs, counted by V8 (diagnosis only): precise coverage with call counts
 * over a block of operations gives every JavaScript function's invocations, Node's own JavaScript
 * included. Reported per operation: calls, the distinct functions that ran at least once per
 * operation, and both split into the project's code, Node's and the dependencies'. Native code (V8's
 * builtins, Node's C++, the kernel) is not counted. Starting it deoptimizes the process's code, so a
 * run counts calls after its timed phases only.
 */
import { Session } from "node:inspector";

interface FunctionCoverage {
  functionName: string;
  ranges: { startOffset: number; count: number }[];
}
interface ScriptCoverage {
  url: string;
  functions: FunctionCoverage[];
}

export interface CallCounts {
  operations: number;
  calls_per_op: Record<Origin, number>;
  /** Distinct functions called at least as many times as there were operations (once per operation, or more). */
  functions_every_op: Record<Origin, number>;
  /** The most called functions: name, where, calls per operation. */
  top: string[];
  /** The project's functions that ran at least once per operation (the code path to shorten). */
  project_every_op: string[];
}

type Origin = "all" | "project" | "node" | "dependencies";

/** One inspector command on a connected session, as a promise. */
export function post<T = unknown>(s: Session, method: string, params?: object): Promise<T> {
  return new Promise((ok, fail) => s.post(method, params, (err, res) => (err ? fail(err) : ok(res as T))));
}

function originOf(url: string): Exclude<Origin, "all"> {
  if (url.startsWith("node:") || !url.includes("/")) return "node";
  return url.includes("/node_modules/") ? "dependencies" : "project";
}

/** The two commands a bench child serves to count its calls over a block: callsStart, callsStop. */
export function callCountHandlers(): Record<string, (a: Record<string, unknown>) => Promise<unknown>> {
  let session: Session | undefined;
  return {
    async callsStart() {
      session = new Session();
      session.connect();
      await post(session, "Profiler.enable");
      await post(session, "Profiler.startPreciseCoverage", { callCount: true, detailed: false });
      // Taking coverage resets the counters: what follows counts from here.
      await post(session, "Profiler.takePreciseCoverage");
      return null;
    },
    async callsStop(a) {
      const s = session;
      if (s === undefined) return null;
      const n = Math.max(1, Number(a.operations));
      const { result } = await post<{ result: ScriptCoverage[] }>(s, "Profiler.takePreciseCoverage");
      await post(s, "Profiler.stopPreciseCoverage");
      await post(s, "Profiler.disable");
      s.disconnect();
      session = undefined;
      return countCalls(result, n);
    },
  };
}

export function countCalls(scripts: ScriptCoverage[], n: number): CallCounts {
  const calls = { all: 0, project: 0, node: 0, dependencies: 0 };
  const fns = { all: 0, project: 0, node: 0, dependencies: 0 };
  const heavy: [string, number][] = [];
  const own: string[] = [];
  for (const sc of scripts) {
    const o = originOf(sc.url);
    const where = sc.url.replace(/^.*\/(src|bench|node_modules)\//, "$1/");
    for (const f of sc.functions) {
      const c = f.ranges[0]?.count ?? 0;
      if (c === 0) continue;
      calls.all += c;
      calls[o] += c;
      if (c >= n) {
        fns.all++;
        fns[o]++;
        if (o === "project") own.push(`${f.functionName || "(anonymous)"} ${where}`);
      }
      heavy.push([`${f.functionName || "(anonymous)"} ${where}`, c]);
    }
  }
  /** Calls per operation, to one decimal. */
  const perOp = (c: number) => Math.round((c / n) * 10) / 10;
  const per = (r: Record<Origin, number>) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, perOp(v)])) as Record<Origin, number>;
  heavy.sort((x, y) => y[1] - x[1]);
  return {
    operations: n,
    calls_per_op: per(calls),
    functions_every_op: fns,
    top: heavy.slice(0, 20).map(([k, c]) => `${k}: ${perOp(c)}`),
    project_every_op: own.sort(),
  };
}
