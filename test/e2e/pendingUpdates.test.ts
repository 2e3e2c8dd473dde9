/**
 * Logon option NoPendingUpdates, end to end over real sockets against the simulator: a session that
 * asks for it hears a cancel's or an amend's outcome without the PendingCancel / PendingReplace that
 * acknowledges the request; one that does not hears both; the option of the latest logon applies; an
 * older client's 117-byte Logon still logs on; an unknown option bit is refused.
 */
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { GatewayClient } from "../../src/client/index.js";
import { decodeG2C, encodeC2G, type G2CMessage } from "../../src/protocol/codec.js";
import { CODES, LogonOptions, OrderStatus, Side } from "../../src/protocol/schema.js";
import { type Harness, next, recorder, startHarness, until } from "./harness.js";

let t: Harness;
beforeAll(async () => {
  t = await startHarness();
});
afterAll(async () => {
  await t?.close();
});

const logOn = (name: string, options: number) => t.client(name, 0, t.h.token, options);

/** A Spot order placed and acked, then cancelled: the statuses of the updates the session heard. */
async function spotCancelStatuses(c: GatewayClient): Promise<number[]> {
  const inst = t.inst("coinswitchx", "BTC/INR");
  const ack = next(c, "ack");
  const no = c.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 5_000_000, qtyLots: 100 });
  await ack;
  const log = recorder(c);
  const done = next(c, "update", (u) => u.clOrdNo === no && u.status === OrderStatus.Cancelled);
  c.cancel(no);
  await done;
  // Anything sent after the outcome would have been sent with it (one turn): a short wait is enough.
  await new Promise((r) => setTimeout(r, 100));
  return log
    .filter((m) => m.name === "OrderUpdate" && m.body.clOrdNo === no)
    .map((m) => m.body.status as number);
}

describe("Logon option NoPendingUpdates", () => {
  it("a cancel: the quiet session hears Cancelled only, the default one PendingCancel then Cancelled", async () => {
    const quiet = await logOn("pending-quiet", LogonOptions.NoPendingUpdates);
    expect(await spotCancelStatuses(quiet)).toEqual([OrderStatus.Cancelled]);
    const loud = await logOn("pending-default", LogonOptions.None);
    expect(await spotCancelStatuses(loud)).toEqual([OrderStatus.PendingCancel, OrderStatus.Cancelled]);
  });

  it("/admin/state shows each session's option", async () => {
    await logOn("pending-shown", LogonOptions.NoPendingUpdates);
    await logOn("pending-not-shown", LogonOptions.None);
    const st = await request(`${t.h.httpUrl}/admin/state`, {
      headers: { authorization: `Bearer ${t.h.adminToken}` },
    });
    const snap = (await st.body.json()) as { sessions: { name: string; noPendingUpdates: boolean }[] };
    const shown = (name: string) => snap.sessions.find((s) => s.name === name)?.noPendingUpdates;
    expect([shown("pending-shown"), shown("pending-not-shown")]).toEqual([true, false]);
  });

  it("the option of the latest logon applies", async () => {
    const first = await logOn("pending-relog", LogonOptions.NoPendingUpdates);
    expect(await spotCancelStatuses(first)).toEqual([OrderStatus.Cancelled]);
    await first.close();
    const again = await logOn("pending-relog", LogonOptions.None);
    expect(await spotCancelStatuses(again)).toEqual([OrderStatus.PendingCancel, OrderStatus.Cancelled]);
  });

  it("an amend in place (HFT): no PendingReplace, then the order at its new price", async () => {
    const c = await logOn("pending-amend", LogonOptions.NoPendingUpdates);
    const ack = next(c, "ack");
    const no = c.placeOrder({
      instrumentId: t.inst("linear", "BTCUSDT"),
      side: Side.Buy,
      priceTicks: 600_000,
      qtyLots: 10,
    });
    await ack;
    const log = recorder(c);
    const done = next(c, "update", (u) => u.clOrdNo === no && u.priceTicks === 600_500);
    c.amend(no, { priceTicks: 600_500 });
    expect((await done).status).toBe(OrderStatus.New);
    expect(log.filter((m) => m.name === "OrderUpdate").map((m) => m.body.status)).toEqual([OrderStatus.New]);
  });
});

describe("Logon's options byte on the wire", () => {
  const LOGON = { token: "", sessionName: "", heartbeatMs: 0, codPolicy: 0, resumeFromSeq: 0, options: 0 };

  async function rawSession(frame: Buffer): Promise<G2CMessage[]> {
    const ws = new WebSocket(t.h.url);
    const got: G2CMessage[] = [];
    ws.on("message", (d: Buffer) => {
      const m = decodeG2C(d);
      if (m.name !== undefined) got.push(m);
    });
    await new Promise((ok, fail) => {
      ws.once("open", ok);
      ws.once("error", fail);
    });
    ws.send(frame);
    await until(() => got.some((m) => m.name === "LogonAck" || m.name === "Error"), 3000, "an answer");
    ws.close();
    return got;
  }

  it("an older client's 117-byte Logon logs on (options 0)", async () => {
    const now = Buffer.from(encodeC2G("Logon", { ...LOGON, token: t.h.token, sessionName: "pending-older" }));
    const older = Buffer.from(now.subarray(0, 117));
    older.writeUInt16LE(117, 2);
    const got = await rawSession(older);
    expect(got[0]?.name).toBe("LogonAck");
    const s = t.h.gateway.sessions().find((x) => x.name === "pending-older");
    expect(s?.options).toBe(0);
  });

  it("an unknown option bit is refused with Error BadField, and no session is made", async () => {
    const bad = Buffer.from(encodeC2G("Logon", { ...LOGON, token: t.h.token, sessionName: "pending-bad" }));
    bad[117] = 2;
    const got = await rawSession(bad);
    expect(got.map((m) => m.name)).toEqual(["Error"]);
    expect((got[0]!.body as { code: number }).code).toBe(CODES.BadField.code);
    expect(t.h.gateway.sessions().some((x) => x.name === "pending-bad")).toBe(false);
  });
});
