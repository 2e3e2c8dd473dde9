/**
 * What the journal's file-level tests share: temp directories removed after each test, where each
 * record of a binary journal file starts (to damage one on purpose), numbered notes to append and read
 * back, and this test process's file size limit (prlimit), to make the kernel refuse writes for real.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { BINARY_MAGIC, frameEnd, type Journal, readJournal } from "../../src/journal/index.js";

/** A maker of temp directories (`prefix`…) for one test file; each is removed after its test. */
export function tempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}

/** Byte offsets where each record of a binary journal file starts. */
export function recordStarts(path: string): number[] {
  const buf = readFileSync(path);
  const out: number[] = [];
  for (let off = BINARY_MAGIC.length; off < buf.length; ) {
    out.push(off);
    const end = frameEnd(buf, off);
    if (typeof end !== "number") break;
    off = end;
  }
  return out;
}

/** Appends notes `from`..`from + n - 1`, each `note <number, digits wide> x…` (~60–70 bytes). */
export function appendNotes(j: Journal, from: number, n: number, digits: number): void {
  for (let i = from; i < from + n; i++)
    j.note({ text: `note ${String(i).padStart(digits, "0")} ${"x".repeat(40)}` });
}

/** The numbered heads (`note 0007`) of a file's notes, in file order. */
export function noteHeads(path: string, digits: number): string[] {
  return readJournal(path).records.flatMap((r) => (r.k === "note" ? [r.text.slice(0, 5 + digits)] : []));
}

/** Sets this test process's file size limit (RLIMIT_FSIZE) with prlimit(1); false where it cannot. */
export function fileSizeLimit(bytes: number | "unlimited"): boolean {
  return spawnSync("prlimit", ["--pid", String(process.pid), `--fsize=${bytes}:unlimited`]).status === 0;
}

/** prlimit is there and may lower this process's limit. */
export const PRLIMIT = spawnSync("prlimit", ["--version"]).status === 0 && fileSizeLimit("unlimited");
