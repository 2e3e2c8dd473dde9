/**
 * Scenario: the gateway process is killed with SIGKILL in the middle of a burst (some creates still
 * in flight at the venue) and restarted with the same configuration. Journal replay plus
 * reconciliation must rebuild every order; the venue keeps trading meanwhile (fills while the gateway
 * is down); the strategy reconnects by itself and learns what it missed; nothing is duplicated at the
 * venue. Afterwards everything the run wrote is scanned for the secret key.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readJournal } from "../../../src/journal/index.js";
import { RejectSource, TradingStateValue } from "../../../src/protocol/schema.js";
import { fillsAddUp } from "../harness/checks.js";
import { ensureBuilt } from "../harness/child.js";
import { ADMIN_TOKEN, TOKEN } from "../harness/engineRig.js";
import { instrumentIds, startProcessRig } from "../harness/processRig.js";
import { record } from "../harness/results.js";
import { type Artifact, filesUnder, leaks, mentions } from "../harness/secrets.js";
import type { Strategy } from "../harness/strategy.js";
import { converge, LIVE, venueOrders } from "../harness/truth.js";
import { counterHft, counterSpot, sleep, startVenue, until } from "../harness/venue.js";

/**
 * Simulates a power loss on the journal: cuts the newest journal file just inside the record holding
 * the `nth` new-order command (a torn tail), so that command and everything after it are gone.
 * Returns the number of records dropped.
 */
function dropJournalTail(dir: string, nth: number): number {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".hgj"))
    .sort();
  const path = join(dir, files[files.length - 1]!);
  const { records } = readJournal(path);
  const buf = readFileSync(path);
  const starts: number[] = [];
  for (let off = 4; off + 8 <= buf.length; off += 8 + buf.readUInt32LE(off)) starts.push(off);
  let seen = 0;
  const cut = records.findIndex((r) => r.k === "cmd" && r.op === "new" && ++seen === nth);
  if (cut < 0) throw new Error(`journal holds fewer than ${nth} new-order commands`);
  truncateSync(path, starts[cut]! + 5);
  return records.length - cut;
}

/** Fill accounting of the crash run, checked by its own test below (kept apart: a known gap). */
let missedAfterRestart: string[] | undefined;

export function crashScenario(): void {
  describe("gateway process killed (SIGKILL) and restarted", () => {
    it("mid-burst kill: journal replay + reconciliation, strategy resumes, nothing lost or duplicated", async () => {
      const v = await startVenue();
      const rig = await startProcessRig({ baseUrl: v.sim.baseUrl, keys: v.keys }, { prefix: "kill" }).catch(
        async (e: unknown) => {
          await v.sim.stop();
          throw e;
        },
      );
      const { dir, gp } = rig;
      const { secret, cfgFile } = rig;
      let s: Strategy | undefined;
      try {
        s = await rig.strategy("crash-alpha", { autoReconnect: true });
        const ids = await instrumentIds(s);
        let resumeLost = 0;
        s.client.on("resumeLost", () => resumeLost++);
        // Slow venue for part of the burst: those creates are still in flight when the process dies.
        v.faults.add({ kind: "latency", endpoint: "POST /trade/api/v2/order", ms: 150, count: 6 });
        v.faults.add({ kind: "latency", endpoint: "POST /v5/order/create", ms: 150, count: 6 });
        const BEFORE = 30;
        for (let i = 0; i < BEFORE; i++) {
          if (i % 2 === 0) s.place(ids.spot, "buy", 5_300_000 - i * 10, 100);
          else s.place(ids.hft, "buy", 320_000 - i * 10, 5);
          if (i === 12)
            await sleep(100); // the first orders are acknowledged, later ones in flight
          else await sleep(2);
        }
        const inFlightAtKill = s.unanswered().length;
        await gp.kill();
        v.faults.extra++;
        expect(inFlightAtKill).toBeGreaterThan(0);
        // The venue keeps trading while the gateway is down.
        await sleep(200);
        await counterSpot(v, "sell", 5_299_000, 0.0025);
        await counterHft(v, "Sell", "3190.00", "0.13");
        await gp.start();
        await until(() => s!.client.connected, 5_000, "strategy reconnected");
        await sleep(300);
        // Trading resumes: new orders, cancels of orders from before the crash, more fills.
        const AFTER = 16;
        for (let i = 0; i < AFTER; i++) {
          if (i % 2 === 0) s.place(ids.spot, "buy", 5_250_000 - i * 10, 100);
          else s.place(ids.hft, "buy", 315_000 - i * 10, 5);
        }
        for (let i = 7; i < BEFORE; i += 4) s.cancel(s.placed[i]!);
        await counterSpot(v, "sell", 5_299_000, 0.0011);
        await sleep(500);
        const t = await converge(
          () => s!.views(),
          () => venueOrders(v.sim, v.keys.apiKey),
          8_000,
        );
        record({
          scenario: "gateway SIGKILL mid-burst + restart",
          orders: s.placed.length,
          faults: v.faults.fired(),
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
          note: `${inFlightAtKill} creates unanswered at the kill`,
        });
        expect(t.details).toEqual([]);
        missedAfterRestart = await fillsAddUp(s, true);
        // What the run wrote: process output, journal, state file, metrics and health pages.
        const pages: Artifact[] = [];
        for (const p of ["/metrics", "/health"]) {
          const r = await fetch(gp.httpUrl + p);
          pages.push({ name: p, data: await r.text() });
        }
        const artifacts = [{ name: "process output", data: gp.output }, ...filesUnder(dir), ...pages];
        expect(artifacts.length).toBeGreaterThan(3);
        expect(leaks(secret, artifacts)).toEqual([]);
        // Configured gateway tokens are secrets too: apart from the config file we wrote, only the 0600
        // state file (for `hftgate demo`) holds them.
        const notState = artifacts.filter((a) => !a.name.endsWith("gateway.json") && a.name !== cfgFile);
        expect(mentions(TOKEN, notState)).toEqual([]);
        expect(mentions(ADMIN_TOKEN, notState)).toEqual([]);
        expect(resumeLost).toBe(0); // restart = resume: the session continues from the journal
        // The incident tool reads both runs' journals: an order's history spans the kill.
        const someOrder = venueOrders(v.sim, v.keys.apiKey)[0]!;
        const rep = spawnSync(
          process.execPath,
          [ensureBuilt(), "replay", join(dir, "journal"), "--order", someOrder.clientId],
          {
            encoding: "utf8",
          },
        );
        expect(rep.status).toBe(0);
        expect(rep.stdout).toContain(someOrder.clientId);
        expect(rep.stdout).toMatch(/command\s+new/);
        expect(rep.stdout).toMatch(/request\s+create/);
        expect(leaks(secret, [{ name: "replay output", data: rep.stdout + rep.stderr }])).toEqual([]);
      } finally {
        await rig.close();
        await v.sim.stop();
      }
    }, 60_000);

    it("three kills in a row, each right after a burst of creates and cancels: nothing lost or duplicated", async () => {
      const v = await startVenue();
      const rig = await startProcessRig({ baseUrl: v.sim.baseUrl, keys: v.keys }, { prefix: "kill3" }).catch(
        async (e: unknown) => {
          await v.sim.stop();
          throw e;
        },
      );
      const { gp } = rig;
      let s: Strategy | undefined;
      try {
        s = await rig.strategy("crash-beta", { autoReconnect: true });
        const ids = await instrumentIds(s);
        // Slow answers for part of each burst, so creates and cancels are in flight at every kill.
        const slow = () => {
          v.faults.add({ kind: "latency", endpoint: "POST /trade/api/v2/order", ms: 200, count: 3 });
          v.faults.add({ kind: "latency", endpoint: "POST /v5/order/create", ms: 200, count: 3 });
          v.faults.add({ kind: "latency", endpoint: "DELETE /trade/api/v2/order", ms: 200, count: 2 });
          v.faults.add({ kind: "latency", endpoint: "POST /v5/order/cancel", ms: 200, count: 2 });
        };
        let price = 0;
        for (let cycle = 0; cycle < 3; cycle++) {
          await until(() => s!.client.connected, 8_000, "connected");
          await sleep(200);
          slow();
          const acked = s.placed.filter((n) => s!.told.get(n)!.acks > 0);
          for (let i = 0; i < 14; i++) {
            price += 10;
            if (i % 2 === 0) s.place(ids.spot, "buy", 5_300_000 - price, 100);
            else s.place(ids.hft, "buy", 320_000 - price, 5);
            if (i % 4 === 3 && acked.length > 0) s.cancel(acked.shift()!);
          }
          await sleep(40 + cycle * 30);
          await gp.kill();
          v.faults.extra++;
          await counterSpot(v, "sell", 5_299_000, 0.0012);
          await counterHft(v, "Sell", "3190.00", "0.06");
          await gp.start();
        }
        await until(() => s!.client.connected, 8_000, "connected at the end");
        await sleep(500);
        // Amends in flight at a fourth kill: working orders amended (HFT in place, Spot as a
        // cancel-replace under a new number) while the venue holds their answers.
        const resting: number[] = [];
        for (let i = 0; i < 3; i++) {
          resting.push(s.place(ids.spot, "buy", 5_250_000 - i * 10, 100));
          resting.push(s.place(ids.hft, "buy", 315_000 - i * 10, 5));
        }
        const isWorking = async () =>
          (await s!.views()).filter(
            (g) =>
              resting.includes(Number(g.key.split("#")[1])) &&
              (g.status === "New" || g.status === "PartiallyFilled"),
          );
        await until(
          () => resting.every((n) => s!.told.get(n)!.updates + s!.told.get(n)!.acks > 0),
          8_000,
          "rested",
        );
        const working = (await isWorking()).map((g) => Number(g.key.split("#")[1]));
        // HFT: the venue still takes the amend after the gateway died (its answer is lost with it).
        v.faults.add({
          kind: "latency",
          endpoint: "POST /v5/order/amend",
          ms: 300,
          count: 3,
          abandoned: "handle",
        });
        v.faults.add({ kind: "latency", endpoint: "DELETE /trade/api/v2/order", ms: 300, count: 3 });
        const amended = working.slice(0, 6);
        for (const n of amended) s.amend(n, s.pxOf.get(n)! - 3, s.instOf.get(n) === ids.spot);
        await sleep(80);
        await gp.kill();
        v.faults.extra++;
        await gp.start();
        await until(() => s!.client.connected, 8_000, "connected after the amend kill");
        await sleep(500);
        const t = await converge(
          () => s!.views(),
          () => venueOrders(v.sim, v.keys.apiKey),
          8_000,
        );
        expect(amended.length).toBeGreaterThan(0);
        // The venue took HFT amends the restarted gateway had to learn from its queries (price checked above).
        const movedAtVenue = venueOrders(v.sim, v.keys.apiKey).filter(
          (o) => o.surface === "hft" && amended.some((n) => s!.pxOf.get(n) === o.priceTicks),
        );
        expect(movedAtVenue.length).toBeGreaterThan(0);
        record({
          scenario: "gateway SIGKILL x4, creates, cancels and (last) amends in flight",
          orders: s.placed.length,
          faults: v.faults.fired(),
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(t.details).toEqual([]);
      } finally {
        await rig.close();
        await v.sim.stop();
      }
    }, 60_000);

    it("power loss (journal tail lost) then restart: the kill switch still leaves nothing live at the venue", async () => {
      // With fsync "interval" (the default) a power loss may take the last records with it. Orders
      // sent in that window are live at the venue under client ids the restarted gateway never saw.
      // They must not become orders nobody controls: an account-wide kill switch has to reach them.
      const v = await startVenue();
      const rig = await startProcessRig({ baseUrl: v.sim.baseUrl, keys: v.keys }, { prefix: "power" }).catch(
        async (e: unknown) => {
          await v.sim.stop();
          throw e;
        },
      );
      const { dir, gp } = rig;
      let s: Strategy | undefined;
      let admin: Strategy | undefined;
      try {
        s = await rig.strategy("power-alpha", { autoReconnect: true });
        const ids = await instrumentIds(s);
        for (let i = 0; i < 20; i++) {
          if (i % 2 === 0) s.place(ids.spot, "buy", 5_300_000 - i * 10, 100);
          else s.place(ids.hft, "buy", 320_000 - i * 10, 5);
        }
        await until(() => s!.unanswered().length === 0, 3_000, "acks");
        await sleep(300);
        await gp.kill();
        // Lost: everything from the 11th order's command on (10 orders' commands and requests vanish).
        const lost = dropJournalTail(join(dir, "journal"), 11);
        expect(lost).toBeGreaterThan(0);
        await gp.start();
        admin = await rig.strategy("power-ops", { token: ADMIN_TOKEN });
        await sleep(500);
        admin.client.cancelAll(undefined, true);
        await sleep(1_500);
        const live = venueOrders(v.sim, v.keys.apiKey).filter((o) => LIVE.has(o.status));
        record({
          scenario: "power loss (journal tail lost) + restart + kill switch",
          orders: s.placed.length,
          faults: 2,
          lost: live.length,
          duplicated: 0,
          mismatched: 0,
          note: `${lost} journal records lost`,
        });
        expect(live.map((o) => `${o.clientId} ${o.status}`)).toEqual([]);
      } finally {
        await rig.close();
        await v.sim.stop();
      }
    }, 40_000);

    it("graceful stop (SIGTERM) mid-burst and restart: nothing lost or duplicated", async () => {
      const v = await startVenue();
      const rig = await startProcessRig({ baseUrl: v.sim.baseUrl, keys: v.keys }, { prefix: "term" }).catch(
        async (e: unknown) => {
          await v.sim.stop();
          throw e;
        },
      );
      const { gp } = rig;
      let s: Strategy | undefined;
      try {
        s = await rig.strategy("term-alpha", { autoReconnect: true });
        const ids = await instrumentIds(s);
        v.faults.add({ kind: "latency", endpoint: "POST /trade/api/v2/order", ms: 300, count: 4 });
        v.faults.add({ kind: "latency", endpoint: "POST /v5/order/create", ms: 300, count: 4 });
        for (let i = 0; i < 20; i++) {
          if (i % 2 === 0) s.place(ids.spot, "buy", 5_300_000 - i * 10, 100);
          else s.place(ids.hft, "buy", 320_000 - i * 10, 5);
        }
        await sleep(30);
        await gp.stop(); // SIGTERM while creates are in flight
        v.faults.extra++;
        await counterSpot(v, "sell", 5_299_000, 0.0012);
        await gp.start();
        await until(() => s!.client.connected, 5_000, "reconnected");
        for (let i = 0; i < 6; i++) s.place(ids.hft, "buy", 315_000 - i * 10, 5);
        await sleep(500);
        const t = await converge(
          () => s!.views(),
          () => venueOrders(v.sim, v.keys.apiKey),
          8_000,
        );
        record({
          scenario: "gateway SIGTERM mid-burst + restart",
          orders: s.placed.length,
          faults: v.faults.fired(),
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(t.details).toEqual([]);
      } finally {
        await rig.close();
        await v.sim.stop();
      }
    }, 40_000);

    it("a kill switch survives a crash: the restarted gateway is still halted", async () => {
      // The operator halted trading, then the process died. Coming back active would undo the halt.
      const v = await startVenue();
      const rig = await startProcessRig({ baseUrl: v.sim.baseUrl, keys: v.keys }, { prefix: "halt" }).catch(
        async (e: unknown) => {
          await v.sim.stop();
          throw e;
        },
      );
      const { gp } = rig;
      let s: Strategy | undefined;
      let admin: Strategy | undefined;
      try {
        s = await rig.strategy("halt-alpha", { autoReconnect: true });
        const ids = await instrumentIds(s);
        for (let i = 0; i < 6; i++) s.place(ids.hft, "buy", 320_000 - i * 10, 5);
        await until(() => s!.unanswered().length === 0, 3_000, "acks");
        admin = await rig.strategy("halt-ops", { token: ADMIN_TOKEN });
        const states: number[] = [];
        s.client.on("tradingState", (b) => states.push(b.state));
        admin.client.cancelAll(undefined, true);
        await until(() => states.includes(TradingStateValue.Halted), 2_000, "halted");
        await sleep(300); // the halt is journaled
        await admin.close();
        const logonStates: number[] = [];
        s.client.on("logon", (a) => logonStates.push(a.tradingState));
        await gp.kill();
        await gp.start();
        await until(() => logonStates.length > 0, 5_000, "logged on again");
        const n = s.place(ids.hft, "buy", 319_000, 5);
        await until(() => s!.unanswered().length === 0, 3_000, "answer after restart");
        const told = s.told.get(n)!;
        const t = await converge(
          () => s!.views(),
          () => venueOrders(v.sim, v.keys.apiKey),
          5_000,
        );
        record({
          scenario: "kill switch, then SIGKILL + restart",
          orders: s.placed.length,
          faults: 2,
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
          note: `restarted ${logonStates[0] === TradingStateValue.Halted ? "halted" : "NOT halted"}`,
        });
        expect(t.details).toEqual([]);
        expect(logonStates[0]).toBe(TradingStateValue.Halted);
        expect(told.acks).toBe(0);
        expect(told.rejects[0]?.source).toBe(RejectSource.Risk);
      } finally {
        await rig.close();
        await v.sim.stop();
      }
    }, 40_000);

    it("cancel-on-disconnect survives a crash: a COD session that does not come back has its orders cancelled", async () => {
      // The strategy asked for its orders to be cancelled if its connection is lost. The gateway dying
      // loses the connection too; after the restart, a COD session that does not log on again within
      // its heartbeat allowance must not leave orders working at the venue.
      const v = await startVenue();
      const rig = await startProcessRig({ baseUrl: v.sim.baseUrl, keys: v.keys }, { prefix: "cod" }).catch(
        async (e: unknown) => {
          await v.sim.stop();
          throw e;
        },
      );
      const { gp } = rig;
      let s: Strategy | undefined;
      try {
        s = await rig.strategy("cod-alpha", { codPolicy: 1 });
        const ids = await instrumentIds(s);
        for (let i = 0; i < 8; i++) {
          if (i % 2 === 0) s.place(ids.spot, "buy", 5_300_000 - i * 10, 100);
          else s.place(ids.hft, "buy", 320_000 - i * 10, 5);
        }
        await until(() => s!.unanswered().length === 0, 3_000, "acks");
        await sleep(300);
        await gp.kill();
        await s.close(); // the strategy does not come back
        await gp.start();
        const live = () => venueOrders(v.sim, v.keys.apiKey).filter((o) => LIVE.has(o.status));
        const end = Date.now() + 6_000;
        while (live().length > 0 && Date.now() < end) await sleep(100);
        const working = live().length;
        record({
          scenario: "cancel-on-disconnect session, SIGKILL + restart, no reconnect",
          orders: s.placed.length,
          faults: 1,
          lost: 0,
          duplicated: 0,
          mismatched: 0,
          note: `${working} orders still working at the venue 6 s after the restart`,
        });
        expect(live().map((o) => `${o.clientId} ${o.status}`)).toEqual([]);
      } finally {
        await rig.close();
        await v.sim.stop();
      }
    }, 40_000);

    it("after the restart, a strategy that logs on again is pushed the fills it missed", () => {
      // Fills that happened while the gateway was down are applied by the restart reconciliation
      // before the strategy logs on again; they must reach it as Fill / OrderUpdate messages then,
      // not only as the answer to an explicit Query.
      expect(missedAfterRestart).toBeDefined();
      expect(missedAfterRestart).toEqual([]);
    });
  });
}
