/**
 * Benchmark helper processes driven over Node's IPC channel: the parent starts a script (pinned via a
 * `Launcher`), waits for its `ready` message, then calls named commands and awaits their results.
 * IPC is only used between measurements, never inside a timed loop.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Launcher } from "./placement.js";

interface Reply {
  type: "ready" | "result" | "error";
  id?: number;
  info?: Record<string, unknown>;
  value?: unknown;
  message?: string;
}

export class ChildProc {
  private nextId = 1;
  private readonly waiting = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
  private exited = false;

  private constructor(
    readonly child: ChildProcess,
    readonly info: Record<string, unknown>,
  ) {
    child.on("message", (m: Reply) => {
      const w = m.id === undefined ? undefined : this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id!);
      if (m.type === "error") w.fail(new Error(m.message ?? "child command failed"));
      else w.ok(m.value);
    });
    child.once("exit", (code) => {
      this.exited = true;
      for (const w of this.waiting.values()) w.fail(new Error(`bench child exited (${code})`));
      this.waiting.clear();
    });
  }

  /** Starts `script` (a compiled .js file) and resolves with its ready info. */
  static start(
    launch: Launcher,
    script: string,
    args: readonly string[] = [],
    timeoutMs = 30_000,
  ): Promise<ChildProc> {
    const child = spawn(launch.cmd, [...launch.args, script, ...args], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`bench child ${script} not ready in ${timeoutMs} ms`));
      }, timeoutMs);
      const onMsg = (m: Reply) => {
        if (m.type === "ready") {
          clearTimeout(timer);
          child.off("message", onMsg);
          resolve(new ChildProc(child, m.info ?? {}));
        } else if (m.type === "error") {
          clearTimeout(timer);
          reject(new Error(m.message ?? `bench child ${script} failed to start`));
        }
      };
      child.on("message", onMsg);
      child.once("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`bench child ${script} exited before ready (${code})`));
      });
    });
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  call<T>(cmd: string, args: unknown = {}): Promise<T> {
    if (this.exited) return Promise.reject(new Error("bench child has exited"));
    const id = this.nextId++;
    return new Promise<T>((ok, fail) => {
      this.waiting.set(id, { ok: ok as (v: unknown) => void, fail });
      this.child.send({ id, cmd, args });
    });
  }

  /** Asks the child to exit (SIGTERM), SIGKILL after `graceMs`. */
  stop(graceMs = 3_000): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise((done) => {
      const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
      this.child.once("exit", () => {
        clearTimeout(timer);
        done();
      });
      this.child.kill("SIGTERM");
    });
  }
}

export type Handlers = Record<string, (args: Record<string, unknown>) => unknown>;

/**
 * Child side: announces `ready` with `info` and serves commands one at a time. The child exits when
 * the parent goes away (IPC disconnect) or on SIGTERM after `onExit`.
 */
export function serveChild(
  info: Record<string, unknown>,
  handlers: Handlers,
  onExit: () => Promise<void> = async () => {},
): void {
  const send = (m: Reply) => process.send?.(m);
  let chain = Promise.resolve();
  process.on("message", (m: { id: number; cmd: string; args: Record<string, unknown> }) => {
    chain = chain.then(async () => {
      const h = handlers[m.cmd];
      if (!h) {
        send({ type: "error", id: m.id, message: `unknown command ${m.cmd}` });
        return;
      }
      try {
        send({ type: "result", id: m.id, value: await h(m.args) });
      } catch (err) {
        send({ type: "error", id: m.id, message: err instanceof Error ? err.message : String(err) });
      }
    });
  });
  const quit = () => {
    onExit().finally(() => process.exit(0));
  };
  process.once("SIGTERM", quit);
  process.once("disconnect", quit);
  send({ type: "ready", info });
}

/** Reports a start-up failure to the parent and exits. */
export function failChild(err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  if (!process.send) process.exit(1);
  process.send({ type: "error", message }, () => process.exit(1));
}
