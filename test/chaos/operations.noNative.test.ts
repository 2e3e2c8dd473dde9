/**
 * The mapped journal's native part missing (a machine with no C compiler or Node headers at
 * `npm run build`), tried from outside: `hftgate start` from a build without `native/`, trading
 * against `hftgate sim`. `journal.writeMode: map` refuses to start and says why; `auto` (the default)
 * starts, says it writes with write(2) and why, and journals what it takes before answering it.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildWithoutAddon } from "./harness/child.js";
import { journalOwners, LOTS, REST } from "./harness/operations.js";
import { instrumentIds, type ProcessRig, startProcessRig } from "./harness/processRig.js";
import { SimProcess } from "./harness/simProcess.js";
import { newKeys, until } from "./harness/venue.js";

describe("the journal without its native part", () => {
  const keys = newKeys();
  let sim: SimProcess | undefined;
  let cli = "";
  afterAll(async () => {
    await sim?.stop();
  });

  it('writeMode "map": the gateway refuses to start and says why', async () => {
    cli = buildWithoutAddon();
    sim = await SimProcess.start({ seed: 41, apiKeys: [keys.apiKey] });
    await expect(
      startProcessRig(
        { baseUrl: sim.baseUrl, keys },
        {
          prefix: "nonative-map",
          cli,
          config: (base) => ({ ...base, journal: { ...base.journal, writeMode: "map" } }),
        },
      ),
    ).rejects.toThrow(/exited early[\s\S]*journal writeMode "map": native\/journalmap\.node is not built/);
  }, 60_000);

  it('writeMode "auto": starts on write(2), says so and why, and journals the orders it answers', async () => {
    let rig: ProcessRig | undefined;
    try {
      rig = await startProcessRig({ baseUrl: sim!.baseUrl, keys }, { prefix: "nonative-auto", cli });
      const opened = rig.gp.output.split("\n").find((l) => l.includes('"msg":"journal opened"'));
      expect(opened).toBeDefined();
      const line = JSON.parse(opened!) as { writeMode: string; mapped: string };
      expect(line.writeMode).toBe("write");
      expect(line.mapped).toMatch(/native\/journalmap\.node is not built/);
      const s = await rig.strategy("nonative-alpha");
      const ids = await instrumentIds(s);
      const placed = [
        s.place(ids.hft, "buy", REST.hft, LOTS.hft),
        s.place(ids.spot, "buy", REST.spot, LOTS.spot),
      ];
      await until(() => s.unanswered().length === 0, 10_000, "both orders answered");
      for (const n of placed) expect(s.told.get(n)!.acks).toBe(1);
      // The orders are in the journal the write(2) path wrote (read back after a clean stop).
      await rig.gp.stop();
      const dir = join(rig.dir, "journal");
      expect(readdirSync(dir).some((f) => f.endsWith(".hgj"))).toBe(true);
      const owners = [...journalOwners(dir).values()].filter((o) => o.session === "nonative-alpha");
      expect(owners.map((o) => o.clOrdNo).sort((a, b) => a - b)).toEqual([...placed].sort((a, b) => a - b));
    } finally {
      await rig?.close();
    }
  }, 60_000);
});
