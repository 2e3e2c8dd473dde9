/**
 * The venue ingest as a unit, with the real surfaces and the real order store: each entry point
 * (a poll or query record, an answer's record, a stream message, a record replayed from the journal)
 * applies what the venue said and drops a malformed record whole, counted; a journal record's reader
 * is found by its tag.
 */
import { describe, expect, it } from "vitest";
import { loadKeyPair } from "../../src/auth/keys.js";
import { gridOf, type OrderEvent, OrderStore, Source, Status } from "../../src/orders/index.js";
import type { SpotOrderRecord, V5Execution, V5OrderRecord } from "../../src/rest/wire.js";
import { FuturesSurface } from "../../src/venue/futures/surface.js";
import { HftSurface } from "../../src/venue/hft/surface.js";
import { readerOfTag, VenueIngest } from "../../src/venue/ingest.js";
import { SpotSurface } from "../../src/venue/spot/surface.js";
import { createRestStack } from "../../src/venue/stack.js";
import type { Surfaces } from "../../src/venue/surface.js";
import { BTCUSDT } from "../fixtures/instruments.js";

const KEYS = loadKeyPair("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
const BTC = { id: 1, ...BTCUSDT };
const BTC_INR = { ...BTCUSDT, id: 2, surface: "spot" as const, symbol: "BTC/INR", venue: "c2c1" };

/** The three surfaces as the engine builds them (the client is never asked anything here). */
function surfaces(): Surfaces {
  const client = createRestStack({ keys: KEYS, presign: false, clock: false }).client;
  return {
    spot: new SpotSurface(client, 90),
    hft: new HftSurface(client, ["linear"], () => "linear"),
    futures: new FuturesSurface(client, 3_000),
  };
}

function rig() {
  const store = new OrderStore();
  const journaled: string[] = [];
  let invalid = 0;
  const ingest = new VenueIngest({
    gridOf: (id) => (id === BTC.id ? gridOf(BTC) : id === BTC_INR.id ? gridOf(BTC_INR) : undefined),
    apply: (ev: OrderEvent) => store.apply(ev),
    journal: { event: (e: { source: string }) => journaled.push(e.source) } as never,
    onInvalid: () => {
      invalid++;
    },
  });
  const order = (instrumentId: number, surface: "hft" | "spot", no: number) => {
    const o = store.create({
      sessionId: 1,
      clientOrderNo: no,
      instrumentId,
      symbol: surface === "hft" ? "BTCUSDT" : "BTC/INR",
      surface,
      side: "buy",
      type: "limit",
      tif: "GTC",
      priceTicks: 600_000,
      qtyLots: 10,
    });
    store.markSent(o.clientId);
    store.ackCreate(o.clientId, `X${no}`);
    return o;
  };
  return { store, ingest, journaled, invalid: () => invalid, order };
}

function v5(o: { clientId: string; exchangeId: string }, status: string, cum: string): V5OrderRecord {
  return {
    symbol: "BTCUSDT",
    orderId: o.exchangeId,
    orderLinkId: o.clientId,
    orderType: "Limit",
    orderStatus: status as V5OrderRecord["orderStatus"],
    side: "Buy",
    qty: "0.01",
    price: "60000",
    timeInForce: "GTC",
    leavesQty: "0",
    cumExecQty: cum,
    cumExecValue: "0",
    cumExecFee: "0",
    avgPrice: "60000",
    lastPriceOnCreated: "60000",
    positionIdx: 0,
    createdTime: "1",
    updatedTime: String(Date.now()),
    rejectReason: "",
  };
}

describe("venue ingest", () => {
  it("finds a journal record's reader by its tag, the longest tag first", () => {
    const s = surfaces();
    expect(readerOfTag(s, "hftx-stream")).toBe(s.hft.fills);
    expect(readerOfTag(s, "hft-poll")).toBe(s.hft);
    expect(readerOfTag(s, "spot-query")).toBe(s.spot);
    expect(readerOfTag(s, "futures-poll")).toBe(s.futures);
    expect(readerOfTag(s, "hftxyz-poll")).toBeUndefined();
    expect(readerOfTag(s, "bus-stream")).toBeUndefined();
  });

  it("replays a journaled record through the order's surface; a malformed one changes nothing", () => {
    const s = surfaces();
    const r = rig();
    const o = r.order(BTC.id, "hft", 1);
    expect(r.ingest.replayed(o, readerOfTag(s, "hft-stream")!, v5(o, "NoSuchStatus", "0"))).toBe("malformed");
    expect(o.status).toBe(Status.New);
    expect(r.ingest.replayed(o, readerOfTag(s, "hft-stream")!, v5(o, "Filled", "0.01"))).toBe("applied");
    expect(o.status).toBe(Status.Filled);
    expect(o.filledLots).toBe(10);
    const lost = { ...o, instrumentId: 99 };
    expect(r.ingest.replayed(lost, s.hft, v5(o, "Filled", "0.01"))).toBe("unknownInstrument");
    // A replay is not the venue speaking now: nothing journaled, nothing counted as invalid.
    expect(r.journaled).toEqual([]);
    expect(r.invalid()).toBe(0);
  });

  it("a poll record is journaled first and applied; the same print again is skipped", () => {
    const s = surfaces();
    const r = rig();
    const o = r.order(BTC.id, "hft", 1);
    const rec = v5(o, "PartiallyFilled", "0.004");
    r.ingest.apply(o, s.hft, rec, Source.Poll);
    r.ingest.apply(o, s.hft, rec, Source.Poll);
    expect(r.journaled).toEqual(["hft-poll"]);
    expect(o.status).toBe(Status.PartiallyFilled);
    expect(o.filledLots).toBe(4);
    r.ingest.apply(o, s.hft, v5(o, "Filled", "0.01"), Source.Query);
    expect(r.journaled).toEqual(["hft-poll", "hft-query"]);
    expect(o.status).toBe(Status.Filled);
  });

  it("an answer's record is applied as a REST outcome; an answer that is no record is dropped, counted", () => {
    const s = surfaces();
    const r = rig();
    const o = r.order(BTC_INR.id, "spot", 2);
    const filled: SpotOrderRecord = {
      order_id: o.exchangeId,
      client_order_id: o.clientId,
      symbol: "BTC/INR",
      price: 60000,
      average_price: 60000,
      orig_qty: 0.01,
      executed_qty: 0.01,
      status: "EXECUTED",
      side: "BUY",
      type: "LIMIT",
      exchange: "c2c1",
      order_source: "API",
      created_time: 1,
      updated_time: 2,
    };
    r.ingest.answer(o, s.spot, null);
    expect(r.invalid()).toBe(1);
    expect(o.status).toBe(Status.New);
    r.ingest.answer(o, s.spot, filled);
    expect(o.status).toBe(Status.Filled);
    expect(r.journaled).toEqual([]); // the answer itself is the request's journal record
  });

  it("a stream message goes through the hook before the store; a malformed one is counted", () => {
    const s = surfaces();
    const seen: string[] = [];
    const store = new OrderStore();
    let invalid = 0;
    const ingest = new VenueIngest({
      gridOf: () => undefined,
      apply: (ev) => store.apply(ev),
      journal: undefined,
      onInvalid: () => {
        invalid++;
      },
      beforePush: (tag, source, _raw, ev) => seen.push(`${tag}:${source}:${ev.clientId}`),
    });
    const o = store.create({
      sessionId: 1,
      clientOrderNo: 1,
      instrumentId: BTC.id,
      symbol: "BTCUSDT",
      surface: "hft",
      side: "buy",
      type: "limit",
      tif: "GTC",
      priceTicks: 600_000,
      qtyLots: 10,
    });
    store.markSent(o.clientId);
    store.ackCreate(o.clientId, "X1");
    const fill: V5Execution = {
      symbol: "BTCUSDT",
      orderId: "X1",
      orderLinkId: o.clientId,
      side: "Buy",
      orderPrice: "60000",
      orderQty: "0.01",
      execId: "E1",
      execPrice: "60000",
      execQty: "0.003",
      execValue: "180",
      execFee: "0.1",
      execTime: String(Date.now()),
      isMaker: true,
      leavesQty: "0.007",
    };
    expect(ingest.pushed(s.hft.fills!, fill, gridOf(BTC), Source.Stream, 1)).toBeDefined();
    expect(seen).toEqual([`hftx:${Source.Stream}:${o.clientId}`]);
    expect(o.filledLots).toBe(3);
    expect(ingest.pushed(s.hft.fills!, { ...fill, execQty: "0.0005" }, gridOf(BTC), Source.Stream, 2)).toBe(
      undefined,
    );
    expect(invalid).toBe(1);
    expect(o.filledLots).toBe(3);
  });
});
