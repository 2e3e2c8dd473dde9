/**
 * Journal failure stops the flow, tried from outside (docs/reliability.md "Journal failure stops the
 * flow"): `hftgate sim` and `hftgate start` as real processes, a strategy over a real socket. The
 * journal's file may not grow: RLIMIT_FSIZE of the running gateway is lowered to the file's size with
 * prlimit(1), so the kernel refuses its writes (EFBIG) as a full disk does (ENOSPC), through the same
 * write path and without root, a mount or a hook in the product; raising the limit again is the disk
 * getting room back. Skipped where prlimit is missing or not permitted.
 *
 * No frame the journal lacks reaches the strategy (heartbeats still do), trading halts and /health
 * says 503 with the reason; once the file may grow, the held frames follow in order and trading
 * resumes by itself; a stop while the journal cannot write, then a restart, resumes with no 104.
 */
import { execFile, spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CODES, OrderStatus, TradingStateValue } from "../../src/protocol/schema.js";
import { debugLog, health, LOTS, REST, startOpsRig } from "./harness/operations.js";
import { instrumentIds, type ProcessRig } from "./harness/processRig.js";
import { record, report } from "./harness/results.js";
import { SimProcess } from "./harness/simProcess.js";
import { newKeys, sleep, until } from "./harness/venue.js";

/** The stop budget of the journal scenario: a stop while the journal cannot write waits for it that long. */
const JFAIL_STOP_BUDGET_MS = 3_000;

/** prlimit(1) can change the running gateway's RLIMIT_FSIZE (util-linux; same user). */
const PRLIMIT = spawnSync("prlimit", ["--version"]).status === 0;

/** Without blocking this process's event loop: the strategy's heartbeats run on it. */
function setFileSizeLimit(pid: number, bytes: number | "unlimited"): Promise<boolean> {
  return new Promise((resolve) =>
    execFile("prlimit", ["--pid", String(pid), `--fsize=${bytes}:unlimited`], (err) => resolve(err === null)),
  );
}

/** The journal file the running gateway writes (the newest in the directory). */
function currentJournal(dir: string): string {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".hgj"))
    .sort();
  return join(dir, files[files.length - 1]!);
}

describe.skipIf(!PRLIMIT)("journal failure stops the flow (journal file may not grow)", () => {
  it("nothing the journal lacks reaches the strategy; /health 503 with the reason; recovery in place and across a restart with no 104", async (ctx) => {
    const keys = newKeys();
    const sim = await SimProcess.start({ seed: 33, apiKeys: [keys.apiKey] });
    let rig: ProcessRig | undefined;
    try {
      // The failed write is retried every 200 ms (the default is a second). The journal writes with
      // write(2): a mapped journal reserves its next 4 MiB ahead, so a limit lowered to the file's size
      // would bite only once that window is full; its turn back to write(2) when a window cannot be
      // had is test/journal/mapped.test.ts, and the failure path from there is the same as here.
      rig = await startOpsRig(sim, keys, "jfail", JFAIL_STOP_BUDGET_MS, (base) => ({
        journal: { ...base.journal, retryIntervalMs: 200, writeMode: "write" },
      }));
      const journalDir = join(rig.dir, "journal");
      // Heartbeats every 250 ms: a gateway silent for 750 ms is given up by the client.
      const s = await rig.strategy("jfail-alpha", { heartbeatMs: 250 });
      const ids = await instrumentIds(s);
      const first = s.place(ids.hft, "buy", REST.hft, LOTS.hft);
      await until(() => s.unanswered().length === 0, 5_000, "first order answered");
      await sleep(300); // the interval fsync has run: nothing is pending
      const states: number[] = [];
      s.client.on("tradingState", (b) => states.push(b.state));
      const seen = { sequenced: 0, heartbeats: 0 };
      s.client.on("message", (m) => {
        if (m.header.seq > 0) seen.sequenced++;
        else if (m.name === "HeartbeatOut") seen.heartbeats++;
      });

      // The journal's file may not grow any more.
      const file = currentJournal(journalDir);
      if (!(await setFileSizeLimit(rig.gp.pid!, statSync(file).size))) {
        ctx.skip(); // not permitted here: nothing was changed
        return;
      }
      const q = s.client.query(first);
      let queryAnswered = false;
      void q.then(() => {
        queryAnswered = true;
      });
      const atFailure = { ...seen };
      let h = await health(rig.gp.httpUrl);
      for (let i = 0; i < 50 && h.status === 200; i++) {
        await sleep(50);
        h = await health(rig.gp.httpUrl);
      }
      // An order while the journal cannot write: refused (halted), and even that answer waits.
      const during = s.place(ids.hft, "buy", REST.hft - 100, LOTS.hft);
      await sleep(1_500); // 6 heartbeat intervals: the connection stays up on heartbeats alone
      const failed = {
        health: h,
        queryAnswered,
        sequenced: seen.sequenced - atFailure.sequenced,
        heartbeats: seen.heartbeats - atFailure.heartbeats,
        duringAnswered: s.unanswered().length === 0,
        connected: s.client.connected,
      };
      record({
        scenario: "journal file may not grow (EFBIG), then may again",
        orders: s.placed.length,
        faults: 1,
        lost: 0,
        duplicated: 0,
        mismatched: 0,
        note: `while failing: /health ${h.status} ${String(h.body.status)} (${String(h.body.reason ?? "")}), sequenced frames delivered ${failed.sequenced}, heartbeats ${failed.heartbeats}, query answered ${queryAnswered}, order answered ${failed.duringAnswered}`,
      });
      expect(failed.health.status).toBe(503);
      expect(failed.health.body.status).toBe("halted");
      expect(String(failed.health.body.reason)).toMatch(/journal/);
      expect(failed.queryAnswered).toBe(false);
      expect(failed.duringAnswered).toBe(false);
      // Heartbeats only: no sequenced frame reached the strategy, and the connection stayed up.
      expect(failed.sequenced).toBe(0);
      expect(failed.heartbeats).toBeGreaterThan(2);
      expect(failed.connected).toBe(true);
      expect(states).toEqual([]);

      // The file may grow again: the held frames go out in order, trading resumes by itself.
      await setFileSizeLimit(rig.gp.pid!, "unlimited");
      await q;
      await until(() => s.unanswered().length === 0, 5_000, "the order sent during the failure answered");
      expect(s.told.get(during)!.rejects.map((r) => r.code)).toEqual([CODES.TradingHalted.code]);
      await until(() => states.includes(TradingStateValue.Active), 5_000, "trading active again");
      expect(states).toEqual([TradingStateValue.Halted, TradingStateValue.Active]);
      expect(s.gaps).toEqual([]);
      h = await health(rig.gp.httpUrl);
      expect([h.status, h.body.tradingState]).toEqual([200, "active"]);
      const after = s.place(ids.hft, "buy", REST.hft - 200, LOTS.hft);
      await until(() => s.unanswered().length === 0, 5_000, "an order after recovery answered");
      expect(s.told.get(after)!.acks).toBe(1);

      // Again, and this time the gateway stops while the journal cannot write: the restart resumes.
      const file2 = currentJournal(journalDir);
      expect(await setFileSizeLimit(rig.gp.pid!, statSync(file2).size)).toBe(true);
      const q2 = s.client.query(first);
      let q2Answered = false;
      void q2.then(() => {
        q2Answered = true;
      });
      for (let i = 0; i < 50 && (await health(rig.gp.httpUrl)).status === 200; i++) await sleep(50);
      const stopped = await rig.gp.sendSignal("SIGTERM");
      debugLog(rig, /journal|drain|shutting|stopped/);
      expect(q2Answered).toBe(false);
      // The stop waits for the journal up to its budget, then closes anyway: the held frames are not sent.
      expect([stopped.code, stopped.ms < JFAIL_STOP_BUDGET_MS]).toEqual([0, true]);
      await rig.gp.start();
      await s.client.connect(); // throws LogonRejectedError 104 if the strategy saw a frame the journal lacks
      expect(s.resumeLost).toBe(0);
      const rows = await s.client.query(first);
      expect(rows.map((r) => r.status)).toEqual([OrderStatus.New]);
      expect(s.gaps).toEqual([]);
    } finally {
      await rig?.close();
      await sim.stop();
    }
  }, 60_000);
});

afterAll(() => report());
