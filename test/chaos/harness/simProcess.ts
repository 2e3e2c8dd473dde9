/**
 * The simulator as an external venue: `hftgate sim` in its own process (what a new user runs), driven
 * only through its public surfaces — signed REST for the accounts, the loopback admin port for faults.
 * Nothing here reads the simulator's memory.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { request } from "undici";
import type { FaultRule } from "../../../sim/index.js";
import { ensureBuilt, ROOT, trackGroup } from "./child.js";

export interface SimProcessOptions {
  seed: number;
  /** Public keys (hex) of the accounts to register. */
  apiKeys: string[];
  /** Spot cancel / expiry confirmation delay (the chaos default is 20 ms). */
  spotConfirmMs?: number;
}

export class SimProcess {
  output = "";
  baseUrl = "";
  adminUrl = "";

  private constructor(private readonly child: ChildProcess) {}

  /** Starts `hftgate sim` on ephemeral ports, no synthetic market, and waits for both addresses. */
  static async start(o: SimProcessOptions, timeoutMs = 15_000): Promise<SimProcess> {
    const args = [ensureBuilt(), "sim", "--port", "0", "--admin-port", "0", "--seed", String(o.seed)];
    // Only our accounts trade, so every fill is one the scenario caused. The test's own signed
    // listings share the account with the gateway: the venue's rate limits would count them too.
    args.push("--no-synthetic", "--tick-ms", "0", "--no-rate-limits");
    for (const k of o.apiKeys) args.push("--api-key", k);
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    trackGroup(child);
    const sp = new SimProcess(child);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`simulator did not start:\n${sp.output}`)), timeoutMs);
      const onData = (d: Buffer) => {
        sp.output += d.toString("utf8");
        const b = /simulator listening on (\S+)/.exec(sp.output);
        const a = /admin \(fault injection\) on (\S+)/.exec(sp.output);
        if (b && a) {
          sp.baseUrl = b[1]!;
          sp.adminUrl = a[1]!;
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", onData);
      child.once("exit", (code, sig) => {
        clearTimeout(timer);
        reject(new Error(`simulator exited (${code ?? sig}):\n${sp.output}`));
      });
    });
    const ms = o.spotConfirmMs ?? 20;
    await sp.admin("PUT", "/spot/delays", { cancelConfirmMs: ms, expiryConfirmMs: ms });
    return sp;
  }

  // biome-ignore lint/suspicious/noExplicitAny: the admin API's JSON
  async admin(method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown): Promise<any> {
    const r = await request(this.adminUrl + path, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.body.text();
    if (r.statusCode !== 200) throw new Error(`sim admin ${method} ${path}: ${r.statusCode} ${text}`);
    return JSON.parse(text);
  }

  async addFaults(rules: FaultRule[]): Promise<void> {
    if (rules.length > 0) await this.admin("POST", "/faults", { rules });
  }

  /** Request faults that have not fired yet (sum of the remaining counts). */
  async faultsLeft(): Promise<number> {
    const st = await this.admin("GET", "/state");
    const rules = (st.faults ?? []) as FaultRule[];
    return rules.reduce((a, r) => a + (r.count ?? 0), 0);
  }

  /** Requests the faults answered so far, by `<kind> <endpoint>` (counted over the simulator's life). */
  async faultHits(): Promise<Record<string, number>> {
    const st = await this.admin("GET", "/state");
    return (st.faultHits ?? {}) as Record<string, number>;
  }

  async clearFaults(): Promise<void> {
    await this.admin("DELETE", "/faults");
  }

  stop(): Promise<void> {
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once("exit", () => resolve());
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    });
  }
}
