/**
 * The socket layer against a bare Socket.IO server this test controls: staleness on a silent stream
 * (no data and no engine.io pings), re-subscribe on every reconnect, server-side disconnects, and
 * malformed payloads counted and dropped without disturbing the loop.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "socket.io";
import { afterEach, describe, expect, it } from "vitest";
import { OrderStore, Status } from "../../src/orders/index.js";
import {
  InstrumentTable,
  OrderFeed,
  type SocketStream,
  SPOT_ORDER_STREAM,
  spotOrderStream,
} from "../../src/streams/index.js";
import { DOMAIN_INSTRUMENTS, until } from "./helpers.js";

let http: HttpServer | undefined;
let io: Server | undefined;
let stream: SocketStream | undefined;

afterEach(async () => {
  stream?.stop();
  stream = undefined;
  if (io !== undefined) await new Promise<void>((r) => io!.close(() => r()));
  io = undefined;
  http = undefined;
});

interface Bare {
  url: string;
  subscribes: unknown[];
  sockets: () => import("socket.io").Socket[];
}

/** A private-stream server whose engine.io pings are so rare that, unless it speaks, it is silent. */
async function bareServer(): Promise<Bare> {
  http = createServer();
  io = new Server(http, { path: SPOT_ORDER_STREAM.path, pingInterval: 60_000, pingTimeout: 60_000 });
  const subscribes: unknown[] = [];
  const ns = io.of(SPOT_ORDER_STREAM.namespace);
  ns.on("connection", (s) => {
    s.on(SPOT_ORDER_STREAM.event, (m: unknown) => subscribes.push(m));
  });
  await new Promise<void>((r) => http!.listen(0, "127.0.0.1", r));
  const port = (http.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, subscribes, sockets: () => [...ns.sockets.values()] };
}

function rigStream(url: string, staleMs: number) {
  const store = new OrderStore();
  const feed = new OrderFeed(store, new InstrumentTable(DOMAIN_INSTRUMENTS));
  const events: string[] = [];
  stream = spotOrderStream(
    {
      baseUrl: url,
      apiKey: "ab".repeat(32),
      staleMs,
      backoff: { minMs: 20, maxMs: 50 },
      listener: {
        onUp: (_n, re) => events.push(re ? "up:re" : "up"),
        onDown: (_n, reason) => events.push(`down:${reason}`),
      },
    },
    feed,
  );
  return { store, feed, events, stream };
}

describe("SocketStream", () => {
  it("a silent stream (no packets, no pings) is declared down by the staleness timer and reconnected", async () => {
    const srv = await bareServer();
    const { events, stream: s } = rigStream(srv.url, 200);
    s.start();
    await until(() => events.includes("up") && srv.subscribes.length === 1, 2_000, "first connect");
    expect(srv.subscribes[0]).toEqual({ event: "subscribe", apikey: "ab".repeat(32) });
    // Nothing is sent: no close event ever reaches the client, only silence.
    await until(() => events.includes("down:stale"), 2_000, "stale");
    await until(() => events.includes("up:re"), 2_000, "reconnect");
    expect(s.stats.staleTrips).toBeGreaterThanOrEqual(1);
    // Subscribed again on the new connection.
    await until(() => srv.subscribes.length >= 2, 1_000, "re-subscribe");
    expect(srv.subscribes[1]).toEqual(srv.subscribes[0]);
  });

  it("traffic keeps a stream fresh: no staleness while packets flow", async () => {
    const srv = await bareServer();
    const { events, stream: s } = rigStream(srv.url, 300);
    s.start();
    await until(() => events.includes("up"), 2_000, "connect");
    const t = setInterval(() => {
      for (const sock of srv.sockets()) sock.emit("heartbeat-ish", 1);
    }, 50);
    await new Promise((r) => setTimeout(r, 700));
    clearInterval(t);
    expect(s.stats.staleTrips).toBe(0);
    expect(events).toEqual(["up"]);
  });

  it("a server-side disconnect is retried and re-subscribed", async () => {
    const srv = await bareServer();
    const { events, stream: s } = rigStream(srv.url, 5_000);
    s.start();
    await until(() => srv.sockets().length === 1 && srv.subscribes.length === 1, 2_000, "connect");
    srv.sockets()[0]!.disconnect(true);
    await until(() => events.includes("down:io server disconnect"), 2_000, "down");
    await until(() => events.includes("up:re") && srv.subscribes.length === 2, 2_000, "back");
  });

  it("malformed payloads are counted and dropped; a valid record still applies", async () => {
    const srv = await bareServer();
    const { events, stream: s, store, feed } = rigStream(srv.url, 5_000);
    const i = DOMAIN_INSTRUMENTS.find((x) => x.symbol === "BTC/INR")!;
    const o = store.create({
      sessionId: 1,
      clientOrderNo: 1,
      instrumentId: i.id,
      symbol: i.symbol,
      surface: "spot",
      side: "buy",
      type: "limit",
      tif: "GTC",
      priceTicks: 5_400_000,
      qtyLots: 200,
    });
    store.markSent(o.clientId);
    s.start();
    await until(() => events.includes("up") && srv.sockets().length === 1, 2_000, "connect");
    const sock = srv.sockets()[0]!;
    const good = {
      order_id: "9f1c",
      client_order_id: o.clientId,
      symbol: "BTC/INR",
      price: 5_400_000,
      average_price: 5_400_000,
      orig_qty: 0.002,
      executed_qty: 0.001,
      status: "PARTIALLY_EXECUTED",
      side: "BUY",
      type: "LIMIT",
      exchange: "coinswitchx",
      order_source: "API_TRADING",
      created_time: 1,
      updated_time: 2,
    };
    const bad: unknown[] = [
      null,
      "text",
      42,
      [],
      { ...good, status: "WHATEVER" },
      { ...good, executed_qty: "0.001" },
      { ...good, executed_qty: 0.0000001 },
      { ...good, symbol: "NOPE/INR" },
      { ...good, order_id: "" },
    ];
    for (const b of bad) sock.emit(SPOT_ORDER_STREAM.event, b);
    sock.emit(SPOT_ORDER_STREAM.event, good);
    await until(() => s.stats.messages === bad.length + 1, 2_000, "delivered");
    expect(s.stats.malformed).toBe(bad.length);
    expect(feed.stats.malformed + feed.stats.unknownInstrument).toBe(bad.length);
    expect(s.stats.sinkErrors).toBe(0);
    expect(o.status).toBe(Status.PartiallyFilled);
    expect(o.filledLots).toBe(100);
    expect(o.exchangeId).toBe("9f1c");
    expect(s.up).toBe(true);
  });
});
