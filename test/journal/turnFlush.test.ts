import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Journal, readJournal } from "../../src/journal/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const immediates = () => process.getActiveResourcesInfo().filter((r) => r === "Immediate").length;

describe("journal: the turn's scheduled flush", () => {
  for (const format of ["binary", "ndjson"] as const) {
    it(`is dropped once flushSync has written everything, and kept while records wait (${format})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "hftgate-turn-"));
      dirs.push(dir);
      const j = Journal.open({ dir, format, fsync: { intervalMs: 100 } });
      const before = immediates();
      j.command({ session: "alpha", op: "new", clientId: "c1" });
      // Appended and not yet written: the flush at the end of the turn is pending.
      expect(immediates()).toBe(before + 1);
      expect(j.flushSync()).toBe(true);
      // Everything is with the kernel: no pending immediate (no extra event-loop iteration).
      expect(immediates()).toBe(before);
      // A record appended after it schedules the flush again, and that flush still writes it.
      j.request({ clientId: "c1", op: "create", method: "POST", path: "/v5/order/create" });
      expect(immediates()).toBe(before + 1);
      await new Promise((r) => setImmediate(r));
      expect(j.stats.writes).toBe(2); // written by the scheduled flush, not by close()
      await j.close();
      expect(readJournal(j.path).records.map((r) => r.k)).toEqual(["cmd", "req"]);
    });
  }
});
