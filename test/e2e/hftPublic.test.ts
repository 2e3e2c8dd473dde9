/**
 * HFT public market data over NATS, end to end: the simulator publishes `ltp`, `depth-update` and
 * `ticker` from its books through a real nats-server; the gateway subscribes them without a
 * credential. The `ltp` stream sets the reference price the price band uses while the tickers poll
 * is idle; a killed server makes the poll take over and the strategies' market data go Stale, then
 * a new snapshot once the stream is back; HFT candles are built by the gateway from the prints.
 * Skipped when no nats-server binary is installed (CI installs it).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { NatsGrant } from "../../sim/index.js";
import { findNatsServer, NatsServer } from "../../sim/index.js";
import { CODES, MdFlags, MdStatus, Side } from "../../src/protocol/schema.js";
import { RISK_REJECTS } from "../../src/risk/codes.js";
import { makeGrid } from "../../src/venue/orderFields.js";
import type { RestStack } from "../../src/venue/stack.js";
import { type Harness, next, recorder, startHarness, until } from "./harness.js";
import { otherAccount } from "./otherAccount.js";

const BIN = findNatsServer();
const PUBLISHER = { user: "sim-publisher", password: "e2e-publisher-pw-0043" };
const HFT_CREATE = "POST /v5/order/create";

let t: Harness | undefined;
let server: NatsServer | undefined;
let other: RestStack | undefined;

afterEach(async () => {
  await other?.stop();
  await t?.close();
  await server?.stop();
  t = server = other = undefined;
});

async function setup(
  overrides: Record<string, unknown>,
  sim: Record<string, unknown> = {},
): Promise<Harness> {
  server = await NatsServer.start({ users: [PUBLISHER], bin: BIN });
  const srv = server;
  const authority = (users: NatsGrant[]) => srv.setUsers(users);
  t = await startHarness(overrides, { sim: { nats: { url: srv.wsUrl, ...PUBLISHER, authority }, ...sim } });
  other = otherAccount(t);
  return t;
}

/** Someone else's HFT limit order (BTCUSDT: tick 0.1, step 0.001; ETHUSDT: tick 0.01, step 0.01). */
const hft = (side: "buy" | "sell", price: string, qty = "0.002", symbol = "BTCUSDT") =>
  other!.client.createHftOrder(
    { category: "linear", symbol, side, orderType: "limit", qty, price, positionIdx: 0, timeInForce: "GTC" },
    symbol === "BTCUSDT" ? makeGrid("0.1", "0.001") : makeGrid("0.01", "0.01"),
  );

/**
 * Every HFT instrument's public feed is live once a depth message arrived for it: a far resting bid
 * on each book moves its top, which makes the simulator publish one.
 */
async function allLive(h: Harness): Promise<void> {
  const ids = h.h.instruments.all().filter((i) => i.surface === "hft");
  let n = 0;
  await until(
    () => {
      if (ids.every((i) => h.h.marketData.hub.state(i.id)?.live === true)) return true;
      if (n++ % 20 === 0) {
        void hft("buy", `${40_000 + n}.0`, "0.001");
        void hft("buy", `${1_500 + n}.00`, "0.01", "ETHUSDT");
      }
      return false;
    },
    10_000,
    "HFT public stream live",
  );
}

describe.skipIf(BIN === undefined)("HFT public market data over NATS, end to end", () => {
  it("the ltp stream sets the reference price the price band uses; the tickers poll stays idle", async () => {
    const h = await setup({ "risk.hftReferencePollMs": 100 });
    const btc = h.inst("linear", "BTCUSDT");
    const rp = h.h.referencePrices;
    await allLive(h);
    const polls = rp.stats.hftPolls;
    // Someone trades at 70,000: far from the simulator's start price, so only the print can say it.
    await hft("sell", "70000.0");
    await hft("buy", "70000.0");
    await until(() => h.h.risk.referencePrice(btc) === 700_000, 3000, "reference from ltp");
    expect(rp.stats.hftStreamUpdates).toBeGreaterThan(0);
    await until(() => rp.stats.hftStreamLive >= 3, 3000, "poll rounds skipped");
    expect(rp.stats.hftPolls).toBe(polls);

    const c = await h.client("band-hft");
    const before = h.h.sim!.counters.requests(HFT_CREATE);
    const rej = next(c, "reject");
    const far = c.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: 350_000, qtyLots: 1 });
    expect(await rej).toMatchObject({
      clOrdNo: far,
      code: CODES.RiskLimit.code,
      text: RISK_REJECTS.PRICE_BAND,
    });
    expect(h.h.sim!.counters.requests(HFT_CREATE)).toBe(before);
    const ack = next(c, "ack");
    const near = c.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: 690_000, qtyLots: 1 });
    expect((await ack).clOrdNo).toBe(near);
    expect(h.h.sim!.counters.requests(HFT_CREATE)).toBe(before + 1);
  });

  it("strategies: snapshot then updates in sequence, built candles; server killed → Stale and the poll; back → new snapshot", async () => {
    const h = await setup(
      { "risk.hftReferencePollMs": 100, "streams.staleMs": 2_000 },
      { timeMode: "manual", market: { aggressorProbability: 0 } },
    );
    const btc = h.inst("linear", "BTCUSDT");
    await allLive(h);
    const c = await h.client("md-hft");
    const r = recorder(c);
    const gaps: unknown[] = [];
    c.on("mdGap", (...g) => gaps.push(g));
    expect((await c.subscribe(btc)).status).toBe(MdStatus.Live);
    expect(r.find((m) => m.name === "TopOfBook")!.body.flags).toBe(MdFlags.Snapshot);

    // Two prints in one minute, then a print in the next minute closes the first one's candle. Two
    // minutes ahead first: the stream's connect marks its local minute as a gap (feedUp), and the
    // venue's clock starts from the local one; one minute ahead could still be that minute when the
    // local clock turned a minute between the venue's start and the connect (an Incomplete candle).
    h.h.sim!.advance(120_000);
    await hft("sell", "64000.0");
    await hft("buy", "64000.0");
    await hft("sell", "64010.0", "0.001");
    await hft("buy", "64010.0", "0.001");
    h.h.sim!.advance(60_000);
    await hft("sell", "64020.0", "0.001");
    await hft("buy", "64020.0", "0.001");
    await until(() => r.some((m) => m.name === "Candle"), 3000, "built candle");
    const candle = r.find((m) => m.name === "Candle")!.body;
    expect(candle).toMatchObject({
      flags: MdFlags.Built,
      openTicks: 640_000,
      highTicks: 640_100,
      lowTicks: 640_000,
      closeTicks: 640_100,
      volumeLots: 3,
      trades: 2,
    });
    const trades = r.filter((m) => m.name === "Trade").map((m) => m.body.priceTicks);
    expect(trades).toEqual([640_000, 640_100, 640_200]);

    // Server killed: Stale to the strategy, the tickers poll takes over for the reference price.
    const rp = h.h.referencePrices;
    const idle = rp.stats.hftStreamLive;
    const polls = rp.stats.hftPolls;
    await until(() => rp.stats.hftStreamLive >= idle + 3, 3000, "poll rounds skipped while live");
    expect(rp.stats.hftPolls).toBe(polls);
    const seen = r.length;
    await server!.kill();
    await until(
      () => r.slice(seen).some((m) => m.name === "MarketDataStatus" && m.body.status === MdStatus.Stale),
      10_000,
      "Stale",
    );
    await until(() => h.h.referencePrices.stats.hftPolls > polls, 3000, "poll fallback");
    // Back: the gateway reconnects and subscribes again; the next depth message is a new snapshot.
    await server!.restart();
    await allLive(h);
    await until(
      () => r.slice(seen).some((m) => m.name === "MarketDataStatus" && m.body.status === MdStatus.Live),
      10_000,
      "Live again",
    );
    const after = r.slice(seen).filter((m) => m.name !== "MarketDataStatus");
    expect(after[0]!.name).toBe("TopOfBook");
    expect((after[0]!.body.flags as number) & MdFlags.Snapshot).toBe(MdFlags.Snapshot);
    expect(gaps).toEqual([]);
  });
});
