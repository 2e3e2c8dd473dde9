/**
 * Amend in the order store: PendingReplace and its guards, the amend's answers, fills that race it,
 * a cancel asked for meanwhile, and the cancel-replace marking (Spot).
 */
import { describe, expect, it } from "vitest";
import { amendGuard, Ev, type Order, type OrderStore, Source, Status } from "../../src/orders/index.js";
import { ev, req, storeWithRecorder } from "./helpers.js";

function acked(store: OrderStore, n: number, qty = 10): Order {
  const o = store.create(req(n, qty));
  store.markSent(o.clientId);
  store.ackCreate(o.clientId, `X${n}`);
  return o;
}

function fill(store: OrderStore, o: Order, lots: number, id: string): void {
  store.apply(ev(Ev.Fill, { clientId: o.clientId, execId: id, lots, pxTicks: 1000 }, Source.Stream));
}

describe("amend in place", () => {
  it("PendingReplace with the target, then the venue's yes applies price and quantity", () => {
    const { store, rec } = storeWithRecorder();
    const o = acked(store, 1);
    expect(store.requestAmend(o.clientId, 1010, 14).kind).toBe("send");
    expect(o.status).toBe(Status.PendingReplace);
    expect([o.priceTicks, o.qtyLots, o.extra.amendPriceTicks, o.extra.amendQtyLots]).toEqual([
      1000, 10, 1010, 14,
    ]);
    expect(rec.updates.at(-1)).toMatchObject({ status: Status.PendingReplace, cause: Ev.AmendRequested });
    store.amendOutcome(o.clientId, Ev.AmendAcked);
    expect(o.status).toBe(Status.New);
    expect([o.priceTicks, o.qtyLots, o.leavesLots, o.extra.amendQtyLots]).toEqual([1010, 14, 14, 0]);
  });

  it("the venue's no leaves the order as it was, working", () => {
    const { store } = storeWithRecorder();
    const o = acked(store, 1);
    fill(store, o, 2, "e1");
    store.requestAmend(o.clientId, 0, 5);
    store.amendOutcome(o.clientId, Ev.AmendRejected, undefined, "too late");
    expect(o.status).toBe(Status.PartiallyFilled);
    expect([o.priceTicks, o.qtyLots, o.leavesLots, o.extra.amendQtyLots]).toEqual([1000, 10, 8, 0]);
  });

  it("an unknown outcome stays PendingReplace and needs resolution after the deadline", () => {
    const { store } = storeWithRecorder();
    const o = acked(store, 1);
    store.requestAmend(o.clientId, 990, 0, 0, 1_000);
    store.amendOutcome(o.clientId, Ev.AmendOutcomeUnknown);
    expect(o.status).toBe(Status.PendingReplace);
    expect(store.needingResolution(1_050)).not.toContain(o);
    expect(store.needingResolution(1_200)).toContain(o);
  });

  it("a fill racing an amend that raises the quantity: applied, the order stays working until the answer", () => {
    const { store, rec } = storeWithRecorder();
    const o = acked(store, 1);
    store.requestAmend(o.clientId, 0, 15);
    fill(store, o, 10, "e1");
    expect(o.filledLots).toBe(10);
    expect(o.status).toBe(Status.PendingReplace);
    expect(o.extra.overfilled).toBe(false);
    expect(rec.fills.map((f) => f.lots)).toEqual([10]);
    store.amendOutcome(o.clientId, Ev.AmendAcked);
    expect([o.status, o.qtyLots, o.leavesLots]).toEqual([Status.PartiallyFilled, 15, 5]);
  });

  it("the same race when the venue refused the amend: the old quantity is all filled", () => {
    const { store } = storeWithRecorder();
    const o = acked(store, 1);
    store.requestAmend(o.clientId, 0, 15);
    fill(store, o, 10, "e1");
    store.amendOutcome(o.clientId, Ev.AmendRejected);
    expect([o.status, o.qtyLots, o.leavesLots]).toEqual([Status.Filled, 10, 0]);
  });

  it("a fill completing a reduced quantity: Filled once the amend is acked", () => {
    const { store } = storeWithRecorder();
    const o = acked(store, 1);
    store.requestAmend(o.clientId, 0, 6);
    fill(store, o, 6, "e1");
    expect(o.status).toBe(Status.PendingReplace);
    store.amendOutcome(o.clientId, Ev.AmendAcked);
    expect([o.status, o.qtyLots, o.leavesLots]).toEqual([Status.Filled, 6, 0]);
  });

  it("a cancel during the amend is held and released once the amend is answered", () => {
    const { store, rec } = storeWithRecorder();
    const o = acked(store, 1);
    store.requestAmend(o.clientId, 1001, 0);
    expect(store.requestCancel(o.clientId).kind).toBe("hold");
    expect(store.requestCancel(o.clientId)).toMatchObject({ kind: "reject", code: "CANCEL_ALREADY_PENDING" });
    expect(o.status).toBe(Status.PendingReplace);
    const r = store.amendOutcome(o.clientId, Ev.AmendAcked);
    expect(r.sendCancel).toBe(true);
    expect(rec.released).toEqual([o.clientId]);
    expect([o.status, o.priceTicks]).toEqual([Status.PendingCancel, 1001]);
  });

  it("a venue final during the amend ends the order; the late answer changes nothing", () => {
    const { store } = storeWithRecorder();
    const o = acked(store, 1);
    store.requestAmend(o.clientId, 1001, 0);
    store.apply(ev(Ev.VenueCancelled, { clientId: o.clientId, cumLots: 0 }, Source.Stream));
    expect(o.status).toBe(Status.Cancelled);
    const r = store.amendOutcome(o.clientId, Ev.AmendAcked);
    expect(r.drop).toBe("terminal");
    expect(o.priceTicks).toBe(1000);
  });

  it("a stale venue record during the amend keeps PendingReplace but applies its quantity", () => {
    const { store } = storeWithRecorder();
    const o = acked(store, 1);
    store.requestAmend(o.clientId, 1001, 0);
    const r = store.apply(ev(Ev.VenuePartiallyFilled, { clientId: o.clientId, cumLots: 3 }, Source.Poll));
    expect(r.drop).toBe("amend_in_flight");
    expect([o.status, o.filledLots]).toEqual([Status.PendingReplace, 3]);
  });
});

describe("amend guard", () => {
  const base = {
    status: Status.New as Status,
    cancelHeld: false,
    type: "limit" as "limit" | "market",
    priceTicks: 1000,
    qtyLots: 10,
    filledLots: 2,
    extra: { replacedBy: 0 },
  };
  const code = (o: typeof base | undefined, px: number, qty: number) => {
    const d = amendGuard(o, px, qty);
    return d.kind === "reject" ? d.code : d.kind;
  };

  it("refuses, with a reason, every order that is not plainly working", () => {
    expect(code(undefined, 1, 0)).toBe("UNKNOWN_ORDER");
    for (const s of [Status.Filled, Status.Cancelled, Status.Expired, Status.Rejected])
      expect(code({ ...base, status: s }, 1001, 0)).toBe("ALREADY_TERMINAL");
    for (const s of [Status.PendingCancel, Status.CancellationRaised])
      expect(code({ ...base, status: s }, 1001, 0)).toBe("CANCEL_PENDING");
    expect(code({ ...base, status: Status.ExpirationRaised }, 1001, 0)).toBe("EXPIRATION_RAISED");
    expect(code({ ...base, status: Status.PendingReplace }, 1001, 0)).toBe("AMEND_PENDING");
    expect(code({ ...base, extra: { replacedBy: 9 }, status: Status.PendingCancel }, 1001, 0)).toBe(
      "AMEND_PENDING",
    );
    for (const s of [Status.PendingNew, Status.Unknown])
      expect(code({ ...base, status: s }, 1001, 0)).toBe("NOT_WORKING");
    expect(code({ ...base, cancelHeld: true }, 1001, 0)).toBe("CANCEL_PENDING");
  });

  it("refuses a quantity not above the filled quantity, a market order, and no change", () => {
    expect(code(base, 0, 2)).toBe("QTY_NOT_ABOVE_FILLED");
    expect(code(base, 0, 1)).toBe("QTY_NOT_ABOVE_FILLED");
    expect(code({ ...base, type: "market" }, 1001, 0)).toBe("NOTHING_TO_AMEND");
    expect(code(base, 1000, 10)).toBe("NOTHING_TO_AMEND");
    expect(code(base, 0, 3)).toBe("send");
    expect(code({ ...base, status: Status.PartiallyFilled }, 999, 0)).toBe("send");
  });

  it("a refused amend changes nothing in the store", () => {
    const { store, rec } = storeWithRecorder();
    const o = acked(store, 1);
    fill(store, o, 4, "e1");
    const n = rec.updates.length;
    expect(store.requestAmend(o.clientId, 0, 4)).toMatchObject({
      kind: "reject",
      code: "QTY_NOT_ABOVE_FILLED",
    });
    expect([o.status, o.extra.amendQtyLots, o.extra.amendSentNs, rec.updates.length]).toEqual([
      Status.PartiallyFilled,
      0,
      0,
      n,
    ]);
  });
});

describe("cancel-replace marking", () => {
  it("the old order goes PendingCancel with the replacement's number; further amends and cancels are refused", () => {
    const { store } = storeWithRecorder();
    const o = acked(store, 1);
    expect(store.requestAmend(o.clientId, 1005, 12, 7).kind).toBe("send");
    expect([o.status, o.extra.replacedBy, o.extra.amendPriceTicks, o.extra.amendQtyLots]).toEqual([
      Status.PendingCancel,
      7,
      1005,
      12,
    ]);
    expect(store.requestAmend(o.clientId, 1006, 0)).toMatchObject({ code: "AMEND_PENDING" });
    expect(store.requestCancel(o.clientId)).toMatchObject({ code: "CANCEL_ALREADY_PENDING" });
    store.cancelOutcome(o.clientId, Ev.CancelAcked);
    store.apply(ev(Ev.VenueCancelled, { clientId: o.clientId, cumLots: 0 }, Source.Stream));
    // The target is kept for the replacement until the engine ends the replace.
    expect([o.status, o.extra.replacedBy, o.extra.amendQtyLots]).toEqual([Status.Cancelled, 7, 12]);
    store.endReplace(o);
    expect([o.extra.replacedBy, o.extra.amendPriceTicks, o.extra.amendQtyLots]).toEqual([0, 0, 0]);
  });
});
