import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Journal } from "../../src/journal/index.js";

// The journal holds every order and raw venue answer: owner-only, whatever the umask or what was there.
const roots: string[] = [];
afterEach(() => {
  for (const d of roots.splice(0)) rmSync(d, { recursive: true, force: true });
});
function root(): string {
  const d = mkdtempSync(join(tmpdir(), "hftgate-modes-"));
  roots.push(d);
  return d;
}
const mode = (p: string) => statSync(p).mode & 0o777;

describe("journal file modes", () => {
  it("creates the directory 0700 and the file 0600 even under a permissive umask", async () => {
    const old = process.umask(0o000);
    try {
      const dir = join(root(), "var", "journal");
      const j = Journal.open({ dir, fsync: "none" });
      j.note({ text: "x" });
      await j.close();
      expect(mode(dir)).toBe(0o700);
      expect(mode(j.path)).toBe(0o600);
    } finally {
      process.umask(old);
    }
  });

  it("tightens an existing 0755 directory and an existing 0644 day file", async () => {
    const dir = join(root(), "journal");
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const day = join(dir, "hftgate-20261121.hgj");
    writeFileSync(day, "");
    chmodSync(day, 0o644);
    const j = Journal.open({ dir, fsync: "none", rotate: "day", now: () => Date.UTC(2026, 10, 21, 9) });
    j.note({ text: "x" });
    await j.close();
    expect(j.path).toBe(day);
    expect(mode(dir)).toBe(0o700);
    expect(mode(day)).toBe(0o600);
  });
});
