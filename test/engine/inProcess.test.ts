/**
 * One client API, two transports: the same scenario through GatewayClient over the WebSocket and over
 * the in-process link (`EngineHandle.client()`) gives the same events with the same contents (ids and
 * timestamps aside), in the same order, with contiguous sequence numbers; a dropped in-process link
 * resumes with no gap and no duplicate, as a socket does.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayClient } from "../../src/client/index.js";
import { TERMINAL } from "../../src/orders/index.js";
import { CancelRejectReason, CODES, CodPolicy, OrderStatus, Side } from "../../src/protocol/schema.js";
import { type Harness, next, startHarness, until } from "../e2e/harness.js";

let hx: Harness;
let btc: number;

beforeAll(async () => {
  hx = await startHarness();
  btc = hx.inst("linear", "BTCUSDT");
});
afterAll(() => hx.close());

/** Fields that differ between two runs of the same scenario (ids, clocks) are left out. */
const VOLATILE = /Ns$|Ms$|^exchangeOrderId$|^orderId$|^execId$|^text$/;

interface Seen {
  name: string;
  body: Record<string, unknown>;
}

function record(c: GatewayClient): { log: Seen[]; seqs: number[] } {
  const log: Seen[] = [];
  const seqs: number[] = [];
  c.on("message", (m) => {
    if (m.header.seq !== 0) seqs.push(m.header.seq);
    // Credit and heartbeat traffic depends on timing, not on the scenario.
    if (m.name === "Credit" || m.name === "HeartbeatOut") return;
    const body: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(m.body as object)) if (!VOLATILE.test(k)) body[k] = v;
    log.push({ name: m.name, body });
  });
  return { log, seqs };
}

type Make = (session: string) => GatewayClient;
const COD = { codPolicy: CodPolicy.CancelOnDisconnect };
const overWs: Make = (s) => new GatewayClient({ url: hx.h.url, token: hx.h.token, sessionName: s, ...COD });
const inProcess: Make = (s) => hx.h.client({ sessionName: s, ...COD });

/** Rest + cancel, a local reject, a cancel of an unknown order, a query; then a drop and a resume. */
async function scenario(
  make: Make,
  session: string,
): Promise<{ log: Seen[]; seqs: number[]; c: GatewayClient }> {
  const c = make(session);
  const rec = record(c);
  const logon = await c.connect();
  expect(logon.resumed).toBe(0);
  const insts = await c.instruments();
  expect(insts.length).toBe(hx.h.instruments.size);

  const a = c.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: 600_000, qtyLots: 1 });
  await next(c, "ack", (b) => b.clOrdNo === a);
  c.cancel(a);
  await next(c, "update", (u) => u.clOrdNo === a && u.status === OrderStatus.Cancelled);

  const r = c.placeOrder({ instrumentId: 999_999, side: Side.Buy, priceTicks: 1, qtyLots: 1 });
  expect((await next(c, "reject", (b) => b.clOrdNo === r)).code).toBe(CODES.UnknownInstrument.code);
  c.cancel(r + 100);
  expect((await next(c, "cancelReject")).reason).toBe(CancelRejectReason.UnknownOrder);
  expect(await c.query()).toEqual([]);

  // Dropped with an order working and cancel-on-disconnect: the cancel's updates are sequenced while
  // no link is up, and the resume delivers them.
  const b = c.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: 600_000, qtyLots: 1 });
  await next(c, "ack", (x) => x.clOrdNo === b);
  await c.close();
  const working = () => [...hx.h.engine.store.liveSet()].filter((o) => !TERMINAL[o.status]).length;
  await until(() => working() === 0, 3000, "cancel on disconnect");
  const again = await c.connect();
  expect(again.resumed).toBe(1);
  expect(again.replayCount).toBeGreaterThan(0);
  await until(
    () =>
      rec.log.some(
        (m) => m.name === "OrderUpdate" && m.body.clOrdNo === b && m.body.status === OrderStatus.Cancelled,
      ),
    3000,
    "replayed cancel",
  );
  expect(c.duplicates).toBe(0);
  await c.logout();
  return { ...rec, c };
}

describe("in-process engine link", () => {
  it("gives the same events as the WebSocket for the same scenario", async () => {
    const ws = await scenario(overWs, "same-ws");
    const local = await scenario(inProcess, "same-local");
    expect(local.log.map((m) => m.name)).toEqual(ws.log.map((m) => m.name));
    expect(local.log).toEqual(ws.log);
    for (const { seqs } of [ws, local]) {
      // Sequenced messages arrive once each, contiguous from 1, across the drop and the resume.
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    }
    expect(local.log.filter((m) => m.name === "Ack").length).toBe(2);
  });

  it("is refused with a wrong token like a socket logon, and admin commands need the admin token", async () => {
    const bad = hx.h.client({ sessionName: "bad", token: "wrong-token-0123456789" });
    await expect(bad.connect()).rejects.toThrow(/logon rejected/);
    const user = hx.h.client({ sessionName: "not-admin" });
    await user.connect();
    const err = new Promise((r) => user.once("protocolError", (b) => r(b.code)));
    user.kill("x");
    expect(await err).toBe(CODES.NotAdmin.code);
    await user.logout();
  });

  it("closes in-process sessions when the engine stops (close event, no further sends)", async () => {
    const extra = await startHarness();
    try {
      const c = extra.h.client({ sessionName: "stopping" });
      await c.connect();
      const closed = new Promise<number>((r) => c.once("close", (code) => r(code)));
      await extra.h.stop("test");
      expect(await closed).toBe(1001);
      expect(c.connected).toBe(false);
      expect(() => c.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: 1, qtyLots: 1 })).toThrow(
        /not connected/,
      );
    } finally {
      await extra.close();
    }
  });
});
