import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadKeyPair } from "../../src/auth/keys.js";
import { ClockError } from "../../src/clock/clockSync.js";
import { buildCatalogue, ENDPOINT_ROWS } from "../../src/rest/catalogue.js";
import {
  AuthError,
  InvalidRequestError,
  MissingEpochError,
  NetworkError,
  OutcomeUnknownError,
  RateLimitedError,
  ValidationError,
} from "../../src/rest/errors.js";
import { makeGrid } from "../../src/venue/orderFields.js";
import { createRestStack, type RestStack } from "../../src/venue/stack.js";
import { closeServer, envelope, json, SPOT_ORDER as ORDER, type Seen, startServer } from "./helpers.js";

const keys = loadKeyPair("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
let server: Server;
let seen: Seen[];
let stack: RestStack;
let mode = "ok";

beforeAll(async () => {
  const s = await startServer(keys.apiKey, (req, res) => {
    const path = req.url.split("?")[0];
    if (path === "/trade/api/v2/time") return json(res, 200, { serverTime: Date.now() + 1500 });
    if (path === "/v5/market/time")
      return json(res, 200, envelope({ timeSecond: "1", timeNano: "1000000000" }));
    if (!req.sigOk) return json(res, 401, { message: "Invalid Access" });
    switch (mode) {
      case "401":
        return json(res, 401, { message: "Invalid Access" });
      case "429":
        return json(res, 429, { message: "Too many requests" }, { "retry-after": "2" });
      case "422":
        return json(res, 422, { message: "Input quantity is missing" });
      case "400epoch":
        return json(res, 400, { message: "X-AUTH-EPOCH header is required" });
      case "retcode":
        return json(res, 200, envelope({}, 10001, "category is missing"));
      case "500":
        return json(res, 502, { message: "bad gateway" });
      case "hang":
        return; // never answers: headers timeout
      case "reset":
        return req && res.socket?.destroy();
    }
    if (path === "/v5/order/create" || path === "/v5/order/cancel") {
      const b = JSON.parse(req.body);
      return json(res, 200, envelope({ orderId: "oid-1", orderLinkId: b.orderLinkId ?? "" }));
    }
    if (path === "/v5/order/realtime")
      return json(res, 200, envelope({ category: "linear", list: [], nextPageCursor: "" }));
    if (path === "/trade/api/v2/order") return json(res, 200, { data: ORDER });
    if (path === "/trade/api/v2/orders") return json(res, 200, { data: { orders: [ORDER] } });
    if (path === "/trade/api/v2/user/portfolio") return json(res, 200, { data: [] });
    return json(res, 404, { message: "not found" });
  });
  server = s.server;
  seen = s.seen;
  stack = createRestStack({
    keys,
    spotBaseUrl: s.url,
    hftBaseUrl: s.url,
    http: { headersTimeoutMs: 300, connections: 2, prewarm: 2 },
    presign: { horizonMs: 100, refillMs: 10 },
    clock: { samples: 3, resyncMs: 0, onWarn: () => {} },
  });
  await stack.start();
  stack.client.setGrid("hft", "BTCUSDT", makeGrid("0.1", "0.001"));
  stack.client.setGrid("spot", "BTC/INR", makeGrid("0.5", "0.0001"));
});

afterAll(async () => {
  await stack.stop();
  await closeServer(server);
});

function last(): Seen {
  return seen[seen.length - 1]!;
}

describe("catalogue", () => {
  it("lists every documented endpoint once with precomputed prefixes", () => {
    const c = buildCatalogue(["POST/v5/order/create", "POST/v5/order/cancel"], {
      "hft.amendOrder": "/v5/order/modify",
    });
    expect(Object.keys(c).length).toBe(ENDPOINT_ROWS.length);
    expect(new Set(ENDPOINT_ROWS.map((r) => r.method + r.path)).size).toBe(ENDPOINT_ROWS.length);
    expect(c["hft.createOrder"].signedPrefix).toBe("POST/v5/order/create");
    expect(c["hft.createOrder"].presignId).toBe(0);
    expect(c["hft.cancelOrder"].presignId).toBe(1);
    expect(c["hft.cancelOrder"].assumed).toBe(true);
    expect(c["hft.amendOrder"].path).toBe("/v5/order/modify");
    expect(c["spot.time"].signed).toBe(false);
    expect(c["spot.createOrder"].rate).toBe("spot.create");
    expect(c["spot.listOrders"].rate).toBe("spot.listOrders");
    expect(c["spot.tds"].rate).toBe("spot.tds");
    expect(c["hft.realtime"].rate).toBe("hft.all");
    expect(c["spot.cancelOrder"].requestLineHead).toBe("DELETE /trade/api/v2/order");
  });
});

describe("RestClient against a verifying local server", () => {
  it("syncs the clock from /trade/api/v2/time", () => {
    expect(Math.abs(stack.clock!.offsetMs - 1500)).toBeLessThan(100);
  });

  it("HFT create: headers, pre-signed signature that verifies, exact body", async () => {
    const hits = stack.presigner!.hits;
    const ack = await stack.client.createHftOrder({
      category: "linear",
      symbol: "BTCUSDT",
      side: "buy",
      orderType: "limit",
      qty: "0.002",
      price: "64000.10",
      positionIdx: 1,
      timeInForce: "GTC",
      orderLinkId: "grid-42",
    });
    expect(ack).toEqual({ orderId: "oid-1", orderLinkId: "grid-42" });
    const r = last();
    expect(r.sigOk).toBe(true);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers["x-auth-epoch"]).toMatch(/^\d{13}$/);
    expect(Math.abs(Number(r.headers["x-auth-epoch"]) - (Date.now() + 1500))).toBeLessThan(1000);
    expect(r.body).toBe(
      '{"category":"linear","symbol":"BTCUSDT","side":"Buy","orderType":"Limit","qty":"0.002","price":"64000.1","positionIdx":1,"timeInForce":"GTC","orderLinkId":"grid-42"}',
    );
    expect(stack.presigner!.hits + stack.presigner!.misses).toBeGreaterThan(hits);
  });

  it("HFT cancel and realtime with filters (query encoded on the wire, signed decoded)", async () => {
    await stack.client.cancelHftOrder({ category: "linear", symbol: "BTCUSDT", orderLinkId: "grid-42" });
    expect(last().body).toBe('{"category":"linear","symbol":"BTCUSDT","orderLinkId":"grid-42"}');
    expect(last().sigOk).toBe(true);
    const list = await stack.client.realtime({
      category: "linear",
      symbol: "BTCUSDT",
      orderLinkId: "grid 7+a/b",
      cursor: "",
    });
    expect(list.list).toEqual([]);
    expect(last().url).toBe("/v5/order/realtime?category=linear&symbol=BTCUSDT&orderLinkId=grid+7%2Ba%2Fb");
    expect(last().sigOk).toBe(true);
  });

  it("Spot create, cancel, get by client id, list orders, portfolio", async () => {
    const o = await stack.client.createSpotOrder({
      symbol: "BTC/INR",
      side: "buy",
      price: "61250.5",
      quantity: "0.0015",
      exchange: "COINSWITCHX",
      clientOrderId: "c-1",
    });
    expect(o.order_id).toBe(ORDER.order_id);
    expect(last().method).toBe("POST");
    expect(last().body).toBe(
      '{"side":"buy","symbol":"BTC/INR","type":"limit","price":61250.5,"quantity":0.0015,"exchange":"coinswitchx","client_order_id":"c-1"}',
    );
    await stack.client.cancelSpotOrder(ORDER.order_id);
    expect(last().method).toBe("DELETE");
    expect(last().body).toBe(`{"order_id":"${ORDER.order_id}"}`);
    expect(last().sigOk).toBe(true);
    await stack.client.getSpotOrder({ clientOrderId: "c-1" });
    expect(last().url).toBe("/trade/api/v2/order?client_order_id=c-1");
    const l = await stack.client.listSpotOrders({
      open: false,
      symbols: ["btc/inr", "eth/inr"],
      exchanges: ["coinswitchx", "c2c1"],
    });
    expect(l.orders.length).toBe(1);
    expect(last().url).toBe(
      "/trade/api/v2/orders?open=false&symbols=btc%2Finr%2Ceth%2Finr&exchanges=coinswitchx%2Cc2c1",
    );
    expect(last().sigOk).toBe(true);
    expect(await stack.client.portfolio()).toEqual([]);
  });

  it("hftTime reads result.timeNano", async () => {
    expect(await stack.client.hftTime()).toBe(1000);
  });
});

describe("error mapping", () => {
  const create = () =>
    stack.client.createHftOrder({
      category: "linear",
      symbol: "BTCUSDT",
      side: "sell",
      orderType: "market",
      qty: "0.001",
      positionIdx: 0,
    });

  it.each([
    ["401", AuthError],
    ["429", RateLimitedError],
    ["422", ValidationError],
    ["400epoch", MissingEpochError],
    ["retcode", ValidationError],
    ["500", OutcomeUnknownError],
    ["hang", OutcomeUnknownError],
    ["reset", OutcomeUnknownError],
  ] as const)("%s", async (m, cls) => {
    mode = m;
    try {
      const err = await create().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(cls);
      if (m === "429") expect((err as RateLimitedError).retryAfterMs).toBe(2000);
      if (m === "retcode") {
        expect((err as ValidationError).code).toBe(10001);
        expect((err as ValidationError).exchangeMessage).toBe("category is missing");
      }
      if (m === "422") expect((err as ValidationError).exchangeMessage).toBe("Input quantity is missing");
      // A 401 holds signing while the clock is re-synced; here the clock is fine: a key or signature problem.
      if (m === "401") {
        expect((err as AuthError).epochMs).toBeTypeOf("number");
        expect(await (err as AuthError).clockExplains).toBe(false);
        expect(stack.clock!.canSign).toBe(true);
      }
      // Outcome-unknown is never a rejection.
      if (cls === OutcomeUnknownError) expect(err).not.toBeInstanceOf(ValidationError);
    } finally {
      mode = "ok";
    }
  });

  it("connection refused is a NetworkError (nothing sent, safe to retry)", async () => {
    const dead = createRestStack({
      keys,
      spotBaseUrl: "http://127.0.0.1:1",
      hftBaseUrl: "http://127.0.0.1:1",
      presign: false,
      clock: false,
    });
    try {
      await expect(dead.client.portfolio()).rejects.toBeInstanceOf(NetworkError);
    } finally {
      await dead.stop();
    }
  });
});

describe("local validation sends nothing", () => {
  const base = {
    category: "linear",
    symbol: "BTCUSDT",
    side: "buy",
    orderType: "limit",
    qty: "0.002",
    price: "64000",
    positionIdx: 0,
  } as const;
  it.each([
    [{ ...base, qty: "0.0025" }, "qty"],
    [{ ...base, price: "64000.05" }, "price"],
    [{ ...base, price: undefined }, "price"],
    [{ ...base, qty: "1e-3" }, "qty"],
    [{ ...base, qty: "-0.002" }, "qty"],
    [{ ...base, orderLinkId: "x".repeat(37) }, "orderLinkId"],
    [{ ...base, orderLinkId: 'a"b' }, "orderLinkId"],
    [{ ...base, side: "long" }, "side"],
    [{ ...base, orderType: "stop" }, "orderType"],
    [{ ...base, category: "spot" }, "category"],
    [{ ...base, positionIdx: 3 }, "positionIdx"],
    [{ ...base, timeInForce: "GTD" }, "timeInForce"],
    [{ ...base, symbol: "ETHUSDT" }, "symbol"],
  ])("%o -> %s", async (p, field) => {
    const before = seen.length;
    const err = (() => {
      try {
        stack.client.prepareHftCreate(p as never);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as InvalidRequestError).field).toBe(field);
    await expect(stack.client.createHftOrder(p as never)).rejects.toBeInstanceOf(InvalidRequestError);
    expect(seen.length).toBe(before);
  });

  it("orderLinkId of exactly 36 characters and a market order without price are accepted", () => {
    const r = stack.client.prepareHftCreate({
      ...base,
      orderType: "market",
      price: undefined,
      orderLinkId: "y".repeat(36),
    });
    expect(r.body).not.toContain("price");
  });

  it("spot: off-grid quantity and unknown exchange", () => {
    const p = {
      symbol: "BTC/INR",
      side: "buy",
      price: "100",
      quantity: "0.00015",
      exchange: "c2c1",
    } as const;
    expect(() => stack.client.prepareSpotCreate(p)).toThrow(InvalidRequestError);
    expect(() => stack.client.prepareSpotCreate({ ...p, quantity: "0.0002", exchange: "binance" })).toThrow(
      /exchange/,
    );
    expect(() =>
      stack.client.prepareSpotCreate({ ...p, quantity: "0.0002", clientOrderId: "z".repeat(37) }),
    ).toThrow(/client_order_id/);
  });
});

describe("clock guard", () => {
  it("refuses to sign beyond 60 s offset, sends nothing, recovers after an in-bounds resync", async () => {
    const clock = stack.clock!;
    const saved = clock.last!;
    clock.apply({ offsetMs: 70_000, rttMs: 1, at: Date.now() });
    const before = seen.length;
    await expect(stack.client.portfolio()).rejects.toBeInstanceOf(ClockError);
    expect(seen.length).toBe(before);
    clock.apply(saved);
    await expect(stack.client.portfolio()).resolves.toEqual([]);
  });
});
