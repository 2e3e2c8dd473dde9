/**
 * Executions the journal holds were delivered before the crash. Replay must
 * remember them (HFT execution records, Spot records in create answers), so the restart's
 * reconciliation, which sees the same executions and cumulative quantities at the venue, sends no
 * second Fill.
 */
import { mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimHandle, startSimulator } from "../../sim/index.js";
import { generateKeyHex } from "../../src/auth/keygen.js";
import { loadKeyPair } from "../../src/auth/keys.js";
import { GatewayClient } from "../../src/client/index.js";
import { startEngine } from "../../src/index.js";
import { Journal } from "../../src/journal/writer.js";
import { Status } from "../../src/orders/index.js";
import type { V5Execution, V5List } from "../../src/rest/wire.js";
import { makeGrid } from "../../src/venue/orderFields.js";
import { createRestStack, type RestStack } from "../../src/venue/stack.js";
import { recorder, silent, testConfig } from "./harness.js";

let sim: SimHandle;
let root: string;
const kp = generateKeyHex();
const other = generateKeyHex();
const stack = (secret: string): RestStack =>
  createRestStack({
    keys: loadKeyPair(secret),
    spotBaseUrl: sim.baseUrl,
    hftBaseUrl: sim.baseUrl,
    presign: false,
    clock: false,
  });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "hftgate-replay-fills-"));
  sim = await startSimulator({ apiKeys: [kp.apiKey, other.apiKey], market: { synthetic: false, tickMs: 0 } });
});
afterAll(async () => {
  await sim?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("fills delivered before a crash are not sent again (the journal knows they were delivered)", () => {
  it("HFT: executions replayed from the journal are remembered; reconciliation sends no second Fill", async () => {
    const dir = mkdtempSync(join(root, "hft-"));
    const id = "cause3-hft-1";
    const grid = makeGrid("0.1", "0.001");
    const mine = stack(kp.secretKey);
    const them = stack(other.secretKey);
    const params = {
      category: "linear",
      symbol: "BTCUSDT",
      orderType: "limit" as const,
      qty: "0.024",
      price: "64000",
    };
    const ack = await mine.client.createHftOrder(
      { ...params, side: "buy", positionIdx: 0, timeInForce: "GTC", orderLinkId: id },
      grid,
    );
    await them.client.createHftOrder({ ...params, side: "sell", positionIdx: 0, timeInForce: "GTC" }, grid);
    const execs = (
      await mine.client.call<V5List<V5Execution>>("hft.executions", [
        ["category", "linear"],
        ["orderId", ack.orderId],
      ])
    ).list.filter((x) => x.orderLinkId === id);
    expect(execs.length).toBeGreaterThan(0);
    await mine.stop();
    await them.stop();

    // What the killed process journaled: the order, its answer, and each execution as pushed (the
    // Fills went out right after these records); no order record with the cumulative quantity.
    const j = Journal.open({ dir: join(dir, "journal"), fsync: "none" });
    j.command({
      session: "dup",
      op: "new",
      clientId: id,
      symbol: "BTCUSDT",
      side: "buy",
      type: "limit",
      price: "64000",
      qty: "0.024",
      tif: "GTC",
      reason: "no=1;inst=hft:linear:BTCUSDT;pos=0",
    });
    j.request({ clientId: id, op: "create", method: "POST", path: "/v5/order/create", attempt: 1 });
    j.response({ clientId: id, op: "create", status: 200, latencyUs: 1, body: JSON.stringify(ack) });
    for (const x of execs) j.event({ source: "hftx-stream", clientId: id, body: JSON.stringify(x) });
    await j.close();
    renameSync(j.path, join(dir, "journal", "hftgate-20260101T000000Z-1.hgj"));

    const h = await startEngine(
      testConfig(
        {
          "venue.kind": "exchange",
          "venue.spotBaseUrl": sim.baseUrl,
          "venue.hftBaseUrl": sim.baseUrl,
          "keys.secretKey": kp.secretKey,
          "shutdown.timeoutMs": 500,
        },
        dir,
      ),
      { logger: silent },
    );
    try {
      const o = h.engine.store.byClientId(id)!;
      expect(o.status).toBe(Status.Filled);
      expect(o.filledLots).toBe(24);
      for (const x of execs) expect(o.extra.execIds.has(x.execId)).toBe(true);
      // The owner logs on: whatever was kept for it arrives before the Query answer.
      const c = new GatewayClient({ url: h.url, token: h.token, sessionName: "dup" });
      const log = recorder(c);
      await c.connect();
      await c.query();
      expect(log.filter((m) => m.name === "Fill")).toEqual([]);
      await c.close();
    } finally {
      await h.stop("test");
    }
  }, 15_000);
});
