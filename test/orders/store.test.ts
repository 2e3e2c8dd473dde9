import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { Ev, LIQUIDITY, OrderStore, OrderStoreError, Source, Status } from "../../src/orders/index.js";
import { ev, req, storeWithRecorder } from "./helpers.js";

describe("OrderStore: creation and indexes", () => {
  it("mints a client id synchronously and indexes by client id, session order number and exchange id", () => {
    const { store } = storeWithRecorder();
    const o = store.create(req(1), 10);
    expect(o.status).toBe(Status.PendingNew);
    expect(o.clientId.length).toBeLessThanOrEqual(36);
    expect(store.byClientId(o.clientId)).toBe(o);
    expect(store.bySessionOrder(1, 1)).toBe(o);
    store.apply(ev(Ev.CreateAcked, { clientId: o.clientId, exchangeId: "X1", tsNs: 20 }, Source.Rest));
    expect(store.byExchangeId("X1")).toBe(o);
    expect(o).toMatchObject({ status: Status.New, ackedNs: 20, exchangeId: "X1" });
  });

  it("bad input throws a typed error and changes nothing", () => {
    const { store } = storeWithRecorder();
    store.create(req(1));
    expect(() => store.create(req(1))).toThrow(OrderStoreError);
    expect(() => store.create(req(2, 0))).toThrow(OrderStoreError);
    expect(() => store.create({ ...req(3), priceTicks: 0 })).toThrow(OrderStoreError);
    expect(() => store.create({ ...req(4), qtyLots: 1.5 })).toThrow(OrderStoreError);
    expect(store.size).toBe(1);
  });
});

describe("OrderStore: lifecycle", () => {
  it("partial then full fill from executions, de-duplicated", () => {
    const { store, rec } = storeWithRecorder();
    const o = store.create(req(1));
    store.apply(ev(Ev.Submitted, { clientId: o.clientId, tsNs: 5 }, Source.Rest));
    store.apply(ev(Ev.CreateAcked, { clientId: o.clientId, exchangeId: "X", tsNs: 6 }, Source.Rest));
    const f1 = ev(Ev.Fill, { exchangeId: "X", execId: "e1", lots: 4, pxTicks: 1000, tsNs: 7 }, Source.Stream);
    let r = store.apply(f1);
    expect(r).toMatchObject({ status: Status.PartiallyFilled, filledLots: 4, changed: true });
    r = store.apply(f1);
    expect(r).toMatchObject({ drop: "duplicate_exec", filledLots: 0, changed: false });
    store.apply(
      ev(Ev.Fill, { exchangeId: "X", execId: "e2", lots: 6, pxTicks: 1010, tsNs: 8 }, Source.Stream),
    );
    expect(o).toMatchObject({
      status: Status.Filled,
      filledLots: 10,
      leavesLots: 0,
      doneNs: 8,
      extra: { firstFillNs: 7 },
    });
    expect(o.extra.avgPxTicks).toBeCloseTo(1006, 9);
    expect(rec.fills.map((f) => f.lots)).toEqual([4, 6]);
    expect(store.dropCount("duplicate_exec")).toBe(1);
    expect(store.liveOrders(1)).toHaveLength(0);
    expect(o.history.filter((_, i) => i % 2 === 0)).toEqual([
      Status.PendingNew,
      Status.New,
      Status.PartiallyFilled,
      Status.Filled,
    ]);
  });

  it("keeps the last maxHistory status changes, each with its time", () => {
    const store = new OrderStore({ maxHistory: 3 });
    const o = store.create(req(1), 1);
    store.apply(ev(Ev.CreateAcked, { clientId: o.clientId, exchangeId: "H", tsNs: 2 }, Source.Rest));
    for (let n = 1; n <= 3; n++)
      store.apply(
        ev(Ev.Fill, { exchangeId: "H", execId: `e${n}`, lots: 1, pxTicks: 1000, tsNs: 2 + n }, Source.Stream),
      );
    store.requestCancel(o.clientId, 6);
    store.apply(ev(Ev.VenueCancelled, { exchangeId: "H", tsNs: 7 }, Source.Stream));
    expect(o.history).toEqual([Status.PartiallyFilled, 3, Status.PendingCancel, 6, Status.Cancelled, 7]);
  });

  it("Spot: fills synthesized from cumulative executed_qty; executions arriving too are not double counted", () => {
    const { store, rec } = storeWithRecorder();
    const o = store.create(req(1));
    store.apply(ev(Ev.CreateAcked, { clientId: o.clientId, exchangeId: "S" }, Source.Rest));
    store.apply(
      ev(Ev.VenuePartiallyFilled, { exchangeId: "S", cumLots: 3, avgPxTicks: 1000 }, Source.Stream),
    );
    store.apply(
      ev(Ev.VenuePartiallyFilled, { exchangeId: "S", cumLots: 3, avgPxTicks: 1000 }, Source.Stream),
    );
    expect(rec.fills).toHaveLength(1);
    expect(rec.fills[0]).toMatchObject({ execId: "S:3", lots: 3, synthetic: true });
    // The same 3 lots reported again as an execution: covered, not a new fill.
    const r = store.apply(
      ev(Ev.Fill, { exchangeId: "S", execId: "x1", lots: 3, pxTicks: 1000 }, Source.Stream),
    );
    expect(r.drop).toBe("fill_covered_by_cum");
    expect(o.filledLots).toBe(3);
    store.apply(ev(Ev.Fill, { exchangeId: "S", execId: "x2", lots: 2, pxTicks: 1000 }, Source.Stream));
    expect(o.filledLots).toBe(5);
    // A stale lower cumulative never lowers it.
    store.apply(ev(Ev.VenuePartiallyFilled, { exchangeId: "S", cumLots: 4 }, Source.Poll));
    expect(o.filledLots).toBe(5);
    expect(rec.fills.map((f) => f.lots)).toEqual([3, 2]);
  });

  it("the order keeps its latest fill and each fill report carries the venue time", () => {
    const { store, rec } = storeWithRecorder();
    const o = store.create(req(1));
    store.apply(ev(Ev.CreateAcked, { clientId: o.clientId, exchangeId: "X" }, Source.Rest));
    expect(o).toMatchObject({ extra: { lastFillPxTicks: 0, lastFillLots: 0, lastFillMs: 0 } });
    // An execution: its execTime.
    store.apply(
      ev(Ev.Fill, {
        exchangeId: "X",
        execId: "e1",
        lots: 4,
        pxTicks: 1000,
        fee: 0.2,
        venueMs: 1_700_000_000_111,
      }),
    );
    expect(o).toMatchObject({
      extra: { lastFillPxTicks: 1000, lastFillLots: 4, lastFillMs: 1_700_000_000_111 },
    });
    expect(rec.fills[0]!.venueMs).toBe(1_700_000_000_111);
    // A cumulative record: the delta at the price implied by the new average, at the record's update time.
    store.apply(
      ev(Ev.VenuePartiallyFilled, {
        exchangeId: "X",
        cumLots: 6,
        avgPxTicks: 1002,
        fee: 0.5,
        venueMs: 1_700_000_000_222,
      }),
    );
    expect(o).toMatchObject({ extra: { lastFillLots: 2, lastFillMs: 1_700_000_000_222 } });
    expect(o.extra.lastFillPxTicks).toBeCloseTo(1006, 9);
    expect(rec.fills[1]).toMatchObject({ lots: 2, synthetic: true, venueMs: 1_700_000_000_222 });
    // Its fee: the record's cumulative fee less what the execution already carried.
    expect(rec.fills[1]!.fee).toBeCloseTo(0.3, 12);
    // A record without a time: unknown (0), never a made-up time.
    store.apply(ev(Ev.VenuePartiallyFilled, { exchangeId: "X", cumLots: 7, avgPxTicks: 1002 }));
    expect(rec.fills[2]).toMatchObject({ venueMs: 0, fee: 0 });
  });

  it("a late partial after Filled never regresses", () => {
    const { store } = storeWithRecorder();
    const o = store.create(req(1));
    store.apply(ev(Ev.VenueFilled, { clientId: o.clientId, exchangeId: "X", cumLots: 10 }, Source.Stream));
    const r = store.apply(ev(Ev.VenuePartiallyFilled, { exchangeId: "X", cumLots: 4 }, Source.Stream));
    expect(r.drop).toBe("terminal");
    expect(o).toMatchObject({ status: Status.Filled, filledLots: 10 });
  });

  it("a fill after the cancel is applied; completing it makes the order Filled", () => {
    const { store } = storeWithRecorder();
    const o = store.create(req(1));
    store.apply(ev(Ev.CreateAcked, { clientId: o.clientId, exchangeId: "X" }, Source.Rest));
    store.apply(ev(Ev.VenueCancelled, { exchangeId: "X", cumLots: 0 }, Source.Stream));
    store.apply(ev(Ev.Fill, { exchangeId: "X", execId: "a", lots: 3, pxTicks: 1000 }, Source.Stream));
    expect(o).toMatchObject({ status: Status.Cancelled, filledLots: 3 });
    store.apply(ev(Ev.Fill, { exchangeId: "X", execId: "b", lots: 7, pxTicks: 1000 }, Source.Stream));
    expect(o).toMatchObject({ status: Status.Filled, filledLots: 10 });
  });

  it("overfill is detected, counted and reported once", () => {
    const { store } = storeWithRecorder();
    const o = store.create(req(1, 5));
    store.apply(ev(Ev.Fill, { clientId: o.clientId, exchangeId: "X", execId: "a", lots: 5, pxTicks: 1 }));
    const r = store.apply(ev(Ev.Fill, { exchangeId: "X", execId: "b", lots: 2, pxTicks: 1 }));
    expect(r.overfill).toBe(true);
    expect(o).toMatchObject({
      status: Status.Filled,
      filledLots: 7,
      leavesLots: 0,
      extra: { overfilled: true },
    });
    expect(store.stats.overfills).toBe(1);
  });

  it("a create reject after the venue accepted (duplicate-id resend) does not regress", () => {
    const { store } = storeWithRecorder();
    const o = store.create(req(1));
    store.apply(ev(Ev.CreateOutcomeUnknown, { clientId: o.clientId }, Source.Rest));
    expect(o.status).toBe(Status.Unknown);
    store.apply(ev(Ev.VenueNew, { clientId: o.clientId, exchangeId: "X", cumLots: 0 }, Source.Query));
    expect(o.status).toBe(Status.New);
    expect(store.apply(ev(Ev.CreateRejected, { clientId: o.clientId }, Source.Rest)).drop).toBe(
      "reject_after_accept",
    );
    expect(o.status).toBe(Status.New);
  });
});

describe("OrderStore: cancels", () => {
  it("cancel → PendingCancel → CancellationRaised → Cancelled; repeated cancels send nothing", () => {
    const { store } = storeWithRecorder();
    const o = store.create(req(1));
    store.apply(ev(Ev.CreateAcked, { clientId: o.clientId, exchangeId: "X" }, Source.Rest));
    expect(store.requestCancel(o.clientId, 50).kind).toBe("send");
    expect(o).toMatchObject({ status: Status.PendingCancel, cancelSentNs: 50 });
    expect(store.requestCancel(o.clientId)).toMatchObject({ code: "CANCEL_ALREADY_PENDING" });
    store.apply(ev(Ev.CancelAcked, { clientId: o.clientId }, Source.Rest));
    expect(o.status).toBe(Status.CancellationRaised);
    expect(store.requestCancel(o.clientId)).toMatchObject({ code: "CANCEL_ALREADY_PENDING" });
    store.apply(ev(Ev.VenueCancelled, { exchangeId: "X", cumLots: 2 }, Source.Stream));
    expect(o).toMatchObject({ status: Status.Cancelled, filledLots: 2 });
    expect(store.requestCancel(o.clientId)).toMatchObject({
      code: "ALREADY_TERMINAL",
      message: "already cancelled",
    });
    expect(store.requestCancel("nope")).toMatchObject({ code: "UNKNOWN_ORDER" });
  });

  it("cancel refused during EXPIRATION_RAISED", () => {
    const { store } = storeWithRecorder();
    const o = store.create(req(1));
    store.apply(ev(Ev.ExpiryRaised, { clientId: o.clientId, exchangeId: "X", cumLots: 0 }, Source.Stream));
    expect(store.requestCancel(o.clientId)).toMatchObject({ kind: "reject", code: "EXPIRATION_RAISED" });
    expect(o.status).toBe(Status.ExpirationRaised);
  });

  it("a cancel while PendingNew is held and released on the ack", () => {
    const { store, rec } = storeWithRecorder();
    const o = store.create(req(1));
    expect(store.requestCancel(o.clientId).kind).toBe("hold");
    expect(store.requestCancel(o.clientId)).toMatchObject({ code: "CANCEL_ALREADY_PENDING" });
    const r = store.apply(
      ev(Ev.CreateAcked, { clientId: o.clientId, exchangeId: "X", tsNs: 9 }, Source.Rest),
    );
    expect(r.sendCancel).toBe(true);
    expect(rec.released).toEqual([o.clientId]);
    expect(o).toMatchObject({ status: Status.PendingCancel, cancelHeld: false, cancelSentNs: 9 });
  });

  it("a held cancel resolves with the reject when the create is rejected", () => {
    const { store, rec } = storeWithRecorder();
    const o = store.create(req(1));
    store.requestCancel(o.clientId);
    const r = store.apply(
      ev(Ev.CreateRejected, { clientId: o.clientId, reason: "insufficient balance" }, Source.Rest),
    );
    expect(r.sendCancel).toBe(false);
    expect(o).toMatchObject({
      status: Status.Rejected,
      cancelHeld: false,
      extra: { rejectReason: "insufficient balance" },
    });
    expect(rec.released).toEqual([]);
  });

  it("cancel rejected (lost the race): back to working, then the fill arrives", () => {
    const { store } = storeWithRecorder();
    const o = store.create(req(1));
    store.apply(
      ev(Ev.VenuePartiallyFilled, { clientId: o.clientId, exchangeId: "X", cumLots: 4 }, Source.Stream),
    );
    store.requestCancel(o.clientId);
    store.apply(ev(Ev.CancelRejected, { clientId: o.clientId }, Source.Rest));
    expect(o.status).toBe(Status.PartiallyFilled);
    store.apply(ev(Ev.VenueFilled, { exchangeId: "X", cumLots: 10 }, Source.Stream));
    expect(o.status).toBe(Status.Filled);
  });
});

describe("OrderStore: unknown and early events", () => {
  it("events keyed only by an unknown exchange id are buffered and applied on the ack", () => {
    const { store } = storeWithRecorder();
    const o = store.create(req(1));
    const r = store.apply(
      ev(Ev.Fill, { exchangeId: "X", execId: "a", lots: 3, pxTicks: 1000 }, Source.Stream),
    );
    expect(r).toMatchObject({ buffered: true, drop: "unknown_order", order: undefined });
    expect(store.orphanCount).toBe(1);
    const a = store.apply(ev(Ev.CreateAcked, { clientId: o.clientId, exchangeId: "X" }, Source.Rest));
    expect(a).toMatchObject({ order: o, status: Status.PartiallyFilled, filledLots: 3 });
    expect(o).toMatchObject({ status: Status.PartiallyFilled, filledLots: 3 });
    expect(store.orphanCount).toBe(0);
  });

  it("events for a client id the store never heard of are counted and kept for the reconciler", () => {
    const { store } = storeWithRecorder();
    store.apply(ev(Ev.VenueNew, { clientId: "other-1", exchangeId: "Z" }, Source.Stream));
    expect(store.stats.unknownOrder).toBe(1);
    expect(store.takeOrphans()).toHaveLength(1);
    expect(store.orphanCount).toBe(0);
  });

  it("orphans are bounded", () => {
    const store = new OrderStore({ maxOrphans: 3 });
    for (let i = 0; i < 5; i++) store.apply(ev(Ev.VenueNew, { exchangeId: `Z${i}` }, Source.Stream));
    expect(store.orphanCount).toBe(3);
    expect(store.dropCount("orphan_evicted")).toBe(2);
  });

  it("lists orders needing resolution and live orders per session/instrument", () => {
    const { store } = storeWithRecorder();
    const a = store.create(req(1), 0);
    const b = store.create(req(2), 0);
    const c = store.create(req(3, 10, 2), 0);
    store.apply(ev(Ev.Submitted, { clientId: a.clientId, tsNs: 0 }, Source.Rest));
    store.apply(ev(Ev.CreateOutcomeUnknown, { clientId: b.clientId, tsNs: 0 }, Source.Rest));
    store.apply(ev(Ev.CreateAcked, { clientId: c.clientId, exchangeId: "C", tsNs: 0 }, Source.Rest));
    store.requestCancel(c.clientId, 0);
    expect(store.needingResolution(50).map((o) => o.clientId)).toEqual([b.clientId]);
    expect(
      store
        .needingResolution(500)
        .map((o) => o.clientId)
        .sort(),
    ).toEqual([a.clientId, b.clientId, c.clientId].sort());
    expect(store.liveOrders(1)).toHaveLength(2);
    expect(store.liveOrders(2, 7)).toHaveLength(1);
    expect(store.liveOrders(2, 8)).toHaveLength(0);
  });

  it("an order whose own request is outstanding at the HTTP layer is not listed for resolution", () => {
    const { store } = storeWithRecorder();
    const a = store.create(req(1), 0);
    const b = store.create(req(2), 0);
    store.apply(ev(Ev.Submitted, { clientId: a.clientId, tsNs: 0 }, Source.Rest));
    store.apply(ev(Ev.CreateOutcomeUnknown, { clientId: b.clientId, tsNs: 0 }, Source.Rest));
    a.requestsOut = 1;
    b.requestsOut = 1; // e.g. a same-id resend of the unknown create, still unanswered
    expect(store.needingResolution(500)).toEqual([]);
    a.requestsOut = 0;
    expect(store.needingResolution(500).map((o) => o.clientId)).toEqual([a.clientId]);
    b.requestsOut = 0;
    expect(store.needingResolution(500)).toHaveLength(2);
  });

  it("forgets finished orders past their keep; never a live one", () => {
    const { store } = storeWithRecorder();
    const a = store.create(req(1), 0);
    store.rejectCreate(a.clientId, "refused", 10);
    const b = store.create(req(2), 0);
    store.ackCreate(b.clientId, "XB", 11);
    const c = store.create(req(3), 0);
    store.ackCreate(c.clientId, "XC", 12);
    store.apply(
      ev(Ev.Fill, { exchangeId: "XC", execId: "e1", lots: 10, pxTicks: 1000, tsNs: 30 }, Source.Stream),
    );
    expect(c.status).toBe(Status.Filled);
    expect(store.finishedKept).toBe(2);

    expect(store.forgetFinished(10)).toBe(0);
    expect(store.forgetFinished(11)).toBe(1);
    expect(store.byClientId(a.clientId)).toBeUndefined();
    expect(store.bySessionOrder(1, 1)).toBeUndefined();
    expect(store.byClientId(c.clientId)).toBe(c);

    expect(store.forgetFinished(Number.MAX_SAFE_INTEGER)).toBe(1);
    expect(store.byClientId(c.clientId)).toBeUndefined();
    expect(store.byExchangeId("XC")).toBeUndefined();
    expect(store.bySessionOrder(1, 3)).toBeUndefined();
    // The live one stays, whatever the cut.
    expect(store.byClientId(b.clientId)).toBe(b);
    expect(store.byExchangeId("XB")).toBe(b);
    expect(store.liveOrders(1)).toEqual([b]);
    expect(store.size).toBe(1);
    expect(store.finishedKept).toBe(0);
    expect(store.stats.forgotten).toBe(2);
  });

  it("beyond the count kept, the earliest finished go first whatever their age", () => {
    const { store } = storeWithRecorder();
    const os = [1, 2, 3, 4, 5].map((n) => store.create(req(n), 0));
    // Finished in the order 3, 1, 5, 2, 4.
    for (const [k, i] of [2, 0, 4, 1, 3].entries()) store.rejectCreate(os[i]!.clientId, "refused", 10 + k);
    expect(store.forgetFinished(0, 2)).toBe(3);
    expect(os.map((o) => store.byClientId(o.clientId) !== undefined)).toEqual([
      false,
      true,
      false,
      true,
      false,
    ]);
    expect(store.forgetFinished(0, 2)).toBe(0);
    expect(store.finishedKept).toBe(2);
  });

  it("forgets at most `limit` in one call; the next call goes on", () => {
    const { store } = storeWithRecorder();
    for (let n = 1; n <= 5; n++) store.rejectCreate(store.create(req(n), 0).clientId, "refused", n);
    expect(store.forgetFinished(100, Number.POSITIVE_INFINITY, 2)).toBe(2);
    expect(store.finishedKept).toBe(3);
    expect(store.bySessionOrder(1, 2)).toBeUndefined();
    expect(store.bySessionOrder(1, 3)).toBeDefined();
    expect(store.forgetFinished(100, Number.POSITIVE_INFINITY, 2)).toBe(2);
    expect(store.forgetFinished(100, Number.POSITIVE_INFINITY, 2)).toBe(1);
    expect(store.finishedKept).toBe(0);
  });

  it("one the caller says is still needed is kept, and forgotten at a later call once it is not", () => {
    const { store } = storeWithRecorder();
    const os = [1, 2, 3].map((n) => store.create(req(n), 0));
    for (const [k, o] of os.entries()) store.rejectCreate(o.clientId, "refused", 10 + k);
    const needed = new Set([os[0]!.clientId]);
    const held = (o: { clientId: string }) => needed.has(o.clientId);
    expect(store.forgetFinished(100, Number.POSITIVE_INFINITY, 10, held)).toBe(2);
    expect(store.byClientId(os[0]!.clientId)).toBe(os[0]);
    expect(store.finishedKept).toBe(1);
    // Asked again at every call while needed (and never twice in one call).
    expect(store.forgetFinished(100, 0, 10, held)).toBe(0);
    expect(store.byClientId(os[0]!.clientId)).toBe(os[0]);
    needed.clear();
    expect(store.forgetFinished(100, Number.POSITIVE_INFINITY, 10, held)).toBe(1);
    expect(store.byClientId(os[0]!.clientId)).toBeUndefined();
    expect(store.finishedKept).toBe(0);
  });

  it("an order revived by the venue is kept while live and forgotten once, after it finishes again", () => {
    const { store } = storeWithRecorder();
    const o = store.create(req(1), 0);
    store.markSent(o.clientId, 5);
    store.rejectCreate(o.clientId, "not found after bounded resends", 6);
    store.ackCreate(o.clientId, "XL", 8); // the venue had it after all: live again
    expect(store.finishedKept).toBe(0);
    expect(store.forgetFinished(Number.MAX_SAFE_INTEGER, 0)).toBe(0);
    expect(store.byClientId(o.clientId)).toBe(o);
    store.apply(ev(Ev.VenueCancelled, { exchangeId: "XL", tsNs: 30 }, Source.Stream));
    expect(o.status).toBe(Status.Cancelled);
    expect(store.finishedKept).toBe(1);
    // Its first finish (at 6) is stale: the second (at 30) decides.
    expect(store.forgetFinished(20)).toBe(0);
    expect(store.forgetFinished(31)).toBe(1);
    expect(store.finishedKept).toBe(0);
    expect(store.stats.forgotten).toBe(1);
  });

  it("holds nothing of a forgotten order: the garbage collector takes it", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const { store } = storeWithRecorder();
    const refs: WeakRef<object>[] = [];
    for (let n = 1; n <= 3000; n++) {
      const o = store.create(req(n), 0);
      store.rejectCreate(o.clientId, "refused", n);
      refs.push(new WeakRef(o));
    }
    // 1000 of 3000 forgotten: too few for the queue to compact itself yet.
    expect(store.forgetFinished(0, 2000)).toBe(1000);
    // WeakRefs are cleared by a collection after the job that made them ends.
    await new Promise((r) => setImmediate(r));
    gc();
    gc();
    const alive = refs.map((r) => r.deref() !== undefined);
    expect(alive.slice(0, 1000).filter(Boolean)).toHaveLength(0);
    expect(alive.slice(1000).every(Boolean)).toBe(true);
  });

  it("a late venue event for a forgotten order changes nothing and reaches no one", () => {
    const { store, rec } = storeWithRecorder();
    const o = store.create(req(1), 0);
    store.ackCreate(o.clientId, "XF", 1);
    store.apply(
      ev(Ev.Fill, { exchangeId: "XF", execId: "e1", lots: 10, pxTicks: 1000, tsNs: 2 }, Source.Stream),
    );
    store.forgetFinished(3);
    const told = rec.updates.length + rec.fills.length;
    const r = store.apply(
      ev(Ev.Fill, { exchangeId: "XF", execId: "e2", lots: 1, pxTicks: 1000, tsNs: 4 }, Source.Stream),
    );
    expect(r).toMatchObject({ order: undefined, drop: "unknown_order", changed: false });
    expect(rec.updates.length + rec.fills.length).toBe(told);
    expect(store.size).toBe(0);
    expect(store.byExchangeId("XF")).toBeUndefined();
  });
});

describe("OrderStore: REST shorthands for the engine", () => {
  it("markSent / ackCreate / cancelOutcome / rejectCreate / createUnknown", () => {
    const { store, rec } = storeWithRecorder();
    const a = store.create(req(1), 1);
    store.markSent(a.clientId, 2);
    expect(a).toMatchObject({ sentNs: 2, sends: 1 });
    expect(store.ackCreate(a.clientId, "XA", 3)).toMatchObject({ status: Status.New, changed: true });
    store.requestCancel(a.clientId, 4);
    store.cancelOutcome(a.clientId, Ev.CancelOutcomeUnknown, 5);
    expect(a.status).toBe(Status.PendingCancel);
    store.cancelOutcome(a.clientId, Ev.CancelAcked, 6);
    expect(a.status).toBe(Status.CancellationRaised);

    const b = store.create(req(2), 1);
    store.markSent(b.clientId, 2);
    store.createUnknown(b.clientId, 3);
    expect(b.status).toBe(Status.Unknown);
    store.markSent(b.clientId, 4); // same-id resend
    expect(b.sends).toBe(2);
    store.rejectCreate(b.clientId, "bad price", 5);
    expect(b).toMatchObject({ status: Status.Rejected, doneNs: 5, extra: { rejectReason: "bad price" } });
    // A REST outcome for an id the store never minted is counted, not kept.
    expect(store.ackCreate("ghost", "XG")).toMatchObject({ order: undefined, buffered: false });
    expect(store.orphanCount).toBe(0);
    expect(rec.updates.map((u) => u.status)).toEqual([
      Status.New,
      Status.PendingCancel,
      Status.CancellationRaised,
      Status.Unknown,
      Status.Rejected,
    ]);
  });
});

describe("OrderStore: malformed events", () => {
  it("are counted as bad_event and change nothing", () => {
    const { store } = storeWithRecorder();
    const o = store.create(req(1));
    store.ackCreate(o.clientId, "X");
    const bad = [
      ev(99 as Ev, { clientId: o.clientId }),
      ev(Ev.Fill, { clientId: o.clientId, execId: "a", lots: 0 }),
      ev(Ev.Fill, { clientId: o.clientId, execId: "b", lots: 1.5 }),
      ev(Ev.Fill, { clientId: o.clientId, execId: "c", lots: Number.NaN }),
      ev(Ev.VenuePartiallyFilled, { clientId: o.clientId, cumLots: 2.5 }),
      ev(Ev.VenueFilled, { clientId: o.clientId, cumLots: -3 }),
    ];
    for (const e of bad) expect(store.apply(e).drop).toBe("bad_event");
    expect(store.dropCount("bad_event")).toBe(bad.length);
    expect(o).toMatchObject({ status: Status.New, filledLots: 0 });
  });
});

describe("OrderStore: a rejection verdict overturned by the venue (a late answer after a restart)", () => {
  it("a late create answer makes the order live again; a later fill is applied and reported", () => {
    const { store, rec } = storeWithRecorder();
    const o = store.create(req(1));
    store.markSent(o.clientId, 5);
    store.createUnknown(o.clientId, 6);
    store.rejectCreate(o.clientId, "not found after bounded resends", 7);
    expect(o.status).toBe(Status.Rejected);
    expect(store.liveOrders(1)).toHaveLength(0);
    expect(store.ackCreate(o.clientId, "XL", 8)).toMatchObject({ changed: true, prev: Status.Rejected });
    expect(o).toMatchObject({ status: Status.New, exchangeId: "XL", doneNs: 0 });
    expect(store.liveOrders(1)).toEqual([o]);
    expect(store.byExchangeId("XL")).toBe(o);
    store.apply(
      ev(Ev.Fill, { exchangeId: "XL", execId: "e1", lots: 4, pxTicks: 1000, tsNs: 9 }, Source.Stream),
    );
    expect(o).toMatchObject({ status: Status.PartiallyFilled, filledLots: 4 });
    expect(rec.fills.map((f) => f.execId)).toEqual(["e1"]);
    expect(rec.updates.map((u) => u.status)).toEqual([
      Status.Unknown,
      Status.Rejected,
      Status.New,
      Status.PartiallyFilled,
    ]);
  });

  it("a venue record of an order judged rejected applies its status and cumulative quantity", () => {
    const { store } = storeWithRecorder();
    const o = store.create(req(1, 10));
    store.markSent(o.clientId, 5);
    store.rejectCreate(o.clientId, "not found after bounded resends", 6);
    store.apply(
      ev(Ev.VenueFilled, { clientId: o.clientId, exchangeId: "XF", cumLots: 10, tsNs: 7 }, Source.Poll),
    );
    expect(o).toMatchObject({ status: Status.Filled, filledLots: 10, exchangeId: "XF" });
    expect(store.liveOrders(1)).toHaveLength(0);
  });
});

describe("OrderStore: maker / taker travels on the event", () => {
  it("an execution's liquidity reaches the fill report; a synthesized fill says unknown", () => {
    const { store, rec } = storeWithRecorder();
    const o = store.create(req(1, 10));
    store.ackCreate(o.clientId, "XM");
    const maker = ev(Ev.Fill, { exchangeId: "XM", execId: "m1", lots: 2, pxTicks: 1000 }, Source.Stream);
    maker.liquidity = LIQUIDITY.Maker;
    store.apply(maker);
    const taker = ev(Ev.Fill, { exchangeId: "XM", execId: "t1", lots: 3, pxTicks: 1000 }, Source.Stream);
    taker.liquidity = LIQUIDITY.Taker;
    store.apply(taker);
    store.apply(ev(Ev.VenuePartiallyFilled, { exchangeId: "XM", cumLots: 7 }, Source.Poll));
    expect(rec.fills.map((f) => [f.execId, f.liquidity])).toEqual([
      ["m1", LIQUIDITY.Maker],
      ["t1", LIQUIDITY.Taker],
      ["XM:7", LIQUIDITY.Unknown],
    ]);
  });
});
