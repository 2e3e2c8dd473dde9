import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { chronological } from "../../src/journal/files.js";

const dir = mkdtempSync(join(tmpdir(), "hftgate-order-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("journal file order for replay", () => {
  it("orders by start second, then by last write within one second (not by name)", () => {
    const mk = (name: string, mtimeS: number) => {
      const p = join(dir, name);
      writeFileSync(p, "");
      utimesSync(p, mtimeS, mtimeS);
      return p;
    };
    // One second, three runs: pid 999 first, then pid 1000, then pid 999 again (its "-1" file).
    const a = mk("hftgate-20261121T085555Z-999.hgj", 1000);
    const b = mk("hftgate-20261121T085555Z-1000.hgj", 1001);
    const c = mk("hftgate-20261121T085555Z-999-1.hgj", 1002);
    const older = mk("hftgate-20261121T085554Z-5.hgj", 2000); // an earlier second wins over mtime
    expect([a, b, c, older].slice().sort()).not.toEqual([older, a, b, c]); // what name order gives
    expect(chronological([c, b, a, older])).toEqual([older, a, b, c]);
  });
});
