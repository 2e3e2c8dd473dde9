/**
 * The journal keeps the venue's answers as they arrived: a create's 200 is journaled as the venue's
 * text (its envelope included, `raw` 1), and a restarted gateway rebuilds each order from that text
 * (its exchange id, its status) as it did from the parsed payload older journals hold.
 */
import { describe, expect, it } from "vitest";
import { GatewayClient } from "../../src/client/index.js";
import { answerPayload } from "../../src/engine/orderReplay.js";
import { startEngine } from "../../src/index.js";
import { readJournal } from "../../src/journal/reader.js";
import { Status } from "../../src/orders/index.js";
import { Side } from "../../src/protocol/schema.js";
import { next, silent } from "./harness.js";
import { restartVenue } from "./restartFixture.js";

const v = restartVenue("raw-answers");

describe("the venue's answers in the journal", () => {
  it("a create's 200 is journaled as the venue's text; a restart rebuilds the orders from it", async () => {
    const h1 = await startEngine(v.config(), { logger: silent });
    const all = h1.instruments.all();
    const hft = all.find((i) => i.surface === "hft" && i.symbol === "BTCUSDT")!.id;
    const spot = all.find((i) => i.venue === "coinswitchx" && i.symbol === "BTC/INR")!;
    const c1 = new GatewayClient({ url: h1.url, token: h1.token, sessionName: "raw" });
    await c1.connect();
    const a1 = next(c1, "ack", (a) => a.clOrdNo === 1);
    c1.placeOrder({ instrumentId: hft, side: Side.Buy, priceTicks: 600_000, qtyLots: 1 });
    const hftId = (await a1).exchangeOrderId;
    const a2 = next(c1, "ack", (a) => a.clOrdNo === 2);
    // Nobody sells: it rests.
    c1.placeOrder({ instrumentId: spot.id, side: Side.Buy, priceTicks: 5_000_000, qtyLots: 100 });
    const spotId = (await a2).exchangeOrderId;
    await h1.journal!.flush();
    const answers = readJournal(h1.journal!.path).records.filter((r) => r.k === "res" && r.op === "create");
    expect(answers).toHaveLength(2);
    for (const r of answers) {
      if (r.k !== "res") continue;
      expect(r.raw).toBe(1);
      const body = JSON.parse(r.body!) as Record<string, unknown>;
      // The envelope as the venue sent it: v5 `retCode` + `result`, Spot `data`.
      expect("retCode" in body || "data" in body).toBe(true);
    }
    const [hftAnswer, spotAnswer] = answers as { body?: string; raw?: number }[];
    expect((answerPayload(hftAnswer!.body, 1, "hft") as { orderId: string }).orderId).toBe(hftId);
    expect((answerPayload(spotAnswer!.body, 1, "spot") as { order_id: string }).order_id).toBe(spotId);
    await c1.close();
    await h1.stop("restart");

    const h2 = await startEngine(v.config(), { logger: silent });
    try {
      for (const id of [hftId, spotId]) {
        const o = h2.engine.store.byExchangeId(id);
        expect(o?.status).toBe(Status.New);
      }
    } finally {
      await h2.stop("test");
    }
  });
});

describe("answerPayload", () => {
  it("reads a raw answer through its envelope, and an older record's body as it is", () => {
    const v5 = '{"retCode":0,"retMsg":"OK","result":{"orderId":"o-1","orderLinkId":"c-1"},"time":1}';
    expect(answerPayload(v5, 1, "hft")).toEqual({ orderId: "o-1", orderLinkId: "c-1" });
    expect(answerPayload('{"retCode":10001,"retMsg":"bad","result":{}}', 1, "hft")).toBeUndefined();
    expect(answerPayload('{"data":{"order_id":"s-1","status":"OPEN"}}', 1, "spot")).toEqual({
      order_id: "s-1",
      status: "OPEN",
    });
    // Older journals: the parsed payload, whatever its keys.
    expect(answerPayload('{"orderId":"o-1","orderLinkId":"c-1"}', undefined, "hft")).toEqual({
      orderId: "o-1",
      orderLinkId: "c-1",
    });
    expect(answerPayload('{"data":1}', undefined, "spot")).toEqual({ data: 1 });
    expect(answerPayload("not json", 1, "hft")).toBeUndefined();
    expect(answerPayload(undefined, 1, "spot")).toBeUndefined();
  });
});
