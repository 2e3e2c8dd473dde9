/**
 * An in-flight create has exactly one owner (the resolver). After a restart no
 * second resolver re-sends it while the first judges it: what the gateway says ends equal to what the
 * venue holds. And a verdict reached anyway (the venue handled the create after every resend and
 * deadline) is not final: the venue's record still applies and the strategy is told the truth.
 */
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimHandle, startSimulator } from "../../sim/index.js";
import { generateKeyHex } from "../../src/auth/keygen.js";
import { GatewayClient } from "../../src/client/index.js";
import { startEngine } from "../../src/index.js";
import { Journal } from "../../src/journal/writer.js";
import { Status } from "../../src/orders/index.js";
import { OrderStatus, Side } from "../../src/protocol/schema.js";
import { next, silent, testConfig, until } from "./harness.js";

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

/** Polls an async condition (the venue's own listing) until it holds. */
async function eventually(cond: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timeout waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("an in-flight create after a restart (one resolver)", () => {
  it("has one owner: no same-id resend races the verdict, and the gateway's word is the venue's", async () => {
    const dir = mkdtempSync(join(root, "a-"));
    const id = "late-answer-1";
    await inFlightJournal(dir, id, "late");
    const arrivedBefore = sim.counters.requests("POST /v5/order/create");
    const createdBefore = sim.counters.ordersCreated("hft");
    // The venue holds the answer of any create that reaches it now (handled only after the delay).
    sim.faults.add({ kind: "latency", ms: 2_000, endpoint: "POST /v5/order/create", count: 1 });
    const h = await startEngine(config(dir), { logger: silent });
    try {
      const store = h.engine.store;
      await until(
        () => {
          const o = store.byClientId(id);
          return o !== undefined && (o.status === Status.Rejected || o.exchangeId !== "");
        },
        8_000,
        "a verdict or an answer",
      );
      // Every create that reached the venue is handled before the comparison (a held one included).
      const arrived = sim.counters.requests("POST /v5/order/create") - arrivedBefore;
      await eventually(
        async () => sim.counters.ordersCreated("hft") - createdBefore >= arrived,
        5_000,
        "the venue to handle every create it received",
      );
      const venueRows = async () =>
        (await h.rest.client.realtime({ category: "linear", orderLinkId: id })).list;
      // The gateway's word converges on the venue's: live with the venue's id, or rejected and absent.
      await eventually(
        async () => {
          const rows = await venueRows();
          const o = store.byClientId(id)!;
          return rows.length === 0
            ? o.status === Status.Rejected
            : o.exchangeId === rows[0]!.orderId && o.status === Status.New;
        },
        5_000,
        "the gateway to hold what the venue holds",
      );
      // One owner, replay policy: a create rebuilt from the journal is resolved, never re-sent.
      expect(arrived).toBe(0);
      expect((await venueRows()).length).toBe(0);
      expect(journalText(dir)).toContain("resolution: not found");
      // The strategy logs on under its name and finds nothing live.
      const c = new GatewayClient({ url: h.url, token: h.token, sessionName: "late" });
      await c.connect();
      expect((await c.query()).length).toBe(0);
      await c.close();
    } finally {
      sim.faults.clear();
      await h.stop("test");
    }
  }, 25_000);
});

describe("a rejection verdict overturned by the venue (one resolver)", () => {
  it("a create the venue handles after every resend and deadline: Reject, then OrderUpdate New with the truth", async () => {
    const dir = mkdtempSync(join(root, "b-"));
    const h = await startEngine(
      config(dir, {
        "http.connectTimeoutMs": 100,
        "http.headersTimeoutMs": 400,
        "http.bodyTimeoutMs": 100,
        "orders.unknownQueryIntervalMs": 50,
        "orders.unknownQueryRetries": 10,
        "streams.auditIntervalMs": 100,
        // The overturning record comes from the audit of the HFT open list (its own knob since the
        // HFT stream work): keep it as fast as the audit above.
        "streams.hftAuditIntervalMs": 100,
      }),
      { logger: silent },
    );
    // The venue handles the create and both same-id resends only after 3 s, though the gateway gave up
    // on each answer after 0.6 s: the resolver reaches its verdict before the venue holds the order.
    sim.faults.add({
      kind: "latency",
      ms: 3_000,
      endpoint: "POST /v5/order/create",
      count: 3,
      abandoned: "handle",
    });
    const c = new GatewayClient({ url: h.url, token: h.token, sessionName: "overturned" });
    try {
      await c.connect();
      const inst = h.instruments.all().find((i) => i.symbol === "ETHUSDT")!.id;
      const rejected = next(c, "reject", () => true, 8_000);
      const live = next(c, "update", (u) => u.status === OrderStatus.New, 12_000);
      const no = c.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 299_000, qtyLots: 1 });
      const rj = await rejected;
      expect(rj.clOrdNo).toBe(no);
      expect(rj.text).toMatch(/not found/); // the resolver's verdict, not a local refusal
      const u = await live;
      expect(u.clOrdNo).toBe(no);
      const rows = (await h.rest.client.realtime({ category: "linear", symbol: "ETHUSDT" })).list.filter(
        (r) => r.orderId === u.exchangeOrderId,
      );
      expect(rows.length).toBe(1);
      expect(rows[0]!.orderStatus).toBe("New");
      const [q] = await c.query(no);
      expect(q!.status).toBe(OrderStatus.New);
      expect(q!.exchangeOrderId).toBe(rows[0]!.orderId);
      expect(journalText(dir)).toContain("resolution: not found");
    } finally {
      await c.close();
      sim.faults.clear();
      await h.stop("test");
    }
  }, 25_000);
});
