/**
 * Order state machine throughput: venue events (stream records with cumulative qty, executions,
 * duplicates, stale statuses) applied per second on one core, and p50/p99 per apply. The floor is the
 * least any apply must do: find the order in a Map by exchange id and touch one field.
 */
import {
  Ev,
  eventFromV5Order,
  gridOf,
  newEvent,
  type Order,
  type OrderEvent,
  OrderStore,
  Source,
} from "../../src/orders/index.js";
import type { V5OrderRecord } from "../../src/rest/wire.js";
import { newHistogram, ratio, recordNs, summarize } from "../lib/stats.js";

export const name = "orders";

const ORDERS = 20_000;
const QTY = 100;
const FILLS = 10;

/** Builds a store with ORDERS acked orders and the event stream that fills them all (interleaved). */
function scenario(): { store: OrderStore; events: OrderEvent[]; orders: Order[] } {
  const store = new OrderStore({ maxOrphans: 10 });
  const orders: Order[] = [];
  for (let i = 0; i < ORDERS; i++) {
    const o = store.create(
      {
        sessionId: i & 15,
        clientOrderNo: i,
        instrumentId: 1,
        symbol: "BTCUSDT",
        surface: "hft",
        side: "buy",
        type: "limit",
        tif: "GTC",
        priceTicks: 1000,
        qtyLots: QTY,
      },
      0,
    );
    const a = newEvent(Ev.CreateAcked);
    a.clientId = o.clientId;
    a.exchangeId = `x${i}`;
    store.apply(a);
    orders.push(o);
  }
  const perOrder: OrderEvent[][] = orders.map(() => []);
  for (let i = 0; i < ORDERS; i++) {
    const list = perOrder[i]!;
    const x = `x${i}`;
    const rec = (kind: Ev, cum: number) => {
      const e = newEvent(kind);
      e.source = Source.Stream;
      e.exchangeId = x;
      e.cumLots = cum;
      e.avgPxTicks = cum > 0 ? 1000 : -1;
      return e;
    };
    list.push(rec(Ev.VenueNew, 0), rec(Ev.VenueNew, 0));
    for (let f = 1; f <= FILLS; f++) {
      const fill = newEvent(Ev.Fill);
      fill.source = Source.Stream;
      fill.exchangeId = x;
      fill.execId = `${x}-e${f}`;
      fill.lots = QTY / FILLS;
      fill.pxTicks = 1000;
      list.push(fill);
      const cum = (f * QTY) / FILLS;
      list.push(rec(cum === QTY ? Ev.VenueFilled : Ev.VenuePartiallyFilled, cum));
      if (f % 3 === 0) list.push(fill); // duplicate execution
    }
    list.push(rec(Ev.VenuePartiallyFilled, QTY / 2)); // stale partial after Filled
  }
  // Interleave: 256 orders in flight at a time, round-robin, like a busy stream.
  const events: OrderEvent[] = [];
  const W = 256;
  for (let base = 0; base < ORDERS; base += W) {
    const idx = new Array<number>(W).fill(0);
    let remaining = true;
    while (remaining) {
      remaining = false;
      for (let k = 0; k < W && base + k < ORDERS; k++) {
        const list = perOrder[base + k]!;
        if (idx[k]! < list.length) {
          events.push(list[idx[k]!]!);
          idx[k]!++;
          remaining = true;
        }
      }
    }
  }
  return { store, events, orders };
}

/** One timed pass over a fresh scenario: events/s of the store and of the lookup floor. */
function onePass(): { apply: number; floor: number; events: number; bad: number } {
  const s = scenario();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < s.events.length; i++) s.store.apply(s.events[i]!);
  const ns = Number(process.hrtime.bigint() - t0);
  const bad = s.orders.filter((o) => o.filledLots !== QTY).length;

  // Floor: the Map lookup + a field write per event, over the same stream.
  const f = scenario();
  const byX = new Map<string, Order>();
  for (const o of f.orders) byX.set(o.exchangeId, o);
  let sink = 0;
  const t1 = process.hrtime.bigint();
  for (let i = 0; i < f.events.length; i++) {
    const e = f.events[i]!;
    const o = byX.get(e.exchangeId)!;
    o.updatedNs = e.tsNs;
    sink += o.filledLots;
  }
  const fns = Number(process.hrtime.bigint() - t1) + (sink === -1 ? 1 : 0);
  return {
    apply: Math.round((s.events.length / ns) * 1e9),
    floor: Math.round((f.events.length / fns) * 1e9),
    events: s.events.length,
    bad,
  };
}

function median(xs: number[]): number {
  const a = [...xs].sort((x, y) => x - y);
  return a[a.length >> 1]!;
}

function throughput() {
  onePass(); // warm-up: the JIT sees every path
  const passes = [onePass(), onePass(), onePass(), onePass(), onePass()];
  const bad = passes.reduce((n, p) => n + p.bad, 0);
  return {
    eventsPerSec: median(passes.map((p) => p.apply)),
    minEventsPerSec: Math.min(...passes.map((p) => p.apply)),
    floorPerSec: median(passes.map((p) => p.floor)),
    ratio: median(passes.map((p) => p.floor / p.apply)),
    events: passes[0]!.events,
    check: bad === 0 ? "all orders filled exactly" : `${bad} orders wrong`,
  };
}

function perApplyLatency() {
  const s = scenario();
  const h = newHistogram();
  for (let i = 0; i < s.events.length; i++) {
    const e = s.events[i]!;
    const t0 = process.hrtime.bigint();
    s.store.apply(e);
    recordNs(h, process.hrtime.bigint() - t0);
  }
  // The timer's own cost, measured the same way.
  const hf = newHistogram();
  for (let i = 0; i < 200_000; i++) {
    const t0 = process.hrtime.bigint();
    recordNs(hf, process.hrtime.bigint() - t0);
  }
  return { apply: summarize(h), timerFloor: summarize(hf) };
}

/** Boundary cost: a v5 `/order/realtime` row normalized (decimal strings → lots) and applied. */
function normalizeAndApply(): { perSec: number } {
  normalizeOnce();
  normalizeOnce();
  return { perSec: Math.max(normalizeOnce(), normalizeOnce(), normalizeOnce()) };
}

function normalizeOnce(): number {
  const s = scenario();
  const g = gridOf({ tickSize: "0.1", qtyStep: "0.001" });
  const rows: V5OrderRecord[] = [];
  for (let i = 0; i < 2 * ORDERS; i++) {
    const o = s.orders[i % ORDERS]!;
    rows.push({
      symbol: "BTCUSDT",
      orderId: o.exchangeId,
      orderLinkId: o.clientId,
      orderType: "Limit",
      orderStatus: "PartiallyFilled",
      side: "Buy",
      qty: "0.1",
      price: "100",
      timeInForce: "GTC",
      leavesQty: "0.09",
      cumExecQty: i < ORDERS ? "0.01" : "0.02",
      cumExecValue: "1",
      cumExecFee: "0.001",
      avgPrice: "100",
      lastPriceOnCreated: "100",
      positionIdx: 0,
      createdTime: "1718000000100",
      updatedTime: "1718000000104",
      rejectReason: "EC_NoError",
    });
  }
  const e = newEvent();
  const t0 = process.hrtime.bigint();
  for (const r of rows) s.store.apply(eventFromV5Order(r, g, Source.Poll, 0, e));
  const ns = Number(process.hrtime.bigint() - t0);
  return Math.round((rows.length / ns) * 1e9);
}

export async function run(): Promise<Record<string, unknown>> {
  const tp = throughput();
  const lat = perApplyLatency();
  const norm = normalizeAndApply();
  return {
    events: tp.events,
    check: tp.check,
    events_per_sec_median_of_5: tp.eventsPerSec,
    events_per_sec_worst_of_5: tp.minEventsPerSec,
    target_events_per_sec: 1_000_000,
    meets_target: tp.eventsPerSec >= 1_000_000,
    floor_lookup_per_sec: tp.floorPerSec,
    ratio_floor_over_apply: ratio(tp.ratio, 1),
    apply_latency: lat.apply,
    timer_floor: lat.timerFloor,
    v5_record_normalize_and_apply_per_sec: norm.perSec,
  };
}
