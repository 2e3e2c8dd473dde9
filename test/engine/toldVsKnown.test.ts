/**
 * Told vs known, its rules on a real order store and owners (no gateway attached: what is sent stays
 * in the owner's outbox, as at start-up): an untold venue reject, an untold ack, what the outbox
 * already holds counts as told, and a second pass sends nothing.
 */
import pino from "pino";
import { describe, expect, it } from "vitest";
import { InstrumentBook } from "../../src/engine/instruments.js";
import { Owners } from "../../src/engine/owners.js";
import { RunState } from "../../src/engine/runState.js";
import { ToldLedger, tellWhatWasDue } from "../../src/engine/toldVsKnown.js";
import type { JournalRecord } from "../../src/journal/records.js";
import { Ev, OrderStore, Source, Status } from "../../src/orders/index.js";
import {
  AmendRejectReason,
  CancelRejectReason,
  CODES,
  LogonOptions,
  OrderStatus,
} from "../../src/protocol/schema.js";
import { BTCUSDT } from "../fixtures/instruments.js";
import { ev } from "../orders/helpers.js";

function setup(options: number = LogonOptions.None) {
  const book = new InstrumentBook();
  const e = book.add(BTCUSDT);
  const store = new OrderStore();
  const owners = new Owners({
    store,
    journal: undefined,
    log: pino({ level: "silent" }),
    run: new RunState(),
    cancel: () => {},
  });
  const ledger = new ToldLedger();
  const owner = owners.ownerOf("s");
  const order = (no: number) => {
    const o = store.create({
      sessionId: owner,
      clientOrderNo: no,
      instrumentId: e.inst.id,
      symbol: "BTCUSDT",
      surface: "hft",
      side: "buy",
      type: "limit",
      tif: "GTC",
      priceTicks: 640_000,
      qtyLots: 24,
    });
    ledger.add({
      k: "cmd",
      op: "new",
      session: "s",
      clientId: o.clientId,
      reason: `no=${no};inst=BTCUSDT;pos=0`,
      ts: 1,
    } as JournalRecord);
    store.markSent(o.clientId);
    return o;
  };
  const tell = () => tellWhatWasDue({ store, owners, book }, ledger, [{ name: "s", options }]);
  const sent = () => owners.kept(owner).map((m) => ({ name: m.name, ...(m.body as object) }));
  return { store, ledger, order, tell, sent };
}

describe("told vs known", () => {
  it("a venue reject never told is sent once; one already told is not", () => {
    const t = setup();
    const a = t.order(1);
    const b = t.order(2);
    t.store.rejectCreate(a.clientId, "insufficient margin");
    t.store.rejectCreate(b.clientId, "insufficient margin");
    t.ledger.note("s", "Reject", { clOrdNo: 2 });
    expect(t.tell()).toEqual({ acks: 0, rejects: 1, fills: 0, updates: 0, requestRejects: 0 });
    expect(t.sent()).toEqual([
      expect.objectContaining({ name: "Reject", clOrdNo: 1, code: CODES.VenueRejected.code }),
    ]);
    expect(t.tell()).toEqual({ acks: 0, rejects: 0, fills: 0, updates: 0, requestRejects: 0 });
  });

  it("an acked order never told gets its Ack only; one whose update is queued already gets nothing", () => {
    const t = setup();
    const a = t.order(1);
    t.store.ackCreate(a.clientId, "ex-1");
    expect(t.tell()).toEqual({ acks: 1, rejects: 0, fills: 0, updates: 0, requestRejects: 0 });
    expect(t.sent()).toEqual([expect.objectContaining({ name: "Ack", clOrdNo: 1, exchangeOrderId: "ex-1" })]);
    // The outbox (what reconciliation queued, and the Ack above) counts as told: nothing twice.
    expect(t.tell()).toEqual({ acks: 0, rejects: 0, fills: 0, updates: 0, requestRejects: 0 });
    t.store.requestCancel(a.clientId);
    expect(t.tell()).toEqual({ acks: 0, rejects: 0, fills: 0, updates: 1, requestRejects: 0 });
    expect(t.sent().at(-1)).toMatchObject({ name: "OrderUpdate", status: OrderStatus.PendingCancel });
  });

  it("a session that logged on with NoPendingUpdates is not told its own cancel in flight; the venue's Cancelled is told", () => {
    const t = setup(LogonOptions.NoPendingUpdates);
    const a = t.order(1);
    t.store.ackCreate(a.clientId, "ex-1");
    t.ledger.note("s", "Ack", { clOrdNo: 1, exchangeOrderId: "ex-1" });
    t.store.requestCancel(a.clientId);
    expect(t.tell()).toEqual({ acks: 0, rejects: 0, fills: 0, updates: 0, requestRejects: 0 });
    expect(t.sent()).toEqual([]);
    // The venue says it was cancelled: that is told.
    t.store.apply(ev(Ev.VenueCancelled, { exchangeId: "ex-1" }, Source.Stream));
    expect(t.tell()).toMatchObject({ updates: 1 });
    expect(t.sent().at(-1)).toMatchObject({ name: "OrderUpdate", status: OrderStatus.Cancelled });
  });
  it("NoPendingUpdates after a restart: the venue's CANCELLATION_RAISED answering the gateway's cancel is not told; one the venue raised itself is, also after a refused cancel", () => {
    const t = setup(LogonOptions.NoPendingUpdates);
    const acked = (no: number) => {
      const o = t.order(no);
      t.store.ackCreate(o.clientId, `ex-${no}`);
      t.ledger.note("s", "Ack", { clOrdNo: no, exchangeOrderId: `ex-${no}` });
      return o;
    };
    // The gateway's cancel, acked by the venue (CancellationRaised, shown as PendingCancel): not told.
    const own = acked(1);
    t.store.requestCancel(own.clientId);
    t.store.cancelOutcome(own.clientId, Ev.CancelAcked);
    expect(t.store.byClientId(own.clientId)!.status).toBe(Status.CancellationRaised);
    // The same through the venue's stream rather than the REST answer.
    const ownStream = acked(2);
    t.store.requestCancel(ownStream.clientId);
    t.store.apply(ev(Ev.VenueCancellationRaised, { exchangeId: "ex-2" }, Source.Stream));
    expect(t.store.byClientId(ownStream.clientId)!.status).toBe(Status.CancellationRaised);
    // The venue raising a cancel of its own, and one after the gateway's cancel was refused: news.
    acked(3);
    t.store.apply(ev(Ev.VenueCancellationRaised, { exchangeId: "ex-3" }, Source.Stream));
    const refused = acked(4);
    t.store.requestCancel(refused.clientId);
    t.store.cancelOutcome(refused.clientId, Ev.CancelRejected);
    expect(t.store.byClientId(refused.clientId)!.status).toBe(Status.New);
    t.store.apply(ev(Ev.VenueCancellationRaised, { exchangeId: "ex-4" }, Source.Stream));
    expect(t.tell()).toEqual({ acks: 0, rejects: 0, fills: 0, updates: 2, requestRejects: 0 });
    expect(
      t.sent().map((m) => [m.name, (m as { clOrdNo?: number }).clOrdNo, (m as { status?: number }).status]),
    ).toEqual([
      ["OrderUpdate", 3, OrderStatus.PendingCancel],
      ["OrderUpdate", 4, OrderStatus.PendingCancel],
    ]);
  });
  it("NoPendingUpdates after a restart: a cancel or amend asked and answered with nothing told since gets the order's state; one told, or still in flight, gets nothing", () => {
    const t = setup(LogonOptions.NoPendingUpdates);
    const asked = (no: number, op: "cancel" | "amend") => {
      const o = t.order(no);
      t.store.ackCreate(o.clientId, `ex-${no}`);
      t.ledger.note("s", "Ack", { clOrdNo: no, exchangeOrderId: `ex-${no}` });
      t.ledger.add({ k: "cmd", op, session: "s", clientId: o.clientId, ts: 2 } as JournalRecord);
      return o;
    };
    // An amend the venue took: the new price was never told.
    const amended = asked(1, "amend");
    t.store.requestAmend(amended.clientId, 640_100, 0);
    t.store.amendOutcome(amended.clientId, Ev.AmendAcked);
    // A cancel the venue refused: the order works on, nobody said so.
    const refused = asked(2, "cancel");
    t.store.requestCancel(refused.clientId);
    t.store.cancelOutcome(refused.clientId, Ev.CancelRejected);
    // The same refusal, told before the crash: nothing more.
    const told = asked(3, "cancel");
    t.store.requestCancel(told.clientId);
    t.store.cancelOutcome(told.clientId, Ev.CancelRejected);
    t.ledger.note("s", "CancelReject", { clOrdNo: 3 });
    // A cancel still in flight: its outcome comes live.
    const inFlight = asked(4, "cancel");
    t.store.requestCancel(inFlight.clientId);
    expect(t.tell()).toEqual({ acks: 0, rejects: 0, fills: 0, updates: 2, requestRejects: 0 });
    expect(t.sent()).toEqual([
      expect.objectContaining({
        name: "OrderUpdate",
        clOrdNo: 1,
        status: OrderStatus.New,
        priceTicks: 640_100,
      }),
      expect.objectContaining({
        name: "OrderUpdate",
        clOrdNo: 2,
        status: OrderStatus.New,
        priceTicks: 640_000,
      }),
    ]);
    // Told now: a second pass sends nothing.
    expect(t.tell()).toEqual({ acks: 0, rejects: 0, fills: 0, updates: 0, requestRejects: 0 });
  });
  it("a refusal journaled and never told is told as the live path tells it, then the order's state; with pending updates or without", () => {
    for (const options of [LogonOptions.None, LogonOptions.NoPendingUpdates]) {
      const t = setup(options);
      const at = `options ${options}`;
      const asked = (no: number, op: "cancel" | "amend", pendingTold: boolean) => {
        const o = t.order(no);
        t.store.ackCreate(o.clientId, `ex-${no}`);
        t.ledger.note("s", "Ack", { clOrdNo: no, exchangeOrderId: `ex-${no}` });
        t.ledger.add({ k: "cmd", op, session: "s", clientId: o.clientId, ts: 2 } as JournalRecord);
        if (op === "cancel") t.store.requestCancel(o.clientId);
        else t.store.requestAmend(o.clientId, 640_100, 0);
        const status = op === "cancel" ? OrderStatus.PendingCancel : OrderStatus.PendingReplace;
        if (pendingTold) t.ledger.note("s", "OrderUpdate", { clOrdNo: no, status, cumQtyLots: 0 });
        return o;
      };
      const answer = (o: { clientId: string }, op: string, status: number, body: string) =>
        t.ledger.add({
          k: "res",
          clientId: o.clientId,
          op,
          status,
          latencyUs: 0,
          body,
          ts: 3,
        } as JournalRecord);
      const quiet = options === LogonOptions.NoPendingUpdates;
      // The venue refused a cancel: CancelReject (the venue's refusal), then New.
      const c = asked(1, "cancel", !quiet);
      answer(c, "cancel", 400, '{"message":"order cannot be cancelled"}');
      t.store.cancelOutcome(c.clientId, Ev.CancelRejected);
      // The venue throttled an amend: AmendReject (Throttled), then New at the old price.
      const a = asked(2, "amend", !quiet);
      answer(a, "amend", 429, "rate limited");
      t.store.amendOutcome(a.clientId, Ev.AmendRejected);
      // A cancel still in flight (its PendingCancel told or not wanted): nothing.
      asked(3, "cancel", !quiet);
      // A refusal already told: nothing more.
      const told = asked(4, "cancel", !quiet);
      answer(told, "cancel", 400, "no");
      t.store.cancelOutcome(told.clientId, Ev.CancelRejected);
      t.ledger.note("s", "CancelReject", { clOrdNo: 4 });
      t.ledger.note("s", "OrderUpdate", { clOrdNo: 4, status: OrderStatus.New, cumQtyLots: 0 });
      expect(t.tell(), at).toEqual({ acks: 0, rejects: 0, fills: 0, updates: 2, requestRejects: 2 });
      expect(
        t.sent().map((m) => {
          const b = m as {
            name: string;
            clOrdNo: number;
            reason?: number;
            status?: number;
            priceTicks?: number;
            text?: string;
          };
          return m.name === "OrderUpdate"
            ? [b.name, b.clOrdNo, b.status, b.priceTicks]
            : [b.name, b.clOrdNo, b.reason, b.text];
        }),
        at,
      ).toEqual([
        [
          "CancelReject",
          1,
          CancelRejectReason.VenueRejected,
          'before the restart: {"message":"order cannot be cancelled"}',
        ],
        ["OrderUpdate", 1, OrderStatus.New, 640_000],
        ["AmendReject", 2, AmendRejectReason.Throttled, "before the restart: rate limited"],
        ["OrderUpdate", 2, OrderStatus.New, 640_000],
      ]);
      expect(t.tell(), at).toEqual({ acks: 0, rejects: 0, fills: 0, updates: 0, requestRejects: 0 });
    }
  });
});
