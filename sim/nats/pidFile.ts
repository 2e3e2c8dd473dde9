/**
 * The pid file of a simulator's `nats-server` child: written once the server is up, removed at its
 * stop. A parent killed with SIGKILL cannot stop its child (Node has no PR_SET_PDEATHSIG for a
 * spawned process), so the next start reads the file and stops the one left running, after checking
 * by pid, command line (the binary and its config file) and parent (no longer its starter) that it
 * is that orphan and not a reused pid or a server another live process still owns.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname } from "node:path";

interface PidRecord {
  /** The nats-server process. */
  pid: number;
  /** The process that started it. */
  owner: number;
  /** Its config file (on its command line) and temporary directory. */
  conf: string;
}

/** A stale server found and stopped at start. */
export interface StaleNats {
  pid: number;
  dir: string;
}

export function writeNatsPidFile(file: string, pid: number, conf: string): void {
  const rec: PidRecord = { pid, owner: process.pid, conf };
  writeFileSync(file, `${JSON.stringify(rec)}\n`, { mode: 0o600 });
}

/** Removes the pid file if it still names `pid` (a later server's file is left alone). */
export function removeNatsPidFile(file: string, pid: number | undefined): void {
  if (read(file)?.pid === pid) rmSync(file, { force: true });
}

/**
 * Stops the server a pid file names when it is an orphan (its starter gone) and removes its
 * temporary directory and the file. Returns what it stopped, or undefined.
 */
export async function stopStaleNats(file: string): Promise<StaleNats | undefined> {
  const rec = read(file);
  if (rec === undefined) return undefined;
  const argv = cmdline(rec.pid);
  const isIt = argv !== undefined && basename(argv[0] ?? "") === "nats-server" && argv.includes(rec.conf);
  const parent = isIt ? parentOf(rec.pid) : undefined;
  // Still the child of a live starter (another gateway on this directory): not ours to stop.
  if (isIt && parent === rec.owner) return undefined;
  rmSync(file, { force: true });
  if (!isIt) return undefined; // gone, or the pid now belongs to another program
  kill(rec.pid, "SIGTERM");
  if (!(await gone(rec.pid, 3_000))) {
    kill(rec.pid, "SIGKILL");
    await gone(rec.pid, 2_000);
  }
  const dir = dirname(rec.conf);
  // Only the directory NatsServer made (mkdtemp "hftgate-nats-…"), never anything else.
  if (basename(dir).startsWith("hftgate-nats-")) rmSync(dir, { recursive: true, force: true });
  return { pid: rec.pid, dir };
}

function read(file: string): PidRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(file, "utf8")) as Partial<PidRecord>;
    if (Number.isInteger(r.pid) && Number.isInteger(r.owner) && typeof r.conf === "string")
      return r as PidRecord;
  } catch {
    // missing or unreadable: nothing to check
  }
  return undefined;
}

/** The process's argv from /proc (Linux), or undefined when it is gone or unreadable. */
function cmdline(pid: number): string[] | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    return raw.length > 0 ? raw.split("\0").filter((a) => a !== "") : undefined;
  } catch {
    return undefined;
  }
}

function parentOf(pid: number): number | undefined {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

function kill(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

async function gone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (cmdline(pid) === undefined) return true; // exited (a zombie has an empty cmdline)
    await new Promise((r) => setTimeout(r, 25));
  }
  return cmdline(pid) === undefined;
}
