/**
 * The bare forwarder's "work" variant (bench/lib/bareWork.ts) does the gateway's per-order component
 * work on the bare wire: the venue receives the create body the gateway's venue module builds (with a
 * minted client id), the strategy its Ack and Cancelled update, and the journal the four records of a
 * create and of a cancel. A variant that leaves components out still answers every order. Over real
 * sockets: a plain HTTP stub as the venue, the bench's own driver as the strategy.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BareDriver } from "../../bench/lib/bareLoad.js";
import { workSkips } from "../../bench/lib/bareWork.js";
import { LegHistograms } from "../../bench/lib/orderLoad.js";
import { startBare } from "../../bench/lib/procs/bare.js";
import { newHistogram } from "../../bench/lib/stats.js";
import { rotateWork } from "../../bench/suites/e2e.js";
import { readJournal } from "../../src/journal/reader.js";

let stub: Server;
let stubPort = 0;
const seen: { method: string; path: string; body: string }[] = [];
let nextId = 1;

beforeAll(async () => {
  stub = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d: string) => {
      body += d;
    });
    req.on("end", () => {
      seen.push({ method: req.method!, path: req.url!, body });
      const out =
        req.method === "POST"
          ? `{"retCode":0,"retMsg":"OK","result":{"orderId":"venue-${nextId++}","orderLinkId":""}}`
          : JSON.stringify({
              data: { order_id: String(JSON.parse(body).order_id).trim(), status: "CANCELLED" },
            });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(out) });
      res.end(out);
    });
  });
  await new Promise<void>((r) => stub.listen(0, "127.0.0.1", () => r()));
  stubPort = (stub.address() as AddressInfo).port;
});
afterAll(() => {
  stub?.closeAllConnections();
  stub?.close();
});

describe("the bare forwarder's work variant", () => {
  it("sends the gateway's create body, answers with Ack and Cancelled, and journals four records each", async () => {
    const bare = await startBare({
      venuePort: stubPort,
      apiKey: "k".repeat(64),
      journal: "work",
      connections: 2,
    });
    const tpl = { instrumentId: 7, side: 1, priceTicks: 10_000, qtyLots: 5 };
    const d = await BareDriver.open(bare.port, tpl);
    try {
      const legs = new LegHistograms();
      await d.sequential(3, legs);
      expect(legs.total.count).toBe(3);
      const cancels = newHistogram();
      await d.sequentialCancels(2, cancels);
      expect(cancels.count).toBe(2);
      expect(d.answers).toBe(3 + 2 + 2);

      const creates = seen.filter((r) => r.method === "POST");
      expect(creates).toHaveLength(5);
      const ids = creates.map((r) => JSON.parse(r.body).orderLinkId as string);
      // The venue module's body on the instrument's grid, each with its own minted client id.
      expect(JSON.parse(creates[0]!.body)).toEqual({
        category: "linear",
        symbol: "BTCUSDT",
        side: "Buy",
        orderType: "Limit",
        qty: "0.005",
        price: "1000",
        positionIdx: 0,
        timeInForce: "GTC",
        orderLinkId: ids[0],
      });
      expect(new Set(ids).size).toBe(5);
      // Each cancel names the venue id its create's Ack carried.
      const deletes = seen
        .filter((r) => r.method === "DELETE")
        .map((r) => JSON.parse(r.body).order_id.trim());
      expect(deletes).toEqual(["venue-4", "venue-5"]);

      const j = bare.journal;
      expect(j).toBeDefined();
      const recs = readJournal(j!).records.filter((r) => r.k !== "note");
      const kinds = (id: string) => recs.filter((r) => "clientId" in r && r.clientId === id).map((r) => r.k);
      // A create: command, request, response (journaled as received); a cancel likewise.
      expect(kinds(ids[0]!)).toEqual(["cmd", "req", "res"]);
      expect(kinds(ids[3]!)).toEqual(["cmd", "req", "res", "cmd", "req", "res"]);
      // And every answer frame before it was sent: 5 Acks and 2 updates.
      expect(recs.filter((r) => r.k === "out")).toHaveLength(7);
    } finally {
      d.close();
      bare.stop();
    }
  });

  it("its variants take turns at going first in the e2e blocks; the other drivers keep their places", () => {
    const keys = ["gateway", "off", "sync", "work", "work-store", "work-journal"];
    const firstWork = [0, 1, 2, 3].map((b) => rotateWork(keys, b));
    expect(firstWork.map((o) => o.slice(0, 3))).toEqual(Array(4).fill(["gateway", "off", "sync"]));
    expect(firstWork.map((o) => o[3])).toEqual(["work", "work-store", "work-journal", "work"]);
    // Each block holds every variant once.
    for (const o of firstWork) expect([...o].sort()).toEqual([...keys].sort());
    expect(rotateWork(["gateway", "off", "sync"], 5)).toEqual(["gateway", "off", "sync"]);
    // Every driver when asked (HFTGATE_BENCH_ROTATE_ALL).
    expect([0, 1, 2].map((b) => rotateWork(["gateway", "off", "sync"], b, true)[0])).toEqual([
      "gateway",
      "off",
      "sync",
    ]);
  });

  it("names the components a variant leaves out, and refuses one it does not know", () => {
    expect([...workSkips("work")]).toEqual([]);
    expect([...workSkips("work-journal+store")]).toEqual(["journal", "store"]);
    expect(() => workSkips("work-journl")).toThrow(/no component journl/);
  });
});
