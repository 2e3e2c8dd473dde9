/**
 * The resolver as a unit: one owner of an in-flight create, no verdict (nor resend) while a request
 * with the order's client id may still be answered, and no order given up once escalated (asked again
 * every `escalatedRetryMs` and at once by a reconciliation). A scripted surface stands in for the venue.
 */
import pino from "pino";
import { describe, expect, it } from "vitest";
import { Ev, monoNs, type Order, OrderStore, Source, Status } from "../../src/orders/index.js";
import { VenueIngest as RecordApplier } from "../../src/venue/ingest.js";
import { newSyncStats, Resolver } from "../../src/venue/resolver.js";
import type { VenueSurface } from "../../src/venue/surface.js";

interface VenueState {
  /** The venue holds the order (its record is returned), else "not found". */
  holds: boolean;
  /** The venue cannot be reached: a query fails with a network error. */
  unreachable: boolean;
  queries: number;
}

/** A venue that answers "not found" until `holds` is set, then returns a New record. */
function scriptedSurface(state: VenueState): VenueSurface {
  const rec = { status: "New", id: "X1" };
  return {
    kind: "hft",
    journalTag: "hft",
    createEndpoint: "hft.createOrder",
    queryAfterAck: true,
    classOf: () => "hft.query",
    prepareCreate: () => {
      throw new Error("not used");
    },
    prepareCancel: () => {
      throw new Error("not used");
    },
    parseCreate: () => ({ exchangeId: "", record: undefined }),
    parseCancel: () => undefined,
    queryByClientId: async () => {
      state.queries++;
      if (state.unreachable) throw new Error("ECONNREFUSED");
      return state.holds ? rec : undefined;
    },
    listOpen: async () => ({ rows: [], complete: true }),
    cancelRecord: async () => undefined,
    clientIdOf: () => "",
    exchangeIdOf: () => "X1",
    statusOf: () => Status.New,
    printOf: () => "New",
    placeOf: () => ({ symbol: "", venue: "" }),
    termsOf: () => {
      throw new Error("not used");
    },
    normalize: (_r, _g, source, ts, ev) => {
      ev.kind = Ev.VenueNew;
      ev.source = source;
      ev.exchangeId = "X1";
      ev.tsNs = ts;
      ev.cumLots = 0;
    },
  };
}

function setUp(deadlineMs: number, opts: { maxQueries?: number; escalatedRetryMs?: number } = {}) {
  const store = new OrderStore();
  const state: VenueState = { holds: false, unreachable: false, queries: 0 };
  const escalations: string[] = [];
  const surface = scriptedSurface(state);
  const resends: Order[] = [];
  const journal: string[] = [];
  const applier = new RecordApplier({
    gridOf: () => ({ tickNum: 1, tickDen: 1, qtyNum: 1, qtyDen: 1 }) as never,
    apply: (ev) => {
      ev.clientId = ev.clientId || order.clientId;
      return store.apply(ev);
    },
    journal: undefined,
    onInvalid: () => {},
  });
  const resolver = new Resolver(
    {
      store,
      surfaces: { spot: surface, hft: surface, futures: surface },
      applier,
      limiter: undefined,
      journal: { response: (r: { body?: string }) => journal.push(r.body ?? ""), note: () => {} } as never,
      log: pino({ level: "silent" }),
      stats: newSyncStats(),
      resendCreate: (o) => {
        resends.push(o);
        store.markSent(o.clientId);
      },
      resendCancel: () => {},
      onVenueOk: () => {},
      onQuery: () => {},
      onEscalation: () => escalations.push(order.clientId),
    },
    {
      maxQueries: opts.maxQueries ?? 10,
      answerDeadlineMs: deadlineMs,
      escalatedRetryMs: opts.escalatedRetryMs,
    },
  );
  const order = store.create({
    sessionId: 1,
    clientOrderNo: 1,
    instrumentId: 1,
    symbol: "BTCUSDT",
    surface: "hft",
    side: "buy",
    type: "limit",
    tif: "GTC",
    priceTicks: 10,
    qtyLots: 1,
  });
  store.markSent(order.clientId);
  store.createUnknown(order.clientId);
  return { store, state, resolver, order, resends, journal, escalations };
}

describe("resolver: no verdict while a request may still be answered", () => {
  it("a not-found before the send's deadline neither re-sends nor judges", async () => {
    const t = setUp(60_000);
    for (let i = 0; i < 5; i++) {
      const r = await t.resolver.resolveOne(t.order);
      expect(r?.action).toBe("retry_query");
    }
    expect(t.resends).toEqual([]);
    expect(t.order.status).toBe(Status.Unknown);
    expect(t.order.extra.resolveAttempts).toBe(0); // waiting is not one of the bounded attempts
    expect(t.journal).toEqual([]);
  });

  it("past every deadline: bounded same-id resends, then one journaled verdict", async () => {
    const t = setUp(0);
    const actions: string[] = [];
    for (let i = 0; i < 3; i++) actions.push((await t.resolver.resolveOne(t.order))!.action);
    expect(actions).toEqual(["resend_create", "resend_create", "apply_event"]);
    expect(t.resends.length).toBe(2);
    expect(t.order.status).toBe(Status.Rejected);
    expect(t.journal).toEqual(["resolution: not found after bounded resends"]);
  });

  it("a replayed create is never re-sent; the venue's record found later overturns the verdict", async () => {
    const t = setUp(0);
    t.resolver.markReplayed(t.order.clientId);
    expect((await t.resolver.resolveOne(t.order))?.action).toBe("apply_event");
    expect(t.resends).toEqual([]);
    expect(t.order.status).toBe(Status.Rejected);
    // The venue shows the order after all (a late record): applied, live again.
    t.state.holds = true;
    t.store.apply({ ...newVenueNew(t.order.clientId), tsNs: monoNs() });
    expect(t.order.status).toBe(Status.New);
    expect(t.store.liveOrders(1)).toEqual([t.order]);
  });
});

describe("resolver: escalated orders are not given up", () => {
  it("asks an escalated order again after escalatedRetryMs and applies the venue's answer", async () => {
    const r = setUp(0, { maxQueries: 3, escalatedRetryMs: 30 });
    r.state.unreachable = true;
    r.state.holds = true;
    for (let i = 0; i < 5; i++) await r.resolver.round();
    expect(r.order.status).toBe(Status.Unknown);
    expect(r.escalations).toHaveLength(1);
    const asked = r.state.queries;
    // Not due yet: no question.
    await r.resolver.round();
    expect(r.state.queries).toBe(asked);
    // Due, still unreachable: asked, not escalated (told) a second time.
    await new Promise((res) => setTimeout(res, 40));
    await r.resolver.round();
    expect(r.state.queries).toBe(asked + 1);
    expect(r.escalations).toHaveLength(1);
    // Reachable again: the next due question settles it.
    r.state.unreachable = false;
    await new Promise((res) => setTimeout(res, 40));
    await r.resolver.round();
    expect(r.order.status).toBe(Status.New);
    expect(r.order.exchangeId).toBe("X1");
  });

  it("a reconciliation asks escalated orders at once", async () => {
    const r = setUp(0, { maxQueries: 3, escalatedRetryMs: 60_000 });
    r.state.unreachable = true;
    r.state.holds = true;
    for (let i = 0; i < 5; i++) await r.resolver.round();
    expect(r.escalations).toHaveLength(1);
    r.state.unreachable = false;
    await r.resolver.round();
    expect(r.order.status).toBe(Status.Unknown); // not due for a minute
    r.resolver.retryEscalated();
    await r.resolver.round();
    expect(r.order.status).toBe(Status.New);
  });
});

function newVenueNew(clientId: string) {
  return {
    kind: Ev.VenueNew,
    source: Source.Poll,
    clientId,
    exchangeId: "X1",
    tsNs: 0,
    venueMs: -1,
    cumLots: 0,
    avgPxTicks: -1,
    fee: -1,
    execId: "",
    lots: 0,
    pxTicks: 0,
    reason: "",
    liquidity: 0,
  } as const;
}
