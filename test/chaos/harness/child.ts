/**
 * The gateway as a real child process: `node dist/src/cli.js start --config <file>` in its own process
 * group, killed with SIGKILL (the whole group) and restarted by the crash scenarios. Everything it
 * prints is kept for the secret scan.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { freePort } from "../../../sim/index.js";

/** The repository root: the nearest folder above with a package.json (from `test/` or `dist/test/`). */
function findRoot(from: string): string {
  let d = from;
  while (!existsSync(join(d, "package.json"))) {
    const up = dirname(d);
    if (up === d) throw new Error("repository root not found");
    d = up;
  }
  return d;
}

export const ROOT = findRoot(import.meta.dirname);
/** The build CI runs (`npm test` compiles first). */
export const DIST_CLI = join(ROOT, "dist", "src", "cli.js");
/** A private build for a working tree whose dist is stale: never rewrites the shared dist under other tests. */
const PRIVATE_OUT = join(ROOT, "node_modules", ".cache", "hftgate-chaos-dist");

function newestMtime(dir: string): number {
  let m = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) m = Math.max(m, newestMtime(p));
    else if (e.name.endsWith(".ts")) m = Math.max(m, statSync(p).mtimeMs);
  }
  return m;
}

let cli: string | undefined;

/**
 * Process groups started by the chaos harness and not yet seen to exit. They are detached (their own
 * groups), so a test runner that exits early (a timeout) would leave them running: killed at exit.
 */
const groups = new Set<number>();
process.once("exit", () => {
  for (const pid of groups) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** Tracks a detached child's process group until it exits. */
export function trackGroup(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  groups.add(pid);
  child.once("exit", () => groups.delete(pid));
}

/**
 * The compiled CLI to run: `dist/src/cli.js` when it is newer than every source file (CI), else a
 * private build of the current sources (type errors elsewhere do not stop tsc from emitting).
 */
export function ensureBuilt(): string {
  cli ??= pickCli();
  return cli;
}

function pickCli(): string {
  // The gateway embeds the simulator (sim/), so both trees decide whether dist is current.
  const newest = Math.max(newestMtime(join(ROOT, "src")), newestMtime(join(ROOT, "sim")));
  if (existsSync(DIST_CLI) && statSync(DIST_CLI).mtimeMs >= newest) return DIST_CLI;
  const out = join(PRIVATE_OUT, "src", "cli.js");
  if (existsSync(out) && statSync(out).mtimeMs >= newest) return withAddon(out);
  spawnSync(
    process.execPath,
    [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", ROOT, "--outDir", PRIVATE_OUT],
    { stdio: "ignore" },
  );
  if (!existsSync(out)) throw new Error("could not compile the gateway for the crash scenario");
  return withAddon(out);
}

/** The mapped journal's native part beside a private build, as in dist/: the scenarios run CI's journal. */
function withAddon(out: string): string {
  const addon = join(ROOT, "dist", "native", "journalmap.node");
  if (existsSync(addon)) {
    mkdirSync(join(PRIVATE_OUT, "native"), { recursive: true });
    copyFileSync(addon, join(PRIVATE_OUT, "native", "journalmap.node"));
  }
  return out;
}

/** Where the build without its native part goes (node_modules/.cache: the packages resolve from there). */
const NO_NATIVE_OUT = join(ROOT, "node_modules", ".cache", "hftgate-chaos-dist-nonative");

/**
 * The build the scenarios run, less the mapped journal's native part: what a machine without a C
 * compiler at `npm run build` runs. Returns its CLI.
 */
export function buildWithoutAddon(): string {
  const built = dirname(dirname(ensureBuilt())); // dist/ or the private build
  rmSync(NO_NATIVE_OUT, { recursive: true, force: true });
  for (const part of ["src", "sim"])
    cpSync(join(built, part), join(NO_NATIVE_OUT, part), { recursive: true });
  return join(NO_NATIVE_OUT, "src", "cli.js");
}

export class GatewayProcess {
  private child: ChildProcess | undefined;
  /** stdout + stderr of every run, in order. */
  output = "";
  url = "";
  httpUrl = "";
  runs = 0;

  constructor(
    private readonly configFile: string,
    private readonly env: NodeJS.ProcessEnv,
    /** The compiled CLI to run (default: the build the scenarios run, `ensureBuilt`). */
    private readonly cli?: string,
  ) {}

  /** Starts the process (`args` after `start --config <file>`) and resolves once it printed its command API address. */
  start(timeoutMs = 15_000, args: readonly string[] = []): Promise<void> {
    this.runs++;
    const cli = this.cli ?? ensureBuilt();
    const child = spawn(process.execPath, [cli, "start", "--config", this.configFile, ...args], {
      cwd: ROOT,
      env: { ...this.env, PATH: process.env.PATH ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, so a kill takes every process it may have started with it.
      detached: true,
    });
    trackGroup(child);
    this.child = child;
    let seen = "";
    let up = false;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`gateway did not start within ${timeoutMs} ms:\n${seen.slice(-2_000)}`));
      }, timeoutMs);
      const onData = (d: Buffer) => {
        const s = d.toString("utf8");
        seen += s;
        this.output += s;
        const m = /command API\s+(ws:\/\/\S+)/.exec(seen);
        const h = /health\s+(http:\/\/[^/\s]+)/.exec(seen);
        if (m && h && !up) {
          up = true;
          this.url = m[1]!;
          this.httpUrl = h[1]!;
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", onData);
      child.once("exit", (code, sig) => {
        clearTimeout(timer);
        if (this.child === child) this.child = undefined;
        reject(new Error(`gateway exited early (${code ?? sig}):\n${seen.slice(-2_000)}`));
      });
    });
  }

  /**
   * Starts on a port `writeConfig` writes into the configuration: a port found free can be taken
   * before the gateway listens on it, so a start that could not listen is tried on a new one, a few times.
   */
  async startOnFreePort(writeConfig: (port: number) => void, timeoutMs?: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      writeConfig(await freePort());
      try {
        await this.start(timeoutMs);
        return;
      } catch (e) {
        if (attempt >= 3 || !/could not listen/.test(String(e))) throw e;
      }
    }
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** SIGKILL: no shutdown code runs. Resolves when the process is gone. */
  kill(): Promise<void> {
    return this.signal("SIGKILL");
  }

  /** Graceful stop (SIGTERM). */
  stop(): Promise<void> {
    return this.signal("SIGTERM");
  }

  /**
   * Sends `sig` to the process group without waiting; the promise resolves at the process's exit with
   * its exit code (or the signal that ended it) and the milliseconds from this call to the exit.
   */
  sendSignal(
    sig: NodeJS.Signals,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null)
      return Promise.reject(new Error("gateway process is not running"));
    const t0 = Date.now();
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>(
      (resolve) => child.once("exit", (code, signal) => resolve({ code, signal, ms: Date.now() - t0 })),
    );
    try {
      process.kill(-child.pid!, sig);
    } catch {
      child.kill(sig);
    }
    return exited;
  }

  private signal(sig: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once("exit", () => resolve());
      try {
        process.kill(-child.pid!, sig);
      } catch {
        child.kill(sig); // the group is already gone but the leader's exit not yet seen
      }
    });
  }
}
