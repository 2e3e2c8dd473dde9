/**
 * The native part of the mapped journal (native/journalmap.c, built by `npm run build` when a C
 * compiler and Node's headers are there): a stretch of the journal file reserved on disk and mapped
 * shared, as an ArrayBuffer. Records encoded into it are in the page cache at once, so they outlive a
 * killed process as a write(2) would, with no system call per batch. Without the built addon the
 * journal writes with write(2) as before (docs/reliability.md).
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

export interface WindowAddon {
  /** Reserves `[offset, offset + length)` of the file (posix_fallocate) and maps it; offset page-aligned. */
  map(fd: number, offset: number, length: number): ArrayBuffer;
  /** Detaches the buffer (every view of it reads as empty), then unmaps it. */
  unmap(window: ArrayBuffer): void;
  pageSize(): number;
}

/** From dist/src/journal (built) and from src/journal (the tests run the sources). */
const CANDIDATES = ["../../native/journalmap.node", "../../dist/native/journalmap.node"];

let addon: WindowAddon | undefined;
let why: string | undefined;

function load(): void {
  if (addon !== undefined || why !== undefined) return;
  const req = createRequire(import.meta.url);
  for (const rel of CANDIDATES) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    if (!existsSync(path)) continue;
    try {
      addon = req(path) as WindowAddon;
      return;
    } catch (err) {
      why = `native/journalmap.node did not load: ${(err as Error).message}`;
      return;
    }
  }
  why = "native/journalmap.node is not built (no C compiler or Node headers at `npm run build`)";
}

/** The addon, or undefined when it is not built or did not load (`windowAddonMissing` says why). */
export function windowAddon(): WindowAddon | undefined {
  load();
  return addon;
}

/** Why the addon is not available; undefined when it is. */
export function windowAddonMissing(): string | undefined {
  load();
  return addon === undefined ? why : undefined;
}
