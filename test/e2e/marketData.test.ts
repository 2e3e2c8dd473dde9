/**
 * Market data for strategies on the Spot surface, end to end over real sockets: simulator (public
 * Socket.IO streams) → gateway (one venue subscription per instrument, fan-out) → TypeScript clients.
 * Subscribe answers with a snapshot then updates in mdSeq order; two sessions share one venue
 * subscription (counted at the simulator); unsubscribe ends it; a dropped venue stream gives Stale,
 * then a new snapshot, never a silent gap; bad requests get typed rejects and change nothing.
 * The simulator runs on manual time, so a minute can pass for the venue's one-minute candle.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SubscribeRejectedError } from "../../src/client/index.js";
import { CODES, MdFlags, MdStatus } from "../../src/protocol/schema.js";
import type { RestStack } from "../../src/venue/stack.js";
import { type Harness, recorder, startHarness, until } from "./harness.js";
import { lotsOf, otherAccount, ticksOf } from "./otherAccount.js";

type Rec = ReturnType<typeof recorder>;
const MD = new Set(["TopOfBook", "Trade", "Candle", "MarketDataStatus"]);
const md = (r: Rec, id: number) => r.filter((m) => MD.has(m.name) && m.body.instrumentId === id);

/** The mdSeq rule: after a Live status, each update is the last + 1; a snapshot restarts the count. */
function checkSequence(msgs: Rec): void {
  let last: number | undefined;
  for (const m of msgs) {
    const b = m.body as { mdSeq: number; flags?: number; status?: number };
    if (m.name === "MarketDataStatus") {
      last = b.status === MdStatus.Live ? b.mdSeq : undefined;
      continue;
    }
    if (((b.flags ?? 0) & MdFlags.Snapshot) !== 0) continue;
    expect(last, `${m.name} ${b.mdSeq} outside a live stream`).toBeDefined();
    expect(b.mdSeq).toBe(last! + 1);
    last = b.mdSeq;
  }
}

describe("market data for strategies (Spot)", () => {
  let t: Harness;
  let other: RestStack;
  let btc: number;
  const leg = { symbol: "BTC/INR", exchange: "coinswitchx", quantity: "0.0002" };

  /** Someone else trades at `price`: a resting sell, then a crossing buy. */
  async function print(price: number): Promise<void> {
    const grid = t.h.instruments.byId(btc)!.orderGrid;
    await other.client.createSpotOrder({ ...leg, price: String(price), side: "sell" }, grid);
    await other.client.createSpotOrder({ ...leg, price: String(price), side: "buy" }, grid);
  }

  beforeAll(async () => {
    // Risk does not hold the Spot feed here, so the venue subscription is the strategies' alone.
    t = await startHarness(
      { "risk.spotReferenceStream": false }, // No synthetic aggressor: a market step's own print would start the next candle before the push.
      { sim: { timeMode: "manual", market: { aggressorProbability: 0 } } },
    );
    other = otherAccount(t);
    btc = t.inst("coinswitchx", "BTC/INR");
    t.h.sim!.market.step(); // synthetic quotes in the book
  });
  afterAll(async () => {
    await other?.stop();
    await t?.close();
  });

  it("subscribe: snapshot, then updates in sequence; a second session shares the venue subscription", async () => {
    expect(t.h.sim!.counters.publicSubscribers("coinswitchx", "BTC,INR")).toBe(0);
    const a = await t.client("md-a");
    const ra = recorder(a);
    const gaps: unknown[] = [];
    a.on("mdGap", (...g) => gaps.push(g));
    // The first subscriber finds the instrument not live yet: Stale now, the snapshot when the book comes.
    const first = await a.subscribe(btc);
    expect([MdStatus.Live, MdStatus.Stale]).toContain(first.status);
    await until(() =>
      md(ra, btc).some((m) => m.name === "MarketDataStatus" && m.body.status === MdStatus.Live),
    );
    const snap = md(ra, btc).find((m) => m.name === "TopOfBook")!;
    expect(snap.body.flags).toBe(MdFlags.Snapshot);
    expect(snap.body.bidPriceTicks as number).toBeGreaterThan(0);
    expect(snap.body.askPriceTicks as number).toBeGreaterThan(snap.body.bidPriceTicks as number);
    expect(t.h.sim!.counters.publicSubscribers("coinswitchx", "BTC,INR")).toBe(1);

    const b = await t.client("md-b");
    const rb = recorder(b);
    const second = await b.subscribe(btc);
    expect(second.status).toBe(MdStatus.Live); // already live: the snapshot came before this answer
    expect(md(rb, btc)[0]!.body.flags).toBe(MdFlags.Snapshot);
    expect(t.h.sim!.counters.publicSubscribers("coinswitchx", "BTC,INR")).toBe(1);
    expect(t.h.marketData.hub.holders(btc)).toBe(1);

    await print(5_400_000);
    const px = ticksOf(t, btc, 5_400_000);
    for (const r of [ra, rb])
      await until(
        () => md(r, btc).some((m) => m.name === "Trade" && m.body.priceTicks === px),
        3000,
        "trade",
      );
    t.h.sim!.market.step(); // the venue's next book snapshot (new synthetic quotes)
    await until(() => md(rb, btc).filter((m) => m.name === "TopOfBook").length >= 2, 3000, "book update");
    const tradeA = md(ra, btc).find((m) => m.name === "Trade" && m.body.flags === 0)!;
    const tradeB = md(rb, btc).find((m) => m.name === "Trade" && m.body.flags === 0)!;
    expect(tradeA.body).toEqual(tradeB.body); // one venue print, one mdSeq, for every subscriber
    expect(tradeA.body.qtyLots).toBe(lotsOf(t, btc, 0.0002));
    checkSequence(md(ra, btc));
    checkSequence(md(rb, btc));
    expect(gaps).toEqual([]);

    // Unsubscribe: A stops hearing, B goes on, the venue subscription stays until the last one leaves.
    expect((await a.unsubscribe(btc)).status).toBe(MdStatus.Unsubscribed);
    const seenA = md(ra, btc).length;
    const tradesB = md(rb, btc).filter((m) => m.name === "Trade").length;
    await print(5_400_100);
    await until(() => md(rb, btc).filter((m) => m.name === "Trade").length > tradesB, 3000, "B's trade");
    expect(md(ra, btc).length).toBe(seenA);
    expect(t.h.sim!.counters.publicSubscribers("coinswitchx", "BTC,INR")).toBe(1);
    expect((await b.unsubscribe(btc)).status).toBe(MdStatus.Unsubscribed);
    await until(
      () => t.h.sim!.counters.publicSubscribers("coinswitchx", "BTC,INR") === 0,
      3000,
      "venue unsubscribe",
    );
    expect(t.h.marketData.hub.holders(btc)).toBe(0);
  });

  it("bad requests: unknown instrument and an instrument without a feed get typed rejects", async () => {
    const c = await t.client("md-bad");
    const e1 = await c.subscribe(99_999).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(SubscribeRejectedError);
    expect((e1 as SubscribeRejectedError).code).toBe(CODES.UnknownInstrument.code);
    // HFT market data comes from the venue's NATS subjects; this gateway has none (sim.nats off).
    const hft = t.inst("linear", "BTCUSDT");
    const e2 = await c.subscribe(hft).catch((e: unknown) => e);
    expect((e2 as SubscribeRejectedError).code).toBe(CODES.MarketDataUnavailable.code);
    expect(t.h.marketData.hub.holders(hft)).toBe(0);
    // The session is unharmed: a good subscription still works.
    await c.subscribe(btc);
    await until(() => t.h.marketData.hub.state(btc)?.live === true);
    await c.unsubscribe(btc);
  });

  it("a dropped venue stream: Stale, then a new snapshot and Live; no silent gap", async () => {
    const c = await t.client("md-drop");
    const r = recorder(c);
    const gaps: unknown[] = [];
    c.on("mdGap", (...g) => gaps.push(g));
    await c.subscribe(btc);
    await until(() =>
      md(r, btc).some((m) => m.name === "MarketDataStatus" && m.body.status === MdStatus.Live),
    );
    const before = md(r, btc).length;
    expect(t.h.sim!.faults.disconnectStreams()).toBeGreaterThan(0);
    // The gateway reconnects, subscribes again, the venue sends its book: a new snapshot.
    await until(
      () =>
        md(r, btc)
          .slice(before)
          .some((m) => m.name === "MarketDataStatus" && m.body.status === MdStatus.Live),
      10_000,
      "recovery",
    );
    const after = md(r, btc).slice(before);
    const stale = after.findIndex((m) => m.name === "MarketDataStatus" && m.body.status === MdStatus.Stale);
    const snap = after.findIndex((m) => m.name === "TopOfBook" && m.body.flags === MdFlags.Snapshot);
    const live = after.findIndex((m) => m.name === "MarketDataStatus" && m.body.status === MdStatus.Live);
    expect(stale).toBeGreaterThanOrEqual(0);
    expect(snap).toBeGreaterThan(stale);
    expect(live).toBeGreaterThan(snap);
    // Nothing between Stale and the snapshot; the snapshot's mdSeq is at least the last one seen.
    expect(after.slice(stale + 1, snap).filter((m) => m.name !== "MarketDataStatus")).toEqual([]);
    expect(after[snap]!.body.mdSeq as number).toBeGreaterThanOrEqual(after[stale]!.body.mdSeq as number);
    const trades = md(r, btc).filter((m) => m.name === "Trade").length;
    await print(5_400_200);
    await until(
      () => md(r, btc).filter((m) => m.name === "Trade").length > trades,
      3000,
      "trade after recovery",
    );
    checkSequence(md(r, btc));
    expect(gaps).toEqual([]);
    await c.unsubscribe(btc);
  });

  it("the venue's one-minute candle is relayed in ticks and lots", async () => {
    const c = await t.client("md-candle");
    const r = recorder(c);
    await c.subscribe(btc);
    await until(() =>
      md(r, btc).some((m) => m.name === "MarketDataStatus" && m.body.status === MdStatus.Live),
    );
    t.h.sim!.advance(60_000); // a fresh minute
    await print(5_401_000);
    await print(5_402_000);
    t.h.sim!.advance(60_000); // that minute is over: the venue pushes its candle at the next step
    t.h.sim!.market.step();
    await until(() => md(r, btc).some((m) => m.name === "Candle" && m.body.flags === 0), 3000, "candle");
    const candle = md(r, btc).find((m) => m.name === "Candle" && m.body.flags === 0)!.body;
    // The candle is the minute's prints as the strategy saw them (the crossing buys may have met
    // synthetic quotes first, so the prices come from the Trade messages, not from the orders).
    const start = candle.startMs as number;
    const prints = md(r, btc)
      .filter((m) => m.name === "Trade" && m.body.flags === 0)
      .map((m) => m.body as { priceTicks: number; qtyLots: number; venueTimeMs: number })
      .filter((x) => x.venueTimeMs >= start && x.venueTimeMs < start + 60_000);
    expect(prints.length).toBeGreaterThanOrEqual(2);
    const px = prints.map((x) => x.priceTicks);
    expect(candle).toMatchObject({
      openTicks: px[0],
      highTicks: Math.max(...px),
      lowTicks: Math.min(...px),
      closeTicks: px[px.length - 1],
      volumeLots: prints.reduce((a, x) => a + x.qtyLots, 0),
    });
    expect(start % 60_000).toBe(0);
    checkSequence(md(r, btc));
  });
});
