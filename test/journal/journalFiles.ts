/**
 * What the journal's file-level tests share: temp directories removed after each test, where each
 * record of a binary journal file starts (to damage one on purpose), numbered notes to append and read
 * back. (The file size limit that makes the kernel refuse writes is in fileSizeLimit.ts: it starts a
 * process.)
 */
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
