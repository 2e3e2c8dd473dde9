/**
 * Property: a Spot order's wire records (as FETCH_ORDER_UPDATES delivers them: JSON numbers, statuses,
 * growing executed_qty) pushed through the OrderFeed shuffled, duplicated and partly dropped, followed
 * by one authoritative record (what the poller or the reconciler fetches), always end in the venue's
 * final status and filled quantity, and the fills reported to the listener add up to it exactly.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OrderStore, Source, SPOT_STATUS_MAP, STATUS_NAMES, type Status } from "../../src/orders/index.js";
import type { SpotOrderRecord, SpotStatus } from "../../src/rest/wire.js";
import { InstrumentTable, OrderFeed } from "../../src/streams/index.js";
import { DOMAIN_INSTRUMENTS } from "./helpers.js";

const STEP = 0.00001;
const END: SpotStatus[] = ["EXECUTED", "CANCELLED", "EXPIRED"];

/** A venue-side lifecycle: OPEN, partials, optionally a pending phase, a terminal record. */
const lifecycle = fc
  .record({
    qty: fc.integer({ min: 1, max: 50 }),
    cuts: fc.array(fc.integer({ min: 1, max: 49 }), { maxLength: 6 }),
    end: fc.constantFrom(...END),
    pending: fc.constantFrom<SpotStatus | undefined>(undefined, "CANCELLATION_RAISED", "EXPIRATION_RAISED"),
  })
  .map(({ qty, cuts, end, pending }) => {
    const cums = [...new Set(cuts.filter((c) => c < qty))].sort((a, b) => a - b);
    const finalCum = end === "EXECUTED" ? qty : (cums[cums.length - 1] ?? 0);
    const recs: Array<[SpotStatus, number]> = [["OPEN", 0]];
    for (const c of cums) if (c <= finalCum) recs.push(["PARTIALLY_EXECUTED", c]);
    if (end !== "EXECUTED" && pending !== undefined) {
      const p: SpotStatus = end === "EXPIRED" ? "EXPIRATION_RAISED" : "CANCELLATION_RAISED";
      recs.push([p, finalCum]);
    }
    recs.push([end, finalCum]);
    return { qty, recs, end, finalCum };
  });

const delivery = fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 2 })), {
  minLength: 1,
  maxLength: 40,
});

function record(clientId: string, qty: number, status: SpotStatus, cum: number, t: number): SpotOrderRecord {
  return {
    order_id: "ex-1",
    client_order_id: clientId,
    symbol: "BTC/INR",
    price: 5_400_000,
    average_price: cum > 0 ? 5_400_000 : 0,
    orig_qty: Number((qty * STEP).toFixed(5)),
    // Binary noise as a JSON encoder may produce it (0.00003 → 0.000030000000000000004).
    executed_qty: cum * STEP,
    status,
    side: "BUY",
    type: "LIMIT",
    exchange: "coinswitchx",
    order_source: "API_TRADING",
    created_time: 1,
    updated_time: t,
  };
}

describe("OrderFeed with shuffled, duplicated and dropped Spot records", () => {
  it("ends in the venue's final state with exact fills", () => {
    fc.assert(
      fc.property(lifecycle, delivery, ({ qty, recs, end, finalCum }, plan) => {
        let reported = 0;
        const store = new OrderStore({
          listener: {
            onUpdate() {},
            onFill(_o, f) {
              reported += f.lots;
            },
            onCancelReleased() {},
          },
        });
        const feed = new OrderFeed(store, new InstrumentTable(DOMAIN_INSTRUMENTS));
        const o = store.create({
          sessionId: 1,
          clientOrderNo: 1,
          instrumentId: 1,
          symbol: "BTC/INR",
          surface: "spot",
          side: "buy",
          type: "limit",
          tif: "GTC",
          priceTicks: 5_400_000,
          qtyLots: qty,
        });
        store.markSent(o.clientId);
        const wire = recs.map(([s, c], i) => record(o.clientId, qty, s, c, 10 + i));
        // The stream: picks from the records in a random order, 0-2 copies each pick (0 = dropped).
        for (const [pick, copies] of plan) {
          const r = wire[pick % wire.length]!;
          for (let k = 0; k < copies; k++) expect(feed.spotOrder(r, Source.Stream)).toBeDefined();
        }
        // The poller / reconciler: the venue's current record.
        feed.spotOrder(wire[wire.length - 1]!, Source.Poll);
        const want = SPOT_STATUS_MAP[end] as Status;
        expect(STATUS_NAMES[o.status]).toBe(STATUS_NAMES[want]);
        expect(o.filledLots).toBe(finalCum);
        expect(reported).toBe(finalCum);
        expect(o.extra.overfilled).toBe(false);
        expect(feed.stats.malformed).toBe(0);
      }),
      { numRuns: 400 },
    );
  });
});
