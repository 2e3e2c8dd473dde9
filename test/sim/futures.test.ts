import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimHandle, startSimulator } from "../../sim/index.js";
import { call, newKeys } from "./helpers.js";

const A = newKeys();
const B = newKeys();
let sim: SimHandle;
const base = () => sim.baseUrl;
const P = "/trade/api/v2/futures";

function order(extra: Record<string, unknown> = {}) {
  return {
    exchange: "EXCHANGE_2",
    symbol: "BTCUSDT",
    side: "BUY",
    order_type: "LIMIT",
    price: 60_000,
    quantity: 0.01,
    ...extra,
  };
}
const create = (extra: Record<string, unknown> = {}, k = A) =>
  call(base(), k, "POST", `${P}/order`, order(extra));
const get = (q: string, k = A) => call(base(), k, "GET", `${P}/order?exchange=EXCHANGE_2&${q}`);
const cancel = (id: string, k = A) =>
  call(base(), k, "DELETE", `${P}/order`, { exchange: "EXCHANGE_2", order_id: id });
const list = (which: "open_orders" | "closed_orders", k = A) =>
  call(base(), k, "GET", `${P}/${which}?exchange=EXCHANGE_2`);

beforeAll(async () => {
  sim = await startSimulator({
    apiKeys: [A.apiKey, B.apiKey],
    timeMode: "manual",
    market: { tickMs: 0 },
    futures: { cancelConfirmMs: 50 },
  });
});
afterAll(async () => {
  await sim.stop();
});

describe("Futures v2 in the simulator", () => {
  it("creates a RAISED limit order with every number a string, de-duplicates client_order_id, finds it both ways", async () => {
    const r = await create({ client_order_id: "f-1" });
    expect(r.status).toBe(200);
    const o = r.json.data;
    expect(o).toMatchObject({
      client_order_id: "f-1",
      symbol: "BTCUSDT",
      side: "BUY",
      order_type: "LIMIT",
      status: "RAISED",
      price: "60000.0",
      quantity: "0.010",
      executed_quantity: "0.000",
      avg_price: "0",
      exchange: "EXCHANGE_2",
    });
    expect(typeof o.updated_at).toBe("string");
    const again = await create({ client_order_id: "f-1", price: 59_000 });
    expect(again.json.data.order_id).toBe(o.order_id);
    expect(sim.counters.deduplicated("futures")).toBe(1);
    expect((await get("client_order_id=f-1")).json.data.order_id).toBe(o.order_id);
    expect((await get(`order_id=${o.order_id}`)).json.data.client_order_id).toBe("f-1");
    expect((await get("client_order_id=never-sent")).status).toBe(404);
    const open = (await list("open_orders")).json.data.orders;
    expect(open.map((x: { order_id: string }) => x.order_id)).toContain(o.order_id);
  });

  it("refuses a request without EXCHANGE_2, off-grid numbers and unknown symbols with 400 {message}", async () => {
    for (const [extra, text] of [
      [{ exchange: undefined }, /exchange is missing/],
      [{ exchange: "c2c1" }, /exchange is invalid/],
      [{ quantity: 0.0105 }, /quantity is invalid/],
      [{ price: 60_000.05 }, /price is invalid/],
      [{ symbol: "DOGEINR" }, /symbol is invalid/],
      [{ order_type: "STOP_MARKET" }, /not supported/],
    ] as const) {
      const r = await create(extra);
      expect(r.status).toBe(400);
      expect(r.json.message).toMatch(text);
    }
    expect((await call(base(), A, "GET", `${P}/open_orders`)).status).toBe(400);
  });

  it("checks signatures like every signed surface: a tampered target or an unknown key is 401", async () => {
    const bad = await call(base(), A, "GET", `${P}/open_orders?exchange=EXCHANGE_2`, undefined, {
      signTarget: `${P}/closed_orders?exchange=EXCHANGE_2`,
    });
    expect(bad.status).toBe(401);
    const stranger = newKeys();
    expect((await list("open_orders", stranger)).status).toBe(401);
  });

  it("cancels in two phases: CANCELLATION_RAISED, then CANCELLED once confirmed; a second cancel is refused", async () => {
    const o = (await create({ client_order_id: "f-2", price: 55_000 })).json.data;
    const c = await cancel(o.order_id);
    expect(c.json.data.status).toBe("CANCELLATION_RAISED");
    sim.advance(60);
    const after = (await get(`order_id=${o.order_id}`)).json.data;
    expect(after.status).toBe("CANCELLED");
    const closed = (await list("closed_orders")).json.data.orders;
    expect(closed.map((x: { order_id: string }) => x.order_id)).toContain(o.order_id);
    expect((await cancel(o.order_id)).status).toBe(400);
  });

  it("a crossing IOC that takes more than the book offers ends PARTIALLY_EXECUTED (terminal) with its fill", async () => {
    const r = await create({ client_order_id: "f-3", price: 70_000, quantity: 50, time_in_force: "IOC" });
    const o = r.json.data;
    expect(o.status).toBe("PARTIALLY_EXECUTED");
    expect(Number(o.executed_quantity)).toBeGreaterThan(0);
    expect(Number(o.executed_quantity)).toBeLessThan(50);
    expect(Number(o.avg_price)).toBeGreaterThan(60_000);
    sim.market.step(1); // the IOC took the whole ask side: re-quote
    const full = (await create({ client_order_id: "f-4", price: 70_000, quantity: 0.001 })).json.data;
    expect(full.status).toBe("EXECUTED");
    expect(full.executed_quantity).toBe("0.001");
  });

  it("applies the published place-order limit: the 21st create within 60 s is 429", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await create({ price: 50_000 + i }, B)).status);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
    sim.advance(60_000);
    expect((await create({ price: 50_100 }, B)).status).toBe(200);
  });
});
