import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatRecord, Journal, readJournal } from "../../src/journal/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

// A gateway → client header (seq 2^40 + 3, session 9, type 0x46 Fill) and some body bytes, NULs included.
function frame(): Buffer {
  const f = Buffer.alloc(131);
  f[0] = 1;
  f[1] = 0x46;
  f.writeUInt16LE(131, 2);
  f.writeUInt32LE(9, 4);
  f.writeUInt32LE(3, 8);
  f.writeUInt32LE(256, 12);
  for (let i = 32; i < f.length; i += 3) f[i] = i & 0xff;
  return f;
}

describe("journal out and ses records", () => {
  for (const format of ["binary", "ndjson"] as const) {
    it(`round-trips a sent frame byte for byte and a session event (${format})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "hftgate-out-"));
      dirs.push(dir);
      const j = Journal.open({ dir, format, fsync: "none" });
      const f = frame();
      j.session({ session: "alpha", op: "logon", sid: 9, admin: 1 });
      j.out("alpha", f);
      expect(j.flushSync()).toBe(true); // written now, on this turn
      await j.close();
      const recs = readJournal(j.path).records;
      expect(recs.map((r) => r.k)).toEqual(["ses", "out"]);
      const out = recs[1]!;
      if (out.k !== "out") throw new Error("not an out record");
      expect(out.session).toBe("alpha");
      expect(Buffer.compare(out.frame, f)).toBe(0);
      expect(formatRecord(out)).toMatch(/sent +session=alpha seq=1099511627779 type=0x46 131 bytes$/);
      expect(formatRecord(recs[0]!)).toMatch(/session +logon alpha id=9 admin$/);
    });
  }
});
