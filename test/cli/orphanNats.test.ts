/**
 * The embedded simulator's nats-server outlives a SIGKILLed `hftgate start` (nothing can stop it when
 * its parent dies that way); the next start on the same journal directory finds it through the pid
 * file, checks it is that orphan, stops it and removes its temporary directory. Real processes, a
 * real SIGKILL.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findNatsServer } from "../../sim/index.js";

const CLI = new URL("../../dist/src/cli.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "hftgate-orphan-"));
const pidFile = join(dir, "journal", "nats-server.pid");
const children: ChildProcess[] = [];
const natsPids: number[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const p of natsPids) if (alive(p)) process.kill(p, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Alive and not a zombie (/proc/<pid>/cmdline is empty for one). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").length > 0;
  } catch {
    return false;
  }
}

/** Waits up to `ms` for the process to be gone (a SIGTERMed server takes a moment to exit). */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  return !alive(pid);
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

async function start(): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(process.execPath, [CLI, "start"], {
    env: {
      PATH: process.env.PATH,
      HFTGATE_GATEWAY_PORT: "0",
      HFTGATE_ENGINE_STATE_FILE: join(dir, "gateway.json"),
      HFTGATE_JOURNAL_DIR: join(dir, "journal"),
      HFTGATE_SIM_NATS: "server",
      // Nothing this test does not need: no pre-signer thread, no synthetic market.
      HFTGATE_SIGNING_PRESIGN: "false",
      HFTGATE_SIM_SYNTHETIC_MARKET: "false",
      HFTGATE_LOG_LEVEL: "warn",
      HFTGATE_LOG_PRETTY: "false",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (d) => {
    out += String(d);
  });
  child.stderr!.on("data", (d) => {
    out += String(d);
  });
  const end = Date.now() + 20_000;
  while (!out.includes("hftgate is running")) {
    if (Date.now() > end || child.exitCode !== null) throw new Error(`no banner: ${out}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return { child, out: () => out };
}

const recorded = () => JSON.parse(readFileSync(pidFile, "utf8")) as { pid: number; conf: string };

describe.skipIf(!existsSync(CLI) || findNatsServer() === undefined)(
  "hftgate start after a SIGKILL (built CLI, nats-server)",
  () => {
    it("stops the nats-server the killed gateway left behind, then its own at a clean stop", async () => {
      const a = await start();
      const first = recorded();
      natsPids.push(first.pid);
      expect(alive(first.pid)).toBe(true);
      expect(readFileSync(`/proc/${first.pid}/cmdline`, "utf8")).toContain(first.conf);

      const killed = new Promise((r) => a.child.once("exit", r));
      a.child.kill("SIGKILL");
      await killed;
      // The orphan: still running, no longer the gateway's child, its temporary directory still there.
      expect(alive(first.pid)).toBe(true);
      expect(parentOf(first.pid)).not.toBe(a.child.pid);
      expect(existsSync(dirname(first.conf))).toBe(true);

      const b = await start();
      expect(alive(first.pid)).toBe(false);
      expect(existsSync(dirname(first.conf))).toBe(false);
      expect(b.out()).toContain("stopped the nats-server an earlier gateway on this journal left running");
      const second = recorded();
      natsPids.push(second.pid);
      expect(second.pid).not.toBe(first.pid);
      expect(alive(second.pid)).toBe(true);

      const exited = new Promise<number | null>((r) => b.child.once("exit", (code) => r(code)));
      b.child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(await goneWithin(second.pid, 5_000)).toBe(true);
      expect(existsSync(pidFile)).toBe(false);
    }, 45_000);
  },
);
