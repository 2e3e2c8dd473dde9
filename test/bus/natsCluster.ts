/**
 * Real nats-server processes for the bus tests and bench: one node or a 3-node cluster, JetStream
 * on, loopback ports picked free, users from src/bus/permissions.ts. `kill(i)` is a SIGKILL,
 * `restart(i)` brings the node back on its ports with its store.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findNatsServer, freePort } from "../../sim/index.js";
import { authorizationBlock, type NatsUserEntry } from "../../src/bus/permissions.js";

export interface NatsNode {
  name: string;
  port: number;
  clusterPort: number;
  proc: ChildProcess | undefined;
}

/** A node ended before it said it was ready (a port taken, a bad config). */
class NodeExitError extends Error {
  override readonly name = "NodeExitError";
}

export class NatsCluster {
  private constructor(
    readonly dir: string,
    readonly nodes: NatsNode[],
    private readonly bin: string,
    /** Variables for nats-server's environment (passwords written as `$NAME` in the users block). */
    private readonly env: Record<string, string> = {},
  ) {}

  /** `host:port` of every node. */
  get servers(): string[] {
    return this.nodes.map((n) => `127.0.0.1:${n.port}`);
  }

  /** `users`: the roles' entries, or an `authorization` block as text (as `hftgate bus users` prints it). */
  static async start(
    size: 1 | 3,
    users: NatsUserEntry[] | string,
    env: Record<string, string> = {},
  ): Promise<NatsCluster> {
    const bin = findNatsServer();
    if (bin === undefined) throw new Error("nats-server not installed");
    for (let attempt = 1; ; attempt++) {
      const dir = mkdtempSync(join(tmpdir(), "hftgate-bus-"));
      const nodes: NatsNode[] = [];
      const taken = new Set<number>();
      const port = async (): Promise<number> => {
        let p = await freePort();
        while (taken.has(p)) p = await freePort();
        taken.add(p);
        return p;
      };
      for (let i = 0; i < size; i++)
        nodes.push({ name: `n${i + 1}`, port: await port(), clusterPort: await port(), proc: undefined });
      const c = new NatsCluster(dir, nodes, bin, env);
      for (const n of nodes) c.writeConf(n, users);
      const started = await Promise.allSettled(nodes.map((n) => c.spawn(n)));
      const failed = started.find((r) => r.status === "rejected");
      if (failed === undefined) return c;
      await c.stop();
      // A port found free can be taken by another test's server before nats-server binds it:
      // the whole cluster again on new ports (every node's routes name the others' ports), a few times.
      if (attempt >= 3 || !(failed.reason instanceof NodeExitError)) throw failed.reason;
    }
  }

  private writeConf(n: NatsNode, users: NatsUserEntry[] | string): void {
    const store = join(this.dir, n.name);
    mkdirSync(store, { recursive: true });
    const lines = [
      `server_name: ${n.name}`,
      `listen: "127.0.0.1:${n.port}"`,
      `jetstream { store_dir: "${store}", max_memory_store: 64MB, max_file_store: 256MB }`,
    ];
    if (this.nodes.length > 1) {
      const routes = this.nodes
        .filter((o) => o !== n)
        .map((o) => `"nats-route://127.0.0.1:${o.clusterPort}"`)
        .join(", ");
      lines.push(`cluster { name: hftgate, listen: "127.0.0.1:${n.clusterPort}", routes: [${routes}] }`);
    }
    lines.push(typeof users === "string" ? users : authorizationBlock(users));
    writeFileSync(join(this.dir, `${n.name}.conf`), lines.join("\n"), { mode: 0o600 });
  }

  private spawn(n: NatsNode): Promise<void> {
    const p = spawn(this.bin, ["-c", join(this.dir, `${n.name}.conf`)], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { PATH: process.env.PATH ?? "", ...this.env },
    });
    n.proc = p;
    return new Promise((resolve, reject) => {
      let buf = "";
      const t = setTimeout(
        () => reject(new Error(`${n.name}: not ready in 10 s:\n${buf.slice(-2000)}`)),
        10_000,
      );
      p.stderr!.setEncoding("utf8");
      p.stderr!.on("data", (d: string) => {
        buf += d;
        if (buf.includes("Server is ready")) {
          clearTimeout(t);
          buf = "";
          resolve();
        }
      });
      p.once("exit", (code) => {
        clearTimeout(t);
        reject(new NodeExitError(`${n.name} exited (${code}):\n${buf.slice(-2000)}`));
      });
    });
  }

  kill(i: number): Promise<void> {
    const p = this.nodes[i]!.proc;
    if (p === undefined || p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
    return new Promise((r) => {
      p.once("exit", () => r());
      p.kill("SIGKILL");
    });
  }

  async restart(i: number): Promise<void> {
    await this.kill(i);
    await this.spawn(this.nodes[i]!);
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((_, i) => this.kill(i)));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
