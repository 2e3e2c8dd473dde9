/**
 * Socket.IO v4 streams (docs/venue-api.md §6.1, §6.2) on the simulator's HTTP server. Engine.IO matches
 * its path as a prefix; without the trailing slash one server under `/pro/realtime-rates-socket/spot`
 * accepts every documented handshake form (`.../spot`, `.../spot/`, `.../spot/{exchange}`,
 * `.../spot/order-updates`, `.../spot/balance-updates`), and routing happens by namespace.
 */
import type http from "node:http";
import { type Namespace, Server } from "socket.io";
import type { SimAccount } from "./account.js";
import type { Book, Candle, PublicTrade } from "./book.js";
import type { Exchange, ExchangeListener } from "./exchange.js";
import type { Faults } from "./faults.js";
import { priceStr, qtyStr } from "./instruments.js";
import type { SimOrder } from "./order.js";
import { balanceUpdate, spotRecord } from "./records.js";
import { depthLevels, inrRate, SPOT_EXCHANGES } from "./spot.js";

export const SOCKET_PATH = "/pro/realtime-rates-socket/spot";
export const ORDER_EVENT = "FETCH_ORDER_UPDATES";
export const BALANCE_EVENT = "FETCH_BALANCE_UPDATES";
export const BOOK_EVENT = "FETCH_ORDER_BOOK_CS_PRO";
export const TRADES_EVENT = "FETCH_TRADES_CS_PRO";
export const CANDLE_EVENT = "FETCH_CANDLESTICK_CS_PRO";
const PUBLIC_EVENTS = [BOOK_EVENT, TRADES_EVENT, CANDLE_EVENT];

interface SubscribeMsg {
  event?: unknown;
  apikey?: unknown;
  pair?: unknown;
}

export interface StreamCounters {
  orderUpdatesSent: number;
  balanceUpdatesSent: number;
  dropped: number;
  duplicated: number;
  reordered: number;
}

export class Streams implements ExchangeListener {
  readonly io: Server;
  readonly counters: StreamCounters = {
    orderUpdatesSent: 0,
    balanceUpdatesSent: 0,
    dropped: 0,
    duplicated: 0,
    reordered: 0,
  };
  private readonly orders: Namespace;
  private readonly balances: Namespace;
  private readonly publicNs = new Map<string, Namespace>();
  private readonly held = new Map<string, unknown>();
  private readonly lastCandle = new Map<Book, number>();
  private readonly exchange: Exchange;
  private readonly faults: Faults;

  constructor(
    server: http.Server,
    exchange: Exchange,
    faults: Faults,
    isRegistered: (apiKey: string) => boolean,
  ) {
    this.exchange = exchange;
    this.faults = faults;
    this.io = new Server(server, {
      path: SOCKET_PATH,
      addTrailingSlash: false,
      serveClient: false,
      cors: { origin: "*" },
    });
    this.orders = this.privateNs("/orderupdates", ORDER_EVENT, isRegistered);
    this.balances = this.privateNs("/balanceupdates", BALANCE_EVENT, isRegistered, (socket, key) => {
      // A fresh snapshot right after subscribing [assumed], so the client has a baseline.
      const a = exchange.accounts.get(key);
      if (a !== undefined)
        socket.emit(
          BALANCE_EVENT,
          balanceUpdate(a, (c) => inrRate(exchange, c), exchange.clock.now()),
        );
    });
    for (const ex of SPOT_EXCHANGES) {
      const ns = this.io.of(`/${ex}`);
      ns.on("connection", (socket) => {
        for (const ev of PUBLIC_EVENTS) {
          socket.on(ev, (msg: SubscribeMsg, ack?: unknown) => {
            if (msg === null || typeof msg !== "object" || typeof msg.pair !== "string") return;
            if (typeof ack === "function") (ack as (r: unknown) => void)({ ok: true });
            const room = `${ev}:${msg.pair.toUpperCase()}`;
            if (msg.event === "subscribe") {
              socket.join(room);
              if (ev === BOOK_EVENT) {
                const b = exchange.book("spot", ex, msg.pair.replace(",", "/"));
                if (b !== undefined) socket.emit(BOOK_EVENT, this.bookSnapshot(b));
              }
            } else if (msg.event === "unsubscribe") socket.leave(room);
          });
        }
      });
      this.publicNs.set(ex, ns);
    }
  }

  private privateNs(
    name: string,
    event: string,
    isRegistered: (k: string) => boolean,
    onSubscribe?: (socket: import("socket.io").Socket, key: string) => void,
  ): Namespace {
    const ns = this.io.of(name);
    ns.on("connection", (socket) => {
      socket.on(event, (msg: SubscribeMsg, ack?: unknown) => {
        // `event` must be exactly "subscribe" [docs]; unknown keys get no data [assumed]. An optional
        // Socket.IO ack reports the outcome (an extension; the venue's reply is not documented).
        const reply = typeof ack === "function" ? (ack as (r: unknown) => void) : undefined;
        if (
          msg === null ||
          typeof msg !== "object" ||
          msg.event !== "subscribe" ||
          typeof msg.apikey !== "string"
        ) {
          reply?.({ subscribed: false, message: 'expected {"event":"subscribe","apikey":...}' });
          return;
        }
        const key = msg.apikey.toLowerCase();
        if (!isRegistered(key)) {
          reply?.({ subscribed: false, message: "unknown apikey" });
          return;
        }
        socket.join(key);
        onSubscribe?.(socket, key);
        reply?.({ subscribed: true });
      });
    });
    return ns;
  }

  /** Sends to a room through the stream fault model (drop / duplicate / reorder). */
  private deliver(ns: Namespace, room: string, event: string, payload: unknown): boolean {
    const fate = this.faults.streamFate();
    const holdKey = ns.name + room;
    if (fate === "drop") {
      this.counters.dropped++;
      return false;
    }
    if (fate === "hold" && !this.held.has(holdKey)) {
      this.held.set(holdKey, payload);
      this.counters.reordered++;
      return false;
    }
    const target = ns.to(room);
    target.emit(event, payload);
    if (fate === "dup") {
      target.emit(event, payload);
      this.counters.duplicated++;
    }
    const held = this.held.get(holdKey);
    if (held !== undefined) {
      this.held.delete(holdKey);
      target.emit(event, held);
    }
    return true;
  }

  spotOrder(account: SimAccount, order: SimOrder): void {
    if (!this.orders.adapter.rooms.has(account.apiKey)) return;
    if (this.deliver(this.orders, account.apiKey, ORDER_EVENT, spotRecord(order)))
      this.counters.orderUpdatesSent++;
  }

  spotBalance(account: SimAccount): void {
    if (!this.balances.adapter.rooms.has(account.apiKey)) return;
    const payload = balanceUpdate(account, (c) => inrRate(this.exchange, c), this.exchange.clock.now());
    if (this.deliver(this.balances, account.apiKey, BALANCE_EVENT, payload))
      this.counters.balanceUpdatesSent++;
  }

  trade(book: Book, t: PublicTrade): void {
    const inst = book.inst;
    if (inst.surface !== "spot") return;
    const ns = this.publicNs.get(inst.venue)!;
    const pair = inst.base + "," + inst.quote;
    const room = `${TRADES_EVENT}:${pair}`;
    if (!ns.adapter.rooms.has(room)) return;
    ns.to(room).emit(TRADES_EVENT, {
      E: t.time,
      p: priceStr(inst, t.priceTicks),
      q: qtyStr(inst, t.lots),
      s: pair,
      m: !t.takerBuy,
    });
  }

  marketStep(): void {
    const now = this.exchange.clock.now();
    for (const b of this.exchange.spotBooks) {
      const ns = this.publicNs.get(b.inst.venue)!;
      const pair = b.inst.base + "," + b.inst.quote;
      const bookRoom = `${BOOK_EVENT}:${pair}`;
      if (ns.adapter.rooms.has(bookRoom)) ns.to(bookRoom).emit(BOOK_EVENT, this.bookSnapshot(b));
      // A one-minute candle is pushed once, when the minute it belongs to has passed [assumed fields].
      const last = b.candles[b.candles.length - 1];
      if (last !== undefined && last.start + 60_000 <= now && this.lastCandle.get(b) !== last.start) {
        this.lastCandle.set(b, last.start);
        const room = `${CANDLE_EVENT}:${pair}`;
        if (ns.adapter.rooms.has(room)) ns.to(room).emit(CANDLE_EVENT, candlePayload(b, last, pair));
      }
    }
  }

  /** Connections subscribed to a pair's order book on an exchange (one per subscribing client). */
  publicSubscribers(exchange: string, pair: string): number {
    return this.publicNs.get(exchange)?.adapter.rooms.get(`${BOOK_EVENT}:${pair.toUpperCase()}`)?.size ?? 0;
  }

  bookSnapshot(b: Book): unknown {
    return {
      s: b.inst.base + "," + b.inst.quote,
      timestamp: this.exchange.clock.now(),
      bids: depthLevels(b, true, 20),
      asks: depthLevels(b, false, 20),
    };
  }

  /** Drops every stream connection. "transport": the client sees a transport close and reconnects;
   * "server": a server-side disconnect (socket.io clients do not reconnect by themselves). */
  disconnectAll(mode: "transport" | "server" = "transport"): number {
    let n = 0;
    for (const [, ns] of this.io._nsps) {
      for (const [, s] of ns.sockets) {
        if (mode === "server") s.disconnect(true);
        else s.conn.close();
        n++;
      }
    }
    return n;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.io.close(() => resolve());
    });
  }
}

function candlePayload(b: Book, c: Candle, pair: string): unknown {
  const d = b.inst.priceDecimals;
  return {
    o: c.o.toFixed(d),
    h: c.h.toFixed(d),
    l: c.l.toFixed(d),
    c: c.c.toFixed(d),
    v: c.v.toFixed(b.inst.qtyDecimals),
    q: c.q.toFixed(2),
    s: pair,
    i: "1",
    x: true,
    t: c.start,
    T: c.start + 59_999,
    ts: c.lastTradeTime,
  };
}
