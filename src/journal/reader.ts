/**
 * Reads journal files back, in order. `readJournal` reads one file as far as it can (the replay tool
 * prints what is readable) and says where it stopped; `replayJournals` / `readJournalsInto` read a
 * directory's files for start-up and refuse damage: only the newest file may end in a torn tail
 * (what a crash mid-write leaves), anything else throws JournalDamageError naming file and offset.
 */
import { readFileSync } from "node:fs";
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

export function readJournal(path: string): JournalRead {
  const buf = readFileSync(path);
  if (buf.length >= 4 && buf.subarray(0, 4).equals(BINARY_MAGIC)) return readBinary(buf);
  if (buf.length === 0 || buf[0] === 0x7b) return readNdjson(buf);
  throw new JournalError(`${path}: not an hftgate journal`);
}

function readBinary(buf: Buffer): JournalRead {
  const records: JournalRecord[] = [];
  let off = BINARY_MAGIC.length;
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
  const identity = first?.k === "note" && first.seq === 0 ? parseIdentity(first.text) : undefined;
  return { format: "binary", records, tornBytes: buf.length - off, corrupt, identity, fault };
}

function readNdjson(buf: Buffer): JournalRead {
  const records: JournalRecord[] = [];
  let identity: JournalIdentity | undefined;
  let corrupt = 0;
  let pos = 0;
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

/**
 * Replay: feeds every record of the given files (oldest first), in order, to `apply` (the engine
 * passes them through the order store). Only the last file may end in a torn tail (reported in
 * `tornBytes`); any other fault throws JournalDamageError before that file's records are applied.
 */
export function replayJournals(
  paths: readonly string[],
  apply: (rec: JournalRecord, file: string) => void,
): { records: number; tornBytes: number; corrupt: number } {
  let records = 0;
  let tornBytes = 0;
  paths.forEach((p, i) => {
    const r = readJournal(p);
    if (r.fault !== undefined && !(r.fault.tail && i === paths.length - 1)) {
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
  paths: readonly string[],
  consumers: readonly JournalConsumer[],
): { records: number; tornBytes: number; corrupt: number } {
  return replayJournals(paths, (rec) => {
    for (const c of consumers) c.add(rec);
  });
}
