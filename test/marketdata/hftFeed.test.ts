/**
 * The HFT public payload boundary and the candle builder, on known inputs: assumed field names and
 * their aliases become ticks and lots; off-grid, malformed and untimed messages are dropped and
 * counted; candles are bucketed by venue minute, closed by a later print or the grace, flagged
 * Built, and Incomplete across a feed gap.
 */
import { describe, expect, it } from "vitest";
import { CandleBuilder } from "../../src/marketdata/candles.js";
import { HftPublicStream } from "../../src/marketdata/hftFeed.js";
import type { CandleRec, MdSink } from "../../src/marketdata/types.js";
import { MdFlags } from "../../src/protocol/schema.js";
import { BTCUSDT } from "../fixtures/instruments.js";

const BTC = { id: 7, ...BTCUSDT };
const T = 1_763_700_000_000;

function rig() {
  const got: unknown[][] = [];
  const sink: MdSink = {
    book: (...a) => got.push(["book", ...a]),
    trade: (...a) => got.push(["trade", ...a]),
    venueCandle: (id, c) => got.push(["candle", id, c]),
    ticker: (...a) => got.push(["ticker", ...a]),
    feedDown: () => {},
    feedUp: () => {},
  };
  const s = new HftPublicStream({ url: "ws://127.0.0.1:1", instruments: [BTC], sink });
  // Held without connecting: the subjects are only recorded (start() is not called by this rig).
  (s as unknown as { held: Set<number> }).held.add(7);
  const feed = (subject: string, body: unknown) =>
    (s as unknown as { onMessage(s: string, d: Uint8Array): void }).onMessage(
      subject,
      new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body)),
    );
  return { s, got, feed };
}

describe("HFT public payloads [assumed] → ticks and lots", () => {
  it("ltp, depth-update and ticker with the simulator's fields and with aliases", () => {
    const { s, got, feed } = rig();
    feed("v1.f.public.futures.ltp.BTC/USDT", { p: "64000.5", q: "0.012", S: "Sell", E: T });
    feed("v1.f.public.futures.ltp.BTC/USDT", {
      data: [{ price: 64001, size: "0.001", m: false, ts: T + 1 }],
    });
    feed("v1.f.public.futures.depth-update.BTC/USDT", { E: T, b: [["63999.9", "1.5"]], a: [] });
    feed("v1.f.public.futures.depth-update.BTC/USDT", {
      ts: T,
      bids: [{ p: "1.0", q: "0.001" }],
      asks: [["2.0", "0.002"]],
    });
    feed("v1.f.ex1.public.futures.ticker.BTC/USDT", { t: 0, e: "COINSWITCHX", lastPrice: "64000.0", E: T });
    expect(got).toEqual([
      ["trade", 7, 640_005, 12, 2, T],
      ["trade", 7, 640_010, 1, 1, T + 1],
      ["book", 7, 639_999, 1500, 0, 0, T],
      ["book", 7, 10, 1, 20, 2, T],
      ["ticker", 7, 640_000, T],
    ]);
    expect(s.stats).toMatchObject({ ltp: 2, depth: 2, ticker: 1, malformed: 0 });
  });

  it("off-grid, malformed, untimed and foreign-market messages change nothing", () => {
    const { s, got, feed } = rig();
    feed("v1.f.public.futures.ltp.BTC/USDT", { p: "64000.55", q: "0.01", E: T }); // off the tick grid
    feed("v1.f.public.futures.ltp.BTC/USDT", { p: "64000.5", q: "0.01" }); // no time
    feed("v1.f.public.futures.ltp.BTC/USDT", "not json");
    feed("v1.f.public.futures.depth-update.BTC/USDT", { E: T, b: "x", a: [] });
    feed("v1.f.ex1.public.futures.ticker.BTC/USDT", { t: 0, lastPrice: "1.0" }); // t: 0 is no time
    feed("v1.f.public.futures.ltp.ETH/USDT", { p: "3300", q: "1", E: T }); // not held
    expect(got).toEqual([]);
    expect(s.stats.malformed).toBe(5);
  });
});

describe("CandleBuilder (built from prints)", () => {
  const M = T - (T % 60_000);
  it("buckets by venue minute; a later minute's print closes the candle; grace closes the last", () => {
    const b = new CandleBuilder(2_000);
    expect(b.trade(100, 1, M + 1)).toBeUndefined();
    expect(b.trade(105, 2, M + 30_000)).toBeUndefined();
    expect(b.trade(99, 3, M + 59_999)).toBeUndefined();
    const c = b.trade(101, 1, M + 60_000) as CandleRec;
    expect(c).toEqual({
      startMs: M,
      open: 100,
      high: 105,
      low: 99,
      close: 99,
      volume: 6,
      trades: 3,
      flags: MdFlags.Built,
    });
    expect(b.trade(50, 1, M + 10)).toBeUndefined(); // a late print for a closed minute
    expect(b.lateTrades).toBe(1);
    expect(b.due(M + 120_000 + 1_999)).toBeUndefined();
    expect(b.due(M + 120_000 + 2_000)).toMatchObject({
      startMs: M + 60_000,
      open: 101,
      close: 101,
      trades: 1,
    });
  });

  it("a feed gap marks the open candle and the candle of the reconnect minute Incomplete", () => {
    const b = new CandleBuilder(0);
    b.trade(100, 1, M + 5);
    b.gap(M + 20_000); // down
    b.gap(M + 70_000); // back in the next minute
    const c = b.trade(100, 1, M + 75_000)!;
    expect(c.flags).toBe(MdFlags.Built | MdFlags.Incomplete);
    expect(b.due(M + 120_000)!.flags).toBe(MdFlags.Built | MdFlags.Incomplete);
    b.trade(100, 1, M + 125_000);
    expect(b.due(M + 180_000)!.flags).toBe(MdFlags.Built);
  });
});
