import { afterEach, describe, expect, it } from "vitest";
import { GatewayClient, LogonRejectedError } from "../../src/client/client.js";
import type { Gateway } from "../../src/gateway/gateway.js";
import { encodeC2G } from "../../src/protocol/codec.js";
import { CODES, OrderStatus, Side } from "../../src/protocol/schema.js";
import { client, raw, startTestGateway, TOKEN, waitFor } from "./helpers.js";
import type { TestEngine } from "./testEngine.js";

const order = { instrumentId: 1, side: Side.Buy, priceTicks: 1000, qtyLots: 5 };

for (const transport of ["auto", "ws"] as const) {
  describe(`gateway sessions (transport=${transport})`, () => {
    let gw: Gateway;
    let engine: TestEngine;
    const clients: GatewayClient[] = [];
    const open = async (name: string, extra: { codPolicy?: number; heartbeatMs?: number } = {}) => {
      const c = client(gw, name, extra);
      clients.push(c);
      await c.connect();
      return c;
    };
    const setup = async (extra = {}) => {
      ({ gw, engine } = await startTestGateway(transport, extra));
    };
    afterEach(async () => {
      await Promise.all(clients.splice(0).map((c) => c.close()));
      await gw.close();
    });

    it("reports the transport it runs on", async () => {
      await setup();
      expect(gw.transportKind).toBe(transport === "ws" ? "ws" : gw.uws.native ? "uws-native" : "ws");
    });

    it("places an order: Ack then OrderUpdate, with a latency trace and gateway timestamps", async () => {
      await setup();
      const c = await open("alpha");
      const acks: number[] = [];
      const updates: number[] = [];
      c.on("ack", (b) => acks.push(b.clOrdNo));
      c.on("update", (b) => updates.push(b.status));
      const n = c.placeOrder(order);
      expect(n).toBe(1);
      await waitFor(() => updates.length === 1);
      expect(acks).toEqual([1]);
      expect(updates).toEqual([OrderStatus.New]);
      const t = c.trace(n)!;
      expect(t.answer).toBe("Ack");
      expect(t.gwRecvNs).toBeGreaterThanOrEqual(t.sendNs);
      expect(t.gwSendNs).toBeGreaterThanOrEqual(t.gwRecvNs);
      expect(t.answerNs).toBeGreaterThanOrEqual(t.gwSendNs);
      expect(engine.calls.filter((x) => x.kind === "new")).toHaveLength(1);
    });

    it("rejects a bad token after the configured delay, and the engine never hears of it", async () => {
      await setup({ badTokenDelayMs: 60 });
      const c = new GatewayClient({ url: `ws://127.0.0.1:${gw.port}`, token: "wrong", sessionName: "x" });
      clients.push(c);
      const t0 = Date.now();
      const err = await c.connect().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LogonRejectedError);
      expect((err as LogonRejectedError).code).toBe(CODES.BadToken.code);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(55);
      expect(engine.logons).toHaveLength(0);
      expect(gw.stats.badTokens).toBe(1);
    });

    it("isolates two sessions: orders, updates, queries and cancels", async () => {
      await setup();
      const a = await open("A");
      const b = await open("B");
      const seenA: string[] = [];
      const seenB: string[] = [];
      a.on("message", (m) => seenA.push(`${m.name}:${(m.body as { clOrdNo?: number }).clOrdNo ?? ""}`));
      b.on("message", (m) => seenB.push(`${m.name}:${(m.body as { clOrdNo?: number }).clOrdNo ?? ""}`));
      a.placeOrder(order);
      a.placeOrder({ ...order, instrumentId: 2 });
      b.placeOrder(order);
      await waitFor(() => seenA.length === 4 && seenB.length === 2);
      expect(seenA).toEqual(["Ack:1", "OrderUpdate:1", "Ack:2", "OrderUpdate:2"]);
      expect(seenB).toEqual(["Ack:1", "OrderUpdate:1"]);
      expect((await a.query()).map((o) => o.exchangeOrderId)).toEqual(["X-1-1", "X-1-2"]);
      expect((await b.query()).map((o) => o.exchangeOrderId)).toEqual(["X-2-1"]);
      // B's clOrdNo 2 does not exist in B's session even though A has a 2.
      const cr: number[] = [];
      b.on("cancelReject", (x) => cr.push(x.reason));
      b.cancel(2);
      await waitFor(() => cr.length === 1);
      expect(cr).toEqual([4]);
      // CancelAll by A touches only A's orders.
      seenA.length = 0;
      seenB.length = 0;
      a.cancelAll();
      await waitFor(() => seenA.length === 2);
      await new Promise((r) => setTimeout(r, 30));
      expect(seenB).toEqual([]);
      expect((await b.query()).length).toBe(1);
      expect((await a.query()).length).toBe(0);
    });

    it("cancel-on-disconnect cancels only that session's orders", async () => {
      await setup();
      const a = await open("codA", { codPolicy: 1 });
      const b = await open("keepB", { codPolicy: 0 });
      a.placeOrder(order);
      a.placeOrder(order);
      b.placeOrder(order);
      await waitFor(() => engine.orders.size === 3);
      await a.close();
      await waitFor(() => engine.disconnects.length === 1);
      expect(engine.disconnects[0]).toMatchObject({
        sessionId: a.sessionId,
        reason: "closed",
        cancelOrders: true,
      });
      const st = (sid: number) =>
        [...engine.orders.values()].filter((o) => o.sessionId === sid).map((o) => o.status);
      expect(st(a.sessionId)).toEqual([OrderStatus.Cancelled, OrderStatus.Cancelled]);
      expect(st(b.sessionId)).toEqual([OrderStatus.New]);
      await b.logout();
      await waitFor(() => engine.disconnects.length === 2);
      expect(engine.disconnects[1]).toMatchObject({ reason: "logout", cancelOrders: false });
      expect(st(b.sessionId)).toEqual([OrderStatus.New]);
    });

    it("resumes after reconnect with no gap and no duplicate", async () => {
      await setup();
      const c = await open("resumer", { codPolicy: 0 });
      const seqs: number[] = [];
      const gaps: number[] = [];
      c.on("message", (m) => {
        if (m.header.seq) seqs.push(m.header.seq);
      });
      c.on("gap", (e) => gaps.push(e));
      for (let i = 0; i < 3; i++) c.placeOrder(order);
      await waitFor(() => seqs.length === 6);
      await c.close();
      await waitFor(() => engine.disconnects.length === 1);
      // Produced while disconnected: sequenced and kept for replay.
      engine.fill(c.sessionId, 1, 2, "e1");
      engine.fill(c.sessionId, 2, 5, "e2");
      const ack = await c.connect();
      expect(ack.resumed).toBe(1);
      expect(ack.replayFromSeq).toBe(7);
      expect(ack.replayCount).toBe(4);
      expect(ack.lastClOrdNo).toBe(3);
      await waitFor(() => seqs.length === 10);
      const n = c.placeOrder(order);
      expect(n).toBe(4);
      await waitFor(() => seqs.length === 12);
      expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      expect(gaps).toEqual([]);
      expect(c.duplicates).toBe(0);
      expect(engine.logons.map((l) => l.resumed)).toEqual([false, true]);
    });

    it("refuses a resume outside the ring and a second connection to a live session", async () => {
      await setup({ resumeRing: 4 });
      const c = await open("small");
      for (let i = 0; i < 4; i++) c.placeOrder(order); // 8 sequenced messages, ring keeps the last 4
      await waitFor(() => c.lastSeq === 8);
      const dup = await raw(gw);
      await dup.logon("small");
      expect(dup.frames[0]).toMatchObject({ name: "LogonReject", body: { code: CODES.SessionInUse.code } });
      await c.close();
      const late = await raw(gw);
      late.send(
        encodeC2G("Logon", {
          token: TOKEN,
          sessionName: "small",
          heartbeatMs: 0,
          codPolicy: 0,
          resumeFromSeq: 2,
          options: 0,
        }),
      );
      await waitFor(() => late.frames.length > 0);
      expect(late.frames[0]).toMatchObject({
        name: "LogonReject",
        body: { code: CODES.ResumeOutOfRange.code },
      });
      const ok = await raw(gw);
      ok.send(
        encodeC2G("Logon", {
          token: TOKEN,
          sessionName: "small",
          heartbeatMs: 0,
          codPolicy: 0,
          resumeFromSeq: 5,
          options: 0,
        }),
      );
      await waitFor(() => ok.frames.length === 5);
      expect(ok.frames.map((f) => f.header.seq)).toEqual([0, 5, 6, 7, 8]);
      for (const r of [dup, late, ok]) r.ws.terminate();
    });

    it("validates NewOrder before the engine: clOrdNo reuse, unknown/inactive instrument, zero qty, no price", async () => {
      await setup();
      const r = await raw(gw);
      await r.logon("val");
      const no = (clOrdNo: number, over: Record<string, number> = {}) =>
        r.send(
          encodeC2G("NewOrder", {
            clOrdNo,
            instrumentId: 1,
            side: 1,
            ordType: 1,
            tif: 1,
            positionIdx: 0,
            priceTicks: 10,
            qtyLots: 1,
            flags: 0,
            ...over,
          }),
        );
      no(5);
      no(5);
      no(4);
      no(6, { instrumentId: 99 });
      no(7, { instrumentId: 3 });
      no(8, { qtyLots: 0 });
      no(9, { priceTicks: 0 });
      no(10, { priceTicks: 0, ordType: 2 }); // market without price is fine
      await waitFor(() => r.frames.filter((f) => f.name === "Reject" || f.name === "Ack").length === 8);
      const answers = r.frames
        .filter((f) => f.name === "Reject" || f.name === "Ack")
        .map((f) => (f.name === "Reject" ? `R${f.body.clOrdNo}:${f.body.code}` : `A${f.body.clOrdNo}`));
      expect(answers).toEqual(["A5", "R5:100", "R4:100", "R6:101", "R7:108", "R8:106", "R9:107", "A10"]);
      expect(
        engine.calls.filter((c) => c.kind === "new").map((c) => (c.detail as { clOrdNo: number }).clOrdNo),
      ).toEqual([5, 10]);
      r.ws.terminate();
    });

    it("answers heartbeats with echo, instruments and queries without the engine's order path", async () => {
      await setup();
      const c = await open("misc");
      expect(await c.ping()).toBeGreaterThan(0);
      const inst = await c.instruments();
      expect(inst.map((i) => [i.instrumentId, i.symbol, i.tickSize, i.active])).toEqual([
        [1, "BTCUSDT", "0.1", 1],
        [2, "ETHUSDT", "0.1", 1],
        [3, "OLDUSDT", "0.1", 0],
      ]);
      expect(await c.query(42)).toEqual([]);
      expect(engine.orderCalls()).toBe(0);
    });

    it("drops a session that misses heartbeats and applies its cancel-on-disconnect policy", async () => {
      await setup();
      const r = await raw(gw);
      await r.logon("sleepy", { heartbeatMs: 100, codPolicy: 1 });
      await waitFor(() => r.closeCode !== undefined, 3000, "close");
      expect(r.closeCode).toBe(4002);
      expect(engine.disconnects).toEqual([
        { sessionId: r.frames[0]!.header.sessionId, reason: "missed-heartbeats", cancelOrders: true },
      ]);
      // The gateway heartbeated it while idle.
      expect(r.frames.some((f) => f.name === "HeartbeatOut" && f.body.echo === 0)).toBe(true);
    });

    it("keeps a client that heartbeats alive past several intervals", async () => {
      await setup();
      const c = await open("lively", { heartbeatMs: 100 });
      await new Promise((r) => setTimeout(r, 450));
      expect(c.connected).toBe(true);
      expect(engine.disconnects).toEqual([]);
    });

    it("serves /health and /metrics through hooks on the same port", async () => {
      await setup({ http: { metrics: () => ({ body: "hftgate_up 1\n" }) } });
      const h = await fetch(`http://127.0.0.1:${gw.port}/health`);
      expect(h.status).toBe(200);
      expect(await h.json()).toMatchObject({ status: "ok", transport: gw.transportKind });
      const m = await fetch(`http://127.0.0.1:${gw.port}/metrics`);
      expect(await m.text()).toBe("hftgate_up 1\n");
      expect((await fetch(`http://127.0.0.1:${gw.port}/nope`)).status).toBe(404);
    });

    it("disconnects a slow consumer with a reason instead of dropping messages", async () => {
      await setup({ maxBufferedBytes: 64 * 1024, resumeRing: 64 });
      const r = await raw(gw);
      await r.logon("slow");
      const sid = r.frames[0]!.header.sessionId;
      // Stop reading: the kernel buffers fill, then the gateway's own buffer grows past the limit.
      (r.ws as unknown as { _socket: { pause(): void } })._socket.pause();
      const body = {
        clOrdNo: 1,
        instrumentId: 1,
        side: 1,
        liquidity: 1,
        execId: "x".repeat(40),
        priceTicks: 1,
        qtyLots: 1,
        feeMantissa: 0,
        feeExponent: 0,
        feeAsset: "USDT",
        exchangeTimeMs: 0,
      };
      for (let i = 0; i < 200_000 && gw.session(sid)?.connected; i++) gw.send(sid, "Fill", body);
      expect(gw.session(sid)?.connected).toBe(false);
      expect(gw.stats.slowConsumers).toBe(1);
      expect(engine.disconnects).toEqual([]); // reported after the sending code returns, not inside it
      await waitFor(() => engine.disconnects.length === 1);
      expect(engine.disconnects).toEqual([{ sessionId: sid, reason: "slow-consumer", cancelOrders: false }]);
      r.ws.terminate();
    });
  });
}
