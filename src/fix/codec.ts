/**
 * The FIX 4.4 tag=value codec for the gateway's subset: framing (BeginString, BodyLength, CheckSum
 * verified), a field index into the received bytes (typed arrays reused per message, no object per
 * field) and an encoder that writes header, body, length and checksum into one reused buffer.
 */

export const SOH = 0x01;
const EQ = 0x3d;
const BEGIN = "8=FIX.4.4\x01";
const BEGIN_BYTES = Buffer.from(BEGIN, "latin1");
/** Fields a message may carry; more is a protocol error (the subset never needs them). */
const MAX_FIELDS = 256;
/** A message larger than this is refused (the subset's largest is well under 2 KiB). */
export const MAX_MESSAGE = 8192;

/** Why a frame could not be read (the text goes into Reject(3) 58). */
export type FrameError =
  | "bad BeginString"
  | "bad BodyLength"
  | "bad CheckSum"
  | "message too large"
  | "garbled field"
  | "too many fields";

/**
 * One parsed message: tags and value bounds indexed into `buf`. Valid until the next `read`; values
 * are read on demand (`int`, `str`, `is`), so a NewOrderSingle costs no allocation but its strings.
 */
export class FixMessage {
  buf: Buffer = Buffer.alloc(0);
  /** Start and end (exclusive) of the whole message in `buf`. */
  start = 0;
  end = 0;
  count = 0;
  readonly tags = new Int32Array(MAX_FIELDS);
  readonly vs = new Int32Array(MAX_FIELDS);
  readonly ve = new Int32Array(MAX_FIELDS);
  /** MsgType(35) as a string ("D", "AE"...). */
  type = "";
  /** MsgSeqNum(34), 0 when absent or not a number. */
  seq = 0;

  /** Index of the first occurrence of `tag`, or -1. */
  find(tag: number): number {
    const t = this.tags;
    for (let i = 0; i < this.count; i++) if (t[i] === tag) return i;
    return -1;
  }
  has(tag: number): boolean {
    return this.find(tag) >= 0;
  }
  /** Value as latin1 text, or undefined when absent. */
  str(tag: number): string | undefined {
    const i = this.find(tag);
    return i < 0 ? undefined : this.buf.toString("latin1", this.vs[i]!, this.ve[i]!);
  }
  /** Non-negative integer value; -1 when absent, -2 when not a plain integer. */
  int(tag: number): number {
    const i = this.find(tag);
    return i < 0 ? -1 : parseUint(this.buf, this.vs[i]!, this.ve[i]!);
  }
  /** True when the value is exactly the single character `c`. */
  is(tag: number, c: string): boolean {
    const i = this.find(tag);
    return i >= 0 && this.ve[i]! - this.vs[i]! === 1 && this.buf[this.vs[i]!] === c.charCodeAt(0);
  }
  /** The raw message bytes (a view). */
  bytes(): Buffer {
    return this.buf.subarray(this.start, this.end);
  }
}

/** One-character MsgTypes as interned strings (no allocation per message). */
const TYPE1: string[] = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i));

/** Digits only, at most 15 of them; -2 otherwise. */
export function parseUint(b: Buffer, s: number, e: number): number {
  if (e <= s || e - s > 15) return -2;
  let v = 0;
  for (let i = s; i < e; i++) {
    const c = b[i]! - 48;
    if (c < 0 || c > 9) return -2;
    v = v * 10 + c;
  }
  return v;
}

/** Result of `readFrame`: bytes used (> 0), 0 = need more bytes, < 0 = an error (see `lastError`). */
export interface FrameResult {
  /** Bytes consumed from `off` (a bad frame is consumed up to its end or the next BeginString). */
  used: number;
  error: FrameError | undefined;
}

/**
 * Reads one message at `off` of `buf` into `m`. Returns bytes used (0: incomplete). On an error the
 * bytes of the bad frame are consumed (as far as they can be told) and `res.error` is set.
 */
export function readFrame(buf: Buffer, off: number, len: number, m: FixMessage, res: FrameResult): number {
  res.error = undefined;
  const avail = len - off;
  if (avail < 16) return 0;
  for (let i = 0; i < 10; i++) {
    if (buf[off + i] !== BEGIN_BYTES[i]) return skip(buf, off, len, res, "bad BeginString");
  }
  // 9=<len>SOH
  let p = off + 10;
  if (buf[p] !== 0x39 || buf[p + 1] !== EQ) return skip(buf, off, len, res, "bad BodyLength");
  p += 2;
  let bodyLen = 0;
  const lenStart = p;
  while (p < len && buf[p] !== SOH) {
    const c = buf[p]! - 48;
    if (c < 0 || c > 9 || p - lenStart > 5) return skip(buf, off, len, res, "bad BodyLength");
    bodyLen = bodyLen * 10 + c;
    p++;
  }
  if (p >= len) return 0;
  if (p === lenStart) return skip(buf, off, len, res, "bad BodyLength");
  const bodyStart = p + 1;
  const bodyEnd = bodyStart + bodyLen; // index of "1" of "10="
  if (bodyEnd + 7 - off > MAX_MESSAGE) return skip(buf, off, len, res, "message too large");
  if (bodyEnd + 7 > len) return 0;
  if (
    buf[bodyEnd] !== 0x31 ||
    buf[bodyEnd + 1] !== 0x30 ||
    buf[bodyEnd + 2] !== EQ ||
    buf[bodyEnd + 6] !== SOH ||
    buf[bodyEnd - 1] !== SOH
  ) {
    return skip(buf, off, len, res, "bad BodyLength");
  }
  // One pass: the field index and the checksum together (the header's bytes summed first).
  let sum = 0;
  for (let i = off; i < bodyStart; i++) sum += buf[i]!;
  m.buf = buf;
  m.start = off;
  m.end = bodyEnd + 7;
  m.type = "";
  m.seq = 0;
  let n = 0;
  let garbled = false;
  p = bodyStart;
  while (p < bodyEnd) {
    let tag = 0;
    const ts = p;
    let c = buf[p]!;
    while (c >= 48 && c <= 57) {
      tag = tag * 10 + c - 48;
      sum += c;
      c = buf[++p]!;
    }
    if (p === ts || c !== EQ || p - ts > 6 || n >= MAX_FIELDS) {
      garbled = true;
      break;
    }
    sum += EQ;
    const vs = ++p;
    c = buf[p]!;
    while (c !== SOH) {
      sum += c;
      c = buf[++p]!;
    }
    sum += SOH;
    m.tags[n] = tag;
    m.vs[n] = vs;
    m.ve[n] = p;
    n++;
    if (tag === 35 && m.type === "") m.type = p - vs === 1 ? TYPE1[buf[vs]!]! : buf.toString("latin1", vs, p);
    else if (tag === 34 && m.seq === 0) m.seq = Math.max(0, parseUint(buf, vs, p));
    p++;
  }
  m.count = n;
  if (garbled) {
    for (let i = p; i < bodyEnd; i++) sum += buf[i]!;
  }
  if (parseUint(buf, bodyEnd + 3, bodyEnd + 6) !== (sum & 0xff)) {
    res.error = "bad CheckSum";
    return bodyEnd + 7 - off;
  }
  if (garbled) res.error = n >= MAX_FIELDS ? "too many fields" : "garbled field";
  m.count = n;
  return m.end - off;
}

/** A bad frame: drop bytes up to the next BeginString (or all we have). */
function skip(buf: Buffer, off: number, len: number, res: FrameResult, why: FrameError): number {
  res.error = why;
  const next = buf.subarray(off + 1, len).indexOf(BEGIN_BYTES);
  return next < 0 ? len - off : next + 1;
}

// ---- time ----

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);
let cachedSec = -1;
let cachedPrefix = "";

/** UTCTimestamp with milliseconds: YYYYMMDD-HH:MM:SS.sss (the seconds part cached per second). */
export function fixTime(ms: number): string {
  const sec = Math.floor(ms / 1000);
  if (sec !== cachedSec) {
    const d = new Date(sec * 1000);
    cachedPrefix = `${d.getUTCFullYear()}${pad2(d.getUTCMonth() + 1)}${pad2(d.getUTCDate())}-${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}.`;
    cachedSec = sec;
  }
  return cachedPrefix + pad3(ms - sec * 1000);
}

const TS_RE = /^(\d{4})(\d{2})(\d{2})-(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/;
/** UTCTimestamp → epoch ms; NaN when malformed. */
export function parseFixTime(s: string): number {
  const m = TS_RE.exec(s);
  if (m === null) return Number.NaN;
  const frac = m[7] === undefined ? 0 : Number(m[7].padEnd(3, "0").slice(0, 3));
  const t = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, frac);
  return +m[2]! >= 1 && +m[2]! <= 12 && +m[4]! < 24 && +m[5]! < 60 && +m[6]! < 61 ? t : Number.NaN;
}

// ---- encoding ----

/** "tag=" as bytes, per tag (built once). */
const PREFIXES: (Uint8Array | undefined)[] = [];
function tagPrefix(tag: number): Uint8Array {
  let p = PREFIXES[tag];
  if (p === undefined) {
    p = Buffer.from(`${tag}=`, "latin1");
    if (tag < 100_000) PREFIXES[tag] = p;
  }
  return p;
}

/**
 * Builds one outbound message: `begin(type)`, the fields, `finish(seq, ...)`. The body is written into
 * a reused scratch buffer; `finish` returns a fresh Buffer of the whole message (it is stored and sent).
 */
export class FixEncoder {
  private body = Buffer.allocUnsafe(4096);
  private n = 0;
  /** Byte sum of the body so far (the checksum's share of it). */
  private sum = 0;

  /** Starts a message after the standard header fields that `finish` writes. */
  begin(): this {
    this.n = 0;
    this.sum = 0;
    return this;
  }
  /** tag=value (value written as latin1; callers keep SOH out of values). */
  f(tag: number, value: string | number): this {
    const v = typeof value === "number" ? String(value) : value;
    const pre = tagPrefix(tag);
    let need = this.n + pre.length + v.length + 1;
    if (need > this.body.length) {
      while (need > this.body.length) need *= 2;
      const nb = Buffer.allocUnsafe(need);
      this.body.copy(nb, 0, 0, this.n);
      this.body = nb;
    }
    // Byte by byte: for values this short a JS loop is cheaper than a native Buffer.write.
    const b = this.body;
    let n = this.n;
    let sum = this.sum + SOH;
    for (let i = 0; i < pre.length; i++) {
      const c = pre[i]!;
      b[n++] = c;
      sum += c;
    }
    for (let i = 0; i < v.length; i++) {
      const c = v.charCodeAt(i) & 0xff;
      b[n++] = c;
      sum += c;
    }
    b[n++] = SOH;
    this.n = n;
    this.sum = sum;
    return this;
  }
  /** The body written so far (a view, valid until the next `begin`). */
  bodyView(): Buffer {
    return this.body.subarray(0, this.n);
  }
  /** Appends raw body bytes (fields already encoded). */
  raw(b: Buffer): this {
    const need = this.n + b.length;
    if (need > this.body.length) {
      const nb = Buffer.allocUnsafe(need * 2);
      this.body.copy(nb, 0, 0, this.n);
      this.body = nb;
    }
    this.n += b.copy(this.body, this.n);
    for (let i = 0; i < b.length; i++) this.sum += b[i]!;
    return this;
  }
  /** Adds the field only when the value is not empty/undefined. */
  opt(tag: number, value: string | number | undefined): this {
    if (value === undefined || value === "") return this;
    return this.f(tag, value);
  }

  /**
   * Writes 8, 9, 35, 49, 56, 34, 52 (and 43/122 for a PossDup resend) before the body, then 10.
   * `hdr` is the header text after 35 (see `headerOf`), so the per-message part is only 34 and 52.
   */
  finish(type: string, hdr: string, seq: number, sendingTime: string, possDupOrig?: string): Buffer {
    let head = `35=${type}\x01${hdr}34=${seq}\x01`;
    if (possDupOrig !== undefined) head += `43=Y\x0152=${sendingTime}\x01122=${possDupOrig}\x01`;
    else head += `52=${sendingTime}\x01`;
    const bodyLen = head.length + this.n;
    const pre = `${BEGIN}9=${bodyLen}\x01`;
    const total = pre.length + bodyLen + 7;
    const out = Buffer.allocUnsafe(total);
    let p = out.write(pre, 0, "latin1");
    p += out.write(head, p, "latin1");
    let sum = this.sum;
    for (let i = 0; i < p; i++) sum += out[i]!;
    this.body.copy(out, p, 0, this.n);
    p += this.n;
    sum &= 0xff;
    out[p++] = 0x31;
    out[p++] = 0x30;
    out[p++] = EQ;
    out[p++] = 48 + Math.floor(sum / 100);
    out[p++] = 48 + (Math.floor(sum / 10) % 10);
    out[p++] = 48 + (sum % 10);
    out[p++] = SOH;
    return out;
  }
}

/** The fixed header part after 35: SenderCompID and TargetCompID. */
export function headerOf(sender: string, target: string): string {
  return `49=${sender}\x0156=${target}\x01`;
}

/**
 * A stored message re-sent: PossDupFlag(43)=Y, OrigSendingTime(122) = its SendingTime, a new
 * SendingTime; every other field byte for byte as first sent (length and checksum recomputed).
 */
export function asPossDup(orig: Buffer, sendingTime: string): Buffer {
  // Find 52=... in the header (after 34).
  const s52 = orig.indexOf("\x0152=", 0, "latin1");
  if (s52 < 0) return orig;
  const vStart = s52 + 4;
  const vEnd = orig.indexOf(SOH, vStart);
  const origTime = orig.toString("latin1", vStart, vEnd);
  const headStart = orig.indexOf("\x0135=", 0, "latin1") + 1;
  const bodyEnd = orig.length - 7;
  const ins = `43=Y\x0152=${sendingTime}\x01122=${origTime}\x01`;
  const bodyLen = s52 + 1 - headStart + ins.length + (bodyEnd - (vEnd + 1));
  const pre = `${BEGIN}9=${bodyLen}\x01`;
  const out = Buffer.allocUnsafe(pre.length + bodyLen + 7);
  let p = out.write(pre, 0, "latin1");
  p += orig.copy(out, p, headStart, s52 + 1);
  p += out.write(ins, p, "latin1");
  p += orig.copy(out, p, vEnd + 1, bodyEnd);
  let sum = 0;
  for (let i = 0; i < p; i++) sum += out[i]!;
  sum &= 0xff;
  out.write(`10=${pad3(sum)}\x01`, p, "latin1");
  return out;
}

/** Text for a FIX value: no SOH or line breaks (the store is line-oriented). */
export function clean(s: string): string {
  return s.replace(/[\x00-\x1f]/g, " ");
}
