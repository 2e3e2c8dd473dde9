/**
 * CRC-32 (IEEE, the polynomial zlib uses: the same value as node:zlib's crc32) of a byte range.
 * Command, request and frame records are under ~256 bytes, where a table-driven slice-by-8 loop in JS is
 * several times cheaper than a call into zlib (no view to allocate, no native transition); longer
 * ranges go to zlib, which is faster per byte.
 */
import { crc32 as zlibCrc32 } from "node:zlib";

/** Above this many bytes zlib is as fast or faster (they cross between ~256 and ~384 bytes). */
const JS_MAX = 256;

const T = new Int32Array(256 * 8);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  T[n] = c;
}
for (let n = 0; n < 256; n++) {
  let c = T[n]!;
  for (let k = 1; k < 8; k++) {
    c = T[c & 0xff]! ^ (c >>> 8);
    T[k * 256 + n] = c;
  }
}

/**
 * CRC-32 of `buf[start, end)` as an unsigned 32-bit number; `prev` continues the CRC of bytes that
 * come before the range (0: none).
 */
export function crc32(buf: Uint8Array, start: number, end: number, prev = 0): number {
  if (end - start > JS_MAX) return zlibCrc32(buf.subarray(start, end), prev);
  let c = ~prev;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    const a = c ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24));
    c =
      T[1792 + (a & 0xff)]! ^
      T[1536 + ((a >>> 8) & 0xff)]! ^
      T[1280 + ((a >>> 16) & 0xff)]! ^
      T[1024 + (a >>> 24)]! ^
      T[768 + buf[i + 4]!]! ^
      T[512 + buf[i + 5]!]! ^
      T[256 + buf[i + 6]!]! ^
      T[buf[i + 7]!]!;
  }
  for (; i < end; i++) c = T[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}
