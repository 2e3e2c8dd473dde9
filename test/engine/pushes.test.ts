import { afterEach, describe, expect, it, vi } from "vitest";
import { InstrumentBook } from "../../src/engine/instruments.js";
import { Coalescer, PositionLedger } from "../../src/engine/pushes.js";
import type { V5Position } from "../../src/rest/wire.js";
import { BTCUSDT } from "../fixtures/instruments.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("Coalescer", () => {
  it("sends the first change at once, then at most one per key per interval with the last value", () => {
    vi.useFakeTimers();
    const out: [string, number][] = [];
    const c = new Coalescer<number>(100, (k, v) => out.push([k, v]));
    c.push("BTC", 1);
    c.push("ETH", 10);
    expect(out).toEqual([
      ["BTC", 1],
      ["ETH", 10],
    ]);
    for (let i = 2; i <= 50; i++) c.push("BTC", i); // a burst of fills
    c.push("ETH", 11);
    expect(out.length).toBe(2);
    vi.advanceTimersByTime(100);
    expect(out.slice(2)).toEqual([
      ["BTC", 50],
      ["ETH", 11],
    ]);
    vi.advanceTimersByTime(1000);
    expect(out.length).toBe(4); // nothing new waiting: nothing sent
    c.push("BTC", 51); // quiet for longer than the interval: immediate again
    expect(out.at(-1)).toEqual(["BTC", 51]);
    c.push("BTC", 52);
    c.close();
    vi.advanceTimersByTime(1000);
    expect(out.at(-1)).toEqual(["BTC", 51]); // closed: the waiting value is dropped
  });
});

describe("PositionLedger", () => {
  const book = new InstrumentBook();
  const e = book.add(BTCUSDT);
  const find = (s: string) => (s === "BTCUSDT" ? e : undefined);

  it("fills: average entry on increase, realised PnL on reduction, entry resets on a flip", () => {
    const l = new PositionLedger();
    const k = l.fill(e, 0, true, 4, 640_000); // long 4 @ 64000
    l.fill(e, 0, true, 4, 641_000); // long 8 @ 64050
    let b = l.body(k, () => e)!;
    expect(b.sizeLots).toBe(8);
    expect(b.entryPxMantissa * 10 ** b.entryPxExponent).toBeCloseTo(64050, 6);
    l.fill(e, 0, false, 10, 642_000); // close 8 (+8 × 0.001 × 150 = 1.2), open short 2 @ 64200
    b = l.body(k, () => e)!;
    expect(b.sizeLots).toBe(-2);
    expect(b.entryPxMantissa * 10 ** b.entryPxExponent).toBeCloseTo(64200, 6);
    expect(b.realisedPnlMantissa * 10 ** b.pnlExponent).toBeCloseTo(1.2, 8);
    expect(b.instrumentId).toBe(e.inst.id);
    expect(b.positionIdx).toBe(0);
  });

  it("a snapshot replaces the ledger, reports only changes, and flattens positions it no longer lists", () => {
    const l = new PositionLedger();
    const row: V5Position = {
      symbol: "BTCUSDT",
      positionIdx: 0,
      side: "Sell",
      size: "0.003",
      avgPrice: "63000.5",
      positionValue: "189",
      leverage: "10",
      unrealisedPnl: "0",
      cumRealisedPnl: "-1.25",
      updatedTime: "1",
    };
    const k = l.fill(e, 0, true, 1, 640_000);
    expect(l.snapshot([row, { ...row, symbol: "NOPE" }], find)).toEqual([k]);
    const b = l.body(k, () => e)!;
    expect(b.sizeLots).toBe(-3);
    expect(b.entryPxMantissa * 10 ** b.entryPxExponent).toBeCloseTo(63000.5, 6);
    expect(b.realisedPnlMantissa * 10 ** b.pnlExponent).toBeCloseTo(-1.25, 8);
    expect(l.snapshot([row], find)).toEqual([]); // unchanged
    expect(l.snapshot([], find)).toEqual([k]); // gone from the list: flat
    expect(l.body(k, () => e)!.sizeLots).toBe(0);
  });
});
