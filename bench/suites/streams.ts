/**
 * Cost of the stream boundary: one Spot `FETCH_ORDER_UPDATES` record (already a JS object, as
 * socket.io hands it over) validated, its instrument found, normalized and applied to the store,
 * against the floor of applying the equivalent pre-built OrderEvent. Both over the same record stream
 * (open, partials with growing cumulative qty, executed, duplicates).
 */
import type { Instrument } from "../../src/domain/types.js";
import {
  type ApplyResult,
  Ev,
  newEvent,
  type OrderEvent,
  OrderStore,
  Source,
} from "../../src/orders/index.js";
import type { SpotOrderRecord } from "../../src/rest/wire.js";
import { InstrumentTable, OrderFeed } from "../../src/streams/index.js";
import { spotRequest } from "../lib/spotRequest.js";
import { newHistogram, ratio, recordNs, summarize } from "../lib/stats.js";

export const name = "streams";

const ORDERS = 10_000;
const FILLS = 5;
const STEP = 0.00001;

const BTC: Instrument = {
  id: 1,
  surface: "spot",
  symbol: "BTC/INR",
  venue: "coinswitchx",
  base: "BTC",
  quote: "INR",
  tickSize: "1",
  qtyStep: "0.00001",
  minQty: "0.00001",
  maxQty: "50",
  minNotional: "100",
  active: true,
};

interface Scenario {
  store: OrderStore;
  records: SpotOrderRecord[];
  events: OrderEvent[];
}

function scenario(): Scenario {
  const store = new OrderStore({ maxOrphans: 10 });
  const records: SpotOrderRecord[] = [];
  const events: OrderEvent[] = [];
  const perOrder: Array<Array<[SpotOrderRecord, OrderEvent]>> = [];
  for (let i = 0; i < ORDERS; i++) {
    const o = store.create(spotRequest(i, 5_400_000, 100 * FILLS), 0);
    store.markSent(o.clientId, 0);
    const list: Array<[SpotOrderRecord, OrderEvent]> = [];
    const mk = (
      status: SpotOrderRecord["status"],
      kind: Ev,
      cumLots: number,
    ): [SpotOrderRecord, OrderEvent] => {
      const rec: SpotOrderRecord = {
        order_id: `o${i}`,
        client_order_id: o.clientId,
        symbol: "BTC/INR",
        price: 5_400_000,
        average_price: cumLots > 0 ? 5_400_000 : 0,
        orig_qty: 100 * FILLS * STEP,
        executed_qty: Number((cumLots * STEP).toFixed(5)),
        status,
        side: "BUY",
        type: "LIMIT",
        exchange: "coinswitchx",
        order_source: "API_TRADING",
        created_time: 1,
        updated_time: 2 + cumLots,
      };
      const e = newEvent(kind);
      e.source = Source.Stream;
      e.clientId = o.clientId;
      e.exchangeId = rec.order_id;
      e.venueMs = rec.updated_time;
      e.cumLots = cumLots;
      e.avgPxTicks = cumLots > 0 ? 5_400_000 : -1;
      return [rec, e];
    };
    list.push(mk("OPEN", Ev.VenueNew, 0));
    for (let f = 1; f <= FILLS; f++) {
      const cum = f * 100;
      const x =
        cum === 100 * FILLS
          ? mk("EXECUTED", Ev.VenueFilled, cum)
          : mk("PARTIALLY_EXECUTED", Ev.VenuePartiallyFilled, cum);
      list.push(x);
      if (f % 2 === 0) list.push(x); // duplicate push
    }
    perOrder.push(list);
  }
  // Interleave 128 orders at a time, like a busy stream.
  const W = 128;
  for (let base = 0; base < ORDERS; base += W) {
    for (let k = 0; ; k++) {
      let any = false;
      for (let j = base; j < Math.min(base + W, ORDERS); j++) {
        const x = perOrder[j]![k];
        if (x === undefined) continue;
        records.push(x[0]);
        events.push(x[1]);
        any = true;
      }
      if (!any) break;
    }
  }
  return { store, records, events };
}

function pass(): { feedPerSec: number; floorPerSec: number; wrong: number } {
  const a = scenario();
  const feed = new OrderFeed(a.store, new InstrumentTable([BTC]));
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < a.records.length; i++) feed.spotOrder(a.records[i]!, Source.Stream, 1);
  const ns = Number(process.hrtime.bigint() - t0);
  let wrong = 0;
  for (let i = 0; i < ORDERS; i++) {
    const o = a.store.byExchangeId(`o${i}`);
    if (o === undefined || o.filledLots !== 100 * FILLS) wrong++;
  }
  const b = scenario();
  const t1 = process.hrtime.bigint();
  for (let i = 0; i < b.events.length; i++) b.store.apply(b.events[i]!);
  const fns = Number(process.hrtime.bigint() - t1);
  return {
    feedPerSec: Math.round((a.records.length / ns) * 1e9),
    floorPerSec: Math.round((b.events.length / fns) * 1e9),
    wrong,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[s.length >> 1]!;
}

export async function run(): Promise<Record<string, unknown>> {
  pass();
  const passes = [pass(), pass(), pass(), pass(), pass()];
  const feedPerSec = median(passes.map((p) => p.feedPerSec));
  const floorPerSec = median(passes.map((p) => p.floorPerSec));

  // Per-record latency through the feed, and the same for the bare apply.
  const s = scenario();
  const feed = new OrderFeed(s.store, new InstrumentTable([BTC]));
  const h = newHistogram();
  let r: ApplyResult | undefined;
  for (let i = 0; i < s.records.length; i++) {
    const t0 = process.hrtime.bigint();
    r = feed.spotOrder(s.records[i]!, Source.Stream, 1);
    recordNs(h, process.hrtime.bigint() - t0);
  }
  const f = scenario();
  const hf = newHistogram();
  for (let i = 0; i < f.events.length; i++) {
    const t0 = process.hrtime.bigint();
    f.store.apply(f.events[i]!);
    recordNs(hf, process.hrtime.bigint() - t0);
  }
  return {
    records: s.records.length,
    feedRecordsPerSec: feedPerSec,
    floorApplyPerSec: floorPerSec,
    feedCostVsApply: ratio(floorPerSec, feedPerSec),
    check: passes.every((p) => p.wrong === 0) && r !== undefined ? "all orders filled exactly" : "WRONG",
    feedLatency: summarize(h),
    applyLatency: summarize(hf),
  };
}
