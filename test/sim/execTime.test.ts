/**
 * The simulator stamps every execution with its execution time, on the venue's clock, as the venue
 * does: HFT execution rows carry `execTime` and the order record's `updatedTime`; a Spot order record
 * that reports a new `executed_qty` carries the fill's time in `updated_time`. Manual time, no
 * synthetic flow: the only trades are the ones the test makes, at virtual times it chooses.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimHandle, startSimulator } from "../../sim/index.js";
import { call, newKeys } from "./helpers.js";

const A = newKeys();
const B = newKeys();
let sim: SimHandle;

beforeAll(async () => {
  sim = await startSimulator({
    apiKeys: [A.apiKey, B.apiKey],
    timeMode: "manual",
    market: { synthetic: false, tickMs: 0 },
  });
});
afterAll(async () => {
  await sim.stop();
});

const v5Create = (k: typeof A, side: "Buy" | "Sell", qty: string, link: string) =>
  call(sim.baseUrl, k, "POST", "/v5/order/create", {
    category: "linear",
    symbol: "BTCUSDT",
    side,
    orderType: "Limit",
    qty,
    price: "63000",
    positionIdx: 0,
    orderLinkId: link,
  });
const executions = async (k: typeof A, link: string) =>
  (await call(sim.baseUrl, k, "GET", `/v5/execution/list?category=linear&orderLinkId=${link}`)).json.result
    .list as { execTime: string; execQty: string; isMaker: boolean }[];

describe("execution time", () => {
  it("HFT: each execution row's execTime is the time of its fill; the order's updatedTime follows", async () => {
    expect((await v5Create(A, "Buy", "0.002", "et-maker")).json.retCode).toBe(0);
    sim.advance(2_000);
    const t1 = sim.exchange.clock.now();
    expect((await v5Create(B, "Sell", "0.001", "et-taker-1")).json.retCode).toBe(0);
    sim.advance(3_000);
    const t2 = sim.exchange.clock.now();
    expect((await v5Create(B, "Sell", "0.001", "et-taker-2")).json.retCode).toBe(0);

    const maker = await executions(A, "et-maker");
    expect(maker.map((e) => [e.execTime, e.execQty, e.isMaker]).sort()).toEqual([
      [String(t1), "0.001", true],
      [String(t2), "0.001", true],
    ]);
    expect((await executions(B, "et-taker-1")).map((e) => [e.execTime, e.isMaker])).toEqual([
      [String(t1), false],
    ]);
    const rec = (await call(sim.baseUrl, A, "GET", "/v5/order/realtime?category=linear&orderLinkId=et-maker"))
      .json.result.list[0];
    expect(rec).toMatchObject({ orderStatus: "Filled", updatedTime: String(t2) });
    expect(Number(rec.createdTime)).toBe(t1 - 2_000);
  });

  it("Spot: the record that reports a fill carries the fill's time in updated_time", async () => {
    const order = (k: typeof A, side: string, quantity: number, cid: string) =>
      call(sim.baseUrl, k, "POST", "/trade/api/v2/order", {
        side,
        symbol: "ETH/INR",
        type: "limit",
        price: 250_000,
        quantity,
        exchange: "coinswitchx",
        client_order_id: cid,
      });
    const get = async (k: typeof A, cid: string) =>
      (await call(sim.baseUrl, k, "GET", `/trade/api/v2/order?client_order_id=${cid}`)).json.data;

    const created = (await order(A, "buy", 0.02, "et-spot-maker")).json.data;
    sim.advance(1_500);
    const t1 = sim.exchange.clock.now();
    await order(B, "sell", 0.01, "et-spot-taker");
    expect(await get(A, "et-spot-maker")).toMatchObject({
      status: "PARTIALLY_EXECUTED",
      executed_qty: 0.01,
      created_time: created.created_time,
      updated_time: t1,
    });
    expect(await get(B, "et-spot-taker")).toMatchObject({ status: "EXECUTED", updated_time: t1 });
    sim.advance(700);
    const t2 = sim.exchange.clock.now();
    await order(B, "sell", 0.01, "et-spot-taker-2");
    expect(await get(A, "et-spot-maker")).toMatchObject({
      status: "EXECUTED",
      executed_qty: 0.02,
      updated_time: t2,
    });
  });
});
