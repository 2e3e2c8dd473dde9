/**
 * What keeping finished orders costs: an OrderStore fed N orders (created, sent, acked, filled) with
 * every finished order kept, against the same with `forgetFinished` bounding the finished ones
 * (orders.keepFinishedMax). Reports the heap each holds after a full collection, bytes per finished
 * order kept, and how long a full (forced, non-incremental) collection takes with each heap: the work
 * of the major GC grows with what the store holds. Same process, same run: ratios, not absolutes.
 * Also what forgetting costs, µs per order, 1,000 a call as the engine's sweep does.
 */

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Ev, newEvent, OrderStore, Source } from "../../src/orders/index.js";
import { spotRequest } from "../lib/spotRequest.js";

export const name = "retention";

const ORDERS = 200_000;
/** The bound the second store keeps (a tenth of the orders: what keepFinishedMax does at that rate). */
const KEEP = 20_000;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function feed(store: OrderStore, n: number, keep: number | undefined): void {
  const ev = newEvent();
  for (let i = 1; i <= n; i++) {
    const t = i * 1000;
    const o = store.create(spotRequest(i, 100, 10), t);
    store.markSent(o.clientId, t + 1);
    store.ackCreate(o.clientId, `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, t + 2);
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
    // As the engine's once-a-second sweep would, every thousand orders here.
    if (keep !== undefined && i % 1000 === 0) store.forgetFinished(0, keep);
  }
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

function measure(keep: number | undefined): Record<string, number> {
  gc();
  gc();
  const h0 = process.memoryUsage().heapUsed;
  const store = new OrderStore({ maxOrphans: 10 });
  feed(store, ORDERS, keep);
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
  const r2 = (x: number) => Math.round(x * 100) / 100;
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
    forget_1000_per_call: forgetCost(),
    every_finished_kept: all,
    finished_bounded: bounded,
    heap_ratio_kept_vs_bounded: Math.round((all.heap_held_mb! / bounded.heap_held_mb!) * 10) / 10,
    full_gc_ratio_kept_vs_bounded: Math.round((all.full_gc_ms! / bounded.full_gc_ms!) * 10) / 10,
  };
}
