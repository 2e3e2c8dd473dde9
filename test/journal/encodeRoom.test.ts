import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 as zlibCrc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { binaryBound, decodeBinary, encodeBinary } from "../../src/journal/codec.js";
import { crc32 } from "../../src/journal/crc32.js";
import { Journal, readJournal } from "../../src/journal/index.js";

// The journal's CRC-32 must be zlib's exactly: files written before and after read alike.
describe("journal crc32", () => {
  it("equals zlib's crc32 for every length and alignment, on both sides of the JS/zlib switch", () => {
    const buf = Buffer.alloc(1200);
    for (let i = 0; i < buf.length; i++) buf[i] = (i * 131 + 7) & 0xff;
    for (let start = 0; start < 9; start++)
      for (let len = 0; len + start <= buf.length; len += len < 80 ? 1 : 37)
        expect(crc32(buf, start, start + len)).toBe(zlibCrc32(buf.subarray(start, start + len)));
  });
});

describe("journal binary encoder room", () => {
  const rec = { clientId: "c1", op: "create", status: 200, latencyUs: 5, body: "ü".repeat(40) };

  it("never writes a cut record: -1 below its size, the record itself from binaryBound bytes on", () => {
    const need = binaryBound("res", rec);
    const buf = Buffer.alloc(need);
    const end = encodeBinary(buf, 0, "res", 1, 2, rec);
    expect(decodeBinary(buf, 0)).toEqual({ rec: { k: "res", seq: 1, ts: 2, ...rec }, next: end });
    for (let room = 0; room < need; room++) {
      const r = encodeBinary(Buffer.alloc(room), 0, "res", 1, 2, rec);
      // Between the record's size and the bound (3 bytes per UTF-16 unit) either answer is fine.
      if (room < end) expect(r).toBe(-1);
      else expect([-1, end]).toContain(r);
    }
  });

  it("a batch larger than the writer's buffer, and records larger than it, replay in order", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hftgate-room-"));
    try {
      const j = Journal.open({ dir, fsync: "none" });
      const body = "x".repeat(700);
      const big = "é".repeat(200_000);
      // No turn in between: everything lands in the batch buffers before the first write.
      for (let i = 0; i < 800; i++) j.event({ source: "s", clientId: `c${i}`, body: i === 400 ? big : body });
      await j.close();
      const recs = readJournal(j.path).records;
      expect(recs.map((r) => r.seq)).toEqual(Array.from({ length: 800 }, (_, i) => i + 1));
      expect(recs.map((r) => (r as { body: string }).body.length)).toEqual(
        Array.from({ length: 800 }, (_, i) => (i === 400 ? big.length : body.length)),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
