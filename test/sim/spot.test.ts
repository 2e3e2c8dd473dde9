import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimHandle, startSimulator } from "../../sim/index.js";
import { call, newKeys } from "./helpers.js";

const A = newKeys();
const B = newKeys();
let sim: SimHandle;
const base = () => sim.baseUrl;

function order(extra: Record<string, unknown> = {}) {
  return {
    side: "buy",
    symbol: "BTC/INR",
    type: "limit",
    price: 5_390_000,
    quantity: 0.001,
    exchange: "coinswitchx",
    ...extra,
  };
}
const create = (k = A, extra: Record<string, unknown> = {}) =>
  call(base(), k, "POST", "/trade/api/v2/order", order(extra));
const get = (q: string, k = A) => call(base(), k, "GET", `/trade/api/v2/order?${q}`);
const cancel = (id: string, k = A) => call(base(), k, "DELETE", "/trade/api/v2/order", { order_id: id });

beforeAll(async () => {
  sim = await startSimulator({
    apiKeys: [A.apiKey, B.apiKey],
    timeMode: "manual",
    market: { tickMs: 0 },
    spot: { cancelConfirmMs: 50, expiryConfirmMs: 50 },
  });
});
afterAll(async () => {
  await sim.stop();
});

describe("Spot create / get / de-dup", () => {
  it("creates an OPEN order, blocks funds, de-duplicates client_order_id, finds it both ways", async () => {
    const before = sim.counters.ordersCreated("spot");
    const r = await create(A, { client_order_id: "cid-1" });
    expect(r.status).toBe(200);
    const o = r.json.data;
    expect(o).toMatchObject({
      client_order_id: "cid-1",
      symbol: "BTC/INR",
      price: 5_390_000,
      orig_qty: 0.001,
      executed_qty: 0,
      status: "OPEN",
      side: "BUY",
      type: "LIMIT",
      exchange: "coinswitchx",
      order_source: "API_TRADING",
      average_price: 0,
    });
    expect(o.order_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const again = await create(A, { client_order_id: "cid-1", price: 5_000_000 });
    expect(again.json.data.order_id).toBe(o.order_id);
    expect(sim.counters.ordersCreated("spot")).toBe(before + 1);
    expect((await get(`order_id=${o.order_id}`)).json.data.order_id).toBe(o.order_id);
    expect((await get("client_order_id=cid-1")).json.data.order_id).toBe(o.order_id);
    expect((await get("client_order_id=nope")).status).toBe(404);
    // Another account cannot see it.
    expect((await get(`order_id=${o.order_id}`, B)).status).toBe(404);
    const pf = await call(base(), A, "GET", "/trade/api/v2/user/portfolio");
    const inr = pf.json.data.find((r: { currency: string }) => r.currency === "INR");
    expect(inr.blocked_balance_order).toBeCloseTo(5390 * 1.001, 2);
  });

  it("rejects bad input with a message naming the field and changes nothing", async () => {
    const n = sim.counters.ordersCreated("spot");
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ side: undefined }, /side is missing/],
      [{ side: "hold" }, /side is invalid/],
      [{ type: "market" }, /type is invalid/],
      [{ price: 5_390_000.5 }, /price has too many decimals/],
      [{ quantity: 0.0000001 }, /quantity has too many decimals/],
      [{ quantity: 60 }, /quantity is out of range/],
      [{ exchange: "nasdaq" }, /exchange is invalid/],
      [{ symbol: "DOGE/INR" }, /symbol is invalid/],
      [{ expiry_period: 0 }, /expiry_period/],
      [{ price: "abc" }, /price is not a valid number/],
      [{ quantity: 1 }, /Order value is out of range/],
    ];
    for (const [extra, re] of cases) {
      const r = await create(A, extra);
      expect(r.status, JSON.stringify(extra)).toBe(400);
      expect(r.json.message).toMatch(re);
    }
    const poor = await call(
      base(),
      A,
      "POST",
      "/trade/api/v2/order",
      order({ side: "sell", quantity: 40, price: 100_000 }),
    );
    expect(poor.json.message).toMatch(/more than available balance/);
    expect(sim.counters.ordersCreated("spot")).toBe(n);
  });
});

describe("Spot cancel (two-phase) and expiry", () => {
  it("OPEN → CANCELLATION_RAISED → CANCELLED after the confirmation delay, funds released", async () => {
    const o = (await create()).json.data;
    const c = await cancel(o.order_id);
    expect(c.status).toBe(200);
    expect(c.json.data.status).toBe("CANCELLATION_RAISED");
    expect((await cancel(o.order_id)).json.data.status).toBe("CANCELLATION_RAISED");
    expect((await get(`order_id=${o.order_id}`)).json.data.status).toBe("CANCELLATION_RAISED");
    sim.advance(60);
    expect((await get(`order_id=${o.order_id}`)).json.data.status).toBe("CANCELLED");
    const again = await cancel(o.order_id);
    expect(again.status).toBe(400);
    expect(again.json.message).toMatch(/already CANCELLED/);
    expect((await cancel("no-such-id")).status).toBe(404);
  });

  it("a fill during CANCELLATION_RAISED counts; partial stays CANCELLED, full becomes EXECUTED", async () => {
    const o = (await create(A, { price: 5_400_000, quantity: 0.002 })).json.data;
    expect(o.status).toBe("OPEN");
    await cancel(o.order_id);
    const s = await call(
      base(),
      B,
      "POST",
      "/trade/api/v2/order",
      order({ side: "sell", price: 5_400_000, quantity: 0.001 }),
    );
    expect(s.json.data.status).toBe("EXECUTED");
    const mid = (await get(`order_id=${o.order_id}`)).json.data;
    expect(mid).toMatchObject({
      status: "CANCELLATION_RAISED",
      executed_qty: 0.001,
      average_price: 5_400_000,
    });
    sim.advance(60);
    expect((await get(`order_id=${o.order_id}`)).json.data).toMatchObject({
      status: "CANCELLED",
      executed_qty: 0.001,
    });

    const o2 = (await create(A, { price: 5_400_000, quantity: 0.001 })).json.data;
    await cancel(o2.order_id);
    await call(
      base(),
      B,
      "POST",
      "/trade/api/v2/order",
      order({ side: "sell", price: 5_400_000, quantity: 0.001 }),
    );
    expect((await get(`order_id=${o2.order_id}`)).json.data.status).toBe("EXECUTED");
    sim.advance(60);
    expect((await get(`order_id=${o2.order_id}`)).json.data.status).toBe("EXECUTED");
  });

  it("expiry_period → EXPIRATION_RAISED (cancel refused) → EXPIRED", async () => {
    const o = (await create(A, { expiry_period: 2 })).json.data;
    sim.advance(1_999);
    expect((await get(`order_id=${o.order_id}`)).json.data.status).toBe("OPEN");
    sim.advance(1);
    expect((await get(`order_id=${o.order_id}`)).json.data.status).toBe("EXPIRATION_RAISED");
    const c = await cancel(o.order_id);
    expect(c.status).toBe(400);
    expect(c.json.message).toMatch(/EXPIRATION_RAISED/);
    sim.advance(50);
    expect((await get(`order_id=${o.order_id}`)).json.data.status).toBe("EXPIRED");
  });

  it("default expiry is 90 s", async () => {
    const o = (await create()).json.data;
    sim.advance(89_999);
    expect((await get(`order_id=${o.order_id}`)).json.data.status).toBe("OPEN");
    sim.advance(51);
    expect((await get(`order_id=${o.order_id}`)).json.data.status).toBe("EXPIRED");
  });

  it("partial fill at placement → PARTIALLY_EXECUTED, then EXECUTED", async () => {
    const d = (await call(base(), A, "GET", "/trade/api/v2/depth?exchange=coinswitchx&symbol=BTC%2FINR")).json
      .data;
    const [askPx, askQty] = d.asks[0].map(Number);
    const r = (await create(A, { price: askPx, quantity: Number((askQty + 0.001).toFixed(5)) })).json.data;
    expect(r.status).toBe("PARTIALLY_EXECUTED");
    expect(r.executed_qty).toBeCloseTo(askQty, 5);
    await call(
      base(),
      B,
      "POST",
      "/trade/api/v2/order",
      order({ side: "sell", price: askPx, quantity: 0.001 }),
    );
    expect((await get(`order_id=${r.order_id}`)).json.data.status).toBe("EXECUTED");
    const trades = (
      await call(base(), A, "GET", "/trade/api/v2/trades?exchange=coinswitchx&symbol=BTC%2FINR")
    ).json.data;
    expect(trades[0]).toMatchObject({ p: String(askPx), s: "BTC/INR" });
  });
});

describe("Spot list orders", () => {
  it("lists open and closed with filters, newest first", async () => {
    await create(A, { client_order_id: "still-open" });
    const open = (await call(base(), A, "GET", "/trade/api/v2/orders?open=true")).json.data.orders;
    expect(open.length).toBeGreaterThan(0);
    for (const o of open)
      expect(["OPEN", "PARTIALLY_EXECUTED", "CANCELLATION_RAISED", "EXPIRATION_RAISED"]).toContain(o.status);
    const closed = (await call(base(), A, "GET", "/trade/api/v2/orders?open=false")).json.data.orders;
    expect(closed.map((o: { status: string }) => o.status)).toEqual(
      expect.arrayContaining(["CANCELLED", "EXPIRED", "EXECUTED"]),
    );
    for (let i = 1; i < closed.length; i++)
      expect(closed[i - 1].created_time).toBeGreaterThanOrEqual(closed[i].created_time);
    const ex = (
      await call(
        base(),
        A,
        "GET",
        "/trade/api/v2/orders?open=false&status=EXPIRED&symbols=btc%2Finr&exchanges=coinswitchx%2Cc2c1&side=buy",
      )
    ).json.data.orders;
    expect(ex.length).toBe(3);
    expect(
      (await call(base(), A, "GET", "/trade/api/v2/orders?open=false&count=1")).json.data.orders.length,
    ).toBe(1);
    expect(
      (await call(base(), A, "GET", "/trade/api/v2/orders?open=false&exchanges=c2c1")).json.data.orders,
    ).toEqual([]);
    expect(
      (await call(base(), A, "GET", "/trade/api/v2/orders?open=false&side=sell")).json.data.orders,
    ).toEqual([]);
    const noOpen = await call(base(), A, "GET", "/trade/api/v2/orders");
    expect(noOpen.status).toBe(400);
    expect(noOpen.json.message).toMatch(/open/);
  });
});

describe("Spot reference and market data", () => {
  it("answers every documented endpoint with its shape", async () => {
    const g = async (t: string) => (await call(base(), A, "GET", t)).json;
    expect(
      (
        await call(base(), A, "POST", "/trade/api/v2/exchangePrecision", {
          exchange: "C2C1",
          symbol: "eth/usdt",
        })
      ).json,
    ).toEqual({
      data: { c2c1: { "ETH/USDT": { base: 4, quote: 2, limit: 0 } } },
    });
    expect((await g("/trade/api/v2/tradeInfo")).data.coinswitchx["BTC/INR"]).toEqual({
      quote: { min: "100", max: "5000000" },
      precision: { base: 5, quote: 0, limit: 0 },
      active: true,
    });
    expect((await g("/trade/api/v2/coins?exchange=c2c2")).data).toEqual({ c2c2: ["BTC/USDT", "ETH/USDT"] });
    const fee = (await g("/trade/api/v2/tradingFee?exchange=coinswitchx")).data.coinswitchx.BTC;
    expect(fee).toMatchObject({ maker_fee: 0.001, taker_fee: 0.001 });
    expect(String(fee.timestamp)).toHaveLength(10);
    const tds = (await call(base(), B, "GET", "/trade/api/v2/tds")).json.data;
    expect(tds.total_tds_amount).toBeGreaterThan(0);
    expect(tds.financial_year).toMatch(/^\d{4}-\d{2}$/);
    const t = (await g("/trade/api/v2/24hr/ticker?exchange=coinswitchx&symbol=BTC/INR")).data["BTC/INR"];
    expect(Number(t.lastPrice)).toBeGreaterThan(0);
    expect(Object.keys((await g("/trade/api/v2/24hr/all-pairs/ticker?exchange=coinswitchx")).data)).toEqual([
      "BTC/INR",
      "ETH/INR",
    ]);
    const now = sim.exchange.clock.now();
    const candles = (
      await g(
        `/trade/api/v2/candles?exchange=coinswitchx&symbol=BTC%2FINR&interval=60&start_time=${now - 86_400_000}&end_time=${now}`,
      )
    ).data;
    expect(candles.length).toBeGreaterThan(0);
    expect(candles[0]).toMatchObject({ interval: "60", symbol: "BTC/INR" });
    expect(typeof candles[0].start_time).toBe("string");
    expect(
      (await call(base(), A, "GET", "/trade/api/v2/candles?exchange=coinswitchx&symbol=BTC%2FINR")).status,
    ).toBe(400);
    const d = (await g("/trade/api/v2/depth?exchange=coinswitchx&symbol=btc/inr")).data;
    expect(Number(d.bids[0][0])).toBeLessThan(Number(d.asks[0][0]));
  });
});

describe("Spot rate limit and determinism", () => {
  it("answers 429 with a message past the create bucket", async () => {
    const s = await startSimulator({
      apiKeys: [A.apiKey],
      market: { synthetic: false },
      rateLimits: { buckets: { spotOrder: { limit: 3, windowMs: 60_000 } } },
    });
    try {
      const codes = [];
      for (let i = 0; i < 4; i++)
        codes.push((await call(s.baseUrl, A, "POST", "/trade/api/v2/order", order())).status);
      expect(codes).toEqual([200, 200, 200, 429]);
      expect((await call(s.baseUrl, A, "POST", "/trade/api/v2/order", order())).json.message).toMatch(
        /Too many/,
      );
    } finally {
      await s.stop();
    }
  });

  it("the same seed gives the same market", async () => {
    const snaps: string[] = [];
    for (let k = 0; k < 2; k++) {
      const s = await startSimulator({ seed: 42, timeMode: "manual", market: { tickMs: 0 } });
      s.market.step(25);
      const b = s.exchange.book("spot", "c2c1", "BTC/USDT")!;
      snaps.push(
        JSON.stringify([
          b.levels(true, 5),
          b.levels(false, 5),
          b.trades.map((t) => [t.priceTicks, t.lots, t.takerBuy]),
        ]),
      );
      await s.stop();
    }
    expect(snaps[0]).toBe(snaps[1]);
    expect(JSON.parse(snaps[0]!)[2].length).toBeGreaterThan(0);
  });
});
