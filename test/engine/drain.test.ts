/**
 * Stop = drain through the engine's own stop (`EngineHandle.stop`, what SIGTERM runs), with the
 * embedded simulator slow to answer: a cancel-on-disconnect session over the WebSocket and a plain
 * session on the in-process link. While draining, new orders and amends are refused with their own
 * codes, cancels still pass and /health says 503 "stopping"; every order in flight at the stop is
 * answered before the close, which is 1001 on both transports; the cancel-on-disconnect session's
 * orders are all cancelled at the venue, the plain session's left working exactly as it was told.
 * (The same with real processes and the venue's listings: test/chaos/operations.drain.test.ts.)
 */
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayClient } from "../../src/client/index.js";
import { Status } from "../../src/orders/index.js";
import { AmendRejectReason, CODES, CodPolicy, OrderStatus, Side } from "../../src/protocol/schema.js";
import { type Harness, next, startHarness, until } from "../e2e/harness.js";

let t: Harness;
beforeAll(async () => {
  t = await startHarness({ "shutdown.timeoutMs": 8_000 }, {}, true);
});
afterAll(() => t?.close());

interface Told {
  /** Last status told per order (Ack = New). */
  status: Map<number, number>;
  /** Exchange order id told per order (Ack). */
  exchangeId: Map<number, string>;
  rejects: Map<number, number>;
  amendRejects: number[];
  close: Promise<number>;
  unansweredAtClose: () => number[];
}

function told(c: GatewayClient, placed: number[]): Told {
  const status = new Map<number, number>();
  const rejects = new Map<number, number>();
  const amendRejects: number[] = [];
  const exchangeId = new Map<number, string>();
  c.on("ack", (b) => {
    status.set(b.clOrdNo, OrderStatus.New);
    exchangeId.set(b.clOrdNo, b.exchangeOrderId);
  });
  c.on("reject", (b) => {
    status.set(b.clOrdNo, OrderStatus.Rejected);
    rejects.set(b.clOrdNo, b.code);
  });
  c.on("unknown", (b) => status.set(b.clOrdNo, OrderStatus.Unknown));
  c.on("update", (b) => {
    if (b.requestId === 0) status.set(b.clOrdNo, b.status);
  });
  c.on("amendReject", (b) => amendRejects.push(b.reason));
  let atClose: number[] = [];
  const close = new Promise<number>((r) =>
    c.once("close", (code) => {
      atClose = placed.filter((n) => !status.has(n));
      r(code);
    }),
  );
  return { status, exchangeId, rejects, amendRejects, close, unansweredAtClose: () => atClose };
}

describe("stop = drain (engine stop, WebSocket and in-process sessions)", () => {
  it("answers everything in flight, refuses new orders (501) and amends (18), cancels COD orders, then closes with 1001", async () => {
    const h = t.h;
    const sim = h.sim!;
    const spot = t.inst("coinswitchx", "BTC/INR");
    const hft = t.inst("linear", "BTCUSDT");
    const cod = await t.client("drain-ws-cod", CodPolicy.CancelOnDisconnect);
    const plain = h.client({ sessionName: "drain-local" });
    await plain.connect();
    const placed = new Map<GatewayClient, number[]>([
      [cod, []],
      [plain, []],
    ]);
    const seen = new Map([...placed].map(([c, p]) => [c, told(c, p)]));
    const place = (c: GatewayClient, i: number) => {
      const n =
        i % 2 === 0
          ? c.placeOrder({
              instrumentId: spot,
              side: Side.Buy,
              priceTicks: 4_990_000 - 100 * i,
              qtyLots: 100,
            })
          : c.placeOrder({ instrumentId: hft, side: Side.Buy, priceTicks: 600_000 - 10 * i, qtyLots: 1 });
      placed.get(c)!.push(n);
      return n;
    };
    // One resting order each, acknowledged before the stop.
    const resting = [place(cod, 1), place(plain, 1)];
    await until(() => seen.get(cod)!.status.size + seen.get(plain)!.status.size === 2, 3_000, "acks");
    for (const endpoint of ["POST /trade/api/v2/order", "POST /v5/order/create"])
      sim.faults.add({ kind: "latency", endpoint, ms: 300, count: 100 });
    sim.faults.add({ kind: "latency", endpoint: "POST /v5/order/cancel", ms: 150, count: 100 });
    sim.faults.add({ kind: "latency", endpoint: "DELETE /trade/api/v2/order", ms: 150, count: 100 });
    for (let i = 2; i < 8; i++) {
      place(cod, i);
      place(plain, i);
    }
    // Every create has reached the engine (the WebSocket's frames are read on this event loop too).
    await until(() => h.engine.store.liveSet().size === 14, 3_000, "the burst at the engine");
    const inFlight = [...h.engine.store.liveSet()].filter((o) => o.status === Status.PendingNew).length;
    const stopped = h.stop("test drain");
    await new Promise((r) => setTimeout(r, 50));
    // Draining: /health says so; new orders and amends are refused; a cancel still goes through.
    const hr = await request(`${h.httpUrl}/health`);
    const health = { status: hr.statusCode, body: (await hr.body.json()) as { status: string } };
    const late = plain.placeOrder({ instrumentId: hft, side: Side.Buy, priceTicks: 599_000, qtyLots: 1 });
    const lateReject = next(plain, "reject", (b) => b.clOrdNo === late);
    const amendRefused = next(plain, "amendReject");
    plain.amend(resting[1]!, { priceTicks: 599_500 });
    const cancelled = next(
      plain,
      "update",
      (u) => u.clOrdNo === placed.get(plain)![2] && u.status === OrderStatus.Cancelled,
      5_000,
    );
    plain.cancel(placed.get(plain)![2]!);
    await stopped;

    expect(inFlight).toBeGreaterThan(10);
    expect([health.status, health.body.status]).toEqual([503, "stopping"]);
    const r = await lateReject;
    expect([r.code, r.retryable]).toEqual([CODES.ShuttingDown.code, 1]);
    expect((await amendRefused).reason).toBe(AmendRejectReason.ShuttingDown);
    await cancelled;
    for (const c of [cod, plain]) {
      const s = seen.get(c)!;
      expect(await s.close).toBe(1001);
      expect(s.unansweredAtClose()).toEqual([]);
    }
    // Cancel-on-disconnect: every order of that session was cancelled at the venue, and it was told.
    const venue = [...sim.exchange.accounts.values()].flatMap((a) => [
      ...a.spotList.map((o) => ({ id: o.id, live: o.spotStatus === "OPEN" })),
      ...a.hftList.map((o) => ({ id: o.id, live: o.v5Status === "New" })),
    ]);
    expect(venue.length).toBe(14);
    const liveAtVenue = new Set(venue.filter((o) => o.live).map((o) => o.id));
    const live = (c: GatewayClient, n: number) => liveAtVenue.has(seen.get(c)!.exchangeId.get(n) ?? "");
    for (const n of placed.get(cod)!) {
      expect(seen.get(cod)!.exchangeId.get(n), `cod #${n} acked`).toBeDefined();
      expect(live(cod, n), `cod #${n}`).toBe(false);
      expect(seen.get(cod)!.status.get(n)).toBe(OrderStatus.Cancelled);
    }
    // The plain session: working at the venue exactly what it was told is working.
    const plainLive = placed.get(plain)!.filter((n) => live(plain, n));
    const toldLive = placed.get(plain)!.filter((n) => seen.get(plain)!.status.get(n) === OrderStatus.New);
    expect(plainLive.length).toBe(6); // 7 placed, 1 cancelled during the drain
    expect(plainLive).toEqual(toldLive);
    await until(() => !cod.connected && !plain.connected, 1_000, "both closed");
  }, 30_000);
});
