/**
 * HFT listings longer than 50 pages, against the simulator over real sockets (its page size set to 2,
 * 110 open orders: 55 pages): the reconciliation follows `/v5/order/realtime` to the end of its cursor
 * and completes; with the page bound below the listing's length it stays incomplete, says so, and
 * concludes nothing about orders it did not see. The surface's full listing (the orphan check) follows
 * every page too, and says when pages were left.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Status } from "../../src/orders/index.js";
import { InstrumentTable, OrderFeed } from "../../src/streams/feed.js";
import { Reconciler } from "../../src/streams/reconciler.js";
import { unheldOrders } from "../../src/venue/orphans.js";
import { buildSurfaces } from "../../src/venue/surfaces.js";
import { DOMAIN_INSTRUMENTS, placeHft, type Rig, startRig } from "./helpers.js";

const OPEN = 110;
const LINEAR: ("linear" | "option")[] = ["linear"];
let rig: Rig;

beforeAll(async () => {
  rig = await startRig({ hft: { pageSize: 2 } });
  for (let i = 0; i < OPEN; i++) {
    const o = await placeHft(rig, { symbol: "ETHUSDT", side: "buy", price: String(1000 + i), qty: "0.05" });
    expect(o.status).toBe(Status.New);
  }
}, 30_000);
afterAll(async () => {
  await rig?.close();
});

function reconciler(maxPages?: number): Reconciler {
  const feed = new OrderFeed(rig.store, new InstrumentTable(DOMAIN_INSTRUMENTS));
  const resolver = { settle: async () => [] };
  return new Reconciler({ feed, rest: rig.stack.client, spot: false, resolver, maxPages });
}

describe("HFT reconciliation past 50 pages", () => {
  it("follows the cursor to the end: complete, every open order seen, nothing missing", async () => {
    const rep = await reconciler().reconcile(["hft"]);
    expect(rep.errors).toEqual([]);
    expect(rep.complete).toBe(true);
    expect(rep.surfaces.hft).toBe(true);
    expect(rep.foreign).toEqual([]);
    expect(rep.missing).toEqual([]);
    for (const o of rig.store.liveSet()) expect(o.status).toBe(Status.New);
    expect(rig.store.liveSet().size).toBe(OPEN);
  });

  it("with the page bound below the listing: incomplete, said loudly, no live order concluded missing", async () => {
    const rep = await reconciler(20).reconcile(["hft"]);
    expect(rep.complete).toBe(false);
    expect(rep.surfaces.hft).toBe(false);
    expect(rep.errors.join("\n")).toMatch(
      /realtime \(linear\): 20 pages \(40 rows\) read and more remain: venue\.hftListMaxPages reached, not reconciled/,
    );
    expect(rep.missing).toEqual([]);
    expect(rig.store.liveSet().size).toBe(OPEN);
  });

  it("the surface's full listing reads every page; a poll round's stays short and says it is not complete", async () => {
    const config = {
      venue: {
        hftCategories: LINEAR,
        hftAmendBy: "orderId" as const,
        futuresPollMs: 1000,
        hftListMaxPages: 2_000,
      },
      orders: { spotExpirySeconds: 90 },
    };
    const book = { byId: (id: number) => ({ inst: DOMAIN_INSTRUMENTS[id - 1]! }) };
    const hft = buildSurfaces(rig.stack.client, book, config).hft;
    const full = await hft.listOpen(true);
    expect(full).toMatchObject({ complete: true });
    expect(full.rows).toHaveLength(OPEN);
    const poll = await hft.listOpen();
    expect(poll.complete).toBe(false);
    expect(poll.rows).toHaveLength(10);

    // The orphan check on a gateway that holds none of them: every one listed, none left unlisted.
    const empty = { byClientId: () => undefined, byExchangeId: () => undefined };
    const all = await unheldOrders([hft], empty);
    expect(all.rows).toHaveLength(OPEN);
    expect(all.failed).toEqual([]);
    const short = buildSurfaces(rig.stack.client, book, {
      ...config,
      venue: { ...config.venue, hftListMaxPages: 7 },
    });
    const cut = await unheldOrders([short.hft], empty);
    expect(cut.rows).toHaveLength(14);
    expect(cut.failed).toEqual([
      {
        surface: "hft",
        err: "open orders listed up to the page bound (14 read) and more remain: venue.hftListMaxPages",
      },
    ]);
  });
});
