/**
 * The checkpoint file: what start-up needs from the journal up to one position (file + offset), so a
 * restart reads it and the journal after that position instead of every file. Layout:
 * `HGCP | u32 headLen | head JSON | records (the journal's binary codec, each with its CRC) | u32 crc32
 * of everything before | HGCE`. Written atomically (temp file, fsync, rename, directory fsync); the
 * previous generation is kept as `checkpoint.prev.hgc` (a hard link renamed over it, so neither name
 * is ever missing), so a damaged latest one falls back to it.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { binaryBound, decodeBinary, encodeBinary } from "./codec.js";
import { describeIdentity, type JournalIdentity, parseIdentity, sameIdentity } from "./identity.js";
import { JournalError, type JournalRecord } from "./records.js";

export const CHECKPOINT_FILE = "checkpoint.hgc";
export const CHECKPOINT_PREV = "checkpoint.prev.hgc";
const MAGIC = Buffer.from("HGCP", "latin1");
const TRAILER = Buffer.from("HGCE", "latin1");
const VERSION = 1;

/** The journal position a checkpoint covers: every record of `file` before `offset`, and every earlier file. */
export interface JournalPosition {
  /** The journal file's name (in the journal directory). */
  readonly file: string;
  /** Byte offset in that file: the first byte not covered (a record boundary). */
  readonly offset: number;
}

export interface CheckpointHead {
  readonly v: number;
  readonly identity: JournalIdentity;
  readonly covers: JournalPosition;
  /** Wall-clock ms when it was taken. */
  readonly takenAt: number;
  /** Resume-ring size it kept per session. */
  readonly ring: number;
  /** Highest client order number each session (by name) used, the orders no longer held included. */
  readonly orderNumbers: Readonly<Record<string, number>>;
  /**
   * Signed filled position (lots) per instrument key that the records held do not rebuild (fills of
   * orders finished and left out): seeded into risk before the records are replayed.
   */
  readonly positions: Readonly<Record<string, number>>;
  /** Journal records held (the live orders' histories, sessions, last state). */
  readonly records: number;
  /** Bytes of journal history it stands for (the covered files up to `covers`), for logs. */
  readonly coveredBytes: number;
}

export interface Checkpoint {
  readonly head: CheckpointHead;
  readonly records: readonly JournalRecord[];
}

/** A checkpoint that cannot be used: damaged, of another venue or account, or pointing at a missing file. */
export class CheckpointError extends JournalError {
  override name = "CheckpointError";
}

export function encodeCheckpoint(
  head: Omit<CheckpointHead, "v" | "records">,
  records: readonly JournalRecord[],
): Buffer {
  const h = Buffer.from(JSON.stringify({ v: VERSION, ...head, records: records.length }), "utf8");
  let size = MAGIC.length + 4 + h.length + 8;
  for (const r of records) size += binaryBound(r.k, r);
  const buf = Buffer.allocUnsafe(size);
  MAGIC.copy(buf, 0);
  buf.writeUInt32LE(h.length, 4);
  h.copy(buf, 8);
  let off = 8 + h.length;
  for (const r of records) off = encodeBinary(buf, off, r.k, r.seq, r.ts, r);
  buf.writeUInt32LE(crc32(buf.subarray(0, off)), off);
  TRAILER.copy(buf, off + 4);
  return buf.subarray(0, off + 8);
}

export function decodeCheckpoint(buf: Buffer): Checkpoint {
  if (buf.length < 16 || !buf.subarray(0, 4).equals(MAGIC)) throw new CheckpointError("not a checkpoint");
  const end = buf.length - 8;
  if (!buf.subarray(end + 4).equals(TRAILER)) throw new CheckpointError("incomplete (no trailer)");
  if (crc32(buf.subarray(0, end)) !== buf.readUInt32LE(end)) throw new CheckpointError("CRC mismatch");
  const hl = buf.readUInt32LE(4);
  if (8 + hl > end) throw new CheckpointError("malformed head");
  const head = JSON.parse(buf.toString("utf8", 8, 8 + hl)) as CheckpointHead;
  if (head.v !== VERSION) throw new CheckpointError(`version ${String(head.v)} not understood`);
  const identity = parseIdentity(head.identity);
  if (identity === undefined || typeof head.covers?.file !== "string" || !(head.covers.offset >= 0))
    throw new CheckpointError("malformed head");
  const records: JournalRecord[] = [];
  for (let off = 8 + hl; off < end; ) {
    const d = decodeBinary(buf.subarray(0, end), off);
    if (typeof d !== "object") throw new CheckpointError(`record ${records.length} does not read`);
    // Byte fields are views into `buf`: the checkpoint's buffer is kept with its records.
    records.push(d.rec);
    off = d.next;
  }
  if (records.length !== head.records) throw new CheckpointError("record count mismatch");
  return { head: { ...head, identity }, records };
}

/** Writes `buf` as the directory's checkpoint: temp file, fsync, previous kept, rename, directory fsync. */
export function writeCheckpointFile(dir: string, buf: Buffer): string {
  const path = join(dir, CHECKPOINT_FILE);
  const tmp = join(dir, `${CHECKPOINT_FILE}.tmp-${process.pid}`);
  const fd = openSync(tmp, "w", 0o600);
  try {
    let n = 0;
    while (n < buf.length) n += writeSync(fd, buf, n, buf.length - n);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  // Each step is atomic and replaces, never removes, a name: the latest generation is linked to a
  // temp name and that renamed over the previous one, then the new file over the latest. A reader
  // beside a running gateway (`hftgate replay --check`) finds both names at every instant (moved aside
  // first, the latest was missing between the two renames), and a crash leaves a whole file under each.
  if (existsSync(path)) {
    const prevTmp = join(dir, `${CHECKPOINT_PREV}.tmp-${process.pid}`);
    rmSync(prevTmp, { force: true });
    linkSync(path, prevTmp);
    renameSync(prevTmp, join(dir, CHECKPOINT_PREV));
  }
  renameSync(tmp, path);
  syncDir(dir);
  return path;
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // a file system without directory fsync: the renames are still atomic
  }
}

/** A generation that was found and could not be used, and why. */
export interface RejectedCheckpoint {
  readonly path: string;
  readonly why: string;
}

export interface CheckpointLoad {
  /** The newest usable generation; undefined: none (start-up reads every file). */
  readonly checkpoint: (Checkpoint & { readonly path: string }) | undefined;
  /** The older generation too, when usable: retention prunes only what both cover. */
  readonly older: (Checkpoint & { readonly path: string }) | undefined;
  readonly rejected: readonly RejectedCheckpoint[];
}

/** Reads and checks one generation against this start's identity and the journal files present. */
export function readCheckpoint(path: string, dir: string, identity: JournalIdentity): Checkpoint {
  const c = decodeCheckpoint(readFileSync(path));
  if (!sameIdentity(c.head.identity, identity))
    throw new CheckpointError(`belongs to ${describeIdentity(c.head.identity)}`);
  let size: number;
  try {
    size = statSync(join(dir, c.head.covers.file)).size;
  } catch {
    throw new CheckpointError(`its journal file ${c.head.covers.file} is missing`);
  }
  if (size < c.head.covers.offset)
    throw new CheckpointError(
      `its journal file ${c.head.covers.file} is shorter (${size} bytes) than the position it covers (${c.head.covers.offset})`,
    );
  return c;
}

/** The latest usable checkpoint of `dir` (the previous generation if the latest cannot be used). */
export function loadCheckpoint(dir: string, identity: JournalIdentity): CheckpointLoad {
  const rejected: RejectedCheckpoint[] = [];
  const found: (Checkpoint & { path: string })[] = [];
  for (const name of [CHECKPOINT_FILE, CHECKPOINT_PREV]) {
    const path = join(dir, name);
    if (!existsSync(path)) continue;
    try {
      found.push({ ...readCheckpoint(path, dir, identity), path });
    } catch (err) {
      rejected.push({ path, why: err instanceof SyntaxError ? "malformed head" : (err as Error).message });
    }
  }
  return { checkpoint: found[0], older: found[1], rejected };
}
