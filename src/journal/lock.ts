/**
 * One process per journal directory and per state file: a lock file created exclusively (O_EXCL) and
 * held for the process lifetime, naming its owner (pid, host, start time, port once known). A lock
 * whose process is gone (no such pid, or the pid now runs another process) is stale and taken over,
 * with a log line; a live one refuses with the owner's pid and port.
 */
import { randomBytes } from "node:crypto";
import { closeSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { JournalError } from "./records.js";

export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  /** The owner's start time as the kernel counts it (Linux /proc/<pid>/stat), to tell a reused pid. */
  readonly procStart?: string;
  /** The command API port, once listening. */
  readonly port?: number;
  readonly startedAt: string;
  /** Random per lock: who may remove it. */
  readonly token: string;
}

/** Another live process holds the lock. */
export class LockHeldError extends JournalError {
  override name = "LockHeldError";
  constructor(
    readonly path: string,
    readonly what: string,
    readonly owner: LockOwner | undefined,
  ) {
    super(
      `${what} is in use by another hftgate process (${ownerText(owner)}; lock ${path}): stop that one first, ` +
        "or give this one its own journal.dir and engine.stateFile (docs/operator.md, running two gateways)",
    );
  }
}

function ownerText(o: LockOwner | undefined): string {
  if (o === undefined) return "owner unreadable";
  const port = o.port === undefined ? "port not yet open" : `port ${o.port}`;
  return `pid ${o.pid}${o.host === hostname() ? "" : ` on ${o.host}`}, ${port}, since ${o.startedAt}`;
}

/** Linux: field 22 of /proc/<pid>/stat (start time in clock ticks since boot); undefined elsewhere. */
function procStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** Whether the lock's owner still runs. Another host's process cannot be checked: it counts as alive. */
function alive(o: LockOwner): boolean {
  if (o.host !== hostname()) return true;
  try {
    process.kill(o.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const now = procStart(o.pid);
  return o.procStart === undefined || now === undefined || now === o.procStart;
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const o = JSON.parse(readFileSync(path, "utf8")) as LockOwner;
    return typeof o.pid === "number" && typeof o.token === "string" ? o : undefined;
  } catch {
    return undefined;
  }
}

/** The live process holding the lock at `path` (read only, nothing taken); undefined when none. */
export function liveOwner(path: string): LockOwner | undefined {
  const o = readOwner(path);
  return o !== undefined && alive(o) ? o : undefined;
}

/** A short synchronous pause (start-up only: a lock file caught between create and write). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export class InstanceLock {
  private owner: LockOwner;
  private held = true;
  private readonly onExit = () => this.release();

  private constructor(
    readonly path: string,
    owner: LockOwner,
  ) {
    this.owner = owner;
    // A process that exits without stopping (an uncaught error) still removes its own lock.
    process.once("exit", this.onExit);
  }

  /**
   * Takes the lock at `path` (`what` names the locked thing in messages). A stale lock is taken over
   * and `onStale` told whose it was; a live one throws LockHeldError.
   */
  static acquire(path: string, what: string, onStale: (old: LockOwner | undefined) => void): InstanceLock {
    const self = process.pid;
    const owner: LockOwner = {
      pid: self,
      host: hostname(),
      procStart: procStart(self),
      startedAt: new Date().toISOString(),
      token: randomBytes(8).toString("hex"),
    };
    for (let attempt = 0; attempt < 5; attempt++) {
      if (create(path, owner)) return new InstanceLock(path, owner);
      let old = readOwner(path);
      // Caught between another process's create and its write: give it a moment.
      for (let i = 0; i < 20 && old === undefined; i++) {
        pause(10);
        old = readOwner(path);
      }
      if (old !== undefined && alive(old)) throw new LockHeldError(path, what, old);
      // Stale: move it out of the way (only one taker wins the rename), check it was the one read.
      const aside = `${path}.stale-${self}`;
      try {
        renameSync(path, aside);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw err;
      }
      const moved = readOwner(aside);
      if (moved !== undefined && moved.token !== old?.token && alive(moved)) {
        // Another taker's fresh lock: put it back (unless a third one is there already) and look again.
        try {
          linkSync(aside, path);
        } catch {
          // someone holds it now: the next attempt reads who
        }
        unlinkSync(aside);
        continue;
      }
      unlinkSync(aside);
      onStale(old);
    }
    throw new LockHeldError(path, what, readOwner(path));
  }

  get info(): LockOwner {
    return this.owner;
  }

  /** Adds the port (once the command API listens); replaces the file atomically. */
  update(fields: { port: number }): void {
    if (!this.held) return;
    this.owner = { ...this.owner, ...fields };
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeBody(tmp, this.owner, "w");
    renameSync(tmp, this.path);
  }

  /** Removes the lock if it is still this one (never another process's). Idempotent. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    process.off("exit", this.onExit);
    if (readOwner(this.path)?.token !== this.owner.token) return;
    try {
      unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}

/** Creates the lock file exclusively; false when it exists. */
function create(path: string, owner: LockOwner): boolean {
  try {
    writeBody(path, owner, "wx");
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

function writeBody(path: string, owner: LockOwner, flag: "w" | "wx"): void {
  const fd = openSync(path, flag, 0o600);
  try {
    writeSync(fd, `${JSON.stringify(owner)}\n`);
  } finally {
    closeSync(fd);
  }
}
