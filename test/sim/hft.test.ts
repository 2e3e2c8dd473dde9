import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimHandle, startSimulator } from "../../sim/index.js";
import { call, newKeys } from "./helpers.js";

const A = newKeys();
const C = newKeys();
let sim: SimHandle;

const v5 = (path: string, body?: unknown, k = A) =>
  call(sim.baseUrl, k, body === undefined ? "GET" : "POST", path, body);
const create = (extra: Record<string, unknown> = {}, k = A) =>
  v5(
    "/v5/order/create",
    {
      category: "linear",
      symbol: "BTCUSDT",
      side: "Buy",
      orderType: "Limit",
      qty: "0.002",
      price: "63000",
      positionIdx: 0,
      ...extra,
    },
    k,
  );
async function rec(orderId: string, k = A) {
  const r = await call(sim.baseUrl, k, "GET", `/v5/order/realtime?category=linear&orderId=${orderId}`);
  return r.json.result.list[0];
}
async function top() {
  const ob = (await v5("/v5/market/orderbook?category=linear&symbol=BTCUSDT&limit=3")).json.result;
  return { ask: ob.a[0] as [string, string], bid: ob.b[0] as [string, string], ob };
}

beforeAll(async () => {
  sim = await startSimulator({ apiKeys: [A.apiKey, C.apiKey], timeMode: "manual", market: { tickMs: 0 } });
});
afterAll(async () => {
  await sim.stop();
});

describe("v5 create and validation", () => {
  it("rests a Limit GTC order as New and de-duplicates orderLinkId", async () => {
    const n = sim.counters.ordersCreated("hft");
    const r = await create({ orderLinkId: "grid-1" });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      retCode: 0,
      retMsg: "OK",
      retExtInfo: {},
      result: { orderLinkId: "grid-1" },
    });
    expect(typeof r.json.time).toBe("number");
    const again = await create({ orderLinkId: "grid-1", qty: "0.005" });
    expect(again.json.result.orderId).toBe(r.json.result.orderId);
    expect(sim.counters.ordersCreated("hft")).toBe(n + 1);
    const o = await rec(r.json.result.orderId);
    expect(o).toMatchObject({
      symbol: "BTCUSDT",
      orderLinkId: "grid-1",
      orderType: "Limit",
      orderStatus: "New",
      side: "Buy",
      qty: "0.002",
      price: "63000.0",
      timeInForce: "GTC",
      leavesQty: "0.002",
      cumExecQty: "0.000",
      avgPrice: "",
      positionIdx: 0,
      rejectReason: "EC_NoError",
    });
    const byLink = (await v5("/v5/order/realtime?category=linear&orderLinkId=grid-1")).json.result.list;
    expect(byLink.map((x: { orderId: string }) => x.orderId)).toEqual([r.json.result.orderId]);
  });

  it("answers retCode 10001 naming the missing or invalid parameter (HTTP 200)", async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ category: undefined }, /category/],
      [{ symbol: undefined }, /symbol/],
      [{ side: undefined }, /side/],
      [{ qty: undefined }, /qty/],
      [{ price: undefined }, /price/],
      [{ qty: "0.0015" }, /qtyStep 0.001/],
      [{ price: "63000.05" }, /tickSize 0.1/],
      [{ positionIdx: 1 }, /position idx/],
      [{ timeInForce: "GTD" }, /timeInForce/],
      [{ orderLinkId: "x".repeat(37) }, /orderLinkId/],
      [{ symbol: "DOGEUSDT" }, /symbol invalid/],
      [{ category: "inverse" }, /category invalid/],
    ];
    const n = sim.counters.ordersCreated("hft");
    for (const [extra, re] of cases) {
      const r = await create(extra);
      expect(r.status, JSON.stringify(extra)).toBe(200);
      expect(r.json.retCode, JSON.stringify(extra)).toBe(10001);
      expect(r.json.retMsg).toMatch(re);
    }
    expect(sim.counters.ordersCreated("hft")).toBe(n);
    const big = await create({ qty: "90", price: "64000" });
    expect(big.json.retCode).toBe(110007);
  });
});

describe("v5 time in force and market orders", () => {
  it("IOC fills what crosses and cancels the rest", async () => {
    const { ask } = await top();
    const qty = (Number(ask[1]) + 0.001).toFixed(3);
    const r = await create({ price: ask[0], qty, timeInForce: "IOC" });
    const o = await rec(r.json.result.orderId);
    expect(o).toMatchObject({
      orderStatus: "PartiallyFilledCanceled",
      cumExecQty: ask[1],
      leavesQty: "0.000",
      avgPrice: String(Number(ask[0])),
    });
  });

  it("FOK is all-or-nothing", async () => {
    const { ask } = await top();
    const qty = (Number(ask[1]) + 0.001).toFixed(3);
    const no = await create({ price: ask[0], qty, timeInForce: "FOK" });
    expect(await rec(no.json.result.orderId)).toMatchObject({
      orderStatus: "Cancelled",
      cumExecQty: "0.000",
    });
    const ex = (await v5(`/v5/execution/list?category=linear&orderId=${no.json.result.orderId}`)).json.result
      .list;
    expect(ex).toEqual([]);
    const yes = await create({ price: ask[0], qty: ask[1], timeInForce: "FOK" });
    expect(await rec(yes.json.result.orderId)).toMatchObject({ orderStatus: "Filled", cumExecQty: ask[1] });
  });

  it("Market orders sweep real liquidity and create a position and executions", async () => {
    const { ob } = await top();
    const two = (Number(ob.a[0][1]) + Number(ob.a[1][1])).toFixed(3);
    const r = await create({ orderType: "Market", qty: two, price: undefined });
    const o = await rec(r.json.result.orderId);
    expect(o).toMatchObject({ orderType: "Market", orderStatus: "Filled", cumExecQty: two });
    const ex = (await v5(`/v5/execution/list?category=linear&orderId=${o.orderId}`)).json.result;
    expect(ex.list.length).toBe(2);
    expect(ex.list.map((e: { execPrice: string }) => e.execPrice).sort()).toEqual(
      [ob.a[0][0], ob.a[1][0]].sort(),
    );
    expect(ex.list[0]).toMatchObject({ symbol: "BTCUSDT", orderId: o.orderId, side: "Buy", isMaker: false });
    const pos = (await v5("/v5/position/list?category=linear&symbol=BTCUSDT")).json.result.list[0];
    expect(pos).toMatchObject({ symbol: "BTCUSDT", positionIdx: 0, side: "Buy", leverage: "10" });
    expect(Number(pos.size)).toBeGreaterThan(0);
  });
});

describe("v5 cancel, realtime paging, executions", () => {
  it("cancels a resting order once (Bybit-style body); then 110001", async () => {
    const r = await create({ orderLinkId: "to-cancel" });
    const c = await v5("/v5/order/cancel", {
      category: "linear",
      symbol: "BTCUSDT",
      orderLinkId: "to-cancel",
    });
    expect(c.json).toMatchObject({
      retCode: 0,
      result: { orderId: r.json.result.orderId, orderLinkId: "to-cancel" },
    });
    expect((await rec(r.json.result.orderId)).orderStatus).toBe("Cancelled");
    const again = await v5("/v5/order/cancel", {
      category: "linear",
      symbol: "BTCUSDT",
      orderId: r.json.result.orderId,
    });
    expect(again.json.retCode).toBe(110001);
    expect((await v5("/v5/order/cancel", { category: "linear", symbol: "BTCUSDT" })).json.retCode).toBe(
      10001,
    );
    const other = await create({ orderLinkId: "wrong-symbol" });
    const wrong = await v5("/v5/order/cancel", {
      category: "linear",
      symbol: "ETHUSDT",
      orderLinkId: "wrong-symbol",
    });
    expect(wrong.json.retCode).toBe(110001);
    expect((await rec(other.json.result.orderId)).orderStatus).toBe("New");
  });

  it("pages /v5/order/realtime with nextPageCursor, newest first, no duplicates", async () => {
    for (let i = 0; i < 5; i++) await create({ orderLinkId: `page-${i}`, price: String(60000 + i) });
    const all = (await v5("/v5/order/realtime?category=linear")).json.result.list;
    const seen: string[] = [];
    let cursor = "";
    for (let guard = 0; guard < 50; guard++) {
      const r = (
        await v5(`/v5/order/realtime?category=linear&limit=2${cursor === "" ? "" : `&cursor=${cursor}`}`)
      ).json.result;
      expect(r.list.length).toBeLessThanOrEqual(2);
      seen.push(...r.list.map((x: { orderId: string }) => x.orderId));
      cursor = r.nextPageCursor;
      if (cursor === "") break;
    }
    expect(seen).toEqual(all.map((x: { orderId: string }) => x.orderId));
    expect(all[0].orderLinkId).toBe("page-4");
  });

  it("lists executions with filters and cursor", async () => {
    const all = (await v5("/v5/execution/list?category=linear")).json.result;
    expect(all.list.length).toBeGreaterThanOrEqual(4);
    const p1 = (await v5("/v5/execution/list?category=linear&limit=1")).json.result;
    const p2 = (await v5(`/v5/execution/list?category=linear&limit=1&cursor=${p1.nextPageCursor}`)).json
      .result;
    expect(p2.list[0].execId).toBe(all.list[1].execId);
    const future = (await v5(`/v5/execution/list?category=linear&startTime=${sim.exchange.clock.now() + 1}`))
      .json.result.list;
    expect(future).toEqual([]);
    expect((await v5("/v5/execution/list")).json.retCode).toBe(10001);
  });
});

describe("v5 amend and wallet balance [assumed endpoints]", () => {
  it("amends price and qty of a resting order; crossing trades at once", async () => {
    const r = await create({ orderLinkId: "amend-1", price: "60000" });
    const id = r.json.result.orderId;
    const a1 = await v5("/v5/order/amend", {
      category: "linear",
      symbol: "BTCUSDT",
      orderLinkId: "amend-1",
      price: "60000.5",
      qty: "0.003",
    });
    expect(a1.json).toMatchObject({ retCode: 0, result: { orderId: id, orderLinkId: "amend-1" } });
    expect(await rec(id)).toMatchObject({
      price: "60000.5",
      qty: "0.003",
      leavesQty: "0.003",
      orderStatus: "New",
    });
    const { ask } = await top();
    await v5("/v5/order/amend", { category: "linear", symbol: "BTCUSDT", orderId: id, price: ask[0] });
    const after = await rec(id);
    expect(Number(after.cumExecQty)).toBeGreaterThan(0);
    expect(after.price).toBe(ask[0]);
    if (after.orderStatus === "PartiallyFilled") {
      const tooSmall = await v5("/v5/order/amend", {
        category: "linear",
        symbol: "BTCUSDT",
        orderId: id,
        qty: after.cumExecQty,
      });
      expect(tooSmall.json.retCode).toBe(10001);
    }
    expect(
      (await v5("/v5/order/amend", { category: "linear", symbol: "BTCUSDT", orderId: id })).json.retMsg,
    ).toMatch(/qty or price/);
    expect(
      (await v5("/v5/order/amend", { category: "linear", symbol: "BTCUSDT", orderId: "nope", price: "1" }))
        .json.retCode,
    ).toBe(110001);
  });

  it("reports the USDT margin account", async () => {
    const r = (await v5("/v5/account/wallet-balance?accountType=UNIFIED&coin=USDT")).json;
    expect(r.retCode).toBe(0);
    const row = r.result.list[0].coin[0];
    expect(row.coin).toBe("USDT");
    expect(Number(row.walletBalance)).toBeGreaterThan(0);
    expect(Number(row.availableToWithdraw)).toBeLessThanOrEqual(Number(row.walletBalance));
  });
});

describe("v5 positions, leverage, mode, transfers, market data", () => {
  it("set-leverage validates range and one-way equality", async () => {
    const ok = await v5("/v5/position/set-leverage", {
      category: "linear",
      symbol: "BTCUSDT",
      buyLeverage: "20",
      sellLeverage: "20",
    });
    expect(ok.json).toMatchObject({ retCode: 0, result: {} });
    expect(
      (
        await v5("/v5/position/set-leverage", {
          category: "linear",
          symbol: "BTCUSDT",
          buyLeverage: "20",
          sellLeverage: "10",
        })
      ).json.retCode,
    ).toBe(10001);
    expect(
      (
        await v5("/v5/position/set-leverage", {
          category: "linear",
          symbol: "BTCUSDT",
          buyLeverage: "101",
          sellLeverage: "101",
        })
      ).json.retCode,
    ).toBe(10001);
  });

  it("switch-mode fails with open orders or positions, works on a clean account", async () => {
    const blocked = await v5("/v5/position/switch-mode", { category: "linear", coin: "USDT", mode: 3 });
    expect(blocked.json.retCode).not.toBe(0);
    expect(blocked.json.retMsg).toMatch(/open orders or positions/);
    const ok = await v5("/v5/position/switch-mode", { category: "linear", coin: "USDT", mode: 3 }, C);
    expect(ok.json.retCode).toBe(0);
    expect((await create({ positionIdx: 0 }, C)).json.retCode).toBe(10001);
    expect((await create({ positionIdx: 1 }, C)).json.retCode).toBe(0);
    const hedgeLev = await v5(
      "/v5/position/set-leverage",
      { category: "linear", symbol: "ETHUSDT", buyLeverage: "5", sellLeverage: "3" },
      C,
    );
    expect(hedgeLev.json.retCode).toBe(0);
  });

  it("transfers funds with client_txn_id idempotency", async () => {
    const t = await v5(
      "/dma/api/v1/funds/transfer",
      { direction: "IN", amount: 100, client_txn_id: "t1" },
      C,
    );
    expect(t.json).toMatchObject({ retCode: 0, result: { direction: "IN", status: "SUCCESS" } });
    expect(
      (await v5("/dma/api/v1/funds/transfer", { direction: "IN", amount: 100, client_txn_id: "t1" }, C)).json
        .retMsg,
    ).toMatch(/duplicate/);
    expect((await v5("/dma/api/v1/funds/transfer", { direction: "OUT", amount: 50 }, C)).json.retCode).toBe(
      0,
    );
    expect(
      (await v5("/dma/api/v1/funds/transfer", { direction: "SIDEWAYS", amount: 1 }, C)).json.retCode,
    ).toBe(10001);
    expect((await v5("/dma/api/v1/funds/transfer", { direction: "IN", amount: 1e9 }, C)).json.retMsg).toMatch(
      /available balance/,
    );
  });

  it("socket signature is a bare object", async () => {
    const r = (await v5("/dma/api/v1/socket/signature?expires_in_seconds=60")).json;
    expect(Object.keys(r).sort()).toEqual(["api_key", "expires", "signature"]);
    expect(r.expires - Date.now()).toBeGreaterThan(50_000);
  });

  it("market data: instruments, tickers, orderbook limit, time (unauthenticated allowed)", async () => {
    const ins = (await v5("/v5/market/instruments-info?category=linear&symbol=BTCUSDT")).json.result.list[0];
    expect(ins).toMatchObject({
      symbol: "BTCUSDT",
      lotSizeFilter: { qtyStep: "0.001" },
      priceFilter: { tickSize: "0.1" },
      leverageFilter: { minLeverage: "1", maxLeverage: "100", leverageStep: "0.01" },
    });
    const tk = (await v5("/v5/market/tickers?category=linear&symbol=ETHUSDT")).json.result.list;
    expect(tk[0].symbol).toBe("ETHUSDT");
    const { ob } = await top();
    expect(ob.b.length).toBe(3);
    expect(ob.a.length).toBe(3);
    const t = await call(sim.baseUrl, A, "GET", "/v5/market/time", undefined, { noAuth: true });
    expect(t.json.retCode).toBe(0);
    expect(Number(t.json.result.timeSecond)).toBeGreaterThan(1_700_000_000);
    expect(
      (await call(sim.baseUrl, A, "GET", "/v5/market/tickers?category=linear")).json.result.list.length,
    ).toBe(2);
  });
});

describe("v5 configuration knobs", () => {
  it("cancel disabled → 404; positionIdx required; HFT 429 with retCode 10006", async () => {
    const s = await startSimulator({
      apiKeys: [A.apiKey],
      market: { synthetic: false },
      hft: { cancelEnabled: false, requirePositionIdx: true },
      rateLimits: { buckets: { hft: { limit: 2, windowMs: 60_000 } } },
    });
    try {
      const c = await call(s.baseUrl, A, "POST", "/v5/order/cancel", {
        category: "linear",
        symbol: "BTCUSDT",
        orderId: "x",
      });
      expect(c.status).toBe(404);
      const body = {
        category: "linear",
        symbol: "BTCUSDT",
        side: "Buy",
        orderType: "Limit",
        qty: "0.001",
        price: "60000",
      };
      expect((await call(s.baseUrl, A, "POST", "/v5/order/create", body)).json.retMsg).toMatch(/positionIdx/);
      expect(
        (await call(s.baseUrl, A, "POST", "/v5/order/create", { ...body, positionIdx: 0 })).json.retCode,
      ).toBe(0);
      const r = await call(s.baseUrl, A, "POST", "/v5/order/create", { ...body, positionIdx: 0 });
      expect(r.status).toBe(429);
      expect(r.json.retCode).toBe(10006);
    } finally {
      await s.stop();
    }
  });
});
