/**
 * The order store's buffer of events for orders it does not know (yet), through the store's API:
 * events kept by exchange id and by client id share one bound and one age order (the oldest id's
 * oldest event goes first, whichever id it was kept by), and each is handed back to its order.
 */
import { describe, expect, it } from "vitest";
import { Ev, OrderStore, Source, Status } from "../../src/orders/index.js";
import { ev, req } from "./helpers.js";

describe("OrderStore: orphan buffer", () => {
  it("evicts the oldest id first across exchange-id and client-id keys; takeOrphans keeps that order", () => {
    const store = new OrderStore({ maxOrphans: 3 });
    store.apply(ev(Ev.VenueNew, { clientId: "c-1" }, Source.Stream));
    store.apply(ev(Ev.VenueNew, { exchangeId: "Z1" }, Source.Stream));
    store.apply(ev(Ev.VenueNew, { clientId: "c-2" }, Source.Stream));
    store.apply(ev(Ev.VenueNew, { exchangeId: "Z2" }, Source.Stream));
    store.apply(ev(Ev.VenueNew, { exchangeId: "Z3" }, Source.Stream));
    expect(store.orphanCount).toBe(3);
    expect(store.dropCount("orphan_evicted")).toBe(2);
    expect(store.takeOrphans().map((e) => e.clientId || e.exchangeId)).toEqual(["c-2", "Z2", "Z3"]);
    expect(store.orphanCount).toBe(0);
  });

  it("an id's events stay together and go oldest first; a later event under an older id keeps its age", () => {
    const store = new OrderStore({ maxOrphans: 3 });
    store.apply(ev(Ev.VenueNew, { exchangeId: "Z1", tsNs: 1 }, Source.Stream));
    store.apply(ev(Ev.VenueNew, { clientId: "c-1", tsNs: 2 }, Source.Stream));
    store.apply(ev(Ev.VenuePartiallyFilled, { exchangeId: "Z1", cumLots: 1, tsNs: 3 }, Source.Stream));
    store.apply(ev(Ev.VenueNew, { clientId: "c-2", tsNs: 4 }, Source.Stream));
    expect(store.dropCount("orphan_evicted")).toBe(1);
    expect(store.takeOrphans().map((e) => e.tsNs)).toEqual([3, 2, 4]);
  });

  it("events kept by client id are applied when that order is created (replay); by exchange id, when it is bound", () => {
    const store = new OrderStore();
    store.apply(ev(Ev.VenueNew, { clientId: "r-1", tsNs: 5 }, Source.Stream));
    store.apply(ev(Ev.Fill, { exchangeId: "X9", execId: "e1", lots: 2, pxTicks: 1000 }, Source.Stream));
    expect(store.orphanCount).toBe(2);
    const replayed = store.create(req(1), 1, "r-1");
    expect(replayed.status).toBe(Status.New);
    expect(store.orphanCount).toBe(1);
    const o = store.create(req(2), 1);
    expect(store.ackCreate(o.clientId, "X9", 6)).toMatchObject({ filledLots: 2, buffered: false });
    expect(o).toMatchObject({ status: Status.PartiallyFilled, filledLots: 2 });
    expect(store.orphanCount).toBe(0);
  });
});
