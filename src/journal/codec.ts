/**
 * The two on-disk encodings. NDJSON: one JSON object per line. Binary: per record
 * `[u32 len][u32 crc32][u8 kind][f64 seq][f64 ts][u16 presence][fields...]` little-endian, where
 * `len` and `crc32` cover everything after the crc, strings are `u32 byteLength + UTF-8` and numbers
 * are f64, bytes are `u32 length + bytes` (NDJSON: base64). Both carry only the fields in SCHEMA.
 * A string field may be given as its UTF-8 bytes (an answer read off the socket is journaled without
 * being decoded): the record is the same as for the decoded string.
 */
import { putAscii, putF64, putU16, putU32 } from "../util/bytes.js";
import { crc32 } from "./crc32.js";
import {
  CODE_KIND,
  JournalError,
  type JournalRecord,
  KIND_CODE,
  type RecordKind,
  SCHEMA,
} from "./records.js";

export type JournalFormat = "ndjson" | "binary";

export const BINARY_MAGIC = Buffer.from("HGJ\u0001", "latin1");
export const NDJSON_HEADER_KIND = "hdr";

/** Copies whitelisted fields into a plain object (NDJSON path). */
export function pick(kind: RecordKind, seq: number, ts: number, src: object): Record<string, unknown> {
  const out: Record<string, unknown> = { k: kind, seq, ts };
  const s = src as Record<string, unknown>;
  for (const [name, t] of SCHEMA[kind]) {
    let v = s[name];
    if (v === undefined || v === null) continue;
    if (kind === "cmd" && name === "session" && typeof v === "number") v = String(v);
    if (t === "b") {
      if (!(v instanceof Uint8Array)) throw new JournalError(`journal ${kind}.${name}: expected bytes`);
      v = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64");
    } else if (t === "s" && v instanceof Uint8Array) {
      v = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("utf8");
    } else if (typeof v !== (t === "s" ? "string" : "number")) {
      throw new JournalError(`journal ${kind}.${name}: expected ${t === "s" ? "string" : "number"}`);
    }
    out[name] = v;
  }
  return out;
}

export function encodeNdjson(kind: RecordKind, seq: number, ts: number, src: object): string {
  return `${JSON.stringify(pick(kind, seq, ts, src))}\n`;
}

const HEAD = 4 + 4 + 1 + 8 + 8 + 2;
/** The smallest `len` a binary record can have (a head with no fields). */
export const MIN_RECORD_LEN = HEAD - 8;

/** The CRC of each kind's code byte alone: a record's CRC continues it over the bytes after the code. */
const CODE_CRC: readonly number[] = Array.from(CODE_KIND, (_, code) => crc32(Uint8Array.of(code), 0, 1));

/** Upper bound of the encoded size, so the writer can reserve room before encoding. */
export function binaryBound(kind: RecordKind, src: object): number {
  let n = HEAD;
  const s = src as Record<string, unknown>;
  for (const [name, t] of SCHEMA[kind]) {
    const v = s[name];
    if (v === undefined || v === null) continue;
    n +=
      t === "n"
        ? 8
        : t === "b" || v instanceof Uint8Array
          ? 4 + (v as Uint8Array).length
          : 4 + 3 * String(v).length;
  }
  return n;
}

/** SCHEMA as parallel arrays per kind code (no tuple destructuring per field on the hot path). */
const NAMES: (readonly string[])[] = [];
/** 0 number, 1 string, 2 bytes. */
const TYPES: (readonly number[])[] = [];
for (const k of Object.keys(KIND_CODE) as RecordKind[]) {
  NAMES[KIND_CODE[k]] = SCHEMA[k].map(([n]) => n);
  TYPES[KIND_CODE[k]] = SCHEMA[k].map(([, t]) => (t === "n" ? 0 : t === "s" ? 1 : 2));
}

/**
 * Encodes into `buf` at `off` in one pass; returns the new offset, or -1 when the record might not
 * fit in what is left of `buf` (nothing counts as written then: the writer moves to a buffer of
 * `binaryBound` bytes and encodes again).
 */
export function encodeBinary(
  buf: Buffer,
  off: number,
  kind: RecordKind,
  seq: number,
  ts: number,
  src: object,
): number {
  const s = src as Record<string, unknown>;
  const start = off;
  const cap = buf.length;
  if (off + HEAD > cap) return -1;
  const code = KIND_CODE[kind];
  putF64(buf, seq, off + 9);
  putF64(buf, ts, off + 17);
  let p = off + HEAD;
  let mask = 0;
  const names = NAMES[code]!;
  const types = TYPES[code]!;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    let v = s[name];
    if (v === undefined || v === null) continue;
    const t = types[i]!;
    if (t === 0) {
      if (typeof v !== "number") throw new JournalError(`journal ${kind}.${name}: expected number`);
      if (p + 8 > cap) return -1;
      putF64(buf, v, p);
      p += 8;
    } else if (v instanceof Uint8Array) {
      // A bytes field, or a string given as its UTF-8 bytes: copied as they are.
      if (p + 4 + v.length > cap) return -1;
      putU32(buf, v.length, p);
      buf.set(v, p + 4);
      p += 4 + v.length;
    } else if (t === 2) {
      throw new JournalError(`journal ${kind}.${name}: expected bytes`);
    } else {
      if (kind === "cmd" && typeof v === "number" && name === "session") v = String(v);
      if (typeof v !== "string") throw new JournalError(`journal ${kind}.${name}: expected string`);
      // At most 3 UTF-8 bytes per UTF-16 unit: checked before writing (Buffer#write truncates silently).
      if (p + 4 + 3 * v.length > cap) return -1;
      const n = writeUtf8(buf, v, p + 4);
      putU32(buf, n, p);
      p += 4 + n;
    }
    mask |= 1 << i;
  }
  putU16(buf, mask, start + HEAD - 2);
  putU32(buf, p - start - 8, start);
  putU32(buf, crc32(buf, start + 9, p, CODE_CRC[code]), start + 4);
  // The kind byte last, in one store: a record written straight into the file (the mapped window) is
  // whole once it is set, and a process killed before leaves the 0 that was there (scan.ts: a tail).
  buf[start + 8] = code;
  return p;
}

/**
 * UTF-8 bytes of `v` at `off`; returns their count. Short ASCII strings (nearly every journal field)
 * are copied by hand: Buffer#write's per-call cost dominates them. Same bytes either way.
 */
function writeUtf8(buf: Buffer, v: string, off: number): number {
  const n = v.length > 64 ? -1 : putAscii(buf, v, off);
  return n >= 0 ? n : buf.write(v, off, "utf8");
}

/** Why a binary record does not read: the file ends inside it, or its bytes are wrong. */
export type FrameFault = "incomplete" | "checksum" | "malformed";

/**
 * The end of the binary record at `off`, or why it does not read: decodeBinary's checks without
 * building the record (the start-up scan and `replay --check` walk whole files with it). Cheap tests
 * first, so a search for the next valid record after damage rarely computes a CRC.
 */
export function frameEnd(buf: Buffer, off: number): number | FrameFault {
  if (off + 8 > buf.length) return "incomplete";
  const len = buf.readUInt32LE(off);
  const end = off + 8 + len;
  if (len < HEAD - 8) return "malformed";
  if (end > buf.length) return "incomplete";
  const kind = CODE_KIND[buf[off + 8]!];
  if (kind === undefined) return "malformed";
  if (crc32(buf, off + 8, end) !== buf.readUInt32LE(off + 4)) return "checksum";
  const mask = buf.readUInt16LE(off + HEAD - 2);
  let p = off + HEAD;
  const fields = SCHEMA[kind];
  for (let i = 0; i < fields.length; i++) {
    if ((mask & (1 << i)) === 0) continue;
    if (fields[i]![1] === "n") p += 8;
    else {
      if (p + 4 > end) return "malformed";
      p += 4 + buf.readUInt32LE(p);
    }
    if (p > end) return "malformed";
  }
  return end;
}

export type DecodeOutcome = { rec: JournalRecord; next: number } | "torn" | "corrupt";

/** Decodes one binary record at `off`; "torn" when the file ends inside it, "corrupt" on a bad crc. */
export function decodeBinary(buf: Buffer, off: number): DecodeOutcome {
  if (off + 8 > buf.length) return "torn";
  const len = buf.readUInt32LE(off);
  const end = off + 8 + len;
  if (len < HEAD - 8 || end > buf.length) return "torn";
  if (crc32(buf, off + 8, end) !== buf.readUInt32LE(off + 4)) return "corrupt";
  const kind = CODE_KIND[buf[off + 8]!];
  if (kind === undefined) return "corrupt";
  const rec: Record<string, unknown> = {
    k: kind,
    seq: buf.readDoubleLE(off + 9),
    ts: buf.readDoubleLE(off + 17),
  };
  const mask = buf.readUInt16LE(off + HEAD - 2);
  let p = off + HEAD;
  const fields = SCHEMA[kind];
  for (let i = 0; i < fields.length; i++) {
    if ((mask & (1 << i)) === 0) continue;
    const [name, t] = fields[i]!;
    if (t === "n") {
      if (p + 8 > end) return "corrupt";
      rec[name] = buf.readDoubleLE(p);
      p += 8;
    } else {
      if (p + 4 > end) return "corrupt";
      const n = buf.readUInt32LE(p);
      if (p + 4 + n > end) return "corrupt";
      rec[name] = t === "b" ? buf.subarray(p + 4, p + 4 + n) : buf.toString("utf8", p + 4, p + 4 + n);
      p += 4 + n;
    }
  }
  return { rec: rec as unknown as JournalRecord, next: end };
}
