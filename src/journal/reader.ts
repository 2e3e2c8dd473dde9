/**
 * Reads journal files back, in order. `readJournal` reads one file as far as it can (the replay tool
 * prints what is readable) and says where it stopped; `replayJournals` / `readJournalsInto` read a
 * directory's files for start-up and refuse damage: only the newest file may end in a torn tail
 * (what a crash mid-write leaves), anything else throws JournalDamageError naming file and offset.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { BINARY_MAGIC, decodeBinary, frameEnd, type JournalFormat } from "./codec.js";
import { type JournalIdentity, parseIdentity } from "./identity.js";
import { CODE_KIND, JournalError, type JournalRecord, type RecordKind, SCHEMA } from "./records.js";
import { binaryFault, type Damage, type Fault, JournalDamageError, nextRecord } from "./scan.js";

export { chronological, listJournals } from "./files.js";

export interface JournalRead {
  readonly format: JournalFormat;
  readonly records: JournalRecord[];
  /** Bytes after the last complete record (a torn tail); 0 for a clean file. */
  readonly tornBytes: number;
  /** NDJSON lines in the middle that did not parse (skipped), or 1 if a binary crc failed. */
  readonly corrupt: number;
  /** The venue and account the file belongs to (its head); undefined for files written before identities. */
  readonly identity: JournalIdentity | undefined;
  /** The first byte that does not start a valid record; undefined for a clean file. */
  readonly fault: Fault | undefined;
}

const KINDS = new Set(CODE_KIND.filter((k) => k !== undefined));

/**
 * Reads a file's records; `from` (a record boundary, such as a checkpoint's position) skips what is
 * before it (the identity is then not read).
 */
export function readJournal(path: string, from = 0): JournalRead {
  if (from > 0) return readFrom(path, from);
  const buf = readFileSync(path);
  if (buf.length >= 4 && buf.subarray(0, 4).equals(BINARY_MAGIC)) return readBinary(buf, BINARY_MAGIC.length);
  if (buf.length === 0 || buf[0] === 0x7b) return readNdjson(buf, 0);
  throw new JournalError(`${path}: not an hftgate journal`);
}

/** The bytes from `from` on only (a long file's covered start is never read); offsets stay the file's. */
function readFrom(path: string, from: number): JournalRead {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(4);
    readSync(fd, head, 0, 4, 0);
    const buf = Buffer.allocUnsafe(Math.max(0, size - from));
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, from + n);
      if (got === 0) break;
      n += got;
    }
    const body = buf.subarray(0, n);
    let r: JournalRead;
    if (head.equals(BINARY_MAGIC)) r = readBinary(body, 0);
    else if (head[0] === 0x7b) r = readNdjson(body, 0);
    else throw new JournalError(`${path}: not an hftgate journal`);
    return r.fault === undefined ? r : { ...r, fault: { ...r.fault, offset: r.fault.offset + from } };
  } finally {
    closeSync(fd);
  }
}

function readBinary(buf: Buffer, start: number): JournalRead {
  const records: JournalRecord[] = [];
  let off = start;
  let fault: Fault | undefined;
  let corrupt = 0;
  while (off < buf.length) {
    const r = decodeBinary(buf, off);
    if (r === "torn" || r === "corrupt") {
      if (r === "corrupt") corrupt = 1;
      const why = frameEnd(buf, off);
      fault = binaryFault(buf, off, typeof why === "number" ? "malformed" : why, records.length);
      break;
    }
    records.push(r.rec);
    off = r.next;
  }
  const first = records[0];
  const identity =
    start === BINARY_MAGIC.length && first?.k === "note" && first.seq === 0
      ? parseIdentity(first.text)
      : undefined;
  return { format: "binary", records, tornBytes: buf.length - off, corrupt, identity, fault };
}

function readNdjson(buf: Buffer, from: number): JournalRead {
  const records: JournalRecord[] = [];
  let identity: JournalIdentity | undefined;
  let corrupt = 0;
  let pos = from;
  let tornBytes = 0;
  let firstBad: { offset: number; kind: "incomplete" | "unparsable"; records: number } | undefined;
  while (pos < buf.length) {
    const nl = buf.indexOf(0x0a, pos);
    if (nl === -1) {
      // No newline: the writer died mid-record.
      tornBytes = buf.length - pos;
      firstBad ??= { offset: pos, kind: "incomplete", records: records.length };
      break;
    }
    const start = pos;
    pos = nl + 1;
    if (nl === start) continue;
    let v: unknown;
    try {
      v = JSON.parse(buf.toString("utf8", start, nl));
    } catch {
      v = undefined;
    }
    const k = (v as { k?: unknown } | undefined)?.k;
    if (typeof k === "string" && KINDS.has(k as never)) records.push(bytesBack(k as RecordKind, v as never));
    else if (k === "hdr") identity ??= parseIdentity((v as { identity?: unknown }).identity);
    else {
      corrupt++;
      firstBad ??= { offset: start, kind: "unparsable", records: records.length };
    }
  }
  let fault: Fault | undefined;
  if (firstBad !== undefined) {
    const after = records.length - firstBad.records;
    const zeros = buf.subarray(firstBad.offset).every((b) => b === 0);
    fault = { ...firstBad, after, tail: after === 0 && (firstBad.kind === "incomplete" || zeros) };
  }
  return { format: "ndjson", records, tornBytes, corrupt, identity, fault };
}

/**
 * Every record of a file that still reads, those after damage included (a binary file is searched for
 * the next valid record past each bad stretch). Not for replay: for what a damaged file can still
 * tell, such as the order numbers it used.
 */
export function readableRecords(path: string): JournalRecord[] {
  const r = readJournal(path);
  if (r.format === "ndjson" || r.fault === undefined) return r.records;
  const buf = readFileSync(path);
  const out = r.records.slice();
  for (let p = nextRecord(buf, r.fault.offset + 1); p >= 0; ) {
    const d = decodeBinary(buf, p);
    if (typeof d === "object") {
      out.push(d.rec);
      p = d.next;
    } else p = nextRecord(buf, p + 1);
  }
  return out;
}

/** NDJSON carries byte fields as base64: back to bytes, as the binary reader returns them. */
function bytesBack(kind: RecordKind, rec: Record<string, unknown>): JournalRecord {
  for (const [name, t] of SCHEMA[kind])
    if (t === "b" && typeof rec[name] === "string") rec[name] = Buffer.from(rec[name], "base64");
  return rec as unknown as JournalRecord;
}

/** What start-up does about damage: `hftgate replay --check` finds it, the recovery moves it aside. */
export const DAMAGE_HINT =
  "`hftgate replay --check <dir>` lists the damage; `hftgate start --recover-from-venue` moves the damaged files aside and starts from the venue's listings";

/** A file to read, whole (a path) or from a byte offset (the first file after a checkpoint). */
export type JournalPart = string | { readonly path: string; readonly from: number };

function partPath(p: JournalPart): string {
  return typeof p === "string" ? p : p.path;
}

/**
 * Replay: feeds every record of the given files (oldest first), in order, to `apply` (the engine
 * passes them through the order store). Only the last file may end in a torn tail (reported in
 * `tornBytes`); any other fault throws JournalDamageError before that file's records are applied.
 */
export function replayJournals(
  parts: readonly JournalPart[],
  apply: (rec: JournalRecord, file: string) => void,
): { records: number; tornBytes: number; corrupt: number } {
  let records = 0;
  let tornBytes = 0;
  parts.forEach((part, i) => {
    const p = partPath(part);
    const r = readJournal(p, typeof part === "string" ? 0 : part.from);
    if (r.fault !== undefined && !(r.fault.tail && i === parts.length - 1)) {
      const d: Damage = { file: p, fault: r.fault };
      throw new JournalDamageError([d], DAMAGE_HINT);
    }
    for (const rec of r.records) apply(rec, p);
    records += r.records.length;
    tornBytes += r.tornBytes;
  });
  return { records, tornBytes, corrupt: 0 };
}

/** One consumer of a read: every record, in journal order. */
export interface JournalConsumer {
  add(rec: JournalRecord): void;
}

/**
 * Reads the given files once, in order, handing every record to each consumer in turn (start-up:
 * the order replay, the session restorer, the told-vs-known ledger, from one pass). Damage throws,
 * as in replayJournals.
 */
export function readJournalsInto(
  parts: readonly JournalPart[],
  consumers: readonly JournalConsumer[],
): { records: number; tornBytes: number; corrupt: number } {
  return replayJournals(parts, (rec) => {
    for (const c of consumers) c.add(rec);
  });
}
