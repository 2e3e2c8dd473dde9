/**
 * Client order numbers across a gateway restart: the journal tells the new process which numbers each
 * session used, LogonAck reports the highest, a reused number is refused, and the client continues.
 */
import { describe, expect, it } from "vitest";
import { GatewayClient } from "../../src/client/index.js";
import { startEngine } from "../../src/index.js";
import { CODES, OrderStatus, Side } from "../../src/protocol/schema.js";
import { next, sendRawBuy, silent } from "./harness.js";
import { restartVenue } from "./restartFixture.js";

const v = restartVenue("clordno");
const config = () => v.config();

describe("client order numbers after a gateway restart", () => {
  it("LogonAck reports the journal's last number, a reused one is refused, the client continues", async () => {
    const h1 = await startEngine(config(), { logger: silent });
    const inst = h1.instruments.all().find((i) => i.symbol === "BTCUSDT")!.id;
    const c1 = new GatewayClient({ url: h1.url, token: h1.token, sessionName: "numbered" });
    expect((await c1.connect()).lastClOrdNo).toBe(0);
    let acks = 0;
    c1.on("ack", () => acks++);
    c1.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 600_000, qtyLots: 1 });
    c1.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 600_100, qtyLots: 1 });
    c1.lastClOrdNo = 6; // gaps are allowed
    const seventh = next(c1, "ack", (a) => a.clOrdNo === 7);
    expect(c1.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 600_200, qtyLots: 1 })).toBe(7);
    await seventh;
    await c1.close();
    await h1.stop("restart");

    const h2 = await startEngine(config(), { logger: silent });
    try {
      expect(h2.engine.lastClOrdNo("numbered")).toBe(7);
      expect(h2.engine.lastClOrdNo("someone-else")).toBe(0);
      // A fresh client object (e.g. a restarted strategy) learns where to continue.
      const c2 = new GatewayClient({ url: h2.url, token: h2.token, sessionName: "numbered" });
      const ack = await c2.connect();
      expect(ack.resumed).toBe(1); // restart = resume: the session continues from the journal, same numbering
      expect(ack.lastClOrdNo).toBe(7);
      expect(c2.lastClOrdNo).toBe(7);
      const liveBefore = h2.engine.store.liveOrders().length;
      // Reusing a journaled number is refused and sends nothing.
      const created = v.sim.counters.ordersCreated("hft");
      const refused = next(c2, "reject", (r) => r.clOrdNo === 2);
      sendRawBuy(c2, { clOrdNo: 2, instrumentId: inst, priceTicks: 600_300, qtyLots: 1 });
      expect((await refused).code).toBe(CODES.ClOrdNoNotIncreasing.code);
      // The client's own numbering continues above the journal's.
      const eighth = next(c2, "ack", (a) => a.clOrdNo === 8);
      expect(c2.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 600_400, qtyLots: 1 })).toBe(8);
      await eighth;
      expect(v.sim.counters.ordersCreated("hft")).toBe(created + 1);
      expect(h2.engine.store.liveOrders().length).toBe(liveBefore + 1);
      // Orders from before the restart are reachable by their numbers again (cancel, query).
      const [q2] = await c2.query(2);
      expect(q2?.status).toBe(OrderStatus.New);
      const gone = next(c2, "update", (u) => u.clOrdNo === 1 && u.status === OrderStatus.Cancelled);
      c2.cancel(1);
      await gone;
      c2.cancelAll();
      await c2.close();
    } finally {
      await h2.stop("test");
    }
    expect(acks).toBe(3);
  }, 15_000);
});
