/**
 * The fast path's response reader: one HTTP/1.1 response on a socket with one request in flight.
 * Status line, the four headers the gateway reads (Content-Length, Transfer-Encoding, Connection,
 * Retry-After) and the body, framed by Content-Length, chunked, or the socket's end. The common case
 * (head and body in one read) slices the body out of that read without copying; a response spread over
 * several reads is copied out of the read buffer between them (`own`). Anything it cannot frame is
 * `MALFORMED`: the caller treats the outcome as unknown and drops the connection.
 */

export const NEED_MORE = 0;
export const DONE = 1;
export const MALFORMED = -1;

const CRLF = 0x0a0d; // "\r\n" read as a little-endian u16
/** Largest response head accepted (undici's default maxHeaderSize is 16 KiB). */
const MAX_HEAD = 16 * 1024;

const P_HEAD = 0;
const P_LENGTH = 1;
const P_CHUNKED = 2;
const P_UNTIL_CLOSE = 3;
const P_DONE = 4;

export class ResponseReader {
  status = 0;
  retryAfter: string | undefined = undefined;
  /** The response asked for the connection to be closed (or the body ends with the socket). */
  close = false;
  /** The head has been read (the headers timeout no longer applies, the body timeout does). */
  headed = false;
  private phase = P_HEAD;
  private pending: Buffer | undefined = undefined;
  private want = 0;
  private parts: Buffer[] | undefined = undefined;
  private single: Buffer | undefined = undefined;
  /** How many of the kept body pieces (`single`, then `parts`) are copies already (`own`). */
  private owned = 0;

  reset(): void {
    this.status = 0;
    this.retryAfter = undefined;
    this.close = false;
    this.headed = false;
    this.phase = P_HEAD;
    this.pending = undefined;
    this.want = 0;
    this.parts = undefined;
    this.single = undefined;
    this.owned = 0;
  }

  /**
   * Copies whatever the reader keeps of earlier reads into bytes of its own: the socket reads into one
   * buffer it reuses (`onread`), so a response spread over several reads must not point into it.
   */
  own(): void {
    if (this.pending !== undefined) this.pending = Buffer.from(this.pending);
    // Pieces copied at an earlier read are the reader's own already: only the newer ones are copied.
    const parts = this.parts;
    if (parts !== undefined) {
      for (let i = this.owned; i < parts.length; i++) parts[i] = Buffer.from(parts[i]!);
      this.owned = parts.length;
    } else if (this.single !== undefined && this.owned === 0) {
      this.single = Buffer.from(this.single);
      this.owned = 1;
    }
  }

  /** The complete body (after DONE). */
  body(): Buffer {
    if (this.parts !== undefined) return Buffer.concat(this.parts);
    return this.single ?? EMPTY;
  }

  /** Feeds one read. DONE when the response is complete, MALFORMED when it cannot be framed. */
  feed(d: Buffer): number {
    let b = d;
    if (this.pending !== undefined) {
      b = Buffer.concat([this.pending, d]);
      this.pending = undefined;
    }
    if (this.phase === P_HEAD) {
      const h = headEnd(b);
      if (h < 0) {
        if (b.length > MAX_HEAD) return MALFORMED;
        this.pending = b;
        return NEED_MORE;
      }
      if (!this.head(b, h)) return MALFORMED;
      this.headed = true;
      b = b.subarray(h + 4);
    }
    switch (this.phase) {
      case P_LENGTH:
        return this.byLength(b);
      case P_CHUNKED:
        return this.chunked(b);
      case P_UNTIL_CLOSE:
        if (b.length > 0) this.keep(b);
        return NEED_MORE;
      case P_DONE:
        return b.length === 0 ? DONE : MALFORMED;
      default:
        return MALFORMED;
    }
  }

  /** The socket ended: completes a body framed by the connection's end, else the read was short. */
  end(): number {
    if (this.phase === P_UNTIL_CLOSE) {
      this.phase = P_DONE;
      return DONE;
    }
    return MALFORMED;
  }

  private head(b: Buffer, h: number): boolean {
    // "HTTP/1.1 200 ..." (HTTP/1.0 answers are read alike; their connection closes after). Anything
    // else in the status line is not an answer this reader can trust: refused, the outcome unknown.
    if (h < 12 || !isStatusLine(b)) return false;
    const s = (b[9]! - 48) * 100 + (b[10]! - 48) * 10 + (b[11]! - 48);
    if (!(s >= 200 && s <= 599)) return false; // 1xx interim answers are not expected here
    this.status = s;
    if (b[7] === 0x30) this.close = true; // HTTP/1.0
    let length = -1;
    let chunked = false;
    let at = crlfAt(b, 0, h) + 2;
    while (at < h) {
      let eol = crlfAt(b, at, h);
      if (eol < 0) eol = h;
      const colon = byteAt(b, 0x3a, at, eol);
      if (colon > at) {
        const n = colon - at;
        const c0 = b[at]! | 0x20;
        if (n === 14 && c0 === 0x63 && eqLower(b, at, "content-length")) {
          const l = parseLength(b, colon + 1, eol);
          // Two lengths that disagree leave the answer's end unknown (RFC 9112 §6.3): refused.
          if (l < 0 || (length >= 0 && l !== length)) return false;
          length = l;
        } else if (n === 17 && c0 === 0x74 && eqLower(b, at, "transfer-encoding")) {
          chunked = headerValue(b, colon + 1, eol)
            .toLowerCase()
            .includes("chunked");
        } else if (n === 10 && c0 === 0x63 && eqLower(b, at, "connection")) {
          if (headerValue(b, colon + 1, eol).toLowerCase() === "close") this.close = true;
        } else if (n === 11 && c0 === 0x72 && eqLower(b, at, "retry-after")) {
          this.retryAfter ??= headerValue(b, colon + 1, eol);
        }
      }
      at = eol + 2;
    }
    if (s === 204 || s === 304) this.phase = P_DONE;
    else if (chunked) this.phase = P_CHUNKED;
    else if (length >= 0) {
      this.want = length;
      this.phase = length === 0 ? P_DONE : P_LENGTH;
    } else {
      this.phase = P_UNTIL_CLOSE;
      this.close = true;
    }
    return true;
  }

  private byLength(b: Buffer): number {
    if (b.length === 0) return NEED_MORE;
    if (b.length > this.want) return MALFORMED; // bytes beyond the answer: no request was behind it
    this.keep(b);
    this.want -= b.length;
    if (this.want > 0) return NEED_MORE;
    this.phase = P_DONE;
    return DONE;
  }

  private chunked(b: Buffer): number {
    let at = 0;
    for (;;) {
      if (this.want > 0) {
        const take = Math.min(this.want, b.length - at);
        if (take > 0) this.keep(b.subarray(at, at + take));
        at += take;
        this.want -= take;
        if (this.want > 0) return NEED_MORE;
        this.want = -2; // the CRLF after the chunk's data
      }
      if (this.want === -2) {
        if (b.length - at < 2) return this.later(b, at);
        if (b.readUInt16LE(at) !== CRLF) return MALFORMED;
        at += 2;
        this.want = 0;
      }
      const eol = b.indexOf(CRLF_BUF, at);
      if (eol < 0) return b.length - at > 64 ? MALFORMED : this.later(b, at);
      const size = Number.parseInt(b.toString("latin1", at, eol), 16);
      if (!Number.isFinite(size) || size < 0) return MALFORMED;
      at = eol + 2;
      if (size === 0) return this.trailers(b, at);
      this.want = size;
    }
  }

  /** After the last chunk: trailer lines up to an empty line. */
  private trailers(b: Buffer, at: number): number {
    let p = at;
    for (;;) {
      const eol = b.indexOf(CRLF_BUF, p);
      if (eol < 0) {
        // Keep the last-chunk marker so the trailer scan restarts on the next read.
        this.pending = Buffer.concat([ZERO_CHUNK, b.subarray(p)]);
        return NEED_MORE;
      }
      if (eol === p) {
        if (eol + 2 !== b.length) return MALFORMED;
        this.phase = P_DONE;
        return DONE;
      }
      p = eol + 2;
    }
  }

  private later(b: Buffer, at: number): number {
    this.pending = b.subarray(at);
    return NEED_MORE;
  }

  private keep(b: Buffer): void {
    if (this.single === undefined && this.parts === undefined) this.single = b;
    else {
      if (this.parts === undefined) {
        this.parts = [this.single!];
        this.single = undefined;
      }
      this.parts.push(b);
    }
  }
}

const EMPTY = Buffer.alloc(0);
const CRLF_BUF = Buffer.from("\r\n", "latin1");
const ZERO_CHUNK = Buffer.from("0\r\n", "latin1");

function eqLower(b: Buffer, at: number, name: string): boolean {
  for (let i = 1; i < name.length; i++) if ((b[at + i]! | 0x20) !== name.charCodeAt(i)) return false;
  return true;
}

function headerValue(b: Buffer, from: number, to: number): string {
  return b.toString("latin1", from, to).trim();
}

function parseLength(b: Buffer, from: number, to: number): number {
  let v = 0;
  let digits = 0;
  for (let i = from; i < to; i++) {
    const c = b[i]!;
    if (c === 0x20 || c === 0x09) continue;
    if (c < 0x30 || c > 0x39) return -1;
    v = v * 10 + (c - 0x30);
    digits++;
  }
  return digits === 0 ? -1 : v;
}

// The head is a few hundred bytes: plain loops over it cost less than Buffer#indexOf's calls.

/** "HTTP/1.0 " or "HTTP/1.1 ", three digits, then a space or the line's end. */
function isStatusLine(b: Buffer): boolean {
  if (b[0] !== 0x48 || b[1] !== 0x54 || b[2] !== 0x54 || b[3] !== 0x50 || b[4] !== 0x2f) return false;
  if (b[5] !== 0x31 || b[6] !== 0x2e || (b[7] !== 0x30 && b[7] !== 0x31) || b[8] !== 0x20) return false;
  for (let i = 9; i < 12; i++) if (b[i]! < 0x30 || b[i]! > 0x39) return false;
  return b[12] === 0x20 || b[12] === 0x0d;
}

/** Where the first CRLF CRLF starts in `b`, or -1. */
function headEnd(b: Buffer): number {
  for (let i = 3; i < b.length; i++) {
    if (b[i] === 0x0a && b[i - 1] === 0x0d && b[i - 2] === 0x0a && b[i - 3] === 0x0d) return i - 3;
  }
  return -1;
}

/** Where the first CRLF in [from, to] starts (it may end at to + 1), or -1. */
function crlfAt(b: Buffer, from: number, to: number): number {
  for (let i = from; i <= to; i++) if (b[i] === 0x0d && b[i + 1] === 0x0a) return i;
  return -1;
}

/** The first `byte` in [from, to), or -1. */
function byteAt(b: Buffer, byte: number, from: number, to: number): number {
  for (let i = from; i < to; i++) if (b[i] === byte) return i;
  return -1;
}
