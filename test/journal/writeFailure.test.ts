/**
 * A journal that cannot write (docs/reliability.md "Journal failure stops the flow"): the kernel
 * refuses the writes for real — this test process's RLIMIT_FSIZE is lowered with prlimit(1), so a
 * write past the limit is cut short and the next one fails with EFBIG, as a full disk cuts it short
 * and fails with ENOSPC — and the writer keeps what it could not write, holds durability back,
 * retries, and once the file may grow holds every record exactly once, in order. Skipped where
 * prlimit is missing or not permitted.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Journal, type JournalOptions, readJournal } from "../../src/journal/index.js";
import { fileSizeLimit, PRLIMIT } from "./fileSizeLimit.js";
import { appendNotes, noteHeads } from "./journalFiles.js";

const dirs: string[] = [];
afterEach(() => {
  fileSizeLimit("unlimited");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function mk(over: Partial<JournalOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "hftgate-jfail-"));
  dirs.push(dir);
  const seen = { errors: [] as string[], recovers: 0, warnings: [] as string[] };
  const j = Journal.open({
    dir,
    fsync: "none",
    retryIntervalMs: 10,
    onError: (e) => seen.errors.push((e as NodeJS.ErrnoException).code ?? e.message),
    onRecover: () => seen.recovers++,
    onWarning: (m) => seen.warnings.push(m),
    ...over,
  });
  return { j, seen };
}

/** Notes from..from+n-1 of about 60 bytes each. */
const notes = (j: Journal, from: number, n: number) => appendNotes(j, from, n, 4);
const texts = (path: string) => noteHeads(path, 4);

describe.skipIf(!PRLIMIT)("journal writes the kernel refuses", () => {
  for (const [format, writeMode] of [
    ["binary", "sync"],
    ["ndjson", "async"],
  ] as const) {
    it(`${format}, ${writeMode} writes: a cut-short write is finished, not repeated; nothing is durable until then`, async () => {
      const { j, seen } = mk({ format, writeMode });
      notes(j, 0, 5);
      await j.flush();
      const size = statSync(j.path).size;
      // Room for part of the next batch only: the kernel takes 100 bytes of it, then refuses.
      expect(fileSizeLimit(size + 100)).toBe(true);
      notes(j, 5, 20);
      j.flushSync();
      await until(() => seen.errors.length === 1, 2_000, "the failure reported");
      expect(seen.errors).toEqual(["EFBIG"]);
      expect(j.failure).toBeDefined();
      expect(statSync(j.path).size).toBe(size + 100);
      // Nothing appended since counts as durable; appends keep buffering; retries keep failing.
      let durable = false;
      j.onDurable(() => {
        durable = true;
      });
      let flushed = false;
      void j.flush().then(() => {
        flushed = true;
      });
      notes(j, 25, 5);
      expect(j.flushSync()).toBe(false);
      await new Promise((r) => setTimeout(r, 100));
      expect([durable, flushed, seen.errors.length, seen.recovers]).toEqual([false, false, 1, 0]);
      expect(statSync(j.path).size).toBe(size + 100);
      // Room again: the remainder, then everything appended meanwhile, in order, each record once.
      fileSizeLimit("unlimited");
      await until(() => durable && flushed, 2_000, "durable again");
      await j.flush();
      expect([seen.recovers, j.failure]).toEqual([1, undefined]);
      notes(j, 30, 2);
      await j.close();
      const read = readJournal(j.path);
      expect(read.tornBytes).toBe(0);
      expect(texts(j.path)).toEqual(
        Array.from({ length: 32 }, (_, i) => `note ${String(i).padStart(4, "0")}`),
      );
      expect(read.records.map((r) => r.seq)).toEqual(read.records.map((_, i) => i + 1));
    });
  }

  it("fsync every: frames waiting for the sync wait through the failure too", async () => {
    const { j, seen } = mk({ fsync: "every" });
    notes(j, 0, 2);
    await j.flush();
    expect(fileSizeLimit(statSync(j.path).size)).toBe(true);
    notes(j, 2, 1);
    let durable = false;
    j.onDurable(() => {
      durable = true;
    });
    await until(() => seen.errors.length === 1, 2_000, "the failure reported");
    await new Promise((r) => setTimeout(r, 50));
    expect(durable).toBe(false);
    fileSizeLimit("unlimited");
    await until(() => durable, 2_000, "durable again");
    await j.close();
    expect(texts(j.path)).toEqual(["note 0000", "note 0001", "note 0002"]);
  });

  it("a close while writes fail returns, says records may be missing, and leaves a readable file", async () => {
    const { j, seen } = mk();
    notes(j, 0, 3);
    await j.flush();
    expect(fileSizeLimit(statSync(j.path).size)).toBe(true);
    notes(j, 3, 4);
    j.flushSync();
    await until(() => seen.errors.length === 1, 2_000, "the failure reported");
    await j.close();
    expect(seen.warnings.join("\n")).toMatch(/last 4 record\(s\) may be missing/);
    fileSizeLimit("unlimited");
    const read = readJournal(j.path);
    expect([read.tornBytes, texts(j.path)]).toEqual([0, ["note 0000", "note 0001", "note 0002"]]);
  });
});
