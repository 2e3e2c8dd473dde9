/**
 * The resolver never gives an order up: once its bounded queries are spent without an answer (the venue
 * unreachable), it is escalated and told once, then asked again every `escalatedRetryMs` and at once by
 * a reconciliation, until the venue's word settles it.
 */
import pino from "pino";
import { describe, expect, it } from "vitest";
import {
  eventFromV5Order,
  gridOf,
  type Order,
  OrderStore,
  Status,
  statusFromV5,
} from "../../src/orders/index.js";
import type { V5OrderRecord } from "../../src/rest/wire.js";
import { RecordApplier } from "../../src/venue/apply.js";
import { newSyncStats, Resolver } from "../../src/venue/resolver.js";
import type { Surfaces, VenueSurface } from "../../src/venue/surface.js";

const GRID = gridOf({ tickSize: "0.1", qtyStep: "0.001" });

function record(o: Order): V5OrderRecord {
  return {
    symbol: o.symbol,
    orderId: "venue-1",
    orderLinkId: o.clientId,
    orderType: "Limit",
    orderStatus: "New",
    side: "Buy",
    qty: "0.010",
    price: "100.0",
    timeInForce: "GTC",
    leavesQty: "0.010",
    cumExecQty: "0",
    cumExecValue: "0",
    cumExecFee: "0",
    avgPrice: "0",
    lastPriceOnCreated: "100.0",
    positionIdx: 0,
    createdTime: "1",
    updatedTime: "1",
    rejectReason: "",
  };
}

/** A venue that cannot be reached until `reachable` is set, then holds the order. */
function scriptedVenue() {
  const v = { reachable: false, asked: 0 };
  const surface = {
    kind: "hft",
    journalTag: "hft",
    classOf: () => "hft.query",
    async queryByClientId(o: Order) {
      v.asked++;
      if (!v.reachable) throw new Error("ECONNREFUSED");
      return record(o);
    },
    statusOf: (r: V5OrderRecord) => statusFromV5(r.orderStatus),
    printOf: (r: V5OrderRecord) => `${r.orderStatus}|${r.cumExecQty}|${r.updatedTime}`,
    normalize: (r: V5OrderRecord, g: typeof GRID, s: never, ts: number, ev: never) =>
      eventFromV5Order(r, g, s, ts, ev),
  } as unknown as VenueSurface;
  return { v, surfaces: { spot: surface, hft: surface } as Surfaces };
}

function rig(escalatedRetryMs: number) {
  const store = new OrderStore({ pendingNewDeadlineNs: 0 });
  const { v, surfaces } = scriptedVenue();
  const stats = newSyncStats();
  const escalations: string[] = [];
  const applier = new RecordApplier({
    gridOf: () => GRID,
    apply: (ev) => store.apply(ev),
    journal: undefined,
    onInvalid: () => {},
  });
  const resolver = new Resolver(
    {
      store,
      surfaces,
      applier,
      limiter: undefined,
      journal: undefined,
      log: pino({ level: "silent" }),
      stats,
      resendCreate: () => {},
      resendCancel: () => {},
      onVenueOk: () => {},
      onQuery: () => {},
      onEscalation: () => escalations.push("x"),
    },
    { maxQueries: 3, answerDeadlineMs: 0, escalatedRetryMs },
  );
  const o = store.create({
    sessionId: 1,
    clientOrderNo: 1,
    instrumentId: 1,
    symbol: "ETHUSDT",
    surface: "hft",
    side: "buy",
    type: "limit",
    tif: "GTC",
    priceTicks: 1000,
    qtyLots: 10,
  });
  store.markSent(o.clientId);
  store.createUnknown(o.clientId);
  return { store, v, stats, escalations, resolver, o };
}

describe("resolver: escalated orders are not given up", () => {
  it("asks an escalated order again after escalatedRetryMs and applies the venue's answer", async () => {
    const r = rig(30);
    for (let i = 0; i < 5; i++) await r.resolver.round();
    expect(r.o.status).toBe(Status.Unknown);
    expect(r.escalations).toHaveLength(1);
    const asked = r.v.asked;
    // Not due yet: no question.
    await r.resolver.round();
    expect(r.v.asked).toBe(asked);
    // Due, still unreachable: asked, not escalated (told) a second time.
    await new Promise((res) => setTimeout(res, 40));
    await r.resolver.round();
    expect(r.v.asked).toBe(asked + 1);
    expect(r.escalations).toHaveLength(1);
    // Reachable again: the next due question settles it.
    r.v.reachable = true;
    await new Promise((res) => setTimeout(res, 40));
    await r.resolver.round();
    expect(r.o.status).toBe(Status.New);
    expect(r.o.exchangeId).toBe("venue-1");
  });

  it("a reconciliation asks escalated orders at once", async () => {
    const r = rig(60_000);
    for (let i = 0; i < 5; i++) await r.resolver.round();
    expect(r.escalations).toHaveLength(1);
    r.v.reachable = true;
    await r.resolver.round();
    expect(r.o.status).toBe(Status.Unknown); // not due for a minute
    r.resolver.retryEscalated();
    await r.resolver.round();
    expect(r.o.status).toBe(Status.New);
  });
});
