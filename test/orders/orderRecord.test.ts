import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import {
  clearAmendTarget,
  Ev,
  NO_EXTRA,
  newOrder,
  type OrderExtra,
  OrderStore,
  ownExtra,
  Source,
  Status,
} from "../../src/orders/index.js";
import { ev, req, storeWithRecorder } from "./helpers.js";

/** The fields an order keeps apart until one changes (order.ts, OrderExtra), with a value each. */
const RARE: [keyof OrderExtra, unknown, unknown][] = [
  ["execLots", 0, 3],
  ["avgPxTicks", 0, 1000.5],
  ["fees", 0, 0.25],
  ["lastFillPxTicks", 0, 999.5],
  ["lastFillLots", 0, 2],
  ["lastFillMs", 0, 1_764_279_000_123],
  ["overfilled", false, true],
  ["rejectReason", "", "insufficient balance"],
  ["firstFillNs", 0, 1.5e15],
  ["execRingPos", 0, 4],
  ["resolveAttempts", 0, 2],
  ["amendPriceTicks", 0, 1010],
  ["amendQtyLots", 0, 12],
  ["amendSentNs", 0, 1.6e15],
  ["replacedBy", 0, 9],
];

describe("Order record: the rarely used fields", () => {
  it("start at their defaults, and a write to one order's reaches no other order", () => {
    const a = newOrder("a", req(1), 5);
    const b = newOrder("b", req(2), 6);
    expect(a.extra).toBe(NO_EXTRA);
    for (const [name, def, value] of RARE) {
      expect(a.extra[name], name).toBe(def);
      (ownExtra(a) as unknown as Record<string, unknown>)[name] = value;
      expect(a.extra[name], name).toBe(value);
      expect(b.extra[name], name).toBe(def);
    }
    expect(a.extra).not.toBe(NO_EXTRA);
    expect(b.extra).toBe(NO_EXTRA);
    const c = newOrder("c", req(3), 7);
    for (const [name, def] of RARE) expect(c.extra[name], name).toBe(def);
    expect(c.extra.execIds.size).toBe(0);
    expect(c.extra.execRing).toHaveLength(0);
  });

  it("the shared defaults refuse a write that bypassed ownExtra; clearing an amend target makes no extra", () => {
    const a = newOrder("a", req(1), 5);
    expect(() => {
      (a.extra as OrderExtra).fees = 1;
    }).toThrow(TypeError);
    expect(NO_EXTRA.fees).toBe(0);
    clearAmendTarget(a);
    expect(a.extra).toBe(NO_EXTRA);
    ownExtra(a).amendQtyLots = 7;
    ownExtra(a).amendPriceTicks = 1010;
    clearAmendTarget(a);
    expect([a.extra.amendPriceTicks, a.extra.amendQtyLots]).toEqual([0, 0]);
  });

  it("an order created, acked and cancelled keeps the shared defaults", () => {
    const { store } = storeWithRecorder();
    const a = store.create(req(1), 1);
    store.markSent(a.clientId, 2);
    store.ackCreate(a.clientId, "XA", 3);
    expect(store.requestCancel(a.clientId, 4).kind).toBe("send");
    store.cancelOutcome(a.clientId, Ev.CancelAcked, 5);
    store.apply(ev(Ev.VenueCancelled, { exchangeId: "XA", cumLots: 0, tsNs: 6 }, Source.Stream));
    expect(a.status).toBe(Status.Cancelled);
    expect(a.extra).toBe(NO_EXTRA);
  });

  it("fills, execution ids and an amend through the store stay with their order", () => {
    const { store } = storeWithRecorder();
    const a = store.create(req(1), 1);
    const b = store.create(req(2), 1);
    store.ackCreate(a.clientId, "XA", 2);
    store.ackCreate(b.clientId, "XB", 2);
    store.apply(
      ev(
        Ev.Fill,
        { exchangeId: "XA", execId: "e1", lots: 4, pxTicks: 1000, fee: 0.1, tsNs: 3 },
        Source.Stream,
      ),
    );
    store.apply(
      ev(
        Ev.Fill,
        { exchangeId: "XA", execId: "e2", lots: 2, pxTicks: 1003, fee: 0.1, tsNs: 4 },
        Source.Stream,
      ),
    );
    expect(a).toMatchObject({
      status: Status.PartiallyFilled,
      filledLots: 6,
      extra: { execLots: 6, lastFillLots: 2, firstFillNs: 3 },
    });
    expect(a.extra.avgPxTicks).toBeCloseTo(1001, 9);
    expect([...a.extra.execIds]).toEqual(["e1", "e2"]);
    // The same execution id on the other order is its own first execution, not a duplicate.
    store.apply(
      ev(Ev.Fill, { exchangeId: "XB", execId: "e1", lots: 1, pxTicks: 1000, tsNs: 5 }, Source.Stream),
    );
    expect(b).toMatchObject({ filledLots: 1, extra: { execLots: 1, avgPxTicks: 1000, firstFillNs: 5 } });
    expect([...b.extra.execIds]).toEqual(["e1"]);
    expect(store.requestAmend(b.clientId, 1005, 10, 0, 6).kind).toBe("send");
    expect(b.extra.amendPriceTicks).toBe(1005);
    expect(a.extra.amendPriceTicks).toBe(0);
  });

  it("an order that never changes the rare fields keeps none of them: over 80 bytes less than one that does", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const n = 20_000;
    // Bytes per order kept by a store of n acked orders; `touch` changes one rare field of each.
    const perOrder = async (touch: boolean): Promise<number> => {
      await new Promise((r) => setImmediate(r));
      gc();
      const before = process.memoryUsage().heapUsed;
      const store = new OrderStore();
      for (let i = 1; i <= n; i++) {
        const o = store.create(req(i), 1e15 + i * 1000);
        store.ackCreate(
          o.clientId,
          `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
          1e15 + i * 1000 + 50,
        );
        if (touch) store.noteResolveAttempt(o);
      }
      gc();
      const bytes = (process.memoryUsage().heapUsed - before) / n;
      expect(store.size).toBe(n);
      return bytes;
    };
    const plain = await perOrder(false);
    const touched = await perOrder(true);
    // The extra object: a header and 17 fields of 8 bytes (Node 20: no pointer compression). With the
    // fields on the record itself both stores would keep the same bytes. Relative, because what an
    // order keeps in absolute terms depends on the process's history (a field V8 has seen hold a
    // fraction gets a box on every order made after).
    expect(touched - plain).toBeGreaterThan(80);
    expect(touched - plain).toBeLessThan(400);
  });
});
