/**
 * A request still outstanding at the HTTP layer past the store's resolution deadline (2 s from the
 * hand-off: it waited in the client's FIFO behind busy connections, then the venue held it) is left to
 * its own answer: the resolver does not ask the venue about the order meanwhile, so no query overtakes
 * the request, no create is re-sent and no amend is judged "not applied" while the venue applies it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Status } from "../../src/orders/index.js";
import { OrderStatus, Side } from "../../src/protocol/schema.js";
import { type Harness, next, recorder, startHarness } from "./harness.js";

const PATHS = [
  // Three connections on the general client (no fast sockets): three held creates fill them and the
  // requests behind them wait in its FIFO, their HTTP timeouts not yet running.
  { path: "the general client", fastPath: false },
  // The same on the fast path's three sockets and its own FIFO; queries go out on the idle general
  // client meanwhile, so nothing but the in-flight rule keeps them off the waiting orders.
  { path: "the fast path", fastPath: true },
];

describe.each(PATHS)("on $path", ({ fastPath }) => {
  let t: Harness;
  beforeAll(async () => {
    t = await startHarness({
      "http.fastPath": fastPath,
      "http.connections": 3,
      // The answer deadline (connect + headers + body, 2 s) ends with the store's 2 s, before the held
      // requests are answered (about 2.4 s after their hand-off); a hold of 1.2 s is within the timeouts.
      "http.connectTimeoutMs": 100,
      "http.headersTimeoutMs": 1_800,
      "http.bodyTimeoutMs": 100,
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  describe("a request outstanding at the HTTP layer past the resolution deadline", () => {
    it("an amend and a create: no query while they are outstanding, the strategy told what the venue did", async () => {
      const sim = t.h.sim!;
      const stats = t.h.sync.stats;
      const inst = t.inst("linear", "BTCUSDT");
      const c = await t.client("outstanding");
      const ack = next(c, "ack");
      const x = c.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 600_000, qtyLots: 10 });
      const xId = (await ack).exchangeOrderId;

      const xOrder = t.h.engine.store.byExchangeId(xId)!;
      // The resolver's queries by client id, with the order's status when each left (passed through).
      const hft = t.h.sync.surfaces.hft;
      const query = hft.queryByClientId;
      const asked: { clientId: string; status: number }[] = [];
      hft.queryByClientId = (o) => {
        asked.push({ clientId: o.clientId, status: o.status });
        return query.call(hft, o);
      };
      const log = recorder(c);
      const resends = stats.resends;
      const creates = sim.counters.requests("POST /v5/order/create");
      const amends = sim.counters.requests("POST /v5/order/amend");
      // Every create and the amend are held 1.2 s at the venue before it acts on them.
      sim.faults.add({ kind: "latency", endpoint: "POST /v5/order/create", ms: 1_200, count: 4 });
      sim.faults.add({ kind: "latency", endpoint: "POST /v5/order/amend", ms: 1_200, count: 1 });
      const fillers: Promise<unknown>[] = [];
      for (let i = 0; i < 3; i++) {
        const no = c.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 590_000 - i, qtyLots: 1 });
        fillers.push(next(c, "ack", (a) => a.clOrdNo === no, 5_000));
      }
      const amended = next(c, "update", (u) => u.clOrdNo === x && u.status === OrderStatus.New, 5_000);
      c.amend(x, { priceTicks: 600_700 });
      const z = c.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 595_000, qtyLots: 2 });
      const zAck = next(c, "ack", (a) => a.clOrdNo === z, 5_000);
      await Promise.all(fillers);
      const u = await amended;
      const za = await zAck;

      // What the strategy was told is what the venue did: the amend applied, the create placed once.
      expect(u.priceTicks).toBe(600_700);
      expect(
        Number((await t.h.rest.client.realtime({ category: "linear", orderId: xId })).list[0]!.price),
      ).toBe(60_070);
      expect(log.filter((m) => m.name === "AmendReject" || m.name === "Reject")).toEqual([]);
      const zRows = (await t.h.rest.client.realtime({ category: "linear", orderId: za.exchangeOrderId }))
        .list;
      expect(zRows.length).toBe(1);
      // No query about either order while its request was outstanding (PendingReplace / PendingNew until
      // answered), no same-id resend.
      hft.queryByClientId = query;
      const zOrder = t.h.engine.store.byExchangeId(za.exchangeOrderId)!;
      expect(
        asked.filter(
          (a) =>
            (a.clientId === xOrder.clientId && a.status === Status.PendingReplace) ||
            (a.clientId === zOrder.clientId && a.status === Status.PendingNew),
        ),
      ).toEqual([]);
      expect(stats.resends - resends).toBe(0);
      expect(sim.counters.requests("POST /v5/order/create") - creates).toBe(4);
      expect(sim.counters.requests("POST /v5/order/amend") - amends).toBe(1);
      const [q] = await c.query(x);
      expect([q!.status, q!.priceTicks]).toEqual([OrderStatus.New, 600_700]);
    }, 10_000);
  });
});
