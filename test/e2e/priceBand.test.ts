/**
 * The price band and the no-reference policy, end to end on both surfaces: reference prices come from
 * the venue's market data (Spot public trade stream, HFT tickers over REST), a far-off order is refused
 * by risk and nothing reaches the venue (requests counted at the simulator), an in-band order passes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CODES, OrdType, Side, Tif } from "../../src/protocol/schema.js";
import { RISK_REJECTS } from "../../src/risk/codes.js";
import type { RestStack } from "../../src/venue/stack.js";
import { type Harness, next, startHarness, until } from "./harness.js";
import { otherAccount, ticksOf as ticks } from "./otherAccount.js";

const SPOT_CREATE = "POST /trade/api/v2/order";
const HFT_CREATE = "POST /v5/order/create";

describe("price band with reference prices from market data", () => {
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

  it("Spot: the public trade stream sets the reference; 50% of it is refused locally, in band is acked", async () => {
    const btc = t.inst("coinswitchx", "BTC/INR");
    expect(t.h.risk.referencePrice(btc)).toBe(0); // empty book, no trade yet
    // Someone else trades at 5,400,000 INR: the print on FETCH_TRADES_CS_PRO is the reference.
    const leg = { symbol: "BTC/INR", price: "5400000", quantity: "0.0001", exchange: "coinswitchx" };
    const grid = t.h.instruments.byId(btc)!.orderGrid;
    await other.client.createSpotOrder({ ...leg, side: "sell" }, grid);
    await other.client.createSpotOrder({ ...leg, side: "buy" }, grid);
    await until(() => t.h.risk.referencePrice(btc) === ticks(t, btc, 5_400_000), 3000, "Spot reference");

    const c = await t.client("band-spot");
    const before = t.h.sim!.counters.requests(SPOT_CREATE);
    const rej = next(c, "reject");
    const no = c.placeOrder({
      instrumentId: btc,
      side: Side.Buy,
      priceTicks: ticks(t, btc, 2_700_000),
      qtyLots: 10,
    });
    const r = await rej;
    expect(r).toMatchObject({ clOrdNo: no, code: CODES.RiskLimit.code, text: RISK_REJECTS.PRICE_BAND });
    expect(t.h.sim!.counters.requests(SPOT_CREATE)).toBe(before);

    const ack = next(c, "ack");
    const ok = c.placeOrder({
      instrumentId: btc,
      side: Side.Buy,
      priceTicks: ticks(t, btc, 5_300_000),
      qtyLots: 10,
    });
    expect((await ack).clOrdNo).toBe(ok);
    expect(t.h.sim!.counters.requests(SPOT_CREATE)).toBe(before + 1);
  });

  it("HFT: the tickers poll sets the reference; a buy at 50% of the bid is refused locally, in band is acked", async () => {
    const btc = t.inst("linear", "BTCUSDT");
    const tk = (
      await t.h.rest.client.call<{ list: { symbol: string; lastPrice: string }[] }>("hft.tickers", [
        ["category", "linear"],
        ["symbol", "BTCUSDT"],
      ])
    ).list[0]!;
    const last = Number(tk.lastPrice);
    expect(t.h.risk.referencePrice(btc)).toBeCloseTo(
      last / Number(t.h.instruments.byId(btc)!.inst.tickSize),
      6,
    );
    // The venue's best bid: someone else's resting buy just under the last price.
    await other.client.createHftOrder(
      {
        category: "linear",
        symbol: "BTCUSDT",
        side: "buy",
        orderType: "limit",
        qty: "0.001",
        price: String(last - 10),
        positionIdx: 0,
        timeInForce: "GTC",
      },
      t.h.instruments.byId(btc)!.orderGrid,
    );
    const c = await t.client("band-hft");
    const before = t.h.sim!.counters.requests(HFT_CREATE);
    const rej = next(c, "reject");
    const no = c.placeOrder({
      instrumentId: btc,
      side: Side.Buy,
      priceTicks: ticks(t, btc, (last - 10) / 2),
      qtyLots: 1,
    });
    expect(await rej).toMatchObject({
      clOrdNo: no,
      code: CODES.RiskLimit.code,
      text: RISK_REJECTS.PRICE_BAND,
    });
    expect(t.h.sim!.counters.requests(HFT_CREATE)).toBe(before);

    const ack = next(c, "ack");
    const ok = c.placeOrder({
      instrumentId: btc,
      side: Side.Buy,
      priceTicks: ticks(t, btc, last * 0.95),
      qtyLots: 1,
    });
    expect((await ack).clOrdNo).toBe(ok);
    expect(t.h.sim!.counters.requests(HFT_CREATE)).toBe(before + 1);
    // Polled, not per order: a handful of tickers requests, none per order.
    expect(t.h.referencePrices.stats.hftPolls).toBeGreaterThan(0);
  });

  it("HFT: a market order is valued at the reference price, so the value cap applies to it", async () => {
    const btc = t.inst("linear", "BTCUSDT");
    const c = await t.client("cap-hft");
    const before = t.h.sim!.counters.requests(HFT_CREATE);
    // 0.2 BTC at ~64,000 USDT ≈ 12,800 USDT, above the 10,000 USDT default cap.
    const lots = Math.round(0.2 / Number(t.h.instruments.byId(btc)!.inst.qtyStep));
    const rej = next(c, "reject");
    c.placeOrder({ instrumentId: btc, side: Side.Buy, ordType: OrdType.Market, tif: Tif.IOC, qtyLots: lots });
    expect(await rej).toMatchObject({ code: CODES.RiskLimit.code, text: RISK_REJECTS.NOTIONAL_ABOVE_MAX });
    expect(t.h.sim!.counters.requests(HFT_CREATE)).toBe(before);
  });
});

describe("Spot reference from the order-book stream (no trade yet)", () => {
  let t: Harness;
  beforeAll(async () => {
    // The simulator's synthetic quotes (not stepped): the book snapshot sent on subscribe has both sides.
    t = await startHarness({ "sim.syntheticMarket": true });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("the reference is the mid of the venue's best bid and ask", async () => {
    const btc = t.inst("coinswitchx", "BTC/INR");
    const d = await t.h.rest.client.call<{ bids: [string, string][]; asks: [string, string][] }>(
      "spot.depth",
      [
        ["exchange", "coinswitchx"],
        ["symbol", "BTC/INR"],
      ],
    );
    const mid = (Number(d.bids[0]![0]) + Number(d.asks[0]![0])) / 2;
    await until(() => t.h.risk.referencePrice(btc) > 0, 3000, "Spot reference");
    expect(t.h.risk.referencePrice(btc)).toBeCloseTo(
      mid / Number(t.h.instruments.byId(btc)!.inst.tickSize),
      6,
    );
    const c = await t.client("book-ref");
    const rej = next(c, "reject");
    c.placeOrder({ instrumentId: btc, side: Side.Sell, priceTicks: ticks(t, btc, mid * 1.5), qtyLots: 10 });
    expect((await rej).text).toBe(RISK_REJECTS.PRICE_BAND);
  });

  it("the newer of the last trade and the mid wins", async () => {
    const btc = t.inst("coinswitchx", "BTC/INR");
    const depth = async () => {
      const d = await t.h.rest.client.call<{ bids: [string, string][]; asks: [string, string][] }>(
        "spot.depth",
        [
          ["exchange", "coinswitchx"],
          ["symbol", "BTC/INR"],
        ],
      );
      return { bid: Number(d.bids[0]![0]), ask: Number(d.asks[0]![0]) };
    };
    const tick = Number(t.h.instruments.byId(btc)!.inst.tickSize);
    // Someone sells into the best bid: the print is newer than the book the gateway holds.
    const { bid } = await depth();
    const other = otherAccount(t);
    try {
      await other.client.createSpotOrder(
        { symbol: "BTC/INR", side: "sell", price: String(bid), quantity: "0.0001", exchange: "coinswitchx" },
        t.h.instruments.byId(btc)!.orderGrid,
      );
      await until(() => t.h.risk.referencePrice(btc) === bid / tick, 3000, "trade as reference");
      // The market moves and the venue pushes a new book: its mid is newer than the print.
      t.h.sim!.market.step(3);
      const now = await depth();
      const mid = (now.bid + now.ask) / 2;
      await until(() => Math.abs(t.h.risk.referencePrice(btc) - mid / tick) < 1e-6, 3000, "mid as reference");
    } finally {
      await other.stop();
    }
  });
});

/** No market data at all: every instrument is without a reference price. */
const NO_FEEDS = { "risk.spotReferenceStream": false, "risk.hftReferencePollMs": 0 };

describe("no reference price, default policy: market refused, limit allowed and counted", () => {
  let t: Harness;
  beforeAll(async () => {
    t = await startHarness(NO_FEEDS);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("HFT market order is refused with the no-reference reason; nothing reaches the venue", async () => {
    const btc = t.inst("linear", "BTCUSDT");
    expect(t.h.risk.referencePrice(btc)).toBe(0);
    const c = await t.client("noref-default-hft");
    const before = t.h.sim!.counters.requests(HFT_CREATE);
    const rej = next(c, "reject");
    c.placeOrder({ instrumentId: btc, side: Side.Buy, ordType: OrdType.Market, tif: Tif.IOC, qtyLots: 1 });
    expect(await rej).toMatchObject({ code: CODES.RiskLimit.code, text: RISK_REJECTS.NO_REFERENCE_PRICE });
    expect(t.h.sim!.counters.requests(HFT_CREATE)).toBe(before);
  });

  it("Spot limit order far from any price is acked and counted as unreferenced", async () => {
    const btc = t.inst("coinswitchx", "BTC/INR");
    const c = await t.client("noref-default-spot");
    const ack = next(c, "ack");
    c.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: ticks(t, btc, 2_700_000), qtyLots: 10 });
    await ack;
    expect(t.h.risk.stats.unreferencedLimit).toBe(1);
    expect(t.h.metrics.render()).toMatch(/hftgate_risk_unreferenced_orders_total\{type="limit"\} 1/);
  });
});

describe("no reference price, flipped policy: market allowed, limit refused", () => {
  let t: Harness;
  beforeAll(async () => {
    t = await startHarness({
      ...NO_FEEDS,
      "risk.noReferenceMarket": "allow",
      "risk.noReferenceLimit": "refuse",
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("HFT market order goes to the venue", async () => {
    const btc = t.inst("linear", "BTCUSDT");
    const c = await t.client("noref-flip-hft");
    const before = t.h.sim!.counters.requests(HFT_CREATE);
    const ack = next(c, "ack");
    c.placeOrder({ instrumentId: btc, side: Side.Buy, ordType: OrdType.Market, tif: Tif.IOC, qtyLots: 1 });
    await ack;
    expect(t.h.sim!.counters.requests(HFT_CREATE)).toBe(before + 1);
    expect(t.h.risk.stats.unreferencedMarket).toBe(1);
  });

  it("Spot limit order is refused with the no-reference reason; nothing reaches the venue", async () => {
    const btc = t.inst("coinswitchx", "BTC/INR");
    const c = await t.client("noref-flip-spot");
    const before = t.h.sim!.counters.requests(SPOT_CREATE);
    const rej = next(c, "reject");
    c.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: ticks(t, btc, 5_400_000), qtyLots: 10 });
    expect(await rej).toMatchObject({ code: CODES.RiskLimit.code, text: RISK_REJECTS.NO_REFERENCE_PRICE });
    expect(t.h.sim!.counters.requests(SPOT_CREATE)).toBe(before);
  });
});
