/**
 * Issue 17, cause 1: after a restart an in-flight create has exactly one owner. A same-id resend
 * whose answer is late (held by the venue) must not be overtaken by a "rejected" verdict: the order is
 * live at the venue, so the gateway must hold it live and tell the strategy so. A verdict reached
 * anyway (the answer came after every deadline) is not final: the venue's record still applies.
 */
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayClient } from "../../src/client/index.js";
import { generateKeyHex } from "../../src/commands/keygen.js";
import { startEngine } from "../../src/engine/index.js";
import { Journal } from "../../src/journal/writer.js";
import { Status } from "../../src/orders/index.js";
import { OrderStatus } from "../../src/protocol/schema.js";
import { type SimHandle, startSimulator } from "../../src/sim/index.js";
import { silent, testConfig, until } from "./harness.js";

let sim: SimHandle;
let root: string;
const kp = generateKeyHex();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "hftgate-late-answer-"));
  sim = await startSimulator({ apiKeys: [kp.apiKey], market: { synthetic: false, tickMs: 0 } });
});
afterAll(async () => {
  await sim?.stop();
  rmSync(root, { recursive: true, force: true });
});

const config = (dir: string, extra: Record<string, unknown> = {}) =>
  testConfig(
    {
      "venue.kind": "exchange",
      "venue.spotBaseUrl": sim.baseUrl,
      "venue.hftBaseUrl": sim.baseUrl,
      "keys.secretKey": kp.secretKey,
      "shutdown.timeoutMs": 500,
      // One start-up round and slow resolution ticks: the push feed's reconciliation starts while the
      // create is unresolved (the interleaving of the journal: resend, verdict, late 200).
      "orders.unknownQueryRetries": 1,
      "orders.unknownQueryIntervalMs": 1_000,
      "http.connectTimeoutMs": 300,
      "http.headersTimeoutMs": 3_000,
      "http.bodyTimeoutMs": 300,
      ...extra,
    },
    dir,
  );

/** What a process killed with a create in flight (its answer unknown) leaves in the journal. */
async function inFlightJournal(dir: string, clientId: string, session: string): Promise<void> {
  const j = Journal.open({ dir: join(dir, "journal"), fsync: "none" });
  j.command({
    session,
    op: "new",
    clientId,
    symbol: "BTCUSDT",
    side: "buy",
    type: "limit",
    price: "60000",
    qty: "0.001",
    tif: "GTC",
    reason: "no=1;inst=hft:linear:BTCUSDT;pos=0",
  });
  j.request({ clientId, op: "create", method: "POST", path: "/v5/order/create", attempt: 1 });
  j.response({ clientId, op: "create", status: 0, latencyUs: 0, body: "headers timeout" });
  await j.close();
  renameSync(j.path, join(dir, "journal", "hftgate-20260101T000000Z-1.hgj"));
}

function journalText(dir: string): string {
  const jd = join(dir, "journal");
  return readdirSync(jd)
    .map((f) => readFileSync(join(jd, f)).toString("latin1"))
    .join("\n");
}

describe("an in-flight create after a restart (issue 17, cause 1)", () => {
  it("a same-id resend answered late is applied: the order is live, never judged rejected", async () => {
    const dir = mkdtempSync(join(root, "a-"));
    const id = "late-answer-1";
    await inFlightJournal(dir, id, "late");
    // The venue holds the resend's answer (it handles the request only after the delay).
    sim.faults.add({ kind: "latency", ms: 2_000, endpoint: "POST /v5/order/create", count: 1 });
    const h = await startEngine(config(dir), { logger: silent });
    try {
      await until(
        () => (h.engine.store.byClientId(id)?.exchangeId ?? "") !== "",
        6_000,
        "the resend's answer applied",
      );
      const o = h.engine.store.byClientId(id)!;
      expect(o.status).toBe(Status.New);
      const rows = (await h.rest.client.realtime({ category: "linear", orderLinkId: id })).list;
      expect(rows.length).toBe(1);
      expect(rows[0]!.orderId).toBe(o.exchangeId);
      // Never judged rejected on the way: the order's history holds no Rejected.
      const seen: number[] = [];
      for (let i = 0; i < o.history.length; i += 2) seen.push(o.history[i]!);
      expect(seen).not.toContain(Status.Rejected);
      expect(journalText(dir)).not.toContain("resolution: not found");
      // The strategy logs on under its name and sees the order live.
      const c = new GatewayClient({ url: h.url, token: h.token, sessionName: "late" });
      await c.connect();
      const live = await c.query();
      expect(live.find((u) => u.exchangeOrderId === o.exchangeId)?.status).toBe(OrderStatus.New);
      await c.close();
    } finally {
      sim.faults.clear();
      await h.stop("test");
    }
  }, 15_000);
});
