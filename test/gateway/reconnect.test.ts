import { afterEach, describe, expect, it } from "vitest";
import { GatewayClient } from "../../src/client/client.js";
import type { Gateway } from "../../src/gateway/gateway.js";
import { CODES, Side } from "../../src/protocol/schema.js";
import { startTestGateway, TOKEN, waitFor } from "./helpers.js";
import type { TestEngine } from "./testEngine.js";

const order = { instrumentId: 1, side: Side.Buy, priceTicks: 1000, qtyLots: 5 };

describe("client reconnect and engine faults", () => {
  let gw: Gateway;
  let engine: TestEngine;
  const clients: GatewayClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await gw.close();
  });
  const mk = (name: string) => {
    const c = new GatewayClient({
      url: `ws://127.0.0.1:${gw.port}`,
      token: TOKEN,
      sessionName: name,
      autoReconnect: true,
      reconnectDelayMs: 10,
    });
    clients.push(c);
    return c;
  };

  it("reconnects by itself after a dropped socket and resumes without gap or duplicate", async () => {
    ({ gw, engine } = await startTestGateway("auto"));
    const c = mk("auto");
    await c.connect();
    const seqs: number[] = [];
    const gaps: number[] = [];
    c.on("message", (m) => {
      if (m.header.seq) seqs.push(m.header.seq);
    });
    c.on("gap", (e) => gaps.push(e));
    c.placeOrder(order);
    await waitFor(() => seqs.length === 2);
    const logons = engine.logons.length;
    (c as unknown as { ws: { terminate(): void } }).ws.terminate();
    await waitFor(() => engine.disconnects.length === 1);
    engine.fill(c.sessionId, 1, 1, "f1"); // while away
    await waitFor(() => engine.logons.length === logons + 1 && c.connected, 3000, "reconnect");
    await waitFor(() => seqs.length === 4);
    c.placeOrder(order);
    await waitFor(() => seqs.length === 6);
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
    expect(gaps).toEqual([]);
    expect(c.duplicates).toBe(0);
  });

  it("reports resumeLost when the ring no longer holds the missed messages, then carries on", async () => {
    ({ gw, engine } = await startTestGateway("auto", { resumeRing: 2 }));
    const c = mk("lossy");
    await c.connect();
    c.placeOrder(order);
    await waitFor(() => c.lastSeq === 2);
    const lost: number[] = [];
    c.on("resumeLost", (n) => lost.push(n));
    (c as unknown as { ws: { terminate(): void } }).ws.terminate();
    await waitFor(() => engine.disconnects.length === 1);
    for (let i = 0; i < 3; i++) engine.fill(c.sessionId, 1, 1, `f${i}`); // 6 messages > ring of 2
    await waitFor(() => lost.length === 1 && c.connected, 3000, "resumeLost");
    expect(lost).toEqual([2]);
    // State is rebuilt from a query: 3 of 5 lots filled while away.
    const live = await c.query();
    expect(live.map((o) => [o.clOrdNo, o.cumQtyLots, o.leavesQtyLots])).toEqual([[1, 3, 2]]);
  });

  it("answers Reject 500 when the engine throws, and keeps serving", async () => {
    ({ gw, engine } = await startTestGateway("auto"));
    const c = mk("faulty");
    await c.connect();
    const original = engine.onNewOrder.bind(engine);
    engine.onNewOrder = () => {
      throw new Error("engine bug");
    };
    const rejects: number[] = [];
    c.on("reject", (r) => rejects.push(r.code));
    c.placeOrder(order);
    await waitFor(() => rejects.length === 1);
    expect(rejects).toEqual([CODES.Internal.code]);
    engine.onNewOrder = original;
    const acks: number[] = [];
    c.on("ack", (a) => acks.push(a.clOrdNo));
    c.placeOrder(order);
    await waitFor(() => acks.length === 1);
    expect(acks).toEqual([2]);
  });

  it("marks sessions logged on with the admin token as admin, and keeps a name at one privilege level", async () => {
    ({ gw, engine } = await startTestGateway("auto", { adminToken: "admin-secret" }));
    const admin = new GatewayClient({
      url: `ws://127.0.0.1:${gw.port}`,
      token: "admin-secret",
      sessionName: "ops",
    });
    const user = new GatewayClient({ url: `ws://127.0.0.1:${gw.port}`, token: TOKEN, sessionName: "strat" });
    clients.push(admin, user);
    await admin.connect();
    await user.connect();
    expect(gw.session(admin.sessionId)?.admin).toBe(true);
    expect(gw.session(user.sessionId)?.admin).toBe(false);
    await admin.close();
    const impostor = new GatewayClient({
      url: `ws://127.0.0.1:${gw.port}`,
      token: TOKEN,
      sessionName: "ops",
    });
    clients.push(impostor);
    const err = await impostor.connect().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: CODES.SessionInUse.code });
  });
});
