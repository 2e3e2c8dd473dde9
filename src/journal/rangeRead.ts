/**
 * Reads a stretch of a journal file asynchronously, in chunks, handing each record to a callback: the
 * checkpoint is built from the running journal this way, a chunk per event-loop turn, so the gateway
 * keeps answering while it reads. Byte fields are views into a reused buffer: copy what is kept.
 */
import { open } from "node:fs/promises";
import { BINARY_MAGIC, decodeBinary } from "./codec.js";
import { CODE_KIND, type JournalRecord, type RecordKind, SCHEMA } from "./records.js";
import { JournalDamageError } from "./scan.js";

const CHUNK = 4 << 20;
const KINDS = new Set<unknown>(CODE_KIND.filter((k) => k !== undefined));

/** Every record of `path` in [from, to) (`to`: a record boundary, such as the journal's written end). */
export async function readRange(
  path: string,
  from: number,
  to: number,
  onRecord: (r: JournalRecord) => void,
): Promise<number> {
  const fh = await open(path, "r");
  try {
    const head = Buffer.alloc(4);
    await fh.read(head, 0, 4, 0);
    const binary = head.equals(BINARY_MAGIC);
    let pos = binary ? Math.max(from, BINARY_MAGIC.length) : from;
    let buf = Buffer.allocUnsafe(CHUNK);
    let held = 0;
    let count = 0;
    while (pos + held < to) {
      if (held === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, held);
        buf = bigger;
      }
      const want = Math.min(buf.length - held, to - pos - held);
      const { bytesRead } = await fh.read(buf, held, want, pos + held);
      if (bytesRead === 0) break;
      held += bytesRead;
      const used = binary ? decodeChunk(buf, held, onRecord) : ndjsonChunk(buf, held, onRecord);
      count += used.records;
      buf.copy(buf, 0, used.bytes, held);
      pos += used.bytes;
      held -= used.bytes;
    }
    if (pos < to)
      throw new JournalDamageError(
        [{ file: path, fault: { offset: pos, kind: "incomplete", records: count, after: 0, tail: false } }],
        "the checkpoint was not written",
      );
    return count;
  } finally {
    await fh.close();
  }
}

function decodeChunk(buf: Buffer, held: number, onRecord: (r: JournalRecord) => void) {
  const view = buf.subarray(0, held);
  let off = 0;
  let records = 0;
  for (;;) {
    const d = decodeBinary(view, off);
    if (d === "torn") break; // the rest arrives with the next chunk
    if (d === "corrupt")
      throw new JournalDamageError(
        [{ file: "journal", fault: { offset: off, kind: "checksum", records, after: 0, tail: false } }],
        "the checkpoint was not written",
      );
    onRecord(d.rec);
    records++;
    off = d.next;
  }
  return { bytes: off, records };
}

function ndjsonChunk(buf: Buffer, held: number, onRecord: (r: JournalRecord) => void) {
  let off = 0;
  let records = 0;
  for (;;) {
    const nl = buf.indexOf(0x0a, off);
    if (nl === -1 || nl >= held) break;
    const line = buf.toString("utf8", off, nl);
    off = nl + 1;
    if (line === "") continue;
    const v = JSON.parse(line) as Record<string, unknown>;
    if (!KINDS.has(v.k)) continue;
    for (const [name, t] of SCHEMA[v.k as RecordKind])
      if (t === "b" && typeof v[name] === "string") v[name] = Buffer.from(v[name], "base64");
    onRecord(v as unknown as JournalRecord);
    records++;
  }
  return { bytes: off, records };
}
