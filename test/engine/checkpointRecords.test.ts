/**
 * What a checkpoint holds (Compactor): fed with the checkpoint's records and then the journal after
 * it, the session restorer and the told-vs-known ledger come to what the whole journal gives them
 * (sessions, seq, resume ring, idle time, what each order's session was told), while finished orders
 * older than the window, notes and old frames are left out; order numbers survive their orders.
 */
import { describe, expect, it } from "vitest";
import { Compactor } from "../../src/engine/checkpointRecords.js";
import { ToldLedger } from "../../src/engine/toldVsKnown.js";
import { SessionRestorer } from "../../src/gateway/restore.js";
import type { JournalRecord } from "../../src/journal/index.js";
import { encodeG2C } from "../../src/protocol/codec.js";

const T0 = Date.UTC(2026, 10, 20, 9);

/** A journal as the gateway writes one: two named sessions, an anonymous one, orders told by frames. */
function history(): JournalRecord[] {
  const out: JournalRecord[] = [];
  let seq = 0;
  let ts = T0;
  const add = (r: object) => {
    seq++;
    ts += 1000;
    out.push({ seq, ts, ...r } as JournalRecord);
  };
  const sent = new Map<string, number>();
  const frame = (session: string, sid: number, no: number, name: "Ack" | "OrderUpdate") => {
    const s = (sent.get(session) ?? 0) + 1;
    sent.set(session, s);
    const h = { sessionId: sid, seq: s, recvNs: 0, sendNs: 0 };
    const f =
      name === "Ack"
        ? encodeG2C("Ack", h, { clOrdNo: no, instrumentId: 1, exchangeOrderId: `x${no}` })
        : encodeG2C("OrderUpdate", h, {
            clOrdNo: no,
            requestId: 0,
            instrumentId: 1,
            status: 6,
            side: 1,
            ordType: 2,
            tif: 1,
            exchangeOrderId: `x${no}`,
            priceTicks: 100,
            qtyLots: 1,
            cumQtyLots: 0,
            leavesQtyLots: 0,
            avgPxMantissa: 0,
            avgPxExponent: 0,
            lastFillPriceTicks: 0,
            lastFillQtyLots: 0,
            reasonCode: 0,
          });
    add({ k: "out", session, frame: Buffer.from(f) });
  };
  add({ k: "ses", session: "alpha", op: "logon", sid: 3, admin: 1 });
  add({ k: "cmd", session: "alpha", op: "logon", reason: "cod=1;hb=1000" });
  add({ k: "ses", session: "beta", op: "logon", sid: 4, admin: 0 });
  for (let no = 1; no <= 30; no++) {
    const id = `c${no}`;
    add({
      k: "cmd",
      session: "alpha",
      op: "new",
      clientId: id,
      reason: `no=${no};inst=hft:linear:BTCUSDT;pos=0`,
    });
    add({ k: "req", clientId: id, op: "create", method: "POST", path: "/v5/order/create" });
    add({ k: "res", clientId: id, op: "create", status: 200, body: `{"orderId":"x${no}"}` });
    frame("alpha", 3, no, "Ack");
    if (no % 3 === 0) {
      add({
        k: "evt",
        source: "hft-stream",
        clientId: id,
        body: `{"orderId":"x${no}","orderStatus":"Cancelled"}`,
      });
      frame("alpha", 3, no, "OrderUpdate");
    }
    if (no === 12) add({ k: "cmd", session: "engine", op: "state", reason: "reducing" });
    if (no === 20) add({ k: "cmd", session: "engine", op: "state", reason: "active" });
    if (no <= 5) frame("beta", 4, 100 + no, "Ack");
  }
  add({ k: "ses", session: "", op: "anon", sid: 9 });
  add({ k: "ses", session: "beta", op: "release", sid: 4 });
  add({ k: "ses", session: "gamma", op: "logon", sid: 11, admin: 0 });
  frame("gamma", 11, 1, "Ack");
  add({ k: "note", text: "start venue=exchange instruments=3" });
  add({ k: "ses", session: "alpha", op: "logoff", sid: 3 });
  return out;
}

const OPTS = {
  resumeRing: 4,
  sessionRetentionMs: 86_400_000 * 30,
  maxRetainedSessions: 100,
  nowMs: T0 + 3_600_000,
};

function restore(records: readonly JournalRecord[]) {
  const r = new SessionRestorer(OPTS);
  const l = new ToldLedger();
  for (const x of records) {
    r.add(x);
    l.add(x);
  }
  return { sessions: r.result(OPTS.nowMs), ledger: l };
}

describe("the checkpoint's records", () => {
  it("rebuild the sessions, resume rings and told-vs-known of the whole journal, with its tail after them", () => {
    const all = history();
    // Checkpoint just before c25's command; live then: c19..c24 except the cancelled ones (told so).
    const cut = all.findIndex((r) => r.k === "cmd" && r.clientId === "c25");
    const live = new Set(["c19", "c20", "c22", "c23"]);
    const c = new Compactor(live, OPTS.resumeRing, {});
    for (const r of all.slice(0, cut)) c.add(r);
    const { records, orderNumbers } = c.result();
    const tail = all.slice(cut);

    const full = restore(all);
    const fromCheckpoint = restore([...records, ...tail]);
    expect(fromCheckpoint.sessions).toEqual(full.sessions);
    expect(full.sessions.sessions.map((s) => s.name).sort()).toEqual(["alpha", "gamma"]);
    for (const no of [19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30])
      expect(fromCheckpoint.ledger.get("alpha", no), `#${no}`).toEqual(full.ledger.get("alpha", no));
    expect(fromCheckpoint.ledger.ordersOf("alpha")).toEqual(
      expect.arrayContaining(["c19", "c20", "c22", "c23", "c25", "c30"]),
    );
    // Order numbers of orders left out still count.
    const newest = all.slice(0, cut).filter((r) => r.k === "cmd" && r.op === "new").length;
    expect(orderNumbers.alpha).toBe(newest);

    // Left out: finished orders, notes, frames beyond the ring; kept: the last state and logon command.
    const ids = new Set(records.map((r) => r.clientId).filter((x) => x !== undefined));
    expect([...ids].sort()).toEqual(
      [...live].filter((id) => all.slice(0, cut).some((r) => r.clientId === id)).sort(),
    );
    expect(
      records.filter((r) => r.k === "cmd" && r.op === "state").map((r) => (r as { reason: string }).reason),
    ).toEqual([
      all
        .slice(0, cut)
        .filter((r) => r.k === "cmd" && r.op === "state")
        .map((r) => (r as { reason: string }).reason)
        .at(-1),
    ]);
    expect(records.filter((r) => r.k === "cmd" && r.op === "logon")).toHaveLength(1);
    expect(records.length).toBeLessThan(cut / 2);
  });

  it("a checkpoint of a checkpoint is the same as one of the whole journal; orders created since the window stay finished or not", () => {
    const all = history();
    const live = new Set(["c28", "c29"]);
    const once = new Compactor(live, OPTS.resumeRing, {});
    for (const r of all) once.add(r);
    const first = new Compactor(new Set(["c10", "c28", "c29"]), OPTS.resumeRing, {});
    for (const r of all.slice(0, 60)) first.add(r);
    const r1 = first.result();
    const twice = new Compactor(live, OPTS.resumeRing, r1.orderNumbers);
    for (const r of [...r1.records, ...all.slice(60)]) twice.add(r);
    expect(restore(twice.result().records).sessions).toEqual(restore(once.result().records).sessions);
    expect(twice.result().orderNumbers).toEqual(once.result().orderNumbers);
    expect(twice.result().records.some((r) => r.clientId === "c10")).toBe(false);

    // The window: every order created at or after c20's command stays, whatever its state.
    const at = all.find((r) => r.k === "cmd" && r.clientId === "c20")!.ts;
    const recent = new Compactor(new Set(), OPTS.resumeRing, {}, at);
    for (const r of all) recent.add(r);
    const kept = new Set(
      recent
        .result()
        .records.map((r) => r.clientId)
        .filter((x) => x !== undefined),
    );
    expect([...kept].sort()).toEqual(Array.from({ length: 11 }, (_, i) => `c${20 + i}`).sort());
    expect([...recent.orders].sort()).toEqual([...kept].sort());
  });
});
