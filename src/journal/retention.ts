/**
 * Journal retention: files wholly covered by a checkpoint (both generations, so a damaged latest one
 * still has its predecessor to fall back on) and last written more than `journal.retentionDays` ago are
 * deleted, or moved to `journal.archiveDir`. A marker (`pruned.json`) remembers that files were
 * pruned: without a usable checkpoint, start-up then refuses rather than replay a journal with a hole.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import type { JournalPosition } from "./checkpoint.js";

export const PRUNE_MARKER = "pruned.json";

export interface PruneMarker {
  /** The newest file pruned so far (name). */
  readonly through: string;
  /** Files pruned over the directory's life. */
  readonly files: number;
  /** Wall-clock ms of the last pruning. */
  readonly at: number;
  /** Where they went: an archive directory, or undefined when deleted. */
  readonly archive: string | undefined;
}

/**
 * The files (oldest first, as `chronological` orders them) that may go: strictly before the covered
 * file of `covers`, not modified for `retentionMs`. Never the covered file itself, nor anything after.
 */
export function prunable(
  files: readonly string[],
  covers: JournalPosition,
  nowMs: number,
  retentionMs: number,
): string[] {
  const at = files.findIndex((f) => basename(f) === covers.file);
  if (at <= 0) return [];
  const out: string[] = [];
  for (const f of files.slice(0, at)) {
    // Oldest first: the first file still inside the retention ends the run (no hole in the middle).
    if (statSync(f).mtimeMs > nowMs - retentionMs) break;
    out.push(f);
  }
  return out;
}

/** Deletes the files, or moves them to `archiveDir` (created owner-only); records the marker first. */
export function prune(dir: string, files: readonly string[], archiveDir: string, nowMs: number): number {
  if (files.length === 0) return 0;
  const before = readPruneMarker(dir);
  const marker: PruneMarker = {
    through: basename(files[files.length - 1]!),
    files: (before?.files ?? 0) + files.length,
    at: nowMs,
    archive: archiveDir === "" ? undefined : archiveDir,
  };
  // The marker before the first file goes: a crash in between leaves a marker and every file.
  writeFileSync(join(dir, PRUNE_MARKER), `${JSON.stringify(marker)}\n`, { mode: 0o600 });
  if (archiveDir !== "") mkdirSync(archiveDir, { recursive: true, mode: 0o700 });
  for (const f of files) {
    if (archiveDir === "") unlinkSync(f);
    else moveFile(f, join(archiveDir, basename(f)));
  }
  return files.length;
}

export function readPruneMarker(dir: string): PruneMarker | undefined {
  const p = join(dir, PRUNE_MARKER);
  if (!existsSync(p)) return undefined;
  try {
    const m = JSON.parse(readFileSync(p, "utf8")) as PruneMarker;
    return typeof m.through === "string" ? m : { through: "?", files: 0, at: 0, archive: undefined };
  } catch {
    return { through: "?", files: 0, at: 0, archive: undefined };
  }
}

/** A rename, or a copy then delete when the archive is on another file system. */
function moveFile(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
    copyFileSync(from, to);
    unlinkSync(from);
  }
}
