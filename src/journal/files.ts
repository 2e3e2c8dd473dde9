/**
 * The journal files of a directory and their order. Names embed the UTC start time (run files: to the
 * millisecond, then a fixed-width pid and a counter; older runs: to the second; day files: the day), and
 * that time orders them; within one stamp the last-modified time decides (a file's mtime alone would
 * move a file that was written to later, a cut torn tail or a salvaged start, behind newer ones).
 */
import { readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";

/** Journal files in `dir`, in name order (names embed the UTC start time). */
export function listJournals(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith("hftgate-") && (f.endsWith(".ndjson") || f.endsWith(".hgj")))
    .sort()
    .map((f) => join(dir, f));
}

/** Journal files oldest first: by the start time in the name, then by last-modified time. */
export function chronological(paths: readonly string[]): string[] {
  const rows = paths.map((p) => ({
    p,
    k: /^hftgate-(\d{8}(?:T\d{6}(?:\.\d{3})?Z)?)/.exec(basename(p))?.[1] ?? "",
    m: statSync(p).mtimeMs,
  }));
  rows.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.m - b.m || (a.p < b.p ? -1 : 1)));
  return rows.map((r) => r.p);
}

/** The directory's journal files, oldest first (none when the directory does not exist yet). */
export function journalFiles(dir: string): string[] {
  try {
    return chronological(listJournals(dir));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}
