import { afterEach, describe, expect, it } from "vitest";
import { type SimHandle, startSimulator } from "../../sim/index.js";
import { selfSigned } from "../selfSigned.js";
import { call, newKeys } from "./helpers.js";

const A = newKeys();
let sim: SimHandle | undefined;

afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

describe("synthetic market", () => {
  it("fills a resting order over time as the mid moves and flow arrives (manual steps, seeded)", async () => {
    sim = await startSimulator({ apiKeys: [A.apiKey], seed: 3, timeMode: "manual", market: { tickMs: 0 } });
    const s = sim;
    const ob = (
      await call(s.baseUrl, A, "GET", "/v5/market/orderbook?category=linear&symbol=BTCUSDT&limit=1")
    ).json.result;
    const bid = Number(ob.b[0][0]);
    const r = await call(s.baseUrl, A, "POST", "/v5/order/create", {
      category: "linear",
      symbol: "BTCUSDT",
      side: "Buy",
      orderType: "Limit",
      qty: "0.050",
      price: (bid + 0.1).toFixed(1),
    });
    const id = r.json.result.orderId;
    let status = "New";
    let steps = 0;
    const seen = new Set<string>();
    while (status !== "Filled" && steps < 500) {
      s.market.step();
      steps++;
      status = (await call(s.baseUrl, A, "GET", `/v5/order/realtime?category=linear&orderId=${id}`)).json
        .result.list[0].orderStatus;
      seen.add(status);
    }
    expect(status).toBe("Filled");
    const ex = (await call(s.baseUrl, A, "GET", `/v5/execution/list?category=linear&orderId=${id}`)).json
      .result.list;
    expect(ex.every((e: { isMaker: boolean }) => e.isMaker)).toBe(true);
    expect(ex.reduce((a: number, e: { execQty: string }) => a + Number(e.execQty), 0)).toBeCloseTo(0.05, 6);
  });

  it("runs on real timers when tickMs > 0 and stops cleanly", async () => {
    sim = await startSimulator({ apiKeys: [A.apiKey], market: { tickMs: 5 } });
    const s = sim;
    const before = s.exchange.book("spot", "coinswitchx", "BTC/INR")!.trades.length;
    const end = Date.now() + 3_000;
    while (s.exchange.book("spot", "coinswitchx", "BTC/INR")!.trades.length === before && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(s.exchange.book("spot", "coinswitchx", "BTC/INR")!.trades.length).toBeGreaterThan(before);
  });

  it("serves HTTPS when given a certificate", async () => {
    const { mkdtempSync, readFileSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = mkdtempSync(join(tmpdir(), "simtls-"));
    try {
      const pair = selfSigned(dir, "127.0.0.1");
      expect(pair, "openssl made a certificate").toBeDefined();
      sim = await startSimulator({
        market: { synthetic: false },
        tls: { cert: readFileSync(pair!.cert), key: readFileSync(pair!.key) },
      });
      expect(sim.baseUrl.startsWith("https://")).toBe(true);
      const { Agent, request } = await import("undici");
      const agent = new Agent({ connect: { rejectUnauthorized: false } });
      const r = await request(`${sim.baseUrl}/trade/api/v2/time`, { dispatcher: agent });
      expect(r.statusCode).toBe(200);
      expect(((await r.body.json()) as { serverTime: number }).serverTime).toBeGreaterThan(0);
      await agent.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
