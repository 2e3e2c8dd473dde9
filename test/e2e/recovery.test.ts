import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimHandle, startSimulator } from "../../sim/index.js";
import { generateKeyHex } from "../../src/auth/keygen.js";
import { loadKeyPair } from "../../src/auth/keys.js";
import { GatewayClient } from "../../src/client/index.js";
import { type EngineHandle, StartupError, startEngine } from "../../src/index.js";
import { OrderStatus, Side } from "../../src/protocol/schema.js";
import { makeGrid } from "../../src/venue/orderFields.js";
import { createRestStack } from "../../src/venue/stack.js";
import { next, silent, testConfig, until } from "./harness.js";

/** A venue that outlives gateway restarts: an external simulator reached as venue "exchange". */
let sim: SimHandle;
let dir: string;
const kp = generateKeyHex();
const other = generateKeyHex();

function exchangeConfig(extra: Record<string, unknown> = {}) {
  return testConfig(
    {
      "venue.kind": "exchange",
      "venue.spotBaseUrl": sim.baseUrl,
      "venue.hftBaseUrl": sim.baseUrl,
      "keys.secretKey": kp.secretKey,
      "shutdown.timeoutMs": 500,
      ...extra,
    },
    dir,
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "hftgate-restart-"));
  sim = await startSimulator({ apiKeys: [kp.apiKey, other.apiKey], market: { synthetic: false, tickMs: 0 } });
});
afterAll(async () => {
  await sim?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("restart from the journal", () => {
  it("rebuilds the order book, reconciles with the venue, resolves the in-flight create, duplicates nothing", async () => {
    const h1: EngineHandle = await startEngine(exchangeConfig(), { logger: silent });
    const c1 = new GatewayClient({ url: h1.url, token: h1.token, sessionName: "survivor" });
    await c1.connect();
    const inst = h1.instruments.all().find((i) => i.symbol === "BTCUSDT")!.id;
    const ack = next(c1, "ack");
    c1.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 640_000, qtyLots: 10 });
    const resting = await ack;
    // A create whose answer never comes back before the process goes away: the venue takes it after
    // the stop's budget (500 ms), so the drain gives up waiting for its answer.
    sim.faults.add({
      kind: "latency",
      ms: 800,
      endpoint: "POST /v5/order/create",
      count: 1,
      abandoned: "handle",
    });
    const createdAtSend = sim.counters.ordersCreated("hft");
    c1.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 639_000, qtyLots: 3 });
    await until(
      () => h1.engine.store.liveOrders().some((o) => o.priceTicks === 639_000 && o.sends === 1),
      2000,
      "sent",
    );
    const inFlightId = h1.engine.store.liveOrders().find((o) => o.priceTicks === 639_000)!.clientId;
    await c1.close();
    await h1.stop("simulated crash");
    await until(
      () => sim.counters.ordersCreated("hft") === createdAtSend + 1,
      3000,
      "the late create landed",
    );
    const createdBefore = sim.counters.ordersCreated("hft");

    // While the gateway is down the resting order is partly filled by someone else.
    await new Promise((r) => setTimeout(r, 250));
    const otherRest = createRestStack({
      keys: loadKeyPair(other.secretKey),
      spotBaseUrl: sim.baseUrl,
      hftBaseUrl: sim.baseUrl,
      presign: false,
      clock: false,
    });
    await otherRest.client.createHftOrder(
      {
        category: "linear",
        symbol: "BTCUSDT",
        side: "sell",
        orderType: "limit",
        qty: "0.004",
        price: "64000",
        positionIdx: 0,
        timeInForce: "GTC",
      },
      makeGrid("0.1", "0.001"),
    );
    await otherRest.stop();

    const h2 = await startEngine(exchangeConfig(), { logger: silent });
    try {
      expect(h2.replay?.orders).toBe(2);
      expect(h2.replay?.unresolved).toBe(1); // the create that never got its answer
      const restored = h2.engine.store.byExchangeId(resting.exchangeOrderId)!;
      expect(restored).toBeDefined();
      expect(restored.filledLots).toBe(4);
      expect(restored.status).toBe(3); // PartiallyFilled
      // Risk sees the venue's position once (snapshot after reconciliation) and both live orders.
      const exp = h2.risk.exposure(restored.instrumentId)!;
      expect(exp.position).toBe(4);
      expect(exp.openOrders).toBe(2);
      const flight = h2.engine.store.byClientId(inFlightId)!;
      expect(flight.exchangeId).not.toBe("");
      expect(flight.status).toBe(2); // New: found by client id, not re-sent
      const rows = (await h2.rest.client.realtime({ category: "linear", orderLinkId: inFlightId })).list;
      expect(rows.length).toBe(1);
      expect(sim.counters.ordersCreated("hft")).toBe(createdBefore + 1); // only the other account's order
      // The strategy reconnects under the same name and sees its orders.
      const c2 = new GatewayClient({ url: h2.url, token: h2.token, sessionName: "survivor" });
      // The fill that happened while the gateway was down is pushed at logon, not only on Query.
      const missedFill = next(c2, "fill", (f) => f.qtyLots === 4);
      const missedUpdate = next(c2, "update", (u) => u.status === OrderStatus.PartiallyFilled);
      await c2.connect();
      await missedFill;
      expect((await missedUpdate).cumQtyLots).toBe(4);
      const live = await c2.query();
      const byId = new Map(live.map((u) => [u.exchangeOrderId, u]));
      expect(byId.get(resting.exchangeOrderId)?.status).toBe(OrderStatus.PartiallyFilled);
      expect(byId.get(resting.exchangeOrderId)?.cumQtyLots).toBe(4);
      expect(byId.get(flight.exchangeId)?.status).toBe(OrderStatus.New);
      c2.cancelAll();
      await until(() => h2.engine.store.liveOrders().length === 0, 3000, "all cancelled");
      await c2.close();
    } finally {
      await h2.stop("test");
    }
  }, 15_000);
});

describe("kill switch at the venue", () => {
  it("also cancels working orders of the account that the gateway does not hold (lost journal tail)", async () => {
    const h = await startEngine(exchangeConfig({ "journal.enabled": false }), { logger: silent });
    try {
      // An order on the same account the gateway never saw (as after a power cut took the journal tail).
      const direct = createRestStack({
        keys: loadKeyPair(kp.secretKey),
        spotBaseUrl: sim.baseUrl,
        hftBaseUrl: sim.baseUrl,
        presign: false,
        clock: false,
      });
      const ghost = await direct.client.createHftOrder(
        {
          category: "linear",
          symbol: "ETHUSDT",
          side: "buy",
          orderType: "limit",
          qty: "0.01",
          price: "3000",
          positionIdx: 0,
          timeInForce: "GTC",
          orderLinkId: "ghost-1",
        },
        makeGrid("0.01", "0.01"),
      );
      const user = new GatewayClient({ url: h.url, token: h.token, sessionName: "kill-user" });
      await user.connect();
      const ack = next(user, "ack");
      user.placeOrder({
        instrumentId: h.instruments.all().find((i) => i.symbol === "ETHUSDT")!.id,
        side: Side.Buy,
        priceTicks: 300_500,
        qtyLots: 1,
      });
      const own = await ack;
      const admin = new GatewayClient({ url: h.url, token: h.adminToken, sessionName: "ops" });
      await admin.connect();
      admin.cancelAll(undefined, true);
      const statusOf = async (orderId: string) =>
        (await direct.client.realtime({ category: "linear", orderId })).list[0]?.orderStatus;
      await until(() => h.engine.store.liveOrders().length === 0, 3000, "own order cancelled");
      const end = Date.now() + 3000;
      while ((await statusOf(ghost.orderId)) !== "Cancelled" && Date.now() < end)
        await new Promise((r) => setTimeout(r, 20));
      expect(await statusOf(ghost.orderId)).toBe("Cancelled");
      expect(await statusOf(own.exchangeOrderId)).toBe("Cancelled");
      await user.close();
      await admin.close();
      await direct.stop();
    } finally {
      await h.stop("test");
    }
  });
});

describe("start-up keys", () => {
  it("refuses malformed or missing keys with a clear message that never contains the secret", async () => {
    const bad = `${kp.secretKey.slice(0, 60)}zzzz`;
    const err = await startEngine(exchangeConfig({ "keys.secretKey": bad }), { logger: silent }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toMatch(/secret key is malformed/);
    expect((err as Error).message).not.toContain(bad);
    expect((err as Error).message).not.toContain(kp.secretKey.slice(0, 60));
    const missing = await startEngine(exchangeConfig({ "keys.secretKey": null }), { logger: silent }).catch(
      (e: unknown) => e,
    );
    expect((missing as Error).message).toMatch(/secret key is missing/);
    const mismatch = await startEngine(exchangeConfig({ "keys.apiKey": other.apiKey }), {
      logger: silent,
    }).catch((e: unknown) => e);
    expect((mismatch as Error).message).toMatch(/does not match/);
    expect((mismatch as Error).message).not.toContain(kp.secretKey);
  });

  it("`hftgate start` exits 2 with the message on stderr, the secret nowhere", async () => {
    const { run } = await import("../../src/commands/start.js");
    const bad = `${kp.secretKey.slice(0, 50)}`;
    const saved = { ...process.env };
    const out: string[] = [];
    const w1 = process.stdout.write.bind(process.stdout);
    const w2 = process.stderr.write.bind(process.stderr);
    process.env.HFTGATE_VENUE_KIND = "exchange";
    process.env.HFTGATE_SECRET_KEY = bad;
    process.env.HFTGATE_LOG_LEVEL = "silent";
    process.env.HFTGATE_VENUE_SPOT_BASE_URL = sim.baseUrl;
    process.stdout.write = ((s: string) => out.push(String(s)) > 0) as typeof process.stdout.write;
    process.stderr.write = ((s: string) => out.push(String(s)) > 0) as typeof process.stderr.write;
    let code: number;
    try {
      code = await run([]);
    } finally {
      process.stdout.write = w1;
      process.stderr.write = w2;
      process.env = saved;
    }
    expect(code).toBe(2);
    const text = out.join("");
    expect(text).toMatch(/secret key is malformed/);
    expect(text).not.toContain(bad);
  });
});
