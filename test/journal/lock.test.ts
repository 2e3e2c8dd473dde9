/**
 * One process per journal directory and state file (InstanceLock): a second holder is refused with the
 * first one's pid and port, across processes too; a lock left by a process that is gone (or whose pid
 * now runs something else) is taken over; a process removes only its own lock.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { InstanceLock, LockHeldError, type LockOwner } from "../../src/journal/index.js";
import { ensureBuilt } from "../chaos/harness/child.js";

const dirs: string[] = [];
const held: InstanceLock[] = [];
afterEach(() => {
  for (const l of held.splice(0)) l.release();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function lockPath(): string {
  const d = mkdtempSync(join(tmpdir(), "hftgate-lock-"));
  dirs.push(d);
  return join(d, "gateway.lock");
}
function take(path: string, stale: (LockOwner | undefined)[] = []): InstanceLock {
  const l = InstanceLock.acquire(path, "journal directory X", (old) => stale.push(old));
  held.push(l);
  return l;
}
function refusal(path: string): LockHeldError {
  try {
    take(path);
  } catch (e) {
    if (e instanceof LockHeldError) return e;
    throw e;
  }
  throw new Error("a second holder got the lock");
}

/** A pid that ran and has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(r.stdout);
}

describe("instance lock", () => {
  it("refuses a second holder in the same process, naming the first's pid and port", () => {
    const path = lockPath();
    const first = take(path);
    first.update({ port: 7711 });
    const e = refusal(path);
    expect(e.owner).toMatchObject({ pid: process.pid, port: 7711 });
    expect(e.message).toContain(
      `journal directory X is in use by another hftgate process (pid ${process.pid}, port 7711`,
    );
    first.release();
    expect(existsSync(path)).toBe(false);
    take(path); // free again
  });

  it("refuses while another process holds it, and takes it once that process is killed", async () => {
    const path = lockPath();
    // The other process: takes the lock through the same module (built), reports, then waits to be killed.
    const src = join(dirname(ensureBuilt()), "journal", "lock.js");
    const child = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { InstanceLock } = await import(${JSON.stringify(src)});
         const l = InstanceLock.acquire(${JSON.stringify(path)}, "x", () => {});
         l.update({ port: 4242 });
         process.stdout.write("held\\n");
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (d) => String(d).includes("held") && resolve());
        child.once("exit", (c) => reject(new Error(`lock holder exited ${c}`)));
      });
      const e = refusal(path);
      expect(e.owner).toMatchObject({ pid: child.pid, port: 4242 });
      expect(e.message).toContain(`pid ${child.pid}, port 4242`);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((r) => child.once("exit", r));
        child.kill("SIGKILL");
        await gone;
      }
    }
    const stale: (LockOwner | undefined)[] = [];
    const l = take(path, stale);
    expect(stale.map((o) => o?.pid)).toEqual([child.pid]);
    expect(JSON.parse(readFileSync(path, "utf8")).pid).toBe(process.pid);
    expect(l.info.pid).toBe(process.pid);
  });

  it("takes over a lock whose pid is gone, or whose pid now runs another process, or that is unreadable", () => {
    const path = lockPath();
    const base = { host: hostname(), startedAt: "2026-01-01T00:00:00.000Z", token: "t" };
    const cases: object[] = [
      { ...base, pid: deadPid() },
      { ...base, pid: process.pid, procStart: "1" }, // our pid, another start time: a reused pid
    ];
    for (const body of cases) {
      writeFileSync(path, JSON.stringify(body));
      const stale: (LockOwner | undefined)[] = [];
      const l = take(path, stale);
      expect(stale).toHaveLength(1);
      l.release();
    }
    writeFileSync(path, "");
    const stale: (LockOwner | undefined)[] = [];
    take(path, stale);
    expect(stale).toEqual([undefined]);
  });

  it("a lock of another host cannot be checked: refused", () => {
    const path = lockPath();
    writeFileSync(path, JSON.stringify({ pid: 1, host: "elsewhere", startedAt: "x", token: "t", port: 9 }));
    expect(refusal(path).message).toContain("pid 1 on elsewhere, port 9");
  });

  it("release removes only its own lock", () => {
    const path = lockPath();
    const first = take(path);
    // Another process took it over meanwhile (say, an operator removed a lock they thought stale).
    writeFileSync(path, JSON.stringify({ pid: 1, host: hostname(), startedAt: "x", token: "theirs" }));
    first.release();
    expect(JSON.parse(readFileSync(path, "utf8")).token).toBe("theirs");
  });
});
