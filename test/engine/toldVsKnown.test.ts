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
import { Ev, OrderStore, Source } from "../../src/orders/index.js";
import { CODES, LogonOptions, OrderStatus } from "../../src/protocol/schema.js";
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
    ledger.add({ k: "cmd", op: "new", session: "s", clientId: o.clientId, ts: 1 } as JournalRecord);
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
    expect(t.tell()).toEqual({ acks: 0, rejects: 1, fills: 0, updates: 0 });
    expect(t.sent()).toEqual([
      expect.objectContaining({ name: "Reject", clOrdNo: 1, code: CODES.VenueRejected.code }),
    ]);
    expect(t.tell()).toEqual({ acks: 0, rejects: 0, fills: 0, updates: 0 });
  });

  it("an acked order never told gets its Ack only; one whose update is queued already gets nothing", () => {
    const t = setup();
    const a = t.order(1);
    t.store.ackCreate(a.clientId, "ex-1");
    expect(t.tell()).toEqual({ acks: 1, rejects: 0, fills: 0, updates: 0 });
    expect(t.sent()).toEqual([expect.objectContaining({ name: "Ack", clOrdNo: 1, exchangeOrderId: "ex-1" })]);
    // The outbox (what reconciliation queued, and the Ack above) counts as told: nothing twice.
    expect(t.tell()).toEqual({ acks: 0, rejects: 0, fills: 0, updates: 0 });
    t.store.requestCancel(a.clientId);
    expect(t.tell()).toEqual({ acks: 0, rejects: 0, fills: 0, updates: 1 });
    expect(t.sent().at(-1)).toMatchObject({ name: "OrderUpdate", status: OrderStatus.PendingCancel });
  });

  it("a session that logged on with NoPendingUpdates is not told its own cancel in flight; the venue's Cancelled is told", () => {
    const t = setup(LogonOptions.NoPendingUpdates);
    const a = t.order(1);
    t.store.ackCreate(a.clientId, "ex-1");
    t.ledger.note("s", "Ack", { clOrdNo: 1, exchangeOrderId: "ex-1" });
    t.store.requestCancel(a.clientId);
    expect(t.tell()).toEqual({ acks: 0, rejects: 0, fills: 0, updates: 0 });
    expect(t.sent()).toEqual([]);
    // The venue says it was cancelled: that is told.
    t.store.apply(ev(Ev.VenueCancelled, { exchangeId: "ex-1" }, Source.Stream));
    expect(t.tell()).toMatchObject({ updates: 1 });
    expect(t.sent().at(-1)).toMatchObject({ name: "OrderUpdate", status: OrderStatus.Cancelled });
  });
});
