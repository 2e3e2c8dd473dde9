/**
 * Stop = drain, tried from outside (docs/reliability.md "Stop = drain"): `hftgate sim` and `hftgate
 * start` as real processes, strategies over real sockets, the venue's signed listings as truth.
 *
 * - SIGTERM mid-burst on Spot and HFT from a cancel-on-disconnect session and a plain one: every
 *   order the gateway accepted is answered before a 1001 close, the cancel-on-disconnect session's
 *   orders are all cancelled at the venue, the plain session's live orders at the venue are exactly
 *   those it was told are live and the restarted gateway knows them; exit 0 within the stop budget.
 * - A second SIGTERM ends the drain at once.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CODES, CodPolicy, OrderStatus } from "../../src/protocol/schema.js";
import { VenueReader } from "./harness/listings.js";
import { debugLog, journalNotes, journalOwners, LOTS, REST, startOpsRig } from "./harness/operations.js";
import { instrumentIds, type ProcessRig } from "./harness/processRig.js";
import { record, report } from "./harness/results.js";
import { SimProcess } from "./harness/simProcess.js";
import type { Strategy } from "./harness/strategy.js";
import { newKeys, sleep, until } from "./harness/venue.js";

/** The stop budget the scenarios give the gateway (`shutdown.timeoutMs`). */
const STOP_BUDGET_MS = 10_000;

/** Orders per session in the burst (half Spot, half HFT): 30 in flight at the stop. */
const BURST = 15;

const SPOT_CREATE = "POST /trade/api/v2/order";
const SPOT_CANCEL = "DELETE /trade/api/v2/order";
const HFT_CREATE = "POST /v5/order/create";
const HFT_CANCEL = "POST /v5/order/cancel";
const HFT_AMEND = "POST /v5/order/amend";

const LIVE_WIRE = new Set<number>([OrderStatus.New, OrderStatus.PartiallyFilled]);
const TERMINAL_WIRE = new Set<number>([
  OrderStatus.Filled,
  OrderStatus.Cancelled,
  OrderStatus.Rejected,
  OrderStatus.Expired,
]);

/** What a strategy knew when its connection closed. */
interface AtClose {
  code: number;
  /** Orders placed before the stop with no first answer (Ack, Reject, OutcomeUnknown). */
  unanswered: number[];
  /** Last status each order was told (Ack = New until an update says otherwise). */
  status: Map<number, number>;
  /** Last price each order was told in an OrderUpdate. */
  price: Map<number, number>;
}

function watch(s: Strategy, placedBeforeStop: () => number): Promise<AtClose> {
  const status = new Map<number, number>();
  const price = new Map<number, number>();
  s.client.on("ack", (b) => {
    if (!status.has(b.clOrdNo)) status.set(b.clOrdNo, OrderStatus.New);
  });
  s.client.on("update", (b) => {
    if (b.requestId !== 0) return;
    status.set(b.clOrdNo, b.status);
    price.set(b.clOrdNo, b.priceTicks);
  });
  s.client.on("reject", (b) => status.set(b.clOrdNo, OrderStatus.Rejected));
  return new Promise((resolve) =>
    s.client.once("close", (code) => {
      const n = placedBeforeStop();
      const unanswered = s.unanswered().filter((x) => s.placed.indexOf(x) < n);
      resolve({ code, unanswered, status: new Map(status), price: new Map(price) });
    }),
  );
}

describe("stop = drain (SIGTERM, real processes, venue listings as truth)", () => {
  it("mid-burst on Spot and HFT from a cancel-on-disconnect and a plain session: answered, 1001, venue as told", async () => {
    const keys = newKeys();
    const sim = await SimProcess.start({ seed: 31, apiKeys: [keys.apiKey] });
    let rig: ProcessRig | undefined;
    let reader: VenueReader | undefined;
    try {
      rig = await startOpsRig(sim, keys, "drain", STOP_BUDGET_MS);
      const journalDir = join(rig.dir, "journal");
      const cod = await rig.strategy("drain-cod", { codPolicy: CodPolicy.CancelOnDisconnect });
      const plain = await rig.strategy("drain-plain");
      const ids = await instrumentIds(cod);
      reader = new VenueReader(sim.baseUrl, keys, { spot: ids.spotStep, hft: ids.hftStep });
      const inst = { spot: ids.spot, hft: ids.hft };
      const both = [cod, plain];
      let placedBeforeStop = Number.POSITIVE_INFINITY;
      const closes = both.map((s) => watch(s, () => placedBeforeStop));

      // Resting orders acknowledged before the stop: a cancel and an amend of them are in flight at it.
      const resting = new Map<Strategy, { spot: number[]; hft: number[] }>();
      for (const s of both) {
        const r = { spot: [] as number[], hft: [] as number[] };
        for (let i = 0; i < 2; i++) {
          r.spot.push(s.place(inst.spot, "buy", REST.spot - 100 * i, LOTS.spot));
          r.hft.push(s.place(inst.hft, "buy", REST.hft - 100 * i, LOTS.hft));
        }
        resting.set(s, r);
      }
      await until(() => both.every((s) => s.unanswered().length === 0), 5_000, "resting orders answered");

      // Every create, cancel and amend of the burst is slow at the venue (and still handled there).
      await sim.addFaults([
        { kind: "latency", endpoint: SPOT_CREATE, ms: 300, jitterMs: 100, count: 200, abandoned: "handle" },
        { kind: "latency", endpoint: HFT_CREATE, ms: 300, jitterMs: 100, count: 200, abandoned: "handle" },
        { kind: "latency", endpoint: SPOT_CANCEL, ms: 150, jitterMs: 50, count: 200, abandoned: "handle" },
        { kind: "latency", endpoint: HFT_CANCEL, ms: 150, jitterMs: 50, count: 200, abandoned: "handle" },
        { kind: "latency", endpoint: HFT_AMEND, ms: 150, jitterMs: 50, count: 20, abandoned: "handle" },
      ]);
      const amendPx = REST.hft - 1_000;
      for (const s of both) {
        for (let i = 0; i < BURST; i++) {
          const surface = i % 2 === 0 ? "spot" : "hft";
          s.place(inst[surface], "buy", REST[surface] - 1_000 - 10 * i, LOTS[surface]);
        }
        s.cancel(resting.get(s)!.spot[0]!);
        s.amend(resting.get(s)!.hft[0]!, amendPx, false);
      }
      await sleep(50);
      const counts = both.map((s) => s.placed.length);
      placedBeforeStop = Math.min(...counts);
      const unansweredAtStop = both.reduce((a, s) => a + s.unanswered().length, 0);
      const exit = rig.gp.sendSignal("SIGTERM");
      // Orders sent once the stop began are refused with their own retryable code.
      await sleep(200);
      const late = both.map((s) => (s.client.connected ? s.place(inst.hft, "buy", REST.hft - 5_000, 5) : 0));
      const { code, signal, ms } = await exit;
      const at = await Promise.all(closes);
      for (const s of both) expect(s.placed.length).toBeGreaterThanOrEqual(placedBeforeStop);

      debugLog(rig, /drain|shutting|stopped|shutdown step/);
      const venue = await reader.read();
      const owners = journalOwners(journalDir);
      const venueLive = (session: string) =>
        venue.orders
          .filter((o) => owners.get(o.clientId)?.session === session)
          .filter((o) => o.status === "New" || o.status === "PartiallyFilled" || o.status === "CancelRaised")
          .map((o) => owners.get(o.clientId)!.clOrdNo)
          .sort((a, b) => a - b);
      const codLeftOpen = venueLive("drain-cod");
      const plainVenueLive = venueLive("drain-plain");
      const plainToldLive = [...at[1]!.status]
        .filter(([, st]) => LIVE_WIRE.has(st))
        .map(([n]) => n)
        .sort((a, b) => a - b);
      const unansweredAtClose = at.reduce((a, c) => a + c.unanswered.length, 0);
      const notes = journalNotes(journalDir);
      record({
        scenario: "SIGTERM mid-burst, Spot + HFT, COD + plain session",
        orders: counts.reduce((a, b) => a + b, 0),
        faults: 1,
        lost: codLeftOpen.length + unansweredAtClose,
        duplicated: 0,
        mismatched: plainVenueLive.length === plainToldLive.length ? 0 : 1,
        note: `in flight at SIGTERM ${unansweredAtStop}, unanswered at close ${unansweredAtClose}, COD orders left open ${codLeftOpen.length}, plain live at venue ${plainVenueLive.length} / told live ${plainToldLive.length}, close codes ${at.map((c) => c.code)}, exit ${code ?? signal} in ${ms} ms`,
      });

      expect(unansweredAtStop).toBeGreaterThan(BURST); // the stop came mid-burst
      expect([code, signal]).toEqual([0, null]);
      expect(ms).toBeLessThan(STOP_BUDGET_MS);
      for (const c of at) {
        expect(c.code).toBe(1001);
        expect(c.unanswered).toEqual([]);
      }
      // The cancel and the amend in flight at the stop were answered before the close.
      for (const [i, s] of both.entries()) {
        const r = resting.get(s)!;
        expect(at[i]!.status.get(r.spot[0]!)).toBe(OrderStatus.Cancelled);
        if (i === 1) expect(at[i]!.price.get(r.hft[0]!)).toBe(amendPx);
      }
      // Refused once the stop began: ShuttingDown, retryable.
      expect(late.filter((n) => n !== 0).length).toBeGreaterThan(0);
      for (const [i, s] of both.entries()) {
        const n = late[i]!;
        if (n === 0) continue;
        const rej = s.told.get(n)!.rejects;
        expect(rej.map((r) => [r.code, r.retryable])).toEqual([[CODES.ShuttingDown.code, 1]]);
      }
      // Cancel-on-disconnect: nothing of that session is left working at the venue, and it was told so.
      expect(codLeftOpen).toEqual([]);
      for (const n of cod.placed.slice(0, placedBeforeStop))
        expect(TERMINAL_WIRE.has(at[0]!.status.get(n) ?? 0), `cod #${n}`).toBe(true);
      // The plain session: live at the venue exactly what it was told is live.
      expect(plainVenueLive.length).toBeGreaterThan(BURST / 2);
      expect(plainVenueLive).toEqual(plainToldLive);
      // Journaled: the drain's start and its outcome.
      expect(notes.some((t) => t.startsWith("drain: start"))).toBe(true);
      expect(notes.find((t) => t.startsWith("drain: done"))).toMatch(
        /in flight 0; cancel-on-disconnect open 0/,
      );

      // Restart: the plain session resumes (no 104) and the gateway knows every order live at the venue.
      await sim.clearFaults();
      await rig.gp.start();
      await plain.client.connect();
      expect(plain.resumeLost).toBe(0);
      const views = await plain.views();
      const byNo = new Map(plain.placed.map((n, i) => [n, views[i]!]));
      const venueIdOf = new Map(
        venue.orders
          .filter((o) => owners.get(o.clientId)?.session === "drain-plain")
          .map((o) => [owners.get(o.clientId)!.clOrdNo, o.id]),
      );
      for (const n of plainVenueLive) {
        const v = byNo.get(n)!;
        expect([n, v.status, v.exchangeId]).toEqual([n, "New", venueIdOf.get(n)]);
      }
    } finally {
      await reader?.close();
      await rig?.close();
      await sim.stop();
    }
  }, 60_000);

  it("a second SIGTERM ends the drain at once", async () => {
    const keys = newKeys();
    const sim = await SimProcess.start({ seed: 32, apiKeys: [keys.apiKey] });
    let rig: ProcessRig | undefined;
    try {
      rig = await startOpsRig(sim, keys, "drain2", STOP_BUDGET_MS);
      const s = await rig.strategy("drain-twice");
      const ids = await instrumentIds(s);
      // The venue sits on the creates for 5 s: the drain would wait for them.
      await sim.addFaults([
        { kind: "latency", endpoint: HFT_CREATE, ms: 5_000, count: 10, abandoned: "handle" },
      ]);
      for (let i = 0; i < 5; i++) s.place(ids.hft, "buy", REST.hft - 10 * i, LOTS.hft);
      await sleep(100);
      const first = rig.gp.sendSignal("SIGTERM");
      await sleep(300);
      const second = Date.now();
      process.kill(-rig.gp.pid!, "SIGTERM");
      const { code, signal, ms } = await first;
      const afterSecond = Date.now() - second;
      record({
        scenario: "SIGTERM, then a second SIGTERM during the drain",
        orders: s.placed.length,
        faults: 2,
        lost: 0,
        duplicated: 0,
        mismatched: 0,
        note: `exit ${code ?? signal} ${afterSecond} ms after the second signal (${ms} ms after the first)`,
      });
      // Well before the venue answered (5 s): the second signal did not wait for the drain.
      expect(ms).toBeLessThan(4_000);
      expect([code, signal]).toEqual([143, null]);
      const notes = journalNotes(join(rig.dir, "journal"));
      expect(notes.some((t) => t.startsWith("stop forced: second SIGTERM"))).toBe(true);
    } finally {
      await rig?.close();
      await sim.stop();
    }
  }, 40_000);
});

afterAll(() => report());
