/**
 * The `lateCreate` fault: a create is held and lands at the venue only after a query by its client
 * id answered "not found" (or at its deadline on the simulator's clock, or when released). This is
 * the venue half of "rejected, but it rests at the venue", made deterministic.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type SimHandle, startSimulator } from "../../sim/index.js";
import { call, newKeys } from "./helpers.js";

const A = newKeys();
let sim: SimHandle;

const spotOrder = (cid: string) => ({
  side: "buy",
  symbol: "ETH/INR",
  type: "limit",
  price: 250_000,
  quantity: 0.01,
  exchange: "coinswitchx",
  client_order_id: cid,
});
const v5Order = (link: string) => ({
  category: "linear",
  symbol: "ETHUSDT",
  side: "Buy",
  orderType: "Limit",
  qty: "0.10",
  price: "3000",
  positionIdx: 0,
  orderLinkId: link,
});
const realtime = async (link: string) =>
  (await call(sim.baseUrl, A, "GET", `/v5/order/realtime?category=linear&orderLinkId=${link}`)).json.result
    .list as { orderLinkId: string; orderStatus: string; orderId: string }[];

/** Resolves once the simulator holds `n` creates (a condition, not a timer). */
async function held(n: number): Promise<void> {
  const end = Date.now() + 5_000;
  while (sim.counters.lateCreates().waiting !== n) {
    if (Date.now() > end) throw new Error(`expected ${n} held creates`);
    await new Promise((r) => setImmediate(r));
  }
}

beforeAll(async () => {
  sim = await startSimulator({ apiKeys: [A.apiKey], timeMode: "manual", market: { tickMs: 0 } });
});
afterEach(() => {
  sim.faults.releaseLateCreates();
  sim.faults.clear();
});
afterAll(async () => {
  await sim.stop();
});

describe("lateCreate fault", () => {
  it("HFT: the create lands right after the query by orderLinkId said not found; its answer comes then", async () => {
    sim.faults.add({ kind: "lateCreate", endpoint: "POST /v5/order/create", count: 1 });
    const created = sim.counters.ordersCreated("hft");
    const answer = call(sim.baseUrl, A, "POST", "/v5/order/create", v5Order("late-hft-1"));
    await held(1);
    expect(sim.counters.ordersCreated("hft")).toBe(created);
    // The query by client id: nothing at the venue yet.
    expect(await realtime("late-hft-1")).toEqual([]);
    // ...and right after that answer the create lands and is answered.
    const r = await answer;
    expect(r.status).toBe(200);
    expect(r.json.retCode).toBe(0);
    expect(sim.counters.ordersCreated("hft")).toBe(created + 1);
    const list = await realtime("late-hft-1");
    expect(list.map((o) => [o.orderId, o.orderStatus])).toEqual([[r.json.result.orderId, "New"]]);
    expect(sim.counters.lateCreates()).toMatchObject({ waiting: 0 });
  });

  it("Spot: GET /order by client_order_id answers 404, then the order rests at the venue", async () => {
    sim.faults.add({ kind: "lateCreate", endpoint: "POST /trade/api/v2/order", count: 1 });
    const answer = call(sim.baseUrl, A, "POST", "/trade/api/v2/order", spotOrder("late-spot-1"));
    await held(1);
    const q = "/trade/api/v2/order?client_order_id=late-spot-1";
    expect((await call(sim.baseUrl, A, "GET", q)).status).toBe(404);
    const r = await answer;
    expect(r.status).toBe(200);
    const found = await call(sim.baseUrl, A, "GET", q);
    expect(found.status).toBe(200);
    expect(found.json.data).toMatchObject({ order_id: r.json.data.order_id, status: "OPEN" });
  });

  it("waits for `queries` not-found answers; a query for another client id does not count", async () => {
    sim.faults.add({ kind: "lateCreate", endpoint: "*", queries: 2, count: 1 });
    const answer = call(sim.baseUrl, A, "POST", "/v5/order/create", v5Order("late-hft-2"));
    await held(1);
    expect(await realtime("someone-else")).toEqual([]);
    expect(await realtime("late-hft-2")).toEqual([]);
    expect(sim.counters.lateCreates().waiting).toBe(1);
    expect(await realtime("late-hft-2")).toEqual([]);
    expect((await answer).status).toBe(200);
    expect((await realtime("late-hft-2")).length).toBe(1);
  });

  it("lands at its deadline on the simulator's clock when nobody asks (manual time)", async () => {
    sim.faults.add({ kind: "lateCreate", endpoint: "POST /v5/order/create", ms: 5_000, count: 1 });
    const answer = call(sim.baseUrl, A, "POST", "/v5/order/create", v5Order("late-hft-3"));
    await held(1);
    sim.advance(4_999);
    expect(sim.counters.lateCreates().waiting).toBe(1);
    sim.advance(1);
    expect((await answer).status).toBe(200);
    expect((await realtime("late-hft-3")).map((o) => o.orderStatus)).toEqual(["New"]);
  });

  it("a same-id resend while held lands first; the held create then lands as a duplicate (one order)", async () => {
    sim.faults.add({ kind: "lateCreate", endpoint: "POST /v5/order/create", count: 1 });
    const created = sim.counters.ordersCreated("hft");
    const first = call(sim.baseUrl, A, "POST", "/v5/order/create", v5Order("late-hft-4"));
    await held(1);
    const resend = await call(sim.baseUrl, A, "POST", "/v5/order/create", v5Order("late-hft-4"));
    expect(resend.status).toBe(200);
    expect(sim.faults.releaseLateCreates()).toBe(1);
    expect((await first).json.result.orderId).toBe(resend.json.result.orderId);
    expect(sim.counters.ordersCreated("hft")).toBe(created + 1);
    expect((await realtime("late-hft-4")).length).toBe(1);
  });

  it("is off by default, applies to creates only, and refuses malformed rules", async () => {
    expect(sim.faults.rules()).toEqual([]);
    sim.faults.add({ kind: "lateCreate" });
    expect((await call(sim.baseUrl, A, "GET", "/trade/api/v2/ping")).status).toBe(200);
    expect(() => sim.faults.add({ kind: "lateCreate", endpoint: "GET /v5/order/realtime" })).toThrow(
      /creates only/,
    );
    expect(() => sim.faults.add({ kind: "lateCreate", queries: 0 })).toThrow(/queries/);
  });
});
