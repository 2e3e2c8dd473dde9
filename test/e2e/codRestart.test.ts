/**
 * Cancel-on-disconnect across a crash: the policy of a session's latest logon is journaled; after a
 * restart a COD session that does not log on again within its heartbeat allowance has its orders
 * cancelled, one that comes back in time keeps them.
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
import { makeGrid } from "../../src/venue/orderFields.js";
import { createRestStack, type RestStack } from "../../src/venue/stack.js";
import { silent, testConfig, until } from "./harness.js";

let sim: SimHandle;
let dir: string;
let direct: RestStack;
const kp = generateKeyHex();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "hftgate-cod-restart-"));
  sim = await startSimulator({ apiKeys: [kp.apiKey], market: { synthetic: false, tickMs: 0 } });
  direct = createRestStack({
    keys: loadKeyPair(kp.secretKey),
    spotBaseUrl: sim.baseUrl,
    hftBaseUrl: sim.baseUrl,
    presign: false,
    clock: false,
  });
});
afterAll(async () => {
  await direct?.stop();
  await sim?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const config = () =>
  testConfig(
    {
      "venue.kind": "exchange",
      "venue.spotBaseUrl": sim.baseUrl,
      "venue.hftBaseUrl": sim.baseUrl,
      "keys.secretKey": kp.secretKey,
      "shutdown.timeoutMs": 500,
    },
    dir,
  );

/** What a crashed process leaves: each session's logon and one acked resting order per session. */
async function crashedRun(sessions: string[]): Promise<Map<string, string>> {
  const j = Journal.open({ dir: join(dir, "journal"), fsync: "none" });
  const ids = new Map<string, string>();
  let n = 0;
  for (const name of sessions) {
    const clientId = `cod-${name}`;
    const ack = await direct.client.createHftOrder(
      {
        category: "linear",
        symbol: "BTCUSDT",
        side: "buy",
        orderType: "limit",
        qty: "0.001",
        price: String(60000 + ++n),
        positionIdx: 0,
        timeInForce: "GTC",
        orderLinkId: clientId,
      },
      makeGrid("0.1", "0.001"),
    );
    // "gone" gets 3 × 100 ms to come back; "back" 3 × 1 s, plenty for a loaded machine.
    j.command({ session: name, op: "logon", reason: `cod=1;hb=${name === "gone" ? 100 : 1000}` });
    j.command({
      session: name,
      op: "new",
      clientId,
      symbol: "BTCUSDT",
      side: "buy",
      type: "limit",
      price: String(60000 + n),
      qty: "0.001",
      tif: "GTC",
      reason: `no=1;inst=hft:linear:BTCUSDT;pos=0`,
    });
    j.request({ clientId, op: "create", method: "POST", path: "/v5/order/create", attempt: 1 });
    j.response({ clientId, op: "create", status: 200, body: JSON.stringify({ orderId: ack.orderId }) });
    ids.set(name, ack.orderId);
  }
  await j.close();
  renameSync(j.path, join(dir, "journal", "hftgate-20260101T000000Z-1.hgj"));
  return ids;
}

const statusAt = async (orderId: string) =>
  (await direct.client.realtime({ category: "linear", orderId })).list[0]?.orderStatus;

describe("cancel-on-disconnect across a restart", () => {
  it("cancels the orders of a COD session that does not come back; spares one that does", async () => {
    const ids = await crashedRun(["gone", "back"]);
    const h = await startEngine(config(), { logger: silent });
    try {
      // "back" logs on again within its allowance; "gone" never does.
      const back = new GatewayClient({ url: h.url, token: h.token, sessionName: "back", heartbeatMs: 1000 });
      await back.connect();
      const end = Date.now() + 3000;
      while ((await statusAt(ids.get("gone")!)) !== "Cancelled" && Date.now() < end)
        await new Promise((r) => setTimeout(r, 50));
      expect(await statusAt(ids.get("gone")!)).toBe("Cancelled");
      await new Promise((r) => setTimeout(r, 400));
      expect(await statusAt(ids.get("back")!)).toBe("New");
      await until(() => h.engine.store.liveOrders().length === 1, 2000, "one live order left");
      back.cancelAll();
      await until(() => h.engine.store.liveOrders().length === 0, 2000, "cleaned up");
      await back.close();
    } finally {
      await h.stop("test");
    }
  }, 15_000);
});
