/**
 * Little-endian stores into a byte array for the order path's encoders (the protocol codec, the
 * journal's records, the fast path's requests). The same bytes and the same RangeError as Buffer's
 * writeUInt32LE and friends, without their layers of validators: each of those calls runs five or six
 * JavaScript functions in Node, and an order's frames and records made ~50 of them (V8's call counts
 * in the e2e bench). Offsets are the caller's to keep in bounds (the encoders size their buffers
 * first); a store past the end is dropped by the typed array, never written elsewhere.
 */

const F64 = new Float64Array(1);
const F64_BYTES = new Uint8Array(F64.buffer);

/** Buffer's out-of-range error, same class, code and wording. */
function outOfRange(min: number, max: number, v: number): RangeError {
  const e = new RangeError(
    `The value of "value" is out of range. It must be >= ${min} and <= ${max}. Received ${v}`,
  );
  (e as RangeError & { code: string }).code = "ERR_OUT_OF_RANGE";
  return e;
}

export function putU8(b: Uint8Array, v: number, off: number): void {
  if (v > 0xff || v < 0) throw outOfRange(0, 0xff, v);
  b[off] = v;
}

export function putI8(b: Uint8Array, v: number, off: number): void {
  if (v > 0x7f || v < -0x80) throw outOfRange(-0x80, 0x7f, v);
  b[off] = v;
}

export function putU16(b: Uint8Array, v: number, off: number): void {
  if (v > 0xffff || v < 0) throw outOfRange(0, 0xffff, v);
  b[off] = v;
  b[off + 1] = v >>> 8;
}

export function putU32(b: Uint8Array, v: number, off: number): void {
  if (v > 0xffffffff || v < 0) throw outOfRange(0, 0xffffffff, v);
  b[off] = v;
  b[off + 1] = v >>> 8;
  b[off + 2] = v >>> 16;
  b[off + 3] = v >>> 24;
}

export function putI32(b: Uint8Array, v: number, off: number): void {
  if (v > 0x7fffffff || v < -0x80000000) throw outOfRange(-0x80000000, 0x7fffffff, v);
  b[off] = v;
  b[off + 1] = v >>> 8;
  b[off + 2] = v >>> 16;
  b[off + 3] = v >>> 24;
}

const HOST_LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** An IEEE 754 double, little-endian whatever the host's order. */
export function putF64(b: Uint8Array, v: number, off: number): void {
  F64[0] = v;
  if (HOST_LE) for (let i = 0; i < 8; i++) b[off + i] = F64_BYTES[i]!;
  else for (let i = 0; i < 8; i++) b[off + i] = F64_BYTES[7 - i]!;
}

/**
 * Copies `s` byte for byte when every unit is ASCII (its UTF-8 bytes are then its units) and returns
 * its length; -1 at the first unit that is not (bytes before it may have been written): the caller
 * then writes it as UTF-8 with Buffer#write. For short strings, where Buffer#write's call costs more
 * than the copy.
 */
export function putAscii(b: Uint8Array, s: string, off: number): number {
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return -1;
    b[off + i] = c;
  }
  return n;
}

/**
 * Writes `s` as Latin-1 (one byte per UTF-16 unit, the low eight bits, as Buffer's "latin1") and
 * returns the count. For the short header strings of a request; the caller has checked the room.
 */
export function putLatin1(b: Uint8Array, s: string, off: number): number {
  const n = s.length;
  for (let i = 0; i < n; i++) b[off + i] = s.charCodeAt(i);
  return n;
}
