/**
 * Restart = resume at the gateway level: a gateway built on the journal of an earlier one continues
 * its named sessions (ids, seq, resume ring, privilege). The real process killed with SIGKILL is in
 * test/e2e/resumeRestart.test.ts; here the gateway is stopped and rebuilt in-process, which lets the
 * replayed frames be compared with the journal's copy field by field.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GatewayClient, LogonRejectedError } from "../../src/client/client.js";
import type { Gateway, GatewayConfig } from "../../src/gateway/gateway.js";
import { type RestoreOptions, restoreSessions } from "../../src/gateway/restore.js";
import { listJournals, readJournal } from "../../src/journal/reader.js";
import { Journal } from "../../src/journal/writer.js";
import { decodeG2C, type G2CMessage } from "../../src/protocol/codec.js";
import { CODES, LogonOptions, Side } from "../../src/protocol/schema.js";
import { LIMIT_ORDER, startJournaledGateway, startTestGateway, TOKEN, waitFor } from "./helpers.js";
import type { TestEngine } from "./testEngine.js";

const ADMIN = "admin-token-0123456789";
const order = LIMIT_ORDER;

let dir = "";
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of stops.splice(0).reverse()) await f().catch(() => {});
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

async function run(
  extra: Partial<GatewayConfig> = {},
): Promise<{ gw: Gateway; engine: TestEngine; j: Journal }> {
  const r = await startJournaledGateway(dir, {}, { adminToken: ADMIN, ...extra });
  stops.push(r.stop);
  return r;
}
async function stop(gw: Gateway, j: Journal): Promise<void> {
  await gw.close();
  await j.close();
}

function restore(over: Partial<RestoreOptions> = {}) {
  return restoreSessions(listJournals(dir), {
    resumeRing: 4096,
    sessionRetentionMs: 60_000,
    maxRetainedSessions: 100,
    nowMs: Date.now(),
    ...over,
  });
}

function open(
  gw: Gateway,
  name: string,
  extra: { lastSeq?: number; token?: string; logonOptions?: number } = {},
) {
  const c = new GatewayClient({
    url: `ws://127.0.0.1:${gw.port}`,
    token: extra.token ?? TOKEN,
    sessionName: name,
    lastSeq: extra.lastSeq,
    logonOptions: extra.logonOptions ?? 0,
  });
  const got: G2CMessage[] = [];
  c.on("message", (m) => {
    if (m.header.seq !== 0) got.push(m);
  });
  const gaps: number[][] = [];
  c.on("gap", (a, b) => gaps.push([a, b]));
  return { c, got, gaps };
}

/** A fill the engine found for an order of the earlier run (the test engine of this run never saw it). */
function due(gw: Gateway, sid: number): void {
  gw.send(sid, "Fill", {
    clOrdNo: 3,
    instrumentId: 1,
    side: Side.Buy,
    liquidity: 1,
    execId: "e3",
    priceTicks: 100,
    qtyLots: 1,
    feeMantissa: -1,
    feeExponent: -4,
    feeAsset: "USDT",
    exchangeTimeMs: Date.now(),
  });
  gw.send(sid, "Credit", { bucket: 1, remaining: 1, capacity: 50, resetInMs: 0 });
}

/** The frames journaled for a session, decoded. */
function journaled(name: string): G2CMessage[] {
  const out: G2CMessage[] = [];
  for (const f of listJournals(dir))
    for (const r of readJournal(f).records)
      if (r.k === "out" && r.session === name) {
        const m = decodeG2C(r.frame);
        if (m.name !== undefined) out.push(m);
      }
  return out;
}

/** First run: "keeper" gets 3 orders (6 messages), disconnects, then 2 fills arrive for it (4 more). */
async function firstRun(): Promise<number> {
  dir = mkdtempSync(join(tmpdir(), "hftgate-gw-restart-"));
  const { gw, engine, j } = await run();
  const k = open(gw, "keeper");
  await k.c.connect();
  for (let i = 0; i < 3; i++) k.c.placeOrder(order);
  await waitFor(() => k.got.length === 6);
  await k.c.close();
  await waitFor(() => engine.disconnects.length === 1);
  engine.fill(k.c.sessionId, 1, 2, "e1");
  engine.fill(k.c.sessionId, 2, 5, "e2");
  // An anonymous logon: its id must not be given out again after the restart.
  const anon = open(gw, "");
  await anon.c.connect();
  await anon.c.close();
  await waitFor(() => gw.counts().sessions === 1);
  await stop(gw, j);
  return k.c.sessionId;
}

describe("restart = resume (gateway on the journal of an earlier run)", () => {
  it("continues a named session: the resume replays exactly the missed frames as journaled, new messages follow", async () => {
    const sid = await firstRun();
    const r = restore();
    expect(r.sessions.map((s) => [s.name, s.sessionId, s.nextSeq, s.frames.length])).toEqual([
      ["keeper", sid, 11, 10],
    ]);
    expect(r.maxSessionId).toBe(2);
    const { gw } = await run({ restored: r });
    expect(gw.counts()).toMatchObject({ sessions: 1, connected: 0, retained: 1 });
    // Messages due for the session before it logs on again (e.g. a fill found at start-up).
    expect(gw.sessionIdOf("keeper")).toBe(sid);
    due(gw, sid);
    const k = open(gw, "keeper", { lastSeq: 6 });
    const ack = await k.c.connect();
    expect(ack).toMatchObject({ resumed: 1, replayFromSeq: 7, replayCount: 6, nextSeq: 13 });
    await waitFor(() => k.got.length === 6);
    k.c.placeOrder(order);
    await waitFor(() => k.got.length === 8);
    expect(k.got.map((m) => m.header.seq)).toEqual([7, 8, 9, 10, 11, 12, 13, 14]);
    expect(k.got.slice(0, 4).map((m) => m.name)).toEqual(["Fill", "OrderUpdate", "Fill", "OrderUpdate"]);
    // Replayed frames are the journaled ones: same header (session id, seq, timestamps) and body.
    const j = journaled("keeper").filter((m) => m.header.seq >= 7 && m.header.seq <= 12);
    expect(k.got.slice(0, 6)).toEqual(j);
    expect(k.got.every((m) => m.header.sessionId === sid)).toBe(true);
    expect(k.gaps).toEqual([]);
    expect(k.c.duplicates).toBe(0);
    // Session ids continue above every earlier one, anonymous ones included.
    const a = open(gw, "");
    await a.c.connect();
    expect(a.c.sessionId).toBe(3);
    await a.c.close();
    await k.c.close();
  });

  it("a logon without resume after the restart still gets what was sequenced for it since, and nothing older", async () => {
    const sid = await firstRun();
    const { gw } = await run({ restored: restore() });
    due(gw, sid); // seq 11, 12
    const k = open(gw, "keeper");
    const ack = await k.c.connect();
    expect(ack).toMatchObject({ resumed: 1, replayFromSeq: 11, replayCount: 2, nextSeq: 13 });
    await waitFor(() => k.got.length === 2);
    expect(k.got.map((m) => [m.name, m.header.seq])).toEqual([
      ["Fill", 11],
      ["Credit", 12],
    ]);
    await k.c.close();
  });

  it("refuses a resume the journal no longer holds for it: older than the ring, or the session past its retention", async () => {
    await firstRun();
    const small = await run({ restored: restore({ resumeRing: 3 }), resumeRing: 3 });
    const late = open(small.gw, "keeper", { lastSeq: 6 });
    await expect(late.c.connect()).rejects.toMatchObject({ code: CODES.ResumeOutOfRange.code });
    const inRange = open(small.gw, "keeper", { lastSeq: 7 });
    await expect(inRange.c.connect()).resolves.toMatchObject({ replayFromSeq: 8, replayCount: 3 });
    await inRange.c.close();
    await stop(small.gw, small.j);
    // A day later (retention 60 s here): the session is not restored; a resume is refused.
    const expired = restore({ nowMs: Date.now() + 120_000 });
    expect(expired.sessions).toEqual([]);
    const { gw } = await run({ restored: expired });
    const gone = open(gw, "keeper", { lastSeq: 6 });
    const err = await gone.c.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LogonRejectedError);
    expect((err as LogonRejectedError).code).toBe(CODES.ResumeOutOfRange.code);
  });

  it("keeps a restored session's privilege level: its name cannot be taken with the other token", async () => {
    dir = mkdtempSync(join(tmpdir(), "hftgate-gw-restart-"));
    const one = await run();
    const boss = open(one.gw, "boss", { token: ADMIN });
    await boss.c.connect();
    await boss.c.close();
    await waitFor(() => one.gw.counts().connected === 0);
    await stop(one.gw, one.j);
    const r = restore();
    expect(r.sessions.map((s) => [s.name, s.admin])).toEqual([["boss", true]]);
    const { gw } = await run({ restored: r });
    const thief = open(gw, "boss");
    await expect(thief.c.connect()).rejects.toMatchObject({ code: CODES.SessionInUse.code });
    const back = open(gw, "boss", { token: ADMIN });
    await expect(back.c.connect()).resolves.toMatchObject({ resumed: 1 });
    await back.c.close();
  });

  it("keeps a restored session's Logon options (its latest logon's) until it logs on again", async () => {
    dir = mkdtempSync(join(tmpdir(), "hftgate-gw-restart-"));
    const one = await run();
    const loud = open(one.gw, "quiet", { logonOptions: LogonOptions.None }).c;
    await loud.connect();
    await loud.close();
    const quiet = open(one.gw, "quiet", { logonOptions: LogonOptions.NoPendingUpdates }).c;
    await quiet.connect();
    await quiet.close();
    await waitFor(() => one.gw.counts().connected === 0);
    await stop(one.gw, one.j);
    const r = restore();
    expect(r.sessions.map((s) => [s.name, s.options])).toEqual([["quiet", LogonOptions.NoPendingUpdates]]);
    const { gw } = await run({ restored: r });
    const sid = r.sessions[0]!.sessionId;
    expect(gw.session(sid)?.options).toBe(LogonOptions.NoPendingUpdates);
    const again = open(gw, "quiet", { logonOptions: LogonOptions.None }).c;
    await again.connect();
    expect(gw.session(sid)?.options).toBe(LogonOptions.None);
    await again.close();
  });

  it("holds sequenced frames until the journal says they are durable, then sends them in order", async () => {
    // A journal double whose durability the test controls (as an fdatasync in flight under "every").
    let durable = false;
    const waiting: (() => void)[] = [];
    const journal = {
      out: () => 0,
      session: () => 0,
      flushSync: () => durable,
      onDurable: (cb: () => void) => {
        if (durable) cb();
        else waiting.push(cb);
      },
    };
    const { gw, engine } = await startTestGateway("auto", { journal });
    stops.push(() => gw.close());
    const k = open(gw, "held");
    durable = true;
    await k.c.connect();
    durable = false;
    for (let i = 0; i < 3; i++) k.c.placeOrder(order);
    await waitFor(() => engine.calls.length === 3);
    // Barrier: a LogonReject on another connection (no session: never held) goes out after them.
    const other = open(gw, "x", { token: "not-the-token" });
    const err = await other.c.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LogonRejectedError);
    expect(k.got).toEqual([]);
    expect(waiting.length).toBe(1);
    durable = true;
    for (const cb of waiting.splice(0)) cb();
    await waitFor(() => k.got.length === 6);
    expect(k.got.map((m) => m.header.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    await k.c.close();
  });

  for (const fsync of ["none", "every"] as const) {
    it(`a frame reaches the strategy only once the journal holds it (fsync ${fsync})`, async () => {
      dir = mkdtempSync(join(tmpdir(), "hftgate-gw-restart-"));
      const j = Journal.open({ dir, fsync });
      const { gw } = await startTestGateway("auto", { journal: j });
      stops.push(async () => {
        await gw.close();
        await j.close();
      });
      const k = open(gw, "durable");
      const inFileAtReceipt: boolean[] = [];
      k.c.on("message", (m) => {
        if (m.header.seq === 0) return;
        const seqs = readJournal(j.path)
          .records.filter((r) => r.k === "out")
          .map((r) => {
            const d = decodeG2C((r as { frame: Buffer }).frame);
            return d.name === undefined ? -1 : d.header.seq;
          });
        inFileAtReceipt.push(seqs.includes(m.header.seq));
      });
      await k.c.connect();
      for (let i = 0; i < 5; i++) k.c.placeOrder(order);
      await waitFor(() => inFileAtReceipt.length === 10);
      expect(inFileAtReceipt).toEqual(Array(10).fill(true));
      if (fsync === "every") expect(j.stats.syncs).toBeGreaterThan(0);
      await k.c.close();
    });
  }
});
