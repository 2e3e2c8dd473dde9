/**
 * Reads a journal file back, in order. A crash can leave the last record half-written: the reader
 * stops there and reports the torn bytes instead of failing, so replay always gets every complete
 * record. Damage in the middle of a binary file (bad crc) also stops the read and is reported.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY_MAGIC, decodeBinary, type JournalFormat } from "./codec.js";
import { CODE_KIND, JournalError, type JournalRecord, type RecordKind, SCHEMA } from "./records.js";

export interface JournalRead {
  readonly format: JournalFormat;
  readonly records: JournalRecord[];
  /** Bytes after the last complete record (a torn tail); 0 for a clean file. */
  readonly tornBytes: number;
  /** NDJSON lines in the middle that did not parse (skipped), or 1 if a binary crc failed. */
  readonly corrupt: number;
}

const KINDS = new Set(CODE_KIND.filter((k) => k !== undefined));

export function readJournal(path: string): JournalRead {
  const buf = readFileSync(path);
  if (buf.length >= 4 && buf.subarray(0, 4).equals(BINARY_MAGIC)) return readBinary(buf);
  if (buf.length === 0 || buf[0] === 0x7b) return readNdjson(buf);
  throw new JournalError(`${path}: not an hftgate journal`);
}

function readBinary(buf: Buffer): JournalRead {
  const records: JournalRecord[] = [];
  let off = BINARY_MAGIC.length;
  let corrupt = 0;
  while (off < buf.length) {
    const r = decodeBinary(buf, off);
    if (r === "torn" || r === "corrupt") {
      if (r === "corrupt") corrupt = 1;
      break;
    }
    records.push(r.rec);
    off = r.next;
  }
  return { format: "binary", records, tornBytes: buf.length - off, corrupt };
}

function readNdjson(buf: Buffer): JournalRead {
  const text = buf.toString("utf8");
  const records: JournalRecord[] = [];
  let corrupt = 0;
  let pos = 0;
  let tornBytes = 0;
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    if (nl === -1) {
      // No newline: the writer died mid-record.
      tornBytes = Buffer.byteLength(text.slice(pos));
      break;
    }
    const line = text.slice(pos, nl);
    pos = nl + 1;
    if (line.length === 0) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      corrupt++;
      continue;
    }
    const k = (v as { k?: unknown }).k;
    if (typeof k === "string" && KINDS.has(k as never)) records.push(bytesBack(k as RecordKind, v as never));
    else if (k !== "hdr") corrupt++;
  }
  return { format: "ndjson", records, tornBytes, corrupt };
}

/** NDJSON carries byte fields as base64: back to bytes, as the binary reader returns them. */
function bytesBack(kind: RecordKind, rec: Record<string, unknown>): JournalRecord {
  for (const [name, t] of SCHEMA[kind])
    if (t === "b" && typeof rec[name] === "string") rec[name] = Buffer.from(rec[name], "base64");
  return rec as unknown as JournalRecord;
}

/** Journal files in `dir`, oldest first (names embed the UTC start time). */
export function listJournals(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith("hftgate-") && (f.endsWith(".ndjson") || f.endsWith(".hgj")))
    .sort()
    .map((f) => join(dir, f));
}

/**
 * Replay: feeds every record of the given files, in order, to `apply` (the engine passes them
 * through the order store). Returns what it read, torn tails included, so start-up can log it.
 */
export function replayJournals(
  paths: readonly string[],
  apply: (rec: JournalRecord, file: string) => void,
): { records: number; tornBytes: number; corrupt: number } {
  let records = 0;
  let tornBytes = 0;
  let corrupt = 0;
  for (const p of paths) {
    const r = readJournal(p);
    for (const rec of r.records) apply(rec, p);
    records += r.records.length;
    tornBytes += r.tornBytes;
    corrupt += r.corrupt;
  }
  return { records, tornBytes, corrupt };
}

/** One consumer of a read: every record, in journal order. */
export interface JournalConsumer {
  add(rec: JournalRecord): void;
}

/**
 * Reads the given files once, in order, handing every record to each consumer in turn (start-up:
 * the order replay, the session restorer, the told-vs-known ledger, from one pass).
 */
export function readJournalsInto(
  paths: readonly string[],
  consumers: readonly JournalConsumer[],
): { records: number; tornBytes: number; corrupt: number } {
  return replayJournals(paths, (rec) => {
    for (const c of consumers) c.add(rec);
  });
}
