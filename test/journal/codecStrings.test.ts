import { describe, expect, it } from "vitest";
import { binaryBound, decodeBinary, encodeBinary, encodeNdjson } from "../../src/journal/codec.js";

// String fields take a hand-copied ASCII path for short strings and Buffer#write otherwise: both must
// give the UTF-8 bytes and round-trip.
const samples = [
  "",
  "plain-ascii",
  "\u007f edge",
  "\u0080",
  "ünïcødé ✓",
  "ascii first then ü",
  "emoji 😀",
  "x".repeat(64),
  `${"y".repeat(65)}é`,
  "日本語",
];

describe("journal binary string fields", () => {
  for (const s of samples) {
    it(`encodes ${JSON.stringify(s.slice(0, 20))} (${s.length} chars) as UTF-8 and decodes it back`, () => {
      const rec = { clientId: "c1", op: "create", status: 200, latencyUs: 5, body: s };
      const buf = Buffer.alloc(binaryBound("res", rec));
      const end = encodeBinary(buf, 0, "res", 7, 1_700_000_000_000, rec);
      const utf8 = Buffer.from(s, "utf8");
      // The body is the last field: its length prefix and bytes end the record.
      expect(buf.readUInt32LE(end - utf8.length - 4)).toBe(utf8.length);
      expect(buf.subarray(end - utf8.length, end).equals(utf8)).toBe(true);
      const d = decodeBinary(buf, 0);
      expect(d).not.toBe("torn");
      expect(d).not.toBe("corrupt");
      expect((d as { rec: { body: string } }).rec.body).toBe(s);
    });
  }
});

describe("a string field given as its UTF-8 bytes", () => {
  for (const s of samples) {
    it(`${JSON.stringify(s.slice(0, 20))}: the same record as the string, in both formats`, () => {
      const asText = { clientId: "c1", op: "create", status: 200, latencyUs: 5, body: s, raw: 1 };
      // A view into a larger buffer, as an answer read off a socket is.
      const read = Buffer.from(`HTTP/1.1 200 OK\r\n\r\n${s}`, "utf8");
      const asBytes = { ...asText, body: read.subarray(read.length - Buffer.byteLength(s)) };
      const a = Buffer.alloc(binaryBound("res", asText));
      const b = Buffer.alloc(binaryBound("res", asBytes));
      const ea = encodeBinary(a, 0, "res", 7, 1_700_000_000_000, asText);
      const eb = encodeBinary(b, 0, "res", 7, 1_700_000_000_000, asBytes);
      expect(eb).toBe(ea);
      expect(b.subarray(0, eb).equals(a.subarray(0, ea))).toBe(true);
      expect(encodeNdjson("res", 7, 1, asBytes)).toBe(encodeNdjson("res", 7, 1, asText));
    });
  }

  it("bytes where a number belongs are refused", () => {
    const rec = { clientId: "c1", op: "create", status: Buffer.from("200"), latencyUs: 5 };
    expect(() => encodeBinary(Buffer.alloc(256), 0, "res", 7, 1, rec)).toThrow(
      /res\.status: expected number/,
    );
  });
});
