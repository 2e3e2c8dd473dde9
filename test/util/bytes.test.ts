/**
 * The order path's byte stores write what Buffer's methods write, and refuse what they refuse.
 */
import { describe, expect, it } from "vitest";
import { putAscii, putF64, putI8, putI32, putLatin1, putU8, putU16, putU32 } from "../../src/util/bytes.js";

type Put = (b: Uint8Array, v: number, off: number) => void;
type BufWrite = (b: Buffer, v: number, off: number) => void;

const CASES: [string, Put, BufWrite, number, number][] = [
  ["u8", putU8, (b, v, o) => b.writeUInt8(v, o), 0, 0xff],
  ["i8", putI8, (b, v, o) => b.writeInt8(v, o), -0x80, 0x7f],
  ["u16", putU16, (b, v, o) => b.writeUInt16LE(v, o), 0, 0xffff],
  ["u32", putU32, (b, v, o) => b.writeUInt32LE(v, o), 0, 0xffffffff],
  ["i32", putI32, (b, v, o) => b.writeInt32LE(v, o), -0x80000000, 0x7fffffff],
];

/** A deterministic stream of values: the edges, fractions, NaN and a spread in between. */
function values(min: number, max: number): number[] {
  const out = [min, max, 0, 1, -0, Number.NaN, min + 1, max - 1, 1.5, max - 0.5];
  let x = 12345;
  for (let i = 0; i < 500; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(min + Math.floor((x / 2147483648) * (max - min + 1)));
  }
  return out.filter((v) => Number.isNaN(v) || (v >= min && v <= max));
}

describe("byte stores", () => {
  for (const [name, put, write, min, max] of CASES) {
    it(`${name}: the same bytes as Buffer's writer at any offset, the bytes around untouched`, () => {
      for (const v of values(min, max)) {
        for (const off of [0, 3]) {
          const a = Buffer.alloc(12, 0xaa);
          const b = Buffer.alloc(12, 0xaa);
          put(a, v, off);
          write(b, v, off);
          expect(a.toString("hex"), `${name} ${v} at ${off}`).toBe(b.toString("hex"));
        }
      }
    });

    it(`${name}: out of range is Buffer's RangeError, and nothing is written`, () => {
      for (const v of [min - 1, max + 1, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
        const a = Buffer.alloc(8, 0x55);
        let err: unknown;
        try {
          put(a, v, 0);
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(RangeError);
        expect((err as { code?: string }).code).toBe("ERR_OUT_OF_RANGE");
        expect(() => write(Buffer.alloc(8), v, 0)).toThrow(RangeError);
        expect(a.equals(Buffer.alloc(8, 0x55))).toBe(true);
      }
    });
  }

  it("f64: the same bytes as writeDoubleLE, special values included", () => {
    const vs = [0, -0, 1, -1, 0.1, Math.PI, 2 ** 53 - 1, -(2 ** 53), 5e-324, 1.7976931348623157e308];
    vs.push(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Date.now(), 1.5e18);
    for (const v of vs) {
      const a = Buffer.alloc(11, 0xaa);
      const b = Buffer.alloc(11, 0xaa);
      putF64(a, v, 3);
      b.writeDoubleLE(v, 3);
      expect(a.toString("hex"), String(v)).toBe(b.toString("hex"));
    }
  });

  it("ascii: an ASCII string's UTF-8 bytes and count, -1 at the first unit that is not ASCII", () => {
    for (const s of ["", "hg-abcdef-000042", "BTCUSDT", "\u007f~ {}"]) {
      const a = Buffer.alloc(40, 0xaa);
      const b = Buffer.alloc(40, 0xaa);
      expect(putAscii(a, s, 3)).toBe(b.write(s, 3, "utf8"));
      expect(a.equals(b), s).toBe(true);
    }
    for (const s of ["café", "\u0080", "a€", "😀"]) expect(putAscii(Buffer.alloc(40), s, 0), s).toBe(-1);
  });

  it("latin1: the same bytes and count as Buffer#write's latin1, characters above 0xff included", () => {
    for (const s of ["", "x-auth-epoch", "ab".repeat(64), "café", "€uro", "\u0100\uffff"]) {
      const a = Buffer.alloc(200, 0xaa);
      const b = Buffer.alloc(200, 0xaa);
      const n = putLatin1(a, s, 5);
      expect(n).toBe(b.write(s, 5, "latin1"));
      expect(a.equals(b), s).toBe(true);
    }
  });
});
