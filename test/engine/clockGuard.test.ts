/**
 * The create path and the venue's 401, over a real socket to a small venue stand-in that verifies
 * signatures and the epoch window: a 401 the clock explains is the retryable ClockSkew and holds
 * signing (later orders refused before anything is created); a 401 the clock does not explain (a key
 * or signature problem) stays the venue's non-retryable reject and signing goes on. Either way the
 * refused create is journaled as the venue's 401: a definite reject, never re-sent after a restart.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
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
import { Journal } from "../../src/journal/writer.js";
import { Status } from "../../src/orders/index.js";
import { CODES, OrdType, Side, Tif } from "../../src/protocol/schema.js";
import { RiskGate } from "../../src/risk/riskGate.js";
import { createRestStack, type RestStack } from "../../src/venue/stack.js";
import { buildSurfaces } from "../../src/venue/surfaces.js";
import { BTCUSDT } from "../fixtures/instruments.js";
import { closeServer, envelope, json, startServer } from "../rest/helpers.js";

const keys = loadKeyPair(generateKeyHex().secretKey);
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Venue {
  server: Server;
  url: string;
  /** Venue clock minus ours (ms). */
  skew: number;
  /** Refuse every signed request (a revoked key). */
  badKey: boolean;
  creates: number;
}

/** A venue whose clock is `skew` ms ahead; it answers 401 to an epoch more than 60 s off its clock. */
async function startVenue(): Promise<Venue> {
  const v = { skew: 0, badKey: false, creates: 0 } as Venue;
  const s = await startServer(keys.apiKey, (req, res) => {
    const path = req.url.split("?")[0];
    if (path === "/trade/api/v2/time") return json(res, 200, { serverTime: Date.now() + v.skew });
    const epoch = Number(req.headers["x-auth-epoch"]);
    if (path === "/v5/order/create") v.creates++;
    if (v.badKey || !req.sigOk || Math.abs(epoch - (Date.now() + v.skew)) > 60_000)
      return json(res, 401, { message: "Invalid Access" });
    if (path === "/v5/order/create") {
      const b = JSON.parse(req.body);
      return json(res, 200, envelope({ orderId: `oid-${v.creates}`, orderLinkId: b.orderLinkId }));
    }
    return json(res, 404, { message: "not found" });
  });
  v.server = s.server;
  v.url = s.url;
  cleanups.push(() => closeServer(s.server));
  return v;
}

async function build(v: Venue) {
  const dir = mkdtempSync(join(tmpdir(), "hftgate-clockguard-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const journal = Journal.open({ dir, fsync: "none" });
  cleanups.push(() => journal.close());
  const book = new InstrumentBook();
  const e = book.add(BTCUSDT);
  const risk = new RiskGate({ priceBandBps: 0 });
  risk.addInstrument(e.inst);
  const rest: RestStack = createRestStack({
    keys,
    spotBaseUrl: v.url,
    hftBaseUrl: v.url,
    presign: false,
    http: { connections: 1, prewarm: 1 },
    clock: { samples: 3, resyncMs: 0, recheckMs: 20, recheckMaxMs: 40, onWarn: () => {} },
  });
  await rest.start();
  cleanups.push(() => rest.stop());
  rest.client.setGrid("hft", "BTCUSDT", e.orderGrid);
  const engine = new Engine({
    client: rest.client,
    instruments: book,
    risk,
    limiter: undefined,
    journal,
    metrics: new EngineMetrics(),
    log: pino({ level: "silent" }),
    options: {
      venue: { hftCategories: ["linear"] },
      orders: { hftQueryAfterAck: false },
      limits: { createWaitMs: 0, cancelWaitMs: 0 },
    },
    surfaces: buildSurfaces(rest.client, book, {
      venue: { hftCategories: ["linear"], hftAmendBy: "orderId", futuresPollMs: 3_000 },
      orders: { spotExpirySeconds: 0 },
    }),
    clock: rest.clock,
  });
  const s = { sessionId: 1, name: "alpha", admin: false, codPolicy: 0, heartbeatMs: 1000, connected: true };
  const sent: { name: string; body: Record<string, unknown> }[] = [];
  const sink: SessionSink = {
    send: (_sid, name, body) => {
      sent.push({ name, body: { ...body } as Record<string, unknown> });
      return 1;
    },
    broadcast: () => 1,
    cork: (_id, fn) => fn(),
    session: () => s as SessionInfo,
    sessions: () => [s as SessionInfo],
  };
  engine.attach(sink);
  let no = 0;
  const place = (): number => {
    const clOrdNo = ++no;
    engine.onNewOrder(
      s as SessionInfo,
      {
        clOrdNo,
        instrumentId: e.inst.id,
        side: Side.Buy,
        ordType: OrdType.Limit,
        tif: Tif.GTC,
        positionIdx: 0,
        priceTicks: 600_000,
        qtyLots: 1,
        flags: 0,
      } as never,
      0,
    );
    return clOrdNo;
  };
  const answer = async (clOrdNo: number) => {
    const end = Date.now() + 3_000;
    for (;;) {
      const m = sent.find(
        (x) => (x.name === "Reject" || x.name === "Ack") && (x.body.clOrdNo as number) === clOrdNo,
      );
      if (m !== undefined) return m;
      if (Date.now() > end) throw new Error(`no answer for #${clOrdNo}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const journaled = async () => {
    await journal.flush();
    return readJournal(journal.path).records;
  };
  return {
    engine,
    rest,
    place,
    answer,
    journaled,
    order: (n: number) => engine.store.bySessionOrder(engine.ownerOf("alpha"), n),
  };
}

describe("create path: the venue's 401 and the clock", () => {
  it("a 401 the clock explains: ClockSkew (retryable), journaled as the venue's 401; later creates refused before anything is created", async () => {
    const v = await startVenue();
    const g = await build(v);
    const ok = g.place();
    expect((await g.answer(ok)).name).toBe("Ack");
    v.skew = 90_000;
    const first = g.place();
    const r = (await g.answer(first)).body;
    expect([r.code, r.retryable]).toEqual([CODES.ClockSkew.code, 1]);
    expect(String(r.text)).toMatch(/401/);
    expect(g.order(first)!.status).toBe(Status.Rejected);
    expect(g.rest.clock!.state).toBe("refuse");
    const creates = v.creates;
    const second = g.place();
    const r2 = (await g.answer(second)).body;
    expect([r2.code, r2.retryable]).toEqual([CODES.ClockSkew.code, 1]);
    expect(v.creates).toBe(creates);
    // Refused before the order path: no order, nothing journaled for it.
    expect(g.order(second)).toBeUndefined();
    const recs = await g.journaled();
    const firstId = g.order(first)!.clientId;
    expect(recs.filter((x) => x.k === "res" && x.clientId === firstId)).toMatchObject([
      { op: "create", status: 401 },
    ]);
    expect(recs.filter((x) => x.k === "cmd" && x.op === "new").length).toBe(2);
    // The venue's clock is back: the re-syncs find it and the next create goes out.
    v.skew = 0;
    const end = Date.now() + 2_000;
    while (!g.rest.clock!.canSign && Date.now() < end) await new Promise((x) => setTimeout(x, 5));
    const third = g.place();
    expect((await g.answer(third)).name).toBe("Ack");
  });

  it("a 401 the clock does not explain (a key problem): VenueRejected, not retryable; signing goes on", async () => {
    const v = await startVenue();
    const g = await build(v);
    v.badKey = true;
    const first = g.place();
    const r = (await g.answer(first)).body;
    expect([r.code, r.retryable]).toEqual([CODES.VenueRejected.code, 0]);
    expect(String(r.text)).toMatch(/401 Invalid Access/);
    expect(g.rest.clock!.state).toBe("ok");
    expect(g.rest.clock!.unauthorizedStats).toEqual({ seen: 1, clock: 0 });
    // Nothing held: the next create is sent (and refused the same way).
    const creates = v.creates;
    const second = g.place();
    expect((await g.answer(second)).body.code).toBe(CODES.VenueRejected.code);
    expect(v.creates).toBe(creates + 1);
    const recs = await g.journaled();
    expect(recs.filter((x) => x.k === "res").map((x) => (x as { status: number }).status)).toEqual([
      401, 401,
    ]);
  });
});
