/**
 * What the journal's file-level tests share: temp directories removed after each test, and where
 * each record of a binary journal file starts (to damage one on purpose).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { BINARY_MAGIC, frameEnd } from "../../src/journal/index.js";

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
