/**
 * The engine's parts, each through its constructor with real collaborators: the order store, the risk
 * gate, the rate limiter and a journal in a temp directory. Nothing here reaches a venue: the paths
 * tested stop before a request would be sent (refusals) or are driven through the store's REST outcomes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { generateKeyHex } from "../../src/auth/keygen.js";
import { loadKeyPair } from "../../src/auth/keys.js";
import { Engine } from "../../src/engine/engine.js";
import { InstrumentBook } from "../../src/engine/instruments.js";
import { EngineMetrics } from "../../src/engine/metrics.js";
import type { SessionInfo, SessionSink } from "../../src/gateway/engineApi.js";
import { readJournal } from "../../src/journal/reader.js";
import { REFUSED_LOCALLY } from "../../src/journal/records.js";
import { Journal } from "../../src/journal/writer.js";
import { DEFAULT_LIMIT_TABLE, RateLimiter } from "../../src/limits/index.js";
import { Status } from "../../src/orders/index.js";
import { CODES, OrdType, Side, Tif } from "../../src/protocol/schema.js";
import { RiskGate } from "../../src/risk/riskGate.js";
import { createRestStack } from "../../src/venue/stack.js";
import { buildSurfaces } from "../../src/venue/surfaces.js";
import { BTCUSDT } from "../fixtures/instruments.js";

const silent = pino({ level: "silent" });
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A session sink that records what each session was sent, and the journal size at each send. */
function recordingSink(sessions: SessionInfo[], journal?: Journal) {
  const sent: { sid: number; name: string; body: Record<string, unknown>; journaled: number }[] = [];
  const sink: SessionSink = {
    send: (sid, name, body) => {
      sent.push({
        sid,
        name,
        body: { ...body } as Record<string, unknown>,
        journaled: journal?.stats.records ?? 0,
      });
      return 1;
    },
    broadcast: (name, body) => {
      for (const s of sessions) sink.send(s.sessionId, name as never, body as never);
      return sessions.length;
    },
    cork: (_id, fn) => fn(),
    session: (id) => sessions.find((s) => s.sessionId === id),
    sessions: () => sessions,
  };
  return { sink, sent };
}

function session(sessionId: number, name: string): SessionInfo {
  return { sessionId, name, admin: false, codPolicy: 0, heartbeatMs: 1000, connected: true } as SessionInfo;
}

function build(opts: { limiter?: RateLimiter; journal?: Journal; sweep?: () => void } = {}) {
  const book = new InstrumentBook();
  const e = book.add(BTCUSDT);
  const risk = new RiskGate({ priceBandBps: 0 });
  risk.addInstrument(e.inst);
  // A real REST client that is never started: every path tested stops before a request is sent.
  const rest = createRestStack({
    keys: loadKeyPair(generateKeyHex().secretKey),
    spotBaseUrl: "http://127.0.0.1:9",
    hftBaseUrl: "http://127.0.0.1:9",
    presign: false,
    clock: false,
  });
  const engine = new Engine({
    client: rest.client,
    instruments: book,
    risk,
    limiter: opts.limiter,
    journal: opts.journal,
    metrics: new EngineMetrics(),
    log: silent,
    options: {
      venue: { hftCategories: ["linear"] },
      orders: { hftQueryAfterAck: true },
      limits: { createWaitMs: 0, cancelWaitMs: 0 },
    },
    surfaces: buildSurfaces(rest.client, book, {
      venue: { hftCategories: ["linear"], hftAmendBy: "orderId", futuresPollMs: 3_000 },
      orders: { spotExpirySeconds: 0 },
    }),
    links: { venueSweep: opts.sweep },
  });
  return { engine, book, risk, inst: e.inst, rest };
}

const order = (instrumentId: number, clOrdNo: number, priceTicks = 600_000) => ({
  clOrdNo,
  instrumentId,
  side: Side.Buy,
  ordType: OrdType.Limit,
  tif: Tif.GTC,
  positionIdx: 0,
  priceTicks,
  qtyLots: 1,
});

describe("owners and the outbox", () => {
  it("keys owners by session name across sessions, keeps messages for an absent owner and delivers them at logon", async () => {
    const { engine, rest } = build();
    const s1 = session(7, "alpha");
    const { sink, sent } = recordingSink([s1]);
    engine.attach(sink);
    const owners = engine.owners;
    expect(owners.ownerOf("alpha")).toBe(owners.ownerOf("alpha"));
    expect(owners.ownerOf("beta")).not.toBe(owners.ownerOf("alpha"));
    // An order of "beta", who has no session (as after a restart): its messages wait in the outbox.
    const o = engine.store.create({
      sessionId: owners.ownerOf("beta"),
      clientOrderNo: 1,
      instrumentId: 1,
      symbol: "BTCUSDT",
      surface: "hft",
      side: "buy",
      type: "limit",
      tif: "GTC",
      positionIdx: 0,
      priceTicks: 600_000,
      qtyLots: 1,
    });
    owners.toOwner(o, "CancelReject", { clOrdNo: 1, reason: 4, exchangeOrderId: "", text: "x" } as never);
    expect(sent.length).toBe(0);
    // Owed: the order stays known (the store's forget sweep asks owes()).
    expect(owners.owes(owners.ownerOf("beta"), 1)).toBe(true);
    expect(owners.owes(owners.ownerOf("beta"), 2)).toBe(false);
    expect(owners.owes(owners.ownerOf("alpha"), 1)).toBe(false);
    const s2 = session(8, "beta");
    engine.onLogon(s2, false);
    expect(sent.filter((m) => m.sid === 8).map((m) => m.name)).toContain("CancelReject");
    expect(owners.owes(owners.ownerOf("beta"), 1)).toBe(false);
    expect(owners.sid(o)).toBe(8);
    await rest.stop();
  });
});

describe("notifier: the store's create answers become Ack / OutcomeUnknown / Reject", () => {
  it("OutcomeUnknown once, then Ack on the answer; an order not taken from a strategy gets updates only", async () => {
    const { engine, inst, rest } = build();
    const s = session(3, "n");
    const { sink, sent } = recordingSink([s]);
    engine.attach(sink);
    const owner = engine.owners.bind(s);
    const o = engine.store.create({
      sessionId: owner,
      clientOrderNo: 5,
      instrumentId: inst.id,
      symbol: inst.symbol,
      surface: "hft",
      side: "buy",
      type: "limit",
      tif: "GTC",
      positionIdx: 0,
      priceTicks: 600_000,
      qtyLots: 1,
    });
    engine.notifier.expectAnswer(o.clientId, 0);
    engine.store.markSent(o.clientId);
    engine.store.createUnknown(o.clientId);
    engine.store.markSent(o.clientId); // a same-id resend: nothing new to tell
    engine.store.createUnknown(o.clientId);
    engine.store.ackCreate(o.clientId, "ex-1");
    expect(sent.map((m) => m.name)).toEqual(["OutcomeUnknown", "Ack"]);
    expect(engine.unanswered).toBe(0);
    await rest.stop();
  });

  it("a rejected create is answered with Reject (VenueRejected) unless the command path already told why", async () => {
    const { engine, inst, rest } = build();
    const s = session(4, "r");
    const { sink, sent } = recordingSink([s]);
    engine.attach(sink);
    const owner = engine.owners.bind(s);
    const mk = (no: number) =>
      engine.store.create({
        sessionId: owner,
        clientOrderNo: no,
        instrumentId: inst.id,
        symbol: inst.symbol,
        surface: "hft",
        side: "buy",
        type: "limit",
        tif: "GTC",
        positionIdx: 0,
        priceTicks: 600_000,
        qtyLots: 1,
      });
    const a = mk(1);
    const b = mk(2);
    engine.notifier.expectAnswer(a.clientId, 0);
    engine.notifier.expectAnswer(b.clientId, 0);
    engine.notifier.answeredLocally(b.clientId);
    engine.store.rejectCreate(a.clientId, "insufficient");
    engine.store.rejectCreate(b.clientId, "throttled");
    expect(sent.map((m) => [m.name, m.body.clOrdNo])).toEqual([["Reject", 1]]);
    expect(sent[0]!.body.code).toBe(CODES.VenueRejected.code);
    expect(a.status).toBe(Status.Rejected);
    await rest.stop();
  });
});

describe("create path: local refusals", () => {
  it("a create refused by the rate limiter is journaled as REFUSED_LOCALLY before the Reject is sent", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hftgate-parts-"));
    dirs.push(dir);
    const journal = Journal.open({ dir, fsync: "none" });
    const limiter = new RateLimiter({ table: DEFAULT_LIMIT_TABLE });
    while (limiter.acquire("hft.create", "create", 0).status === "granted");
    const { engine, inst, rest } = build({ limiter, journal });
    const s = session(5, "limited");
    const { sink, sent } = recordingSink([s], journal);
    engine.attach(sink);
    engine.onNewOrder(s, order(inst.id, 1) as never, 0);
    const reject = sent.find((m) => m.name === "Reject")!;
    expect(reject.body.code).toBe(CODES.RateLimited.code);
    await journal.close();
    const recs = readJournal(journal.path).records;
    const res = recs.find((r) => r.k === "res");
    expect(res).toMatchObject({ op: "create", status: REFUSED_LOCALLY });
    // The Reject went out after both the command and the refusal were in the journal.
    expect(reject.journaled).toBe(recs.indexOf(res!) + 1);
    const o = engine.store.bySessionOrder(engine.ownerOf("limited"), 1)!;
    expect(o.status).toBe(Status.Rejected);
    expect(o.sends).toBe(0);
    limiter.close();
    await rest.stop();
  });
});

describe("control: the kill switch", () => {
  it("halts trading, journals the state, tells every session and sweeps the venue", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hftgate-parts-"));
    dirs.push(dir);
    const journal = Journal.open({ dir, fsync: "none" });
    let swept = 0;
    const { engine, risk, rest } = build({ journal, sweep: () => swept++ });
    const sessions = [session(1, "a"), session(2, "b")];
    const { sink, sent } = recordingSink(sessions);
    engine.attach(sink);
    expect(engine.kill("test")).toBe(0);
    expect(risk.state).toBe("halted");
    expect(swept).toBe(1);
    expect(sent.filter((m) => m.name === "TradingState").map((m) => m.sid)).toEqual([1, 2]);
    await journal.close();
    const states = readJournal(journal.path).records.filter((r) => r.k === "cmd" && r.op === "state");
    expect(states.map((r) => (r as { reason?: string }).reason)).toEqual(["halted"]);
    await rest.stop();
  });
});
