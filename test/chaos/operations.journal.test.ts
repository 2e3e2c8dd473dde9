/**
 * Operational truth, the journal's faults, with real processes (`hftgate sim` as the venue, `hftgate
 * start` against it): (a) a byte flipped in the middle of the journal refuses the start naming file and
 * offset (and `hftgate replay --check` finds it); `--recover-from-venue` moves the damaged files aside
 * untouched and starts, the orders of the journal's readable part known again and every order still
 * live at the venue; (b) a second `hftgate start` on the same journal directory or state file is
 * refused naming the first, which stays healthy and keeps its state file; (c) a journal written
 * against one venue is refused by a start against another.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyPair } from "../../src/auth/keys.js";
import { BINARY_MAGIC, frameEnd, journalFiles, readJournal } from "../../src/journal/index.js";
import { ensureBuilt, GatewayProcess } from "./harness/child.js";
import { ADMIN_TOKEN } from "./harness/engineRig.js";
import { VenueReader } from "./harness/listings.js";
import {
  freePort,
  gatewayConfig,
  instrumentIds,
  type ProcessRig,
  startProcessRig,
} from "./harness/processRig.js";
import { SimProcess } from "./harness/simProcess.js";
import type { Strategy } from "./harness/strategy.js";
import { newKeys, secretHex, until } from "./harness/venue.js";

let keys: KeyPair;
/** The venue the gateway trades at, and another one (same account key) for (c). */
let venue: SimProcess;
let other: SimProcess;

beforeAll(async () => {
  keys = newKeys();
  [venue, other] = await Promise.all([
    SimProcess.start({ seed: 31, apiKeys: [keys.apiKey] }),
    SimProcess.start({ seed: 32, apiKeys: [keys.apiKey] }),
  ]);
}, 30_000);
afterAll(async () => {
  await venue?.stop();
  await other?.stop();
});

/** Resting buys (well below any ask: nothing trades), alternating Spot and HFT; resolves once all are acked. */
async function placeResting(s: Strategy, n: number): Promise<number[]> {
  const ids = await instrumentIds(s);
  const placed: number[] = [];
  for (let i = 0; i < n; i++)
    placed.push(
      i % 2 === 0
        ? s.place(ids.spot, "buy", 5_000_000 - i * 100, 100)
        : s.place(ids.hft, "buy", 300_000 - i * 100, 5),
    );
  await until(() => placed.every((n) => s.told.get(n)!.acks === 1), 10_000, "acks");
  return placed;
}

async function health(gp: GatewayProcess): Promise<{ status: number; liveOrders: number }> {
  const r = await fetch(`${gp.httpUrl}/health`);
  const body = (await r.json()) as { liveOrders: number };
  return { status: r.status, liveOrders: body.liveOrders };
}

/** /health once it answers 200 (reconciled with the venue), within 10 s. */
async function healthy(gp: GatewayProcess): Promise<{ status: number; liveOrders: number }> {
  const end = Date.now() + 10_000;
  for (;;) {
    const h = await health(gp);
    if (h.status === 200 || Date.now() > end) return h;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts the process; resolves with its exit output when it refuses (exits before its banner). */
async function refusedStart(gp: GatewayProcess, args: string[] = []): Promise<string> {
  const before = gp.output.length;
  try {
    await gp.start(15_000, args);
  } catch (e) {
    expect(String(e)).toContain("gateway exited early (2)");
    return gp.output.slice(before);
  }
  await gp.stop();
  throw new Error("the start was not refused");
}

/** The exchange ids the venue lists as live (New or PartiallyFilled). */
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

describe("operations: the journal", () => {
  let rig: ProcessRig;

  beforeAll(async () => {
    rig = await startProcessRig({ baseUrl: venue.baseUrl, keys }, { prefix: "journal" });
  }, 30_000);
  afterAll(async () => {
    await rig?.close();
  });

  it("(b) a second start on the same journal or state file is refused naming the first; the first stays healthy", async () => {
    const { gp, dir } = rig;
    const s = await rig.strategy("desk-b");
    await placeResting(s, 2);
    const stateFile = join(dir, "gateway.json");
    const state = readFileSync(stateFile, "utf8");
    const firstPid = gp.pid!;
    const firstPort = Number(new URL(gp.httpUrl).port);
    // Same journal and state file, another port (so only the locks can refuse it).
    const cfg2 = join(dir, "second.json");
    const base = gatewayConfig(venue.baseUrl, dir, await freePort());
    writeFileSync(cfg2, JSON.stringify(base));
    const second = new GatewayProcess(cfg2, { HFTGATE_SECRET_KEY: secretHex(keys) });
    const out = await refusedStart(second);
    expect(out).toContain(
      `state file ${stateFile} is in use by another hftgate process (pid ${firstPid}, port ${firstPort}`,
    );
    // Its own state file, the same journal: the journal directory's lock refuses it.
    writeFileSync(cfg2, JSON.stringify({ ...base, engine: { stateFile: join(dir, "second-state.json") } }));
    const out2 = await refusedStart(second);
    expect(out2).toContain(
      `journal directory ${join(dir, "journal")} is in use by another hftgate process (pid ${firstPid}, port ${firstPort}`,
    );
    expect(readdirSync(dir)).not.toContain("second-state.json");
    // The first: healthy, trading, its state file untouched.
    expect(readFileSync(stateFile, "utf8")).toBe(state);
    expect((await healthy(gp)).status).toBe(200);
    expect((await placeResting(s, 2)).length).toBe(2);
  }, 60_000);

  it("(a) a byte flipped mid-journal refuses the start naming file and offset; --recover-from-venue moves it aside and starts", async () => {
    const { gp, dir } = rig;
    const s = await rig.strategy("desk-a");
    const early = await placeResting(s, 6);
    const late = await placeResting(s, 6);
    const exIds = [...early, ...late].map((n) => s.told.get(n)!.exchangeId);
    const lastEarly = Math.max(...early);
    await s.close();
    await gp.kill(); // a crash: the lock file stays behind (taken over at the next start)

    // Flip one byte inside the first record after desk-a's early orders were fully journaled.
    const jdir = join(dir, "journal");
    const [file] = journalFiles(jdir);
    const recs = readJournal(file!).records;
    const buf = readFileSync(file!);
    const starts: number[] = [];
    for (let off = BINARY_MAGIC.length; off < buf.length; off = frameEnd(buf, off) as number)
      starts.push(off);
    const lateCmd = recs.findIndex(
      (r) =>
        r.k === "cmd" &&
        r.op === "new" &&
        r.session === "desk-a" &&
        r.reason?.startsWith(`no=${lastEarly + 1};`),
    );
    expect(lateCmd).toBeGreaterThan(0);
    const at = starts[lateCmd]!;
    expect(recs.length - lateCmd).toBeGreaterThan(20); // mid-journal: the late orders' records follow it
    buf[at + 40] ^= 0x20;
    writeFileSync(file!, buf);
    const damagedBytes = Buffer.from(buf);

    // The start is refused, naming the file and the offset; nothing is moved.
    const out = await refusedStart(gp);
    expect(out).toContain(
      `journal damaged: ${file} at byte ${at} (a CRC mismatch): ${lateCmd} records before it`,
    );
    expect(readdirSync(jdir).some((n) => n.startsWith("damaged-"))).toBe(false);
    // replay --check finds the same damage.
    const check = spawnSync(process.execPath, [ensureBuilt(), "replay", "--check", jdir], {
      encoding: "utf8",
    });
    expect(check.status).toBe(1);
    expect(check.stdout).toContain(`DAMAGED: ${file} at byte ${at}`);

    // The explicit recovery: the damaged file moved aside byte for byte, the gateway up and ready.
    await gp.start(15_000, ["--recover-from-venue"]);
    const aside = readdirSync(jdir).filter((n) => n.startsWith("damaged-"));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(jdir, aside[0]!, file!.slice(jdir.length + 1)))).toEqual(damagedBytes);
    expect(gp.output).toContain(`journal damaged: 1 file(s) moved to ${join(jdir, aside[0]!)}`);
    const h = await healthy(gp);
    expect(h.status).toBe(200);

    // Every order is still live at the venue; the journal's readable part is known again to its session.
    const live = await liveAtVenue();
    for (const id of exIds) expect(live.has(id)).toBe(true);
    const back = await rig.strategy("desk-a");
    // Its numbering does not go back: the numbers the moved-aside records used are not accepted again.
    expect(back.client.lastClOrdNo).toBe(Math.max(...late));
    for (const n of early) {
      const rows = await back.client.query(n);
      expect(rows.map((r) => r.exchangeOrderId)).toEqual([s.told.get(n)!.exchangeId]);
    }
    // The orders journaled after the damage are the venue's to tell (the restart reports them).
    expect(h.liveOrders).toBeGreaterThanOrEqual(early.length);
    const admin = await fetch(`${gp.httpUrl}/admin/state`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(admin.status).toBe(200);
  }, 60_000);

  it("(c) a journal written against one venue is refused by a start against another", async () => {
    const { gp, dir, cfgFile } = rig;
    await gp.stop();
    const jdir = join(dir, "journal");
    const before = readdirSync(jdir).sort();
    const cfg = JSON.parse(readFileSync(cfgFile, "utf8")) as Record<string, Record<string, unknown>>;
    const moved = {
      ...cfg,
      venue: {
        ...cfg.venue,
        spotBaseUrl: other.baseUrl,
        hftBaseUrl: other.baseUrl,
        streamUrl: other.baseUrl,
      },
    };
    writeFileSync(cfgFile, JSON.stringify(moved));
    const out = await refusedStart(gp);
    expect(out).toContain(
      `journal ${jdir} belongs to venue exchange at ${new URL(venue.baseUrl).origin}, account `,
    );
    expect(out).toContain(`not to this start's venue exchange at ${new URL(other.baseUrl).origin}`);
    expect(out).not.toContain(secretHex(keys));
    expect(readdirSync(jdir).sort()).toEqual(before);
  }, 60_000);
});
