import { io, type Socket } from "socket.io-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type SimHandle, startSimulator } from "../../sim/index.js";
import { call, newKeys } from "./helpers.js";

const A = newKeys();
const B = newKeys();
let sim: SimHandle;
const sockets: Socket[] = [];

function connect(path: string, ns: string): Socket {
  const s = io(sim.baseUrl + ns, {
    path,
    transports: ["websocket"],
    reconnectionDelay: 20,
    reconnectionDelayMax: 50,
  });
  sockets.push(s);
  return s;
}

function subscribe(s: Socket, event: string, payload: unknown): Promise<unknown> {
  return new Promise((resolve) => {
    const go = () => s.emit(event, payload, (r: unknown) => resolve(r));
    if (s.connected) go();
    else s.once("connect", go);
  });
}

function collect(s: Socket, event: string): unknown[] {
  const out: unknown[] = [];
  s.on(event, (m: unknown) => out.push(m));
  return out;
}

async function until(cond: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}

const order = (k: typeof A, extra: Record<string, unknown>) =>
  call(sim.baseUrl, k, "POST", "/trade/api/v2/order", {
    side: "buy",
    symbol: "BTC/INR",
    type: "limit",
    price: 5_400_000,
    quantity: 0.002,
    exchange: "coinswitchx",
    ...extra,
  });

beforeAll(async () => {
  sim = await startSimulator({ apiKeys: [A.apiKey, B.apiKey], timeMode: "manual", market: { tickMs: 0 } });
});
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
  sim.faults.clear();
});
afterAll(async () => {
  await sim.stop();
});

describe("private order updates (FETCH_ORDER_UPDATES)", () => {
  it("pushes one message per status / executed_qty change of the subscriber's orders only", async () => {
    const s = connect("/pro/realtime-rates-socket/spot/order-updates", "/orderupdates");
    const msgs = collect(s, "FETCH_ORDER_UPDATES") as Array<{
      order_id: string;
      status: string;
      executed_qty: number;
      client_order_id: string;
    }>;
    expect(await subscribe(s, "FETCH_ORDER_UPDATES", { event: "subscribe", apikey: A.apiKey })).toEqual({
      subscribed: true,
    });
    const o = (await order(A, { client_order_id: "stream-1" })).json.data;
    await order(B, { side: "sell", quantity: 0.001 });
    await order(B, { side: "sell", quantity: 0.001 });
    await until(() => msgs.length >= 3);
    expect(msgs.map((m) => [m.status, m.executed_qty])).toEqual([
      ["OPEN", 0],
      ["PARTIALLY_EXECUTED", 0.001],
      ["EXECUTED", 0.002],
    ]);
    expect(msgs.every((m) => m.order_id === o.order_id && m.client_order_id === "stream-1")).toBe(true);
  });

  it("ignores a subscribe with the wrong shape or an unknown key", async () => {
    const s = connect("/pro/realtime-rates-socket/spot/order-updates", "/orderupdates");
    expect(await subscribe(s, "FETCH_ORDER_UPDATES", { event: "Subscribe", apikey: A.apiKey })).toMatchObject(
      { subscribed: false },
    );
    expect(
      await subscribe(s, "FETCH_ORDER_UPDATES", { event: "subscribe", apikey: "ab".repeat(32) }),
    ).toMatchObject({ subscribed: false });
  });

  it("balance updates: snapshot on subscribe and after a placement", async () => {
    const s = connect("/pro/realtime-rates-socket/spot/balance-updates", "/balanceupdates");
    const msgs = collect(s, "FETCH_BALANCE_UPDATES") as Array<{
      balances: Array<{ currency: string; blocked_balance_order: number }>;
      timestamp: number;
    }>;
    await subscribe(s, "FETCH_BALANCE_UPDATES", { event: "subscribe", apikey: A.apiKey });
    await until(() => msgs.length >= 1);
    await order(A, { price: 5_000_000, quantity: 0.001 });
    await until(() => msgs.length >= 2);
    const inr = msgs[1]!.balances.find((b) => b.currency === "INR")!;
    expect(inr.blocked_balance_order).toBeGreaterThan(0);
  });

  it("stream faults: drop all, then duplicate all", async () => {
    const s = connect("/pro/realtime-rates-socket/spot/order-updates", "/orderupdates");
    const msgs = collect(s, "FETCH_ORDER_UPDATES");
    await subscribe(s, "FETCH_ORDER_UPDATES", { event: "subscribe", apikey: A.apiKey });
    sim.faults.setStreams({ dropProbability: 1 });
    const dropped = sim.counters.streams.dropped;
    await order(A, { price: 5_000_000, quantity: 0.001 });
    expect(sim.counters.streams.dropped).toBe(dropped + 1);
    sim.faults.setStreams({ dropProbability: 0, duplicateProbability: 1 });
    await order(A, { price: 5_000_000, quantity: 0.001 });
    await until(() => msgs.length >= 2);
    expect(msgs[0]).toEqual(msgs[1]);
  });

  it("stream faults: reorder delivers a held message after the next one", async () => {
    const s = connect("/pro/realtime-rates-socket/spot/order-updates", "/orderupdates");
    const msgs = collect(s, "FETCH_ORDER_UPDATES") as Array<{ client_order_id: string }>;
    await subscribe(s, "FETCH_ORDER_UPDATES", { event: "subscribe", apikey: A.apiKey });
    sim.faults.setStreams({ reorderProbability: 1 });
    await order(A, { price: 5_000_000, quantity: 0.001, client_order_id: "first" });
    sim.faults.setStreams({ reorderProbability: 0 });
    await order(A, { price: 5_000_000, quantity: 0.001, client_order_id: "second" });
    await until(() => msgs.length >= 2);
    expect(msgs.map((m) => m.client_order_id)).toEqual(["second", "first"]);
  });

  it("disconnectStreams drops the transport and the client reconnects", async () => {
    const s = connect("/pro/realtime-rates-socket/spot/order-updates", "/orderupdates");
    await subscribe(s, "FETCH_ORDER_UPDATES", { event: "subscribe", apikey: A.apiKey });
    const reasons: string[] = [];
    s.on("disconnect", (r) => reasons.push(r));
    let connects = 0;
    s.on("connect", () => connects++);
    expect(sim.faults.disconnectStreams()).toBeGreaterThan(0);
    await until(() => reasons.length === 1 && connects === 1);
    expect(reasons[0]).toBe("transport close");
  });
});

describe("public market data (§6.1)", () => {
  for (const path of [
    "/pro/realtime-rates-socket/spot",
    "/pro/realtime-rates-socket/spot/",
    "/pro/realtime-rates-socket/spot/coinswitchx",
  ]) {
    it(`order book snapshot via handshake path ${path}`, async () => {
      const s = connect(path, "/coinswitchx");
      const books = collect(s, "FETCH_ORDER_BOOK_CS_PRO") as Array<{
        s: string;
        bids: string[][];
        asks: string[][];
      }>;
      await subscribe(s, "FETCH_ORDER_BOOK_CS_PRO", { event: "subscribe", pair: "BTC,INR" });
      await until(() => books.length >= 1);
      expect(books[0]!.s).toBe("BTC,INR");
      expect(Number(books[0]!.bids[0]![0])).toBeLessThan(Number(books[0]!.asks[0]![0]));
      sim.market.step();
      await until(() => books.length >= 2);
    });
  }

  it("trades and one-minute candles", async () => {
    const s = connect("/pro/realtime-rates-socket/spot", "/c2c1");
    const trades = collect(s, "FETCH_TRADES_CS_PRO") as Array<{ p: string; q: string; s: string; E: number }>;
    const candles = collect(s, "FETCH_CANDLESTICK_CS_PRO") as Array<{ s: string; o: string; x: boolean }>;
    await subscribe(s, "FETCH_TRADES_CS_PRO", { event: "subscribe", pair: "BTC,USDT" });
    await subscribe(s, "FETCH_CANDLESTICK_CS_PRO", { event: "subscribe", pair: "BTC,USDT" });
    await call(sim.baseUrl, A, "POST", "/trade/api/v2/order", {
      side: "buy",
      symbol: "BTC/USDT",
      type: "limit",
      price: 64_500,
      quantity: 0.001,
      exchange: "c2c1",
    });
    await until(() => trades.length >= 1);
    expect(trades[0]).toMatchObject({ s: "BTC,USDT", q: "0.00100" });
    sim.advance(61_000);
    sim.market.step();
    await until(() => candles.length >= 1);
    expect(candles[0]).toMatchObject({ s: "BTC,USDT", x: true });
  });
});
