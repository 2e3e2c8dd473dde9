/**
 * A local `nats-server` child process for the simulator and the tests: loopback only, a WebSocket
 * listener without TLS, and an authorization user list kept in an included file that can be rewritten
 * and reloaded (SIGHUP) while the server runs, so issued socket credentials are checked by the real
 * server. `findNatsServer()` says whether the binary exists (Debian package `nats-server`). With a
 * `pidFile`, a server orphaned by a killed earlier starter is stopped first (pidFile.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { freePort } from "../freePort.js";
import { type NatsBackend, type NatsUser, PUBLIC_READER } from "./backend.js";
import { removeNatsPidFile, type StaleNats, stopStaleNats, writeNatsPidFile } from "./pidFile.js";

/** Path of the `nats-server` binary (PATH, then /usr/sbin and /usr/bin), or undefined. */
export function findNatsServer(): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/bin", "/usr/local/bin"];
  for (const d of dirs) {
    if (d === "") continue;
    const p = join(d, "nats-server");
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // next
    }
  }
  return undefined;
}

/** nats-server ended before it said it was ready. */
export class NatsExitError extends Error {
  override readonly name = "NatsExitError";
}

export interface NatsServerOptions {
  users: NatsUser[];
  bin?: string;
  /** Fixed ports (a restart reuses the same ones). Default: free ports. */
  wsPort?: number;
  port?: number;
  startTimeoutMs?: number;
  /**
   * Where to record the server's pid (and stop an orphan an earlier starter left there, see
   * pidFile.ts). Give one per owner, e.g. in a directory the owner holds locked.
   */
  pidFile?: string;
}

export class NatsServer implements NatsBackend {
  readonly kind = "nats-server" as const;
  readonly dir: string;
  wsPort = 0;
  port = 0;
  /** An orphaned server of an earlier starter, stopped before this one started (`pidFile`). */
  stale: StaleNats | undefined;
  private proc: ChildProcess | undefined;
  private users: NatsUser[];
  private reloads = 0;
  private reloadWaiters: Array<{ n: number; resolve: () => void }> = [];
  private readyWaiter: (() => void) | undefined;
  private readonly lastLines: string[] = [];

  private constructor(private readonly o: NatsServerOptions) {
    this.dir = mkdtempSync(join(tmpdir(), "hftgate-nats-"));
    this.users = o.users;
  }

  static async start(o: NatsServerOptions): Promise<NatsServer> {
    const stale = o.pidFile !== undefined ? await stopStaleNats(o.pidFile) : undefined;
    const chosen = o.port === undefined && o.wsPort === undefined;
    for (let attempt = 1; ; attempt++) {
      const s = new NatsServer(o);
      s.stale = stale;
      s.wsPort = o.wsPort ?? (await freePort());
      s.port = o.port ?? (await freePort());
      while (o.port === undefined && s.port === s.wsPort) s.port = await freePort();
      try {
        await s.spawn();
        return s;
      } catch (err) {
        rmSync(s.dir, { recursive: true, force: true });
        // A port found free can be taken before nats-server binds it: new ports, a few times.
        if (!chosen || attempt >= 3 || !(err instanceof NatsExitError)) throw err;
      }
    }
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.wsPort}`;
  }

  get running(): boolean {
    return this.proc !== undefined && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Rewrites the user list and reloads; resolves once the server says the reload is done. */
  async setUsers(users: NatsUser[]): Promise<void> {
    this.users = users;
    this.writeUsers();
    const p = this.proc;
    if (p === undefined || !this.running) return;
    const n = this.reloads + 1;
    const done = new Promise<void>((resolve) => this.reloadWaiters.push({ n, resolve }));
    p.kill("SIGHUP");
    await withTimeout(done, 5_000, "nats-server reload");
  }

  /** SIGKILL (a crash); `restart()` brings it back on the same ports. */
  kill(): Promise<void> {
    return this.terminate("SIGKILL");
  }

  async restart(): Promise<void> {
    if (this.running) await this.terminate("SIGTERM");
    await this.spawn();
  }

  async stop(): Promise<void> {
    const pid = this.proc?.pid;
    await this.terminate("SIGTERM");
    if (this.o.pidFile !== undefined) removeNatsPidFile(this.o.pidFile, pid);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private writeUsers(): void {
    // The public market data subjects need no credential: a CONNECT without one is this user.
    const users = [...this.users, PUBLIC_READER];
    writeFileSync(join(this.dir, "users.conf"), `users = ${JSON.stringify(users, null, 1)}\n`, {
      mode: 0o600,
    });
  }

  private async spawn(): Promise<void> {
    this.writeUsers();
    const conf = [
      `listen: "127.0.0.1:${this.port}"`,
      `websocket { listen: "127.0.0.1:${this.wsPort}", no_tls: true }`,
      `authorization { include "users.conf" }`,
      `no_auth_user: "${PUBLIC_READER.user}"`,
      "",
    ].join("\n");
    const file = join(this.dir, "server.conf");
    writeFileSync(file, conf, { mode: 0o600 });
    const bin = this.o.bin ?? findNatsServer();
    if (bin === undefined) throw new Error("nats-server not found (Debian package nats-server)");
    this.reloads = 0;
    const ready = new Promise<void>((resolve) => {
      this.readyWaiter = resolve;
    });
    const p = spawn(bin, ["-c", file], { stdio: ["ignore", "ignore", "pipe"] });
    this.proc = p;
    LIVE.set(p, { dir: this.dir, pidFile: this.o.pidFile });
    p.once("exit", () => LIVE.delete(p));
    if (!exitHooked) {
      exitHooked = true;
      process.on("exit", stopLiveAtExit);
    }
    let buf = "";
    p.stderr?.setEncoding("utf8");
    p.stderr?.on("data", (chunk: string) => {
      buf += chunk;
      let i = buf.indexOf("\n");
      while (i >= 0) {
        this.onLine(buf.slice(0, i));
        buf = buf.slice(i + 1);
        i = buf.indexOf("\n");
      }
    });
    const exited = new Promise<never>((_, reject) =>
      p.once("exit", (code) =>
        reject(
          new NatsExitError(
            `nats-server exited (${code}) before it was ready: ${this.lastLines.join(" | ")}`,
          ),
        ),
      ),
    );
    await withTimeout(Promise.race([ready, exited]), this.o.startTimeoutMs ?? 10_000, "nats-server start");
    if (this.o.pidFile !== undefined && p.pid !== undefined) writeNatsPidFile(this.o.pidFile, p.pid, file);
  }

  private onLine(line: string): void {
    // The last few lines, for the error when it exits before it is ready (a port taken, a bad config).
    this.lastLines.push(line);
    if (this.lastLines.length > 4) this.lastLines.shift();
    if (line.includes("Server is ready")) {
      this.readyWaiter?.();
      this.readyWaiter = undefined;
    } else if (line.includes("Reloaded server configuration")) {
      this.reloads++;
      this.reloadWaiters = this.reloadWaiters.filter((w) => {
        if (w.n > this.reloads) return true;
        w.resolve();
        return false;
      });
    }
  }

  private terminate(sig: NodeJS.Signals): Promise<void> {
    const p = this.proc;
    if (p === undefined || !this.running) return Promise.resolve();
    return new Promise((resolve) => {
      p.once("exit", () => resolve());
      p.kill(sig);
    });
  }
}

/** Servers still running: a process that exits without stopping them (a stop past its deadline) ends them. */
const LIVE = new Map<ChildProcess, { dir: string; pidFile: string | undefined }>();
let exitHooked = false;

function stopLiveAtExit(): void {
  for (const [p, { dir, pidFile }] of LIVE) {
    p.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
    if (pidFile !== undefined) removeNatsPidFile(pidFile, p.pid);
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    t = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(t));
}
