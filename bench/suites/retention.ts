/**
 * What keeping finished orders costs: an OrderStore fed N orders (created, sent, acked, filled) with
 * every finished order kept (and once more with every order cancelled without a fill instead),
 * against the same with `forgetFinished` bounding the finished ones
 * (orders.keepFinishedMax). Reports the heap each holds after a full collection, bytes per finished
 * order kept, and how long a full (forced, non-incremental) collection takes with each heap: the work
 * of the major GC grows with what the store holds. Same process, same run: ratios, not absolutes.
 * Also what forgetting costs, µs per order, 1,000 a call as the engine's sweep does, and the store in
 * steady operation (a bounded store with orders flowing through): its slowest orders, one Map per
 * index against the sharded maps it uses.
 */

import { PerformanceObserver, performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Ev, newEvent, type OrderEvent, OrderStore, Source } from "../../src/orders/index.js";
import { spotRequest } from "../lib/spotRequest.js";

export const name = "retention";

const ORDERS = 200_000;
/** The bound the second store keeps (a tenth of the orders: what keepFinishedMax does at that rate). */
const KEEP = 20_000;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** To two decimals. */
const r2 = (x: number) => Math.round(x * 100) / 100;

/** How an order of the suite finishes: filled, or cancelled without a fill (a quoting strategy's most). */
type End = "filled" | "cancelled";

/** Order `i` through the store: created, sent, acked, then filled or cancelled (finished). `ev`: a scratch event. */
function one(store: OrderStore, i: number, ev: OrderEvent, end: End = "filled"): void {
  const t = i * 1000;
  const o = store.create(spotRequest(i, 100, 10), t);
  store.markSent(o.clientId, t + 1);
  const exchangeId = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
  store.ackCreate(o.clientId, exchangeId, t + 2);
  if (end === "cancelled") {
    store.requestCancel(o.clientId, t + 3);
    store.cancelOutcome(o.clientId, Ev.CancelAcked, t + 4);
    Object.assign(ev, newEvent(), {
      kind: Ev.VenueCancelled,
      clientId: o.clientId,
      exchangeId,
      cumLots: 0,
      tsNs: t + 5,
      source: Source.Stream,
    });
    store.apply(ev);
    return;
  }
  Object.assign(ev, newEvent(), {
    kind: Ev.Fill,
    clientId: o.clientId,
    execId: `e${i}`,
    lots: 10,
    pxTicks: 100,
    tsNs: t + 3,
    source: Source.Stream,
  });
  store.apply(ev);
}

function feed(store: OrderStore, n: number, keep: number | undefined, end: End = "filled"): void {
  const ev = newEvent();
  for (let i = 1; i <= n; i++) {
    one(store, i, ev, end);
    // As the engine's once-a-second sweep would, every thousand orders here.
    if (keep !== undefined && i % 1000 === 0) store.forgetFinished(0, keep);
  }
}

/** Finished orders a store in steady operation keeps (orders.keepFinishedMax's default). */
const STEADY_KEEP = 100_000;
/** Orders timed once the store holds STEADY_KEEP. */
const STEADY_ORDERS = 400_000;

/**
 * The store in steady operation: STEADY_KEEP finished orders kept while STEADY_ORDERS more flow
 * through, forgotten 1,000 at a time (the engine's sweep) and a resolver round as often, each order's
 * store work timed alone. V8 rebuilds a Map's whole table when deleted entries have filled it; with
 * one Map per index (`indexShards` 1) such a rebuild lands on a single order. Collections are told apart (the `gc` performance entries): an order whose
 * time is mostly a collection counts as the collector's, not the store's.
 */
async function steady(indexShards: number): Promise<Record<string, number>> {
  gc();
  const store = new OrderStore({ maxOrphans: 10, indexShards });
  const ev = newEvent();
  let i = 1;
  for (; i <= STEADY_KEEP; i++) one(store, i, ev);
  const gcs: number[] = [];
  const obs = new PerformanceObserver((l) => {
    for (const e of l.getEntries()) gcs.push(e.startTime, e.startTime + e.duration);
  });
  obs.observe({ entryTypes: ["gc"] });
  const at = new Float64Array(STEADY_ORDERS);
  const took = new Float64Array(STEADY_ORDERS);
  const forgets: number[] = [];
  for (let k = 0; k < STEADY_ORDERS; k++, i++) {
    const t0 = performance.now();
    one(store, i, ev);
    at[k] = t0;
    took[k] = performance.now() - t0;
    if (i % 1000 === 0) {
      const f0 = performance.now();
      store.forgetFinished(0, STEADY_KEEP);
      forgets.push(performance.now() - f0);
      // The resolver's round, which also lets go of the orders no longer unsettled.
      store.needingResolution(i * 1000);
    }
  }
  // The collections' entries reach the observer on a later turn of the event loop.
  await new Promise((r) => setTimeout(r, 100));
  for (const e of obs.takeRecords()) gcs.push(e.startTime, e.startTime + e.duration);
  obs.disconnect();
  let over = 0;
  let overStore = 0;
  let worstStore = 0;
  for (let k = 0; k < STEADY_ORDERS; k++) {
    if (took[k]! <= 2) continue;
    over++;
    const a = at[k]!;
    const b = a + took[k]!;
    let inGc = 0;
    for (let g = 0; g < gcs.length; g += 2)
      inGc += Math.max(0, Math.min(gcs[g + 1]!, b) - Math.max(gcs[g]!, a));
    if (inGc < took[k]! / 2) {
      overStore++;
      worstStore = Math.max(worstStore, took[k]!);
    }
  }
  const sorted = Float64Array.from(took).sort();
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
  forgets.sort((x, y) => x - y);
  return {
    index_shards: indexShards,
    orders_timed: STEADY_ORDERS,
    finished_kept: store.finishedKept,
    us_p50: r2(q(0.5) * 1000),
    us_p99: r2(q(0.99) * 1000),
    us_p99_99: r2(q(0.9999) * 1000),
    ms_max: r2(q(1)),
    over_2ms: over,
    over_2ms_not_gc: overStore,
    ms_worst_not_gc: r2(worstStore),
    ms_forget_1000_p50: r2(forgets[forgets.length >> 1]!),
  };
}

/** Median of five timed full collections, ms. */
function fullGcMs(): number {
  const ts: number[] = [];
  for (let k = 0; k < 5; k++) {
    const t0 = process.hrtime.bigint();
    gc();
    ts.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return Math.round(ts.sort((a, b) => a - b)[2]! * 10) / 10;
}

function measure(keep: number | undefined, end: End = "filled"): Record<string, number> {
  gc();
  gc();
  const h0 = process.memoryUsage().heapUsed;
  const store = new OrderStore({ maxOrphans: 10 });
  feed(store, ORDERS, keep, end);
  gc();
  gc();
  const held = process.memoryUsage().heapUsed - h0;
  const ms = fullGcMs();
  // Read after the timed collections: the store stays reachable through them.
  return {
    orders: ORDERS,
    finished_kept: store.finishedKept,
    heap_held_mb: Math.round(held / 1e5) / 10,
    bytes_per_finished_order_kept: Math.round(held / Math.max(1, store.finishedKept)),
    full_gc_ms: ms,
  };
}

/**
 * The cost of forgetting: a store of ORDERS finished orders forgotten 1,000 at a time (the engine's
 * sweep), µs per order forgotten: median and worst over the calls.
 */
function forgetCost(): Record<string, number> {
  const store = new OrderStore({ maxOrphans: 10 });
  feed(store, ORDERS, undefined);
  const per: number[] = [];
  for (;;) {
    const t0 = process.hrtime.bigint();
    const n = store.forgetFinished(Number.MAX_SAFE_INTEGER, 0, 1_000);
    if (n === 0) break;
    per.push(Number(process.hrtime.bigint() - t0) / 1e3 / n);
  }
  per.sort((a, b) => a - b);
  return {
    calls: per.length,
    us_per_order_p50: r2(per[per.length >> 1]!),
    us_per_order_max: r2(per.at(-1)!),
  };
}

export async function run(): Promise<Record<string, unknown>> {
  const all = measure(undefined);
  const bounded = measure(KEEP);
  return {
    steady_one_map_per_index: await steady(1),
    steady_sharded: await steady(32),
    forget_1000_per_call: forgetCost(),
    every_finished_kept: all,
    // The same with every order cancelled without a fill: what most of a quoting strategy's orders keep.
    every_cancelled_kept: measure(undefined, "cancelled"),
    finished_bounded: bounded,
    heap_ratio_kept_vs_bounded: Math.round((all.heap_held_mb! / bounded.heap_held_mb!) * 10) / 10,
    full_gc_ratio_kept_vs_bounded: Math.round((all.full_gc_ms! / bounded.full_gc_ms!) * 10) / 10,
  };
}
