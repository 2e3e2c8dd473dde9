import { request } from "undici";
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

beforeAll(async () => {
  sim = await startSimulator({
    apiKeys: [A.apiKey],
    timeMode: "manual",
    market: { tickMs: 0 },
    adminPort: 0,
  });
});
afterEach(() => sim.faults.clear());
afterAll(async () => {
  await sim.stop();
});

describe("lost responses (ambiguous outcomes)", () => {
  it("Spot: reset after accepting; the order is found by client id, and a retry does not duplicate it", async () => {
    sim.faults.add({ kind: "reset", endpoint: "POST /trade/api/v2/order", count: 1 });
    const created = sim.counters.ordersCreated("spot");
    await expect(call(sim.baseUrl, A, "POST", "/trade/api/v2/order", spotOrder("lost-1"))).rejects.toThrow();
    expect(sim.counters.ordersCreated("spot")).toBe(created + 1);
    const found = await call(sim.baseUrl, A, "GET", "/trade/api/v2/order?client_order_id=lost-1");
    expect(found.status).toBe(200);
    expect(found.json.data).toMatchObject({ client_order_id: "lost-1", status: "OPEN" });
    const retry = await call(sim.baseUrl, A, "POST", "/trade/api/v2/order", spotOrder("lost-1"));
    expect(retry.json.data.order_id).toBe(found.json.data.order_id);
    expect(sim.counters.ordersCreated("spot")).toBe(created + 1);
    const open = (await call(sim.baseUrl, A, "GET", "/trade/api/v2/orders?open=true")).json.data.orders;
    expect(open.filter((o: { client_order_id: string }) => o.client_order_id === "lost-1").length).toBe(1);
  });

  it("HFT: timeout (no response ever) and 5xx after accepting; realtime by orderLinkId finds exactly one", async () => {
    sim.faults.add({ kind: "timeout", endpoint: "POST /v5/order/create", count: 1 });
    const epoch = String(Date.now());
    const { nativeSigner } = await import("../../src/auth/signer.js");
    const sig = nativeSigner(A).signHex(`POST/v5/order/create${epoch}`);
    await expect(
      request(`${sim.baseUrl}/v5/order/create`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-auth-apikey": A.apiKey,
          "x-auth-signature": sig,
          "x-auth-epoch": epoch,
        },
        body: JSON.stringify(v5Order("hang-1")),
        headersTimeout: 200,
      }),
    ).rejects.toThrow();
    sim.faults.add({ kind: "error5xx", endpoint: "POST /v5/order/create", count: 1, status: 502 });
    const r = await call(sim.baseUrl, A, "POST", "/v5/order/create", v5Order("err-1"));
    expect(r.status).toBe(502);
    for (const link of ["hang-1", "err-1"]) {
      const list = (
        await call(sim.baseUrl, A, "GET", `/v5/order/realtime?category=linear&orderLinkId=${link}`)
      ).json.result.list;
      expect(list.length).toBe(1);
      expect(list[0].orderStatus).toBe("New");
    }
    const again = await call(sim.baseUrl, A, "POST", "/v5/order/create", v5Order("err-1"));
    expect(again.json.result.orderLinkId).toBe("err-1");
    expect(sim.counters.deduplicated("hft")).toBeGreaterThanOrEqual(1);
  });
});

describe("request faults and counters", () => {
  it("429 storm for the next N requests, counted per endpoint", async () => {
    sim.faults.add({ kind: "rate429", endpoint: "GET /trade/api/v2/ping", count: 2 });
    const before = sim.counters.requests("GET /trade/api/v2/ping");
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await call(sim.baseUrl, A, "GET", "/trade/api/v2/ping")).status);
    expect(codes).toEqual([429, 429, 200]);
    expect(sim.counters.requests("GET /trade/api/v2/ping")).toBe(before + 3);
  });

  it("added latency delays the answer", async () => {
    sim.faults.add({ kind: "latency", endpoint: "GET /trade/api/v2/time", ms: 80, jitterMs: 10 });
    const t0 = Date.now();
    await call(sim.baseUrl, A, "GET", "/trade/api/v2/time", undefined, { noAuth: true });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(75);
  });

  it("counts cancel requests that reached the venue and honours a delayed confirmation", async () => {
    sim.setSpotDelays({ cancelConfirmMs: 5_000 });
    const o = (await call(sim.baseUrl, A, "POST", "/trade/api/v2/order", spotOrder("slow-cancel"))).json.data;
    const before = sim.counters.requests("DELETE /trade/api/v2/order");
    await call(sim.baseUrl, A, "DELETE", "/trade/api/v2/order", { order_id: o.order_id });
    expect(sim.counters.requests("DELETE /trade/api/v2/order")).toBe(before + 1);
    sim.advance(4_000);
    expect(
      (await call(sim.baseUrl, A, "GET", `/trade/api/v2/order?order_id=${o.order_id}`)).json.data.status,
    ).toBe("CANCELLATION_RAISED");
    sim.advance(1_000);
    expect(
      (await call(sim.baseUrl, A, "GET", `/trade/api/v2/order?order_id=${o.order_id}`)).json.data.status,
    ).toBe("CANCELLED");
    sim.setSpotDelays({ cancelConfirmMs: 50 });
  });

  it("rejects malformed rules", () => {
    expect(() => sim.faults.add({ kind: "explode" as "reset" })).toThrow(/kind/);
    expect(() => sim.faults.add({ kind: "reset", probability: 2 })).toThrow(/probability/);
  });
});

describe("admin endpoint (loopback only)", () => {
  const admin = async (method: string, path: string, body?: unknown) => {
    const r = await request(sim.adminUrl! + path, {
      method: method as "GET",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.statusCode, json: (await r.body.json()) as Record<string, unknown> };
  };

  it("adds rules, reports state, sets skew and delays, clears", async () => {
    expect(sim.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(
      (await admin("POST", "/faults", { kind: "rate429", endpoint: "GET /trade/api/v2/ping", count: 1 }))
        .status,
    ).toBe(200);
    expect((await call(sim.baseUrl, A, "GET", "/trade/api/v2/ping")).status).toBe(429);
    expect((await admin("POST", "/faults", { kind: "nope" })).status).toBe(400);
    await admin("PUT", "/clock-skew", { ms: 90_000 });
    expect((await call(sim.baseUrl, A, "GET", "/trade/api/v2/ping")).status).toBe(401);
    await admin("PUT", "/spot/delays", { cancelConfirmMs: 123 });
    await admin("PUT", "/faults/streams", { dropProbability: 0.5 });
    const st = (await admin("GET", "/state")).json;
    expect(st).toMatchObject({
      clockSkewMs: 90_000,
      spot: { cancelConfirmMs: 123 },
      streamFaults: { dropProbability: 0.5 },
    });
    expect((st.requests as Record<string, number>)["GET /trade/api/v2/ping"]).toBeGreaterThan(0);
    await admin("DELETE", "/faults");
    expect((await call(sim.baseUrl, A, "GET", "/trade/api/v2/ping")).status).toBe(200);
    const other = newKeys();
    await admin("POST", "/accounts", { apiKey: other.apiKey });
    expect((await call(sim.baseUrl, other, "GET", "/trade/api/v2/validate/keys")).status).toBe(200);
    await admin("POST", "/market/step", { n: 2 });
    await admin("POST", "/time/advance", { ms: 10 });
    expect((await admin("GET", "/nope")).status).toBe(404);
    sim.setSpotDelays({ cancelConfirmMs: 50 });
  });
});
