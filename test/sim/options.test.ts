import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimHandle, startSimulator } from "../../sim/index.js";
import { call, newKeys } from "./helpers.js";

const A = newKeys();
let open: SimHandle;
let closed: SimHandle;
const OPTION = "BTC-26DEC26-70000-C";
const order = {
  category: "option",
  symbol: OPTION,
  side: "Buy",
  orderType: "Limit",
  qty: "0.10",
  price: "2000",
};

beforeAll(async () => {
  open = await startSimulator({ apiKeys: [A.apiKey], timeMode: "manual", market: { tickMs: 0 } });
  closed = await startSimulator({
    apiKeys: [A.apiKey],
    timeMode: "manual",
    market: { tickMs: 0 },
    hft: { optionsAllowlisted: false },
  });
});
afterAll(async () => {
  await open.stop();
  await closed.stop();
});

describe("HFT options in the simulator", () => {
  it("an allowlisted key trades options; each category lists only its own orders", async () => {
    const r = await call(open.baseUrl, A, "POST", "/v5/order/create", { ...order, orderLinkId: "o-1" });
    expect(r.json.retCode).toBe(0);
    const lin = await call(open.baseUrl, A, "POST", "/v5/order/create", {
      ...order,
      category: "linear",
      symbol: "BTCUSDT",
      qty: "0.001",
      price: "60000",
    });
    expect(lin.json.retCode).toBe(0);
    const opt = (await call(open.baseUrl, A, "GET", "/v5/order/realtime?category=option")).json.result;
    expect(opt.category).toBe("option");
    expect(opt.list.map((o: { orderId: string }) => o.orderId)).toEqual([r.json.result.orderId]);
    const l = (await call(open.baseUrl, A, "GET", "/v5/order/realtime?category=linear")).json.result.list;
    expect(l.map((o: { orderId: string }) => o.orderId)).toEqual([lin.json.result.orderId]);
    // An option symbol under the linear category is unknown there.
    const wrong = await call(open.baseUrl, A, "POST", "/v5/order/create", { ...order, category: "linear" });
    expect(wrong.json.retMsg).toMatch(/symbol invalid/);
  });

  it("without the allowlist every private options call is an error (retCode 10005), not an empty list; market data stays public", async () => {
    for (const [method, target, body] of [
      ["POST", "/v5/order/create", order],
      ["GET", "/v5/order/realtime?category=option", undefined],
      ["GET", "/v5/execution/list?category=option", undefined],
      ["GET", "/v5/position/list?category=option", undefined],
    ] as const) {
      const r = await call(closed.baseUrl, A, method, target, body);
      expect(r.status, target).toBe(200);
      expect(r.json.retCode, target).toBe(10005);
      expect(r.json.retMsg).toMatch(/not enabled for this API key/);
    }
    const info = await call(closed.baseUrl, A, "GET", "/v5/market/instruments-info?category=option");
    expect(info.json.result.list.map((i: { symbol: string }) => i.symbol)).toEqual([OPTION]);
    expect(closed.counters.ordersCreated("hft")).toBe(0);
  });
});
