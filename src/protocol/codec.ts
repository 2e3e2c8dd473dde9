/**
 * Table-driven encoder/decoder for the binary protocol (layouts in schema.ts, spec in PROTOCOL.md).
 * Encoders write into one preallocated buffer per message type and return it (or a view of it for
 * the variable-length InstrumentsResponse): the bytes are valid until the next encode of that type,
 * so callers that keep them (the replay ring, the `ws` transport) copy. Decoders return fresh objects.
 */

import { putAscii, putI8, putI32, putU8, putU16, putU32 } from "../util/bytes.js";
import {
  type Body,
  C2G_HEADER,
  type C2GName,
  type CodeName,
  FIELD_ENUMS,
  type FieldDef,
  type FieldKind,
  G2C_HEADER,
  type G2CName,
  INSTRUMENTS_PER_FRAME,
  kindSize,
  MAX_C2G_FRAME,
  MESSAGES,
  type MessageDef,
  type MessageName,
  PROTOCOL_VERSION,
} from "./schema.js";

const K_U8 = 0;
const K_I8 = 1;
const K_U16 = 2;
const K_U32 = 3;
const K_U64 = 4;
const K_I64 = 5;
const K_CHAR = 6;
const TWO32 = 4294967296;
/** Largest high word of a u64 whose value stays below 2^53. */
const MAX_HI = 0x1fffff;

interface Op {
  readonly name: string;
  readonly k: number;
  readonly off: number;
  readonly size: number;
  readonly allowed: ReadonlySet<number> | undefined;
}

export interface CompiledMessage {
  readonly def: MessageDef;
  readonly headerSize: number;
  /** Size of header + fixed fields (the whole frame for every message without items). */
  readonly fixedSize: number;
  readonly ops: readonly Op[];
  readonly itemOps: readonly Op[] | undefined;
  readonly itemSize: number;
  /** Largest frame of this type. */
  readonly maxSize: number;
  /** The frame's size without its `addedFields` (an older client's); equals fixedSize when none. */
  readonly olderSize: number;
  /** The fields read from `base` on: a fresh body, or the name of the first out-of-range field. */
  readonly read: FieldReader;
  /** The fields of `body` written from `base` on. */
  readonly write: FieldWriter;
  /** The same for one item of the list (InstrumentsResponse). */
  readonly readItem: FieldReader | undefined;
  readonly writeItem: FieldWriter | undefined;
}

type FieldReader = (b: Buffer, base: number) => Record<string, unknown> | string;
type FieldWriter = (b: Buffer, base: number, body: Record<string, unknown>) => void;

function kindCode(kind: FieldKind): number {
  switch (kind) {
    case "u8":
      return K_U8;
    case "i8":
      return K_I8;
    case "u16":
      return K_U16;
    case "u32":
      return K_U32;
    case "u64":
      return K_U64;
    case "i64":
      return K_I64;
    default:
      return K_CHAR;
  }
}

function compileFields(msgName: string, fields: readonly FieldDef[], start: number): [Op[], number] {
  const ops: Op[] = [];
  let off = start;
  for (const [name, kind] of fields) {
    const size = kindSize(kind);
    const en = FIELD_ENUMS[`${msgName}.${name}`];
    ops.push({ name, k: kindCode(kind), off, size, allowed: en ? new Set(Object.values(en)) : undefined });
    off += size;
  }
  return [ops, off];
}

// ---- field codecs: the ops read in a loop (where code cannot be generated) ----

/**
 * The writer of each fixed-size integer kind, by kind code (K_U8 … K_U32): the loop calls them, the
 * generated writers name them.
 */
const PUT_BY_KIND = [putU8, putI8, putU16, putU32] as const;

function writeOps(b: Buffer, ops: readonly Op[], base: number, body: Record<string, unknown>): void {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    const off = base + op.off;
    const v = body[op.name];
    if (op.k <= K_U32) PUT_BY_KIND[op.k]!(b, (v as number) ?? 0, off);
    else if (op.k === K_U64 || op.k === K_I64) writeInt53(b, off, (v as number) ?? 0, op.k === K_I64);
    else writeChar(b, off, op.size, v as string | undefined);
  }
}

/** Reads fields into `out`; returns the name of the first out-of-range field, or undefined. */
function readOps(
  b: Buffer,
  ops: readonly Op[],
  base: number,
  out: Record<string, unknown>,
): string | undefined {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    const off = base + op.off;
    let v: number | string | undefined;
    switch (op.k) {
      case K_U8:
        v = b[off]!;
        break;
      case K_I8:
        v = b.readInt8(off);
        break;
      case K_U16:
        v = b.readUInt16LE(off);
        break;
      case K_U32:
        v = b.readUInt32LE(off);
        break;
      case K_U64:
        v = readU53(b, off);
        if (v < 0) return op.name;
        break;
      case K_I64:
        v = readI53(b, off);
        if (v === undefined) return op.name;
        break;
      default:
        v = readChar(b, off, op.size);
    }
    if (op.allowed && !op.allowed.has(v as number)) return op.name;
    out[op.name] = v;
  }
  return undefined;
}

// ---- field codecs generated from the ops ----
//
// The table above is the layout; from it each message gets one straight-line reader and writer, made
// once at load: the body read as one object literal (every field in place, one shape per message)
// and every field written at its constant offset, instead of a loop over the ops with a keyed read or
// write per field. Same bytes, same checks and errors as the ops say (test/protocol checks both
// against the spec's golden frames).

const q = (name: string) => JSON.stringify(name);
/** Where profiles and stack traces place the generated code: beside this module, by message. */
const GENERATED_AT = new URL("./generated/", import.meta.url).href;
const ident = (label: string) => label.replace(/\W/g, "_");

function readExpr(op: Op, at: string): string {
  switch (op.k) {
    case K_U8:
      return `b[${at}]`;
    case K_I8:
      return `((b[${at}] << 24) >> 24)`;
    case K_U16:
      return `(b[${at}] | (b[${at} + 1] << 8))`;
    case K_U32:
      return `((b[${at}] | (b[${at} + 1] << 8) | (b[${at} + 2] << 16)) + b[${at} + 3] * 16777216)`;
    case K_U64:
      return `readU53(b, ${at})`;
    case K_I64:
      return `readI53(b, ${at})`;
    default:
      return `readChar(b, ${at}, ${op.size})`;
  }
}

function genReader(ops: readonly Op[], label: string): FieldReader {
  let src = "";
  ops.forEach((op, i) => {
    const at = `base + ${op.off}`;
    src += `const v${i} = ${readExpr(op, at)};\n`;
    if (op.k === K_U64) src += `if (v${i} < 0) return ${q(op.name)};\n`;
    if (op.k === K_I64) src += `if (v${i} === undefined) return ${q(op.name)};\n`;
    if (op.allowed) {
      const test = [...op.allowed].map((a) => `v${i} !== ${a}`).join(" && ");
      src += `if (${test}) return ${q(op.name)};\n`;
    }
  });
  src += `return { ${ops.map((op, i) => `${q(op.name)}: v${i}`).join(", ")} };`;
  return new Function(
    "readU53",
    "readI53",
    "readChar",
    `return function read_${ident(label)}(b, base) {\n${src}\n};\n//# sourceURL=${GENERATED_AT}${label}.read.js`,
  )(readU53, readI53, readChar) as FieldReader;
}

function genWriter(ops: readonly Op[], label: string): FieldWriter {
  let src = "";
  for (const op of ops) {
    const at = `base + ${op.off}`;
    const v = `body[${q(op.name)}]`;
    if (op.k <= K_U32) src += `${PUT_BY_KIND[op.k]!.name}(b, ${v} ?? 0, ${at});\n`;
    else if (op.k === K_U64 || op.k === K_I64) src += `writeInt53(b, ${at}, ${v} ?? 0, ${op.k === K_I64});\n`;
    else src += `writeChar(b, ${at}, ${op.size}, ${v});\n`;
  }
  return new Function(
    ...PUT_BY_KIND.map((f) => f.name),
    "writeInt53",
    "writeChar",
    `return function write_${ident(label)}(b, base, body) {\n${src}};\n//# sourceURL=${GENERATED_AT}${label}.write.js`,
  )(...PUT_BY_KIND, writeInt53, writeChar) as FieldWriter;
}

/**
 * A process started with `--disallow-code-generation-from-strings` cannot make the generated codecs:
 * it reads and writes through the loops over the ops instead (same bytes, slower).
 */
const CAN_GENERATE = (() => {
  try {
    return new Function("return true")() === true;
  } catch {
    return false;
  }
})();

function reader(ops: readonly Op[], label: string): FieldReader {
  if (CAN_GENERATE) return genReader(ops, label);
  return (b, base) => {
    const out: Record<string, unknown> = {};
    return readOps(b, ops, base, out) ?? out;
  };
}

function writer(ops: readonly Op[], label: string): FieldWriter {
  if (CAN_GENERATE) return genWriter(ops, label);
  return (b, base, body) => writeOps(b, ops, base, body);
}

function compile(def: MessageDef): CompiledMessage {
  const headerSize = def.dir === "c2g" ? C2G_HEADER : G2C_HEADER;
  const [ops, fixedSize] = compileFields(def.name, def.fields, headerSize);
  let itemOps: Op[] | undefined;
  let itemSize = 0;
  if (def.items) [itemOps, itemSize] = compileFields(`${def.name}.${def.items.name}`, def.items.fields, 0);
  let olderSize = fixedSize;
  for (const [, kind] of def.fields.slice(def.fields.length - (def.addedFields ?? 0)))
    olderSize -= kindSize(kind);
  return {
    def,
    headerSize,
    fixedSize,
    ops,
    itemOps,
    itemSize,
    maxSize: fixedSize + itemSize * (def.items ? INSTRUMENTS_PER_FRAME : 0),
    olderSize,
    read: reader(ops, def.name),
    write: writer(ops, def.name),
    readItem: itemOps && reader(itemOps, `${def.name}.${def.items!.name}`),
    writeItem: itemOps && writer(itemOps, `${def.name}.${def.items!.name}`),
  };
}

export const COMPILED: Readonly<Record<MessageName, CompiledMessage>> = Object.fromEntries(
  MESSAGES.map((m) => [m.name, compile(m)]),
) as Record<MessageName, CompiledMessage>;

const C2G_BY_TYPE: (CompiledMessage | undefined)[] = [];
const G2C_BY_TYPE: (CompiledMessage | undefined)[] = [];
for (const m of MESSAGES) (m.dir === "c2g" ? C2G_BY_TYPE : G2C_BY_TYPE)[m.type] = COMPILED[m.name];

export function g2cByType(type: number): CompiledMessage | undefined {
  return G2C_BY_TYPE[type];
}

// ---- primitive writers/readers (little-endian) ----

/** Writes a u64/i64 whose value is an integer within ±(2^53-1); throws otherwise. */
export function writeInt53(b: Buffer, off: number, v: number, signed: boolean): void {
  if (!Number.isSafeInteger(v) || (!signed && v < 0))
    throw new RangeError(`not a ${signed ? "i" : "u"}53: ${v}`);
  const hi = Math.floor(v / TWO32);
  putU32(b, v - hi * TWO32, off);
  if (signed) putI32(b, hi, off + 4);
  else putU32(b, hi, off + 4);
}

/** Reads a u64 as a number; returns -1 when the value does not fit in 53 bits. */
export function readU53(b: Uint8Array, off: number): number {
  const lo = (b[off]! | (b[off + 1]! << 8) | (b[off + 2]! << 16)) + b[off + 3]! * 0x1000000;
  const hi = (b[off + 4]! | (b[off + 5]! << 8) | (b[off + 6]! << 16)) + b[off + 7]! * 0x1000000;
  return hi > MAX_HI ? -1 : hi * TWO32 + lo;
}

function readI53(b: Buffer, off: number): number | undefined {
  const hi = b.readInt32LE(off + 4);
  if (hi > MAX_HI || hi < -MAX_HI - 1) return undefined;
  const v = hi * TWO32 + b.readUInt32LE(off);
  return Number.isSafeInteger(v) ? v : undefined;
}

function writeChar(b: Buffer, off: number, size: number, s: string | undefined): void {
  const n = s ? writeCharText(b, off, size, s) : 0;
  for (let i = off + n; i < off + size; i++) b[i] = 0;
}

/**
 * A short ASCII text copied by hand (Buffer#write's call costs more than the copy); anything else
 * through Buffer#write (which also refuses what is not a string, as before).
 */
function writeCharText(b: Buffer, off: number, size: number, s: string): number {
  const n = typeof s !== "string" || s.length > size ? -1 : putAscii(b, s, off);
  return n >= 0 ? n : b.write(s, off, size, "utf8");
}

function readChar(b: Buffer, off: number, size: number): string {
  let end = off;
  const lim = off + size;
  while (end < lim && b[end] !== 0) end++;
  return end === off ? "" : b.toString("utf8", off, end);
}

// ---- encoding ----

const encodeBufs = new Map<MessageName, Buffer>();
function bufFor(cm: CompiledMessage): Buffer {
  let b = encodeBufs.get(cm.def.name as MessageName);
  if (!b) {
    b = Buffer.alloc(cm.maxSize);
    b.writeUInt8(PROTOCOL_VERSION, 0);
    b.writeUInt8(cm.def.type, 1);
    encodeBufs.set(cm.def.name as MessageName, b);
  }
  return b;
}

/** Gateway → client header values. Timestamps are CLOCK_MONOTONIC ns (see clock.ts). */
export interface G2CHeader {
  sessionId: number;
  seq: number;
  recvNs: number;
  sendNs: number;
}

/** Encodes a client → gateway message into the type's reusable buffer. */
export function encodeC2G<N extends C2GName>(name: N, body: Body<N>): Buffer {
  const cm = COMPILED[name];
  const b = bufFor(cm);
  putU16(b, cm.fixedSize, 2);
  putU32(b, 0, 4);
  cm.write(b, 0, body as unknown as Record<string, unknown>);
  return b;
}

/** Encodes a gateway → client message into the type's reusable buffer (view for InstrumentsResponse). */
export function encodeG2C<N extends G2CName>(name: N, h: G2CHeader, body: Body<N>): Buffer {
  const cm = COMPILED[name];
  const b = bufFor(cm);
  let len = cm.fixedSize;
  const rec = body as unknown as Record<string, unknown>;
  if (cm.itemOps) {
    const items = (rec[cm.def.items!.name] as Record<string, unknown>[]) ?? [];
    if (items.length > INSTRUMENTS_PER_FRAME) throw new RangeError("too many items for one frame");
    rec[cm.def.items!.count] = items.length;
    for (let i = 0; i < items.length; i++) cm.writeItem!(b, len + i * cm.itemSize, items[i]!);
    len += items.length * cm.itemSize;
  }
  putU16(b, len, 2);
  putU32(b, h.sessionId, 4);
  writeInt53(b, 8, h.seq, false);
  writeInt53(b, 16, h.recvNs, false);
  writeInt53(b, 24, h.sendNs, false);
  cm.write(b, 0, rec);
  return len === b.length ? b : b.subarray(0, len);
}

/** Rewrites sendNs in an already-encoded gateway → client frame (used just before sending). */
export function patchSendNs(frame: Buffer, sendNs: number): void {
  writeInt53(frame, 24, sendNs, false);
}

// ---- decoding ----

export type C2GMessage = { [N in C2GName]: { name: N; type: number; body: Body<N> } }[C2GName];
export interface DecodeFailure {
  name: undefined;
  error: CodeName;
  /** Message type byte when it could be read (0 otherwise). */
  type: number;
  field?: string;
}

function asBuffer(frame: Uint8Array | ArrayBuffer): Buffer {
  if (frame instanceof ArrayBuffer) return Buffer.from(frame);
  return Buffer.isBuffer(frame) ? frame : Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
}

function fail(error: CodeName, type: number, field?: string): DecodeFailure {
  return field === undefined ? { name: undefined, error, type } : { name: undefined, error, type, field };
}

/** Decodes and validates one client → gateway frame. Never throws on bad input. */
export function decodeC2G(frame: Uint8Array | ArrayBuffer): C2GMessage | DecodeFailure {
  let b = asBuffer(frame);
  const n = b.length;
  if (n > MAX_C2G_FRAME) return fail("Oversized", n >= 2 ? b[1]! : 0);
  if (n < C2G_HEADER) return fail("Malformed", n >= 2 ? b[1]! : 0);
  const type = b[1]!;
  if (b[0] !== PROTOCOL_VERSION) return fail("UnsupportedVersion", type);
  const cm = C2G_BY_TYPE[type];
  if (!cm) return fail("UnknownType", type);
  if (b.readUInt16LE(2) !== n) return fail("BadLength", type);
  if (n !== cm.fixedSize) {
    if (n !== cm.olderSize) return fail("Malformed", type);
    // An older client's frame, without the fields added since: they read as 0.
    const whole = Buffer.alloc(cm.fixedSize);
    b.copy(whole);
    b = whole;
  }
  const body = cm.read(b, 0);
  if (typeof body === "string") return fail("BadField", type, body);
  return { name: cm.def.name, type, body } as C2GMessage;
}

export type G2CMessage = {
  [N in G2CName]: { name: N; type: number; header: G2CHeader; body: Body<N> };
}[G2CName];

/** Decodes one gateway → client frame (the client side). */
export function decodeG2C(frame: Uint8Array | ArrayBuffer): G2CMessage | DecodeFailure {
  const b = asBuffer(frame);
  const n = b.length;
  if (n < G2C_HEADER) return fail("Malformed", n >= 2 ? b[1]! : 0);
  const type = b[1]!;
  if (b[0] !== PROTOCOL_VERSION) return fail("UnsupportedVersion", type);
  const cm = G2C_BY_TYPE[type];
  if (!cm) return fail("UnknownType", type);
  if (b.readUInt16LE(2) !== n) return fail("BadLength", type);
  if (n < cm.fixedSize) return fail("Malformed", type);
  const header: G2CHeader = {
    sessionId: b.readUInt32LE(4),
    seq: readU53(b, 8),
    recvNs: readU53(b, 16),
    sendNs: readU53(b, 24),
  };
  const body = cm.read(b, 0);
  if (typeof body === "string") return fail("BadField", type, body);
  if (cm.readItem) {
    const count = body[cm.def.items!.count] as number;
    if (n !== cm.fixedSize + count * cm.itemSize) return fail("Malformed", type);
    const items: Record<string, unknown>[] = [];
    for (let i = 0; i < count; i++) {
      const it = cm.readItem(b, cm.fixedSize + i * cm.itemSize);
      if (typeof it === "string") return fail("BadField", type, `${cm.def.items!.name}.${it}`);
      items.push(it);
    }
    body[cm.def.items!.name] = items;
  } else if (n !== cm.fixedSize) return fail("Malformed", type);
  return { name: cm.def.name, type, header, body } as G2CMessage;
}

/** Reads the seq of an encoded gateway → client frame without decoding it. */
export function frameSeq(frame: Uint8Array): number {
  return readU53(frame, 8);
}
