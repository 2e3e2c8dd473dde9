/**
 * Every field of OrderUpdate and Fill checked against the venue's own records (signed REST queries of
 * our account at the simulator, never its internals), for a partial fill then cancel, a full fill and a
 * plain cancel, on both surfaces. Someone else (a second account, over REST) takes the other side.
 *
 * Each order here fills at most once, so the venue's average price is also its last fill's price (Spot
 * records carry no executions). The cancel of a partially filled order is sent only after its Fill
 * arrived, so the record the fill was learned from still had the execution's time as its update time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayClient } from "../../src/client/index.js";
import { type Body, Liquidity, OrderStatus, OrdType, Side, Tif } from "../../src/protocol/schema.js";
import type { SpotOrderRecord, V5Execution, V5OrderRecord } from "../../src/rest/wire.js";
import type { RestStack } from "../../src/venue/stack.js";
import { type Harness, next, startHarness } from "./harness.js";
import { lotsOf, otherAccount, ticksOf } from "./otherAccount.js";

type Update = Body<"OrderUpdate">;
type Fill = Body<"Fill">;

/** What the venue says about one order, in the gateway's units. */
interface VenueView {
  status: number;
  side: number;
  exchangeOrderId: string;
  priceTicks: number;
  qtyLots: number;
  cumLots: number;
  leavesLots: number;
  avgPx: number;
  /** Latest execution: price (ticks), lots, time (ms), id, fee, maker; lots 0 when none. */
  last: { priceTicks: number; lots: number; timeMs: number; execIds: string[]; fee: number; maker?: boolean };
  /** The client id the gateway minted (the venue echoes it). */
  clientId: string;
  tif: number;
}

const SPOT_STATUS: Record<string, number> = {
  OPEN: OrderStatus.New,
  PARTIALLY_EXECUTED: OrderStatus.PartiallyFilled,
  EXECUTED: OrderStatus.Filled,
  CANCELLED: OrderStatus.Cancelled,
};
const V5_STATUS: Record<string, number> = {
  New: OrderStatus.New,
  PartiallyFilled: OrderStatus.PartiallyFilled,
  Filled: OrderStatus.Filled,
  Cancelled: OrderStatus.Cancelled,
};
const TIF: Record<string, number> = { GTC: Tif.GTC, IOC: Tif.IOC, FOK: Tif.FOK };

let t: Harness;
let other: RestStack;
beforeAll(async () => {
  t = await startHarness();
  other = otherAccount(t);
});
afterAll(async () => {
  await other?.stop();
  await t?.close();
});

async function spotView(id: number, orderId: string): Promise<VenueView> {
  const r: SpotOrderRecord = await t.h.rest.client.getSpotOrder({ orderId });
  const cum = lotsOf(t, id, r.executed_qty);
  const qty = lotsOf(t, id, r.orig_qty);
  const open = r.status === "OPEN" || r.status === "PARTIALLY_EXECUTED";
  return {
    status: SPOT_STATUS[r.status]!,
    side: r.side === "BUY" ? Side.Buy : Side.Sell,
    exchangeOrderId: r.order_id,
    priceTicks: ticksOf(t, id, r.price),
    qtyLots: qty,
    cumLots: cum,
    leavesLots: open ? qty - cum : 0,
    avgPx: r.average_price,
    // No executions on Spot: the one fill is the executed quantity at the average, at the update time.
    last: {
      priceTicks: cum > 0 ? ticksOf(t, id, r.average_price) : 0,
      lots: cum,
      timeMs: r.updated_time,
      execIds: [],
      fee: 0,
    },
    clientId: r.client_order_id ?? "",
    tif: Tif.GTC,
  };
}

async function hftView(id: number, orderId: string): Promise<VenueView> {
  const r: V5OrderRecord = (await t.h.rest.client.realtime({ category: "linear", orderId })).list[0]!;
  const xs: V5Execution[] = (await t.h.rest.client.executions({ category: "linear", orderId })).list;
  expect(xs.length).toBeLessThanOrEqual(1);
  const x = xs[0];
  return {
    status: V5_STATUS[r.orderStatus]!,
    side: r.side === "Buy" ? Side.Buy : Side.Sell,
    exchangeOrderId: r.orderId,
    priceTicks: ticksOf(t, id, Number(r.price)),
    qtyLots: lotsOf(t, id, Number(r.qty)),
    cumLots: lotsOf(t, id, Number(r.cumExecQty)),
    leavesLots: lotsOf(t, id, Number(r.leavesQty)),
    avgPx: r.avgPrice === "" ? 0 : Number(r.avgPrice),
    last: x
      ? {
          priceTicks: ticksOf(t, id, Number(x.execPrice)),
          lots: lotsOf(t, id, Number(x.execQty)),
          timeMs: Number(x.execTime),
          execIds: [x.execId],
          fee: Number(x.execFee),
          maker: x.isMaker,
        }
      : { priceTicks: 0, lots: 0, timeMs: 0, execIds: [], fee: 0 },
    clientId: r.orderLinkId,
    tif: TIF[r.timeInForce]!,
  };
}

function expectUpdate(u: Update, v: VenueView, clOrdNo: number, id: number): void {
  const avg = u.avgPxMantissa * 10 ** u.avgPxExponent;
  expect({ ...u, avg }).toEqual({
    clOrdNo,
    requestId: 0,
    instrumentId: id,
    status: v.status,
    side: v.side,
    ordType: OrdType.Limit,
    tif: v.tif,
    exchangeOrderId: v.exchangeOrderId,
    priceTicks: v.priceTicks,
    qtyLots: v.qtyLots,
    cumQtyLots: v.cumLots,
    leavesQtyLots: v.leavesLots,
    avgPxMantissa: u.avgPxMantissa,
    avgPxExponent: u.avgPxExponent,
    avg: v.avgPx === 0 ? 0 : expect.closeTo(v.avgPx, 6),
    lastFillPriceTicks: v.last.priceTicks,
    lastFillQtyLots: v.last.lots,
    reasonCode: 0,
  });
}

function expectFill(f: Fill, v: VenueView, clOrdNo: number, id: number): void {
  const inst = t.h.instruments.byId(id)!.inst;
  // An execution record gives its own id and maker flag; a cumulative record a synthesized id and none.
  const fromExec = v.last.execIds.includes(f.execId);
  const synthetic = `${v.exchangeOrderId}:${v.cumLots}`;
  expect({ ...f, fee: f.feeMantissa * 10 ** f.feeExponent }).toEqual({
    clOrdNo,
    instrumentId: id,
    side: v.side,
    liquidity: fromExec ? (v.last.maker ? Liquidity.Maker : Liquidity.Taker) : 0,
    execId: fromExec
      ? f.execId
      : synthetic.length <= 40
        ? synthetic
        : `${v.clientId}:${v.cumLots}`.slice(0, 40),
    priceTicks: v.last.priceTicks,
    qtyLots: v.last.lots,
    feeMantissa: f.feeMantissa,
    feeExponent: -8,
    fee: expect.closeTo(v.last.fee, 8),
    feeAsset: inst.quote,
    exchangeTimeMs: v.last.timeMs,
  });
  expect(f.exchangeTimeMs).toBeGreaterThan(0);
}

interface Surface {
  name: string;
  inst: () => number;
  price: () => Promise<number>;
  view: (id: number, orderId: string) => Promise<VenueView>;
  /** The counterparty sells `lots` at `price` (a venue price). */
  hit: (id: number, price: number, lots: number) => Promise<void>;
}

const SURFACES: Surface[] = [
  {
    name: "Spot",
    inst: () => t.inst("coinswitchx", "BTC/INR"),
    price: async () => 5_400_000,
    view: spotView,
    hit: async (id, price, lots) => {
      const e = t.h.instruments.byId(id)!;
      await other.client.createSpotOrder(
        {
          symbol: "BTC/INR",
          side: "sell",
          price: e.price.format(ticksOf(t, id, price)),
          quantity: e.qty.format(lots),
          exchange: "coinswitchx",
        },
        e.orderGrid,
      );
    },
  },
  {
    name: "HFT",
    inst: () => t.inst("linear", "BTCUSDT"),
    price: async () => {
      const r = await t.h.rest.client.call<{ list: { lastPrice: string }[] }>("hft.tickers", [
        ["category", "linear"],
        ["symbol", "BTCUSDT"],
      ]);
      return Number(r.list[0]!.lastPrice);
    },
    view: hftView,
    hit: async (id, price, lots) => {
      const e = t.h.instruments.byId(id)!;
      await other.client.createHftOrder(
        {
          category: "linear",
          symbol: "BTCUSDT",
          side: "sell",
          orderType: "limit",
          qty: e.qty.format(lots),
          price: e.price.format(ticksOf(t, id, price)),
          positionIdx: 0,
          timeInForce: "GTC",
        },
        e.orderGrid,
      );
    },
  },
];

async function place(c: GatewayClient, id: number, priceTicks: number, qtyLots: number) {
  const ack = next(c, "ack");
  const no = c.placeOrder({ instrumentId: id, side: Side.Buy, priceTicks, qtyLots });
  return { no, ack: await ack };
}

describe.each(SURFACES)("OrderUpdate and Fill fields equal the venue's records: $name", (s) => {
  it("partial fill, then cancel", async () => {
    const c = await t.client(`fields-partial-${s.name}`);
    const id = s.inst();
    const px = await s.price();
    const { no, ack } = await place(c, id, ticksOf(t, id, px), 100);
    const fill = next(c, "fill", (f) => f.clOrdNo === no);
    const part = next(c, "update", (u) => u.clOrdNo === no && u.status === OrderStatus.PartiallyFilled);
    await s.hit(id, px, 40);
    const f = await fill;
    const u = await part;
    const v = await s.view(id, ack.exchangeOrderId);
    expect(v).toMatchObject({ status: OrderStatus.PartiallyFilled, cumLots: 40, leavesLots: 60 });
    expectFill(f, v, no, id);
    expectUpdate(u, v, no, id);

    const done = next(c, "update", (x) => x.clOrdNo === no && x.status === OrderStatus.Cancelled);
    c.cancel(no);
    const fin = await done;
    const vf = await s.view(id, ack.exchangeOrderId);
    expect(vf).toMatchObject({ status: OrderStatus.Cancelled, cumLots: 40, leavesLots: 0 });
    expectUpdate(fin, vf, no, id);
    // What the strategy holds now equals the venue: Query answers with the same fields.
    const [q] = await c.query(no);
    expectUpdate({ ...q!, requestId: 0 }, vf, no, id);
  });

  it("full fill", async () => {
    const c = await t.client(`fields-full-${s.name}`);
    const id = s.inst();
    const px = await s.price();
    const { no, ack } = await place(c, id, ticksOf(t, id, px), 30);
    const fill = next(c, "fill", (f) => f.clOrdNo === no);
    const filled = next(c, "update", (u) => u.clOrdNo === no && u.status === OrderStatus.Filled);
    await s.hit(id, px, 30);
    const f = await fill;
    const u = await filled;
    const v = await s.view(id, ack.exchangeOrderId);
    expect(v).toMatchObject({ status: OrderStatus.Filled, cumLots: 30, leavesLots: 0 });
    expectFill(f, v, no, id);
    expectUpdate(u, v, no, id);
  });

  it("cancel with nothing filled", async () => {
    const c = await t.client(`fields-cancel-${s.name}`);
    const id = s.inst();
    const px = await s.price();
    const { no, ack } = await place(c, id, ticksOf(t, id, px * 0.97), 10);
    const done = next(c, "update", (x) => x.clOrdNo === no && x.status === OrderStatus.Cancelled);
    c.cancel(no);
    const fin = await done;
    const v = await s.view(id, ack.exchangeOrderId);
    expect(v).toMatchObject({ status: OrderStatus.Cancelled, cumLots: 0, leavesLots: 0 });
    expectUpdate(fin, v, no, id);
  });
});
