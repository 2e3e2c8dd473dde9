/**
 * Operational truth, the bounded restart, with real processes (`hftgate sim` as the venue, `hftgate
 * start` against it, the checkpoint every 300 ms): orders and a resumable session before a clean stop
 * and before a SIGKILL; each restart starts from the checkpoint and reads only the journal after it;
 * the venue's signed listings are the truth for what is live; the session resumes (no 104, no gap);
 * journal files covered by both checkpoint generations and past the retention are moved to the archive.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, utimesSync } from "node:fs";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyPair } from "../../src/auth/keys.js";
import { CHECKPOINT_FILE, journalFiles } from "../../src/journal/index.js";
import { OrderStatus } from "../../src/protocol/schema.js";
import { ensureBuilt } from "./harness/child.js";
import { VenueReader } from "./harness/listings.js";
import { instrumentIds, type ProcessRig, startProcessRig } from "./harness/processRig.js";
import { SimProcess } from "./harness/simProcess.js";
import type { Strategy } from "./harness/strategy.js";
import { newKeys, until } from "./harness/venue.js";

let keys: KeyPair;
let venue: SimProcess;
let rig: ProcessRig;
let archive = "";

beforeAll(async () => {
  keys = newKeys();
  venue = await SimProcess.start({ seed: 41, apiKeys: [keys.apiKey] });
  rig = await startProcessRig(
    { baseUrl: venue.baseUrl, keys },
    {
      prefix: "restart",
      config: (b) => {
        archive = `${String(b.journal!.dir)}-archive`;
        return {
          ...b,
          journal: {
            ...b.journal,
            ...{ checkpointIntervalMs: 300, checkpointMinBytes: 0, retentionDays: 1, archiveDir: archive },
          },
        };
      },
    },
  );
}, 30_000);
afterAll(async () => {
  await rig?.close();
  await venue?.stop();
});

/** Resting buys (nothing trades), alternating Spot and HFT; resolves once all are acked. */
async function placeResting(s: Strategy, n: number, from: number): Promise<number[]> {
  const ids = await instrumentIds(s);
  const placed: number[] = [];
  for (let i = 0; i < n; i++)
    placed.push(
      (from + i) % 2 === 0
        ? s.place(ids.spot, "buy", 5_000_000 - (from + i) * 100, 100)
        : s.place(ids.hft, "buy", 300_000 - (from + i) * 100, 5),
    );
  await until(() => placed.every((n) => s.told.get(n)!.acks === 1), 10_000, "acks");
  return placed;
}

async function cancelAll(s: Strategy, nos: number[]): Promise<void> {
  for (const n of nos) s.cancel(n);
  await until(() => nos.every((n) => s.told.get(n)!.lastStatus === OrderStatus.Cancelled), 10_000, "cancels");
}

/** The exchange ids the venue lists as live. */
async function liveAtVenue(): Promise<Set<string>> {
  const reader = new VenueReader(venue.baseUrl, keys, { spot: 0.00001, hft: 0.01 });
  try {
    const l = await reader.read();
    return new Set(
      l.orders.filter((o) => o.status === "New" || o.status === "PartiallyFilled").map((o) => o.id),
    );
  } finally {
    await reader.close();
  }
}

/** /health once it answers 200, within 10 s. */
async function liveOrders(url: string): Promise<number> {
  const end = Date.now() + 10_000;
  for (;;) {
    const r = await fetch(`${url}/health`);
    const body = (await r.json()) as { liveOrders: number };
    if (r.status === 200 || Date.now() > end) return body.liveOrders;
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** The gateway's view of every order the strategy placed agrees with the venue's listing. */
async function agreesWithVenue(s: Strategy, cancelled: Set<number>): Promise<void> {
  const live = await liveAtVenue();
  const views = await s.views();
  for (const [i, n] of s.placed.entries()) {
    const v = views[i]!;
    const ex = s.told.get(n)!.exchangeId;
    expect(v.exchangeId, `#${n}`).toBe(ex);
    expect(live.has(ex), `#${n} live at the venue`).toBe(!cancelled.has(n));
    expect(v.status, `#${n}`).toBe(cancelled.has(n) ? "Cancelled" : "New");
  }
  expect(await liveOrders(rig.gp.httpUrl)).toBe(s.placed.length - cancelled.size);
}

describe("operations: the bounded restart", () => {
  it("restarts from the checkpoint and the journal after it, after a clean stop and a SIGKILL; retention archives what both generations cover", async () => {
    const { gp } = rig;
    const jdir = join(rig.dir, "journal");
    const s = await rig.strategy("desk-cp", { autoReconnect: true });
    const cancelled = new Set<number>();
    const a = await placeResting(s, 8, 0);
    await cancelAll(s, a.slice(0, 2));
    for (const n of a.slice(0, 2)) cancelled.add(n);

    // 1. A clean stop writes the checkpoint to the journal's end.
    let mark = gp.output.length;
    await gp.stop();
    expect(gp.output.slice(mark)).toMatch(/"why":"stop".*journal checkpoint written/);
    expect(existsSync(join(jdir, CHECKPOINT_FILE))).toBe(true);
    const [first] = journalFiles(jdir);
    // Run 1's file is made two days old: past the one-day retention once both generations cover it.
    const old = new Date(Date.now() - 2 * 86_400_000);
    utimesSync(first!, old, old);

    mark = gp.output.length;
    await gp.start();
    expect(gp.output.slice(mark)).toContain("journal checkpoint read");
    await until(() => s.logons >= 2, 10_000, "resumed after the clean stop");
    await agreesWithVenue(s, cancelled);

    const b = await placeResting(s, 4, 8);
    await cancelAll(s, [b[0]!]);
    cancelled.add(b[0]!);
    // Two periodic checkpoints in run 2's file: run 1's file is covered by both, and old: archived.
    await until(() => !existsSync(first!), 10_000, "run 1's journal file pruned");
    expect(readdirSync(archive)).toContain(basename(first!));
    await new Promise((r) => setTimeout(r, 400)); // one more checkpoint, then the tail after it

    // 2. A crash: the periodic checkpoint plus the journal after it.
    const c = await placeResting(s, 2, 12);
    await gp.kill();
    mark = gp.output.length;
    await gp.start();
    const out = gp.output.slice(mark);
    expect(out).toContain("journal checkpoint read");
    expect(out).not.toContain("journal damaged");
    await until(() => s.logons >= 3, 10_000, "resumed after the crash");
    await agreesWithVenue(s, cancelled);
    expect(c.every((n) => s.told.get(n)!.acks === 1)).toBe(true);

    // The session resumed every time: no 104, no sequence gap, no message twice.
    expect(s.resumeLost).toBe(0);
    expect(s.gaps).toEqual([]);
    expect(s.duplicateFills).toBe(0);
    for (const n of s.placed) expect(s.told.get(n)!.acks, `#${n} acked once`).toBe(1);
    // Order numbers continue after the last one used (LogonAck.lastClOrdNo does not go back).
    const d = await placeResting(s, 1, 14);
    expect(d[0]).toBeGreaterThan(Math.max(...c));

    // The tools say what they read: the checkpoint generations, and the files retention took.
    const check = spawnSync(process.execPath, [ensureBuilt(), "replay", "--check", jdir], {
      encoding: "utf8",
    });
    expect(check.status).toBe(0);
    expect(check.stdout).toMatch(/checkpoint\.hgc {2}covers hftgate-\S+ up to byte \d+/);
    expect(check.stdout).toContain(
      `pruned: 1 older journal file(s), up to ${basename(first!)}, were pruned by retention (moved to ${archive})`,
    );
    const replay = spawnSync(process.execPath, [ensureBuilt(), "replay", jdir], { encoding: "utf8" });
    expect(replay.status).toBe(0);
    expect(replay.stderr).toContain("were pruned by retention");
  }, 90_000);
});
