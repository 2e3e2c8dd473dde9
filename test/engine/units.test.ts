import { describe, expect, it } from "vitest";
import { healthReply, metricsReply } from "../../src/engine/health.js";
import {
  hftInstruments,
  InstrumentBook,
  InstrumentError,
  pow10Step,
  StepFormatter,
  spotInstruments,
} from "../../src/engine/instruments.js";
import { parseOrderTag } from "../../src/engine/orderReplay.js";
import { balanceBody, CANCEL_REASON, fillBody, RISK_TO_CODE, WIRE_STATUS } from "../../src/engine/wireMap.js";
import { STATUS_COUNT } from "../../src/orders/index.js";
import { CancelRejectReason, CODES, OrderStatus } from "../../src/protocol/schema.js";
import { RISK_REJECTS } from "../../src/risk/codes.js";
import { formatDec, fromSteps, parseDec } from "../../src/util/decimal.js";

describe("StepFormatter", () => {
  it("formats multiples of a step exactly like the decimal library", () => {
    for (const step of ["1", "0.1", "0.01", "0.00001", "0.5", "25", "0.0025"]) {
      const f = new StepFormatter(step);
      for (const n of [1, 2, 7, 10, 99, 100, 12345, 5_400_000, 99_999_999]) {
        expect(f.format(n)).toBe(formatDec(fromSteps(n, parseDec(step))));
      }
    }
  });
  it("refuses a bad step and a value beyond safe integers", () => {
    expect(() => new StepFormatter("0")).toThrow(InstrumentError);
    expect(() => new StepFormatter("abc")).toThrow();
    expect(() => new StepFormatter("7").format(2 ** 52)).toThrow(InstrumentError);
  });
});

describe("instruments from the venue", () => {
  it("Spot tradeInfo: tick = 10^-precision.quote, step = 10^-precision.base", () => {
    const defs = spotInstruments("c2c1", {
      "BTC/USDT": {
        quote: { min: "1", max: "100000" },
        precision: { base: 5, quote: 2, limit: 0 },
        active: true,
      },
      "ETH/USDT": { quote: { min: "1", max: "100000" }, precision: { base: 4, quote: 0, limit: 0 } },
    });
    expect(defs.map((d) => [d.symbol, d.tickSize, d.qtyStep, d.minNotional, d.base, d.quote])).toEqual([
      ["BTC/USDT", "0.01", "0.00001", "1", "BTC", "USDT"],
      ["ETH/USDT", "1", "0.0001", "1", "ETH", "USDT"],
    ]);
    expect(pow10Step(0)).toBe("1");
    expect(() => pow10Step(-1)).toThrow(InstrumentError);
    expect(() => spotInstruments("c2c1", { BTCUSDT: { precision: {} } as never })).toThrow(InstrumentError);
  });
  it("HFT instruments-info rows, sorted, status maps to active", () => {
    const row = (symbol: string, status: "Trading" | "Closed") => ({
      symbol,
      status,
      baseCoin: symbol.slice(0, 3),
      quoteCoin: "USDT",
      lotSizeFilter: { qtyStep: "0.001", minOrderQty: "0.001", maxOrderQty: "100", minNotionalValue: "5" },
      priceFilter: { tickSize: "0.1", minPrice: "0.1", maxPrice: "1000000" },
      leverageFilter: { minLeverage: "1", maxLeverage: "100", leverageStep: "0.01" },
    });
    const defs = hftInstruments("linear", [row("ETHUSDT", "Closed"), row("BTCUSDT", "Trading")]);
    expect(defs.map((d) => [d.symbol, d.active, d.maxQty])).toEqual([
      ["BTCUSDT", true, "100"],
      ["ETHUSDT", false, "100"],
    ]);
    const book = new InstrumentBook();
    const a = book.add(defs[0]!);
    const b = book.add(defs[1]!);
    expect([a.inst.id, b.inst.id]).toEqual([1, 2]);
    expect(book.add(defs[0]!)).toBe(a); // same key: not added twice
    const arr = book.all();
    expect(book.all()).toBe(arr); // identity stays while nothing changes (gateway cache)
    expect(book.find("hft", "linear", "ETHUSDT")).toBe(b);
    expect(book.byKey("hft:linear:BTCUSDT")).toBe(a);
  });
});

describe("wire mapping tables", () => {
  it("every store status maps to a protocol status; CancellationRaised reads as PendingCancel", () => {
    for (let s = 0; s < STATUS_COUNT; s++) expect(WIRE_STATUS[s]).toBeGreaterThan(0);
    expect(WIRE_STATUS[5]).toBe(OrderStatus.PendingCancel);
    expect(WIRE_STATUS[6]).toBe(OrderStatus.ExpirationRaised);
  });
  it("every risk code and cancel-guard code has a protocol code", () => {
    for (const code of Object.keys(RISK_REJECTS))
      expect(CODES[RISK_TO_CODE[code as keyof typeof RISK_TO_CODE]]).toBeDefined();
    expect(CANCEL_REASON.EXPIRATION_RAISED).toBe(CancelRejectReason.ExpirationRaised);
    expect(CANCEL_REASON.CANCEL_ALREADY_PENDING).toBe(CancelRejectReason.AlreadyPending);
  });
  it("a synthesized execution id longer than the wire field is replaced by a short unique one", () => {
    const o = {
      clientOrderNo: 3,
      instrumentId: 1,
      side: "buy",
      clientId: "hq1w2e3r4-5",
      filledLots: 40,
    } as never;
    const long = `${"a".repeat(36)}:123456`;
    expect(fillBody(o, "INR", long, 10, 5, 0.5, 0).execId).toBe("hq1w2e3r4-5:40");
    expect(fillBody(o, "INR", "exec-1", 10, 5, 0.5, 0).feeMantissa).toBe(50_000_000);
  });
});

describe("journal order tag", () => {
  it("round-trips the fields the engine writes and refuses malformed tags", () => {
    expect(parseOrderTag("no=12;inst=hft:linear:BTCUSDT;pos=2")).toEqual({
      no: 12,
      inst: "hft:linear:BTCUSDT",
      pos: 2,
    });
    expect(parseOrderTag("no=0;inst=x;pos=0")).toBeUndefined();
    expect(parseOrderTag("inst=x")).toBeUndefined();
    expect(parseOrderTag("no=1;inst=x;pos=9")).toBeUndefined();
    expect(parseOrderTag(undefined)).toBeUndefined();
  });
});

describe("health and metrics replies", () => {
  it("503 before ready, 200 after, JSON both times; metrics as Prometheus text", () => {
    const a = healthReply(false, { venue: "sim" });
    expect(a.status).toBe(503);
    expect(JSON.parse(a.body)).toEqual({ status: "starting", venue: "sim" });
    const b = healthReply(true, { venue: "sim" });
    expect(b.status).toBe(200);
    expect(JSON.parse(b.body).status).toBe("ok");
    expect(metricsReply("x 1\n").contentType).toMatch(/^text\/plain/);
  });
});

describe("balance bodies", () => {
  it("share one exponent, at most 8 decimals, safe mantissas", () => {
    expect(balanceBody("INR", "10000000", "2500.5")).toEqual({
      asset: "INR",
      freeMantissa: 100_000_000,
      lockedMantissa: 25_005,
      exponent: -1,
    });
    expect(balanceBody("BTC", "0.123456789012", "0")).toEqual({
      asset: "BTC",
      freeMantissa: 12_345_678,
      lockedMantissa: 0,
      exponent: -8,
    });
    const big = balanceBody("X", "123456789012345.12345678", "1");
    expect(Number.isSafeInteger(big!.freeMantissa)).toBe(true);
    expect(big!.freeMantissa * 10 ** big!.exponent).toBeCloseTo(123456789012345.12, 0);
    expect(balanceBody("X", "abc", "1")).toBeUndefined();
  });
});
