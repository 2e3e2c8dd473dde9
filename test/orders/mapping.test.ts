import { describe, expect, it } from "vitest";
import {
  BalanceBook,
  CANCEL_HOLD,
  CANCEL_SEND,
  ClientIdMinter,
  cancelGuard,
  decideResolution,
  Ev,
  eventFromFuturesOrder,
  eventFromSpotOrder,
  eventFromV5Execution,
  eventFromV5Order,
  FUTURES_STATUS_MAP,
  gridOf,
  NormalizeError,
  PositionBook,
  Source,
  SPOT_STATUS_MAP,
  STATUS_NAMES,
  Status,
  statusFromFutures,
  statusFromSpot,
  statusFromV5,
  UnknownVenueStatusError,
  V5_STATUS_MAP,
} from "../../src/orders/index.js";
import type { FuturesOrderRecord, SpotOrderRecord, V5Execution, V5OrderRecord } from "../../src/rest/wire.js";

describe("venue status mappings", () => {
  it("maps every Futures status: RAISED works (PartiallyFilled once it has traded), PARTIALLY_EXECUTED is terminal", () => {
    expect(statusFromFutures("RAISED", false)).toBe(Status.New);
    expect(statusFromFutures("RAISED", true)).toBe(Status.PartiallyFilled);
    expect(statusFromFutures("EXECUTED", true)).toBe(Status.Filled);
    expect(statusFromFutures("PARTIALLY_EXECUTED", true)).toBe(Status.Cancelled);
    expect(statusFromFutures("CANCELLED", false)).toBe(Status.Cancelled);
    expect(statusFromFutures("CANCELLATION_RAISED", false)).toBe(Status.CancellationRaised);
    expect(Object.keys(FUTURES_STATUS_MAP)).toHaveLength(5);
    expect(() => statusFromFutures("OPEN", false)).toThrow(UnknownVenueStatusError);
    expect(() => statusFromFutures("toString", false)).toThrow(UnknownVenueStatusError);
  });

  it("normalizes a Futures record with string numbers into lots and ticks; a bad one changes nothing", () => {
    const g = gridOf({ tickSize: "0.1", qtyStep: "0.001" });
    const rec: FuturesOrderRecord = {
      order_id: "f-1",
      client_order_id: "c-1",
      symbol: "BTCUSDT",
      side: "BUY",
      order_type: "LIMIT",
      status: "PARTIALLY_EXECUTED",
      price: "60000.0",
      avg_price: "59999.95",
      quantity: "0.010",
      executed_quantity: "0.004",
      time_in_force: "GTC",
      reduce_only: false,
      exchange: "EXCHANGE_2",
      created_at: "1718000000000",
      updated_at: "1718000000350",
    };
    const ev = eventFromFuturesOrder(rec, g, Source.Poll, 1);
    expect(ev.kind).toBe(Ev.VenueCancelled);
    expect(ev.cumLots).toBe(4);
    expect(ev.avgPxTicks).toBeCloseTo(599_999.5, 6);
    expect(ev.venueMs).toBe(1_718_000_000_350);
    expect(() => eventFromFuturesOrder({ ...rec, executed_quantity: "0.0045" }, g, Source.Poll, 1)).toThrow(
      NormalizeError,
    );
    expect(() => eventFromFuturesOrder({ ...rec, status: "NEW" as never }, g, Source.Poll, 1)).toThrow(
      NormalizeError,
    );
  });

  it("maps every v5 orderStatus", () => {
    expect(statusFromV5("New")).toBe(Status.New);
    expect(statusFromV5("PartiallyFilled")).toBe(Status.PartiallyFilled);
    expect(statusFromV5("Filled")).toBe(Status.Filled);
    expect(statusFromV5("Cancelled")).toBe(Status.Cancelled);
    expect(statusFromV5("PartiallyFilledCanceled")).toBe(Status.Cancelled);
    expect(statusFromV5("Rejected")).toBe(Status.Rejected);
    expect(Object.keys(V5_STATUS_MAP)).toHaveLength(6);
  });

  it("maps every Spot status; DISCARDED is Rejected; the raised states stay pending", () => {
    expect(statusFromSpot("OPEN")).toBe(Status.New);
    expect(statusFromSpot("PARTIALLY_EXECUTED")).toBe(Status.PartiallyFilled);
    expect(statusFromSpot("EXECUTED")).toBe(Status.Filled);
    expect(statusFromSpot("CANCELLED")).toBe(Status.Cancelled);
    expect(statusFromSpot("EXPIRED")).toBe(Status.Expired);
    expect(statusFromSpot("DISCARDED")).toBe(Status.Rejected);
    expect(statusFromSpot("CANCELLATION_RAISED")).toBe(Status.CancellationRaised);
    expect(statusFromSpot("EXPIRATION_RAISED")).toBe(Status.ExpirationRaised);
    expect(Object.keys(SPOT_STATUS_MAP)).toHaveLength(8);
  });

  it("rejects unlisted strings with a typed error (including prototype keys)", () => {
    expect(() => statusFromV5("new")).toThrow(UnknownVenueStatusError);
    expect(() => statusFromSpot("toString")).toThrow(UnknownVenueStatusError);
    expect(() => statusFromSpot("constructor")).toThrow(UnknownVenueStatusError);
  });
});

describe("cancel guard", () => {
  const g = (status: Status, cancelHeld = false) => cancelGuard({ status, cancelHeld });
  it("sends for working orders", () => {
    expect(g(Status.New)).toBe(CANCEL_SEND);
    expect(g(Status.PartiallyFilled)).toBe(CANCEL_SEND);
  });
  it("holds while the create is unanswered, once", () => {
    expect(g(Status.PendingNew)).toBe(CANCEL_HOLD);
    expect(g(Status.Unknown)).toBe(CANCEL_HOLD);
    expect(g(Status.PendingNew, true)).toMatchObject({ kind: "reject", code: "CANCEL_ALREADY_PENDING" });
  });
  it("never sends twice while a cancel is pending", () => {
    expect(g(Status.PendingCancel)).toMatchObject({ kind: "reject", code: "CANCEL_ALREADY_PENDING" });
    expect(g(Status.CancellationRaised)).toMatchObject({ kind: "reject", code: "CANCEL_ALREADY_PENDING" });
  });
  it("refuses during EXPIRATION_RAISED", () => {
    expect(g(Status.ExpirationRaised)).toMatchObject({ kind: "reject", code: "EXPIRATION_RAISED" });
  });
  it("answers already <status> for terminal orders and UNKNOWN_ORDER for none", () => {
    expect(g(Status.Filled)).toMatchObject({ code: "ALREADY_TERMINAL", message: "already filled" });
    expect(g(Status.Cancelled)).toMatchObject({ code: "ALREADY_TERMINAL", message: "already cancelled" });
    expect(g(Status.Expired)).toMatchObject({ code: "ALREADY_TERMINAL", message: "already expired" });
    expect(g(Status.Rejected)).toMatchObject({ code: "ALREADY_TERMINAL", message: "already rejected" });
    expect(cancelGuard(undefined)).toMatchObject({ code: "UNKNOWN_ORDER" });
  });
  it("covers every status", () => {
    for (let s = 0; s < STATUS_NAMES.length; s++)
      expect(cancelGuard({ status: s as Status, cancelHeld: false })).toBeDefined();
  });
});

describe("client id minting", () => {
  it("is short, unique within a run and across runs", () => {
    const a = new ClientIdMinter();
    const b = new ClientIdMinter();
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) ids.add(a.next());
    for (let i = 0; i < 1000; i++) ids.add(b.next());
    expect(ids.size).toBe(2000);
    const far = new ClientIdMinter(undefined, Number.MAX_SAFE_INTEGER - 1);
    expect(far.next().length).toBeLessThanOrEqual(36);
  });
  it("continues a journaled run and rejects a bad prefix", () => {
    const m = new ClientIdMinter("run7-", 35);
    expect(m.next()).toBe("run7-10");
    expect(() => new ClientIdMinter("has space")).toThrow(RangeError);
    expect(() => new ClientIdMinter("x".repeat(30))).toThrow(RangeError);
  });
});

describe("resolution policy", () => {
  const o = (status: Status, sends = 1, resolveAttempts = 0) => ({
    status,
    sends,
    extra: { resolveAttempts },
    exchangeId: "",
  });
  it("never treats a network error as not-found", () => {
    expect(decideResolution(o(Status.Unknown), { kind: "networkError" }).action).toBe("retry_query");
    expect(decideResolution(o(Status.Unknown, 1, 10), { kind: "networkError" }).action).toBe("escalate");
  });
  it("resends with the same id on authoritative not-found, bounded, then rejects", () => {
    expect(decideResolution(o(Status.Unknown, 1), { kind: "notFound" }).action).toBe("resend_create");
    expect(decideResolution(o(Status.Unknown, 2), { kind: "notFound" }).action).toBe("resend_create");
    const last = decideResolution(o(Status.Unknown, 3), { kind: "notFound" });
    expect(last).toMatchObject({ action: "apply_event", event: Ev.CreateRejected });
    expect(decideResolution(o(Status.New), { kind: "notFound" }).action).toBe("escalate");
  });
  it("applies found records, re-sending a cancel whose outcome was lost", () => {
    expect(decideResolution(o(Status.Unknown), { kind: "found", status: Status.New }).action).toBe(
      "apply_record",
    );
    expect(decideResolution(o(Status.PendingCancel), { kind: "found", status: Status.New }).action).toBe(
      "resend_cancel",
    );
    expect(
      decideResolution(o(Status.PendingCancel), { kind: "found", status: Status.Cancelled }).action,
    ).toBe("apply_record");
  });
});

describe("normalization of venue records", () => {
  const inst = { tickSize: "0.5", qtyStep: "0.001" };
  const g = gridOf(inst);
  const v5: V5OrderRecord = {
    symbol: "BTCUSDT",
    orderId: "ex-1",
    orderLinkId: "c-1",
    orderType: "Limit",
    orderStatus: "PartiallyFilled",
    side: "Buy",
    qty: "0.01",
    price: "64000",
    timeInForce: "GTC",
    leavesQty: "0.007",
    cumExecQty: "0.003",
    cumExecValue: "192",
    cumExecFee: "0.1",
    avgPrice: "64000",
    lastPriceOnCreated: "64210.5",
    positionIdx: 0,
    createdTime: "1718000000100",
    updatedTime: "1718000000104",
    rejectReason: "EC_NoError",
  };
  it("turns a v5 record into lots/ticks", () => {
    const e = eventFromV5Order(v5, g, Source.Poll, 5);
    expect(e).toMatchObject({ kind: Ev.VenuePartiallyFilled, cumLots: 3, avgPxTicks: 128000, fee: 0.1 });
    expect(e).toMatchObject({
      clientId: "c-1",
      exchangeId: "ex-1",
      venueMs: 1718000000104,
      source: Source.Poll,
    });
    const fresh = eventFromV5Order(
      { ...v5, orderStatus: "New", cumExecQty: "0", avgPrice: "" },
      g,
      Source.Poll,
      5,
    );
    expect(fresh).toMatchObject({ kind: Ev.VenueNew, cumLots: 0, avgPxTicks: -1 });
  });
  it("rejects off-grid or unknown input with a typed error", () => {
    expect(() => eventFromV5Order({ ...v5, cumExecQty: "0.0035" }, g, Source.Poll, 0)).toThrow(
      NormalizeError,
    );
    expect(() => eventFromV5Order({ ...v5, cumExecQty: "1e3" }, g, Source.Poll, 0)).toThrow(NormalizeError);
    expect(() => eventFromV5Order({ ...v5, orderStatus: "Weird" as never }, g, Source.Poll, 0)).toThrow(
      NormalizeError,
    );
  });
  it("turns a Spot record (JSON numbers) into a cumulative event", () => {
    const rec: SpotOrderRecord = {
      order_id: "s-1",
      client_order_id: "c-2",
      symbol: "BTC/INR",
      price: 100,
      average_price: 100.5,
      orig_qty: 0.01,
      executed_qty: 0.003,
      status: "CANCELLATION_RAISED",
      side: "BUY",
      type: "LIMIT",
      exchange: "coinswitchx",
      order_source: "API_TRADING",
      created_time: 1,
      updated_time: 2,
    };
    const e = eventFromSpotOrder(rec, g, Source.Stream, 1);
    expect(e).toMatchObject({
      kind: Ev.VenueCancellationRaised,
      cumLots: 3,
      avgPxTicks: 201,
      exchangeId: "s-1",
    });
    expect(eventFromSpotOrder({ ...rec, status: "DISCARDED" }, g, Source.Stream, 1)).toMatchObject({
      kind: Ev.VenueRejected,
      reason: "DISCARDED",
    });
    expect(() => eventFromSpotOrder({ ...rec, executed_qty: 0.0031 }, g, Source.Stream, 1)).toThrow(
      NormalizeError,
    );
  });
  it("turns an execution into a Fill", () => {
    const x: V5Execution = {
      symbol: "BTCUSDT",
      orderId: "ex-1",
      orderLinkId: "c-1",
      side: "Buy",
      orderPrice: "64000",
      orderQty: "0.01",
      execId: "x-1",
      execPrice: "64000.5",
      execQty: "0.002",
      execValue: "128",
      execFee: "0.05",
      execTime: "1718000000200",
      isMaker: true,
      leavesQty: "0.008",
    };
    expect(eventFromV5Execution(x, g, Source.Stream, 1)).toMatchObject({
      kind: Ev.Fill,
      execId: "x-1",
      lots: 2,
      pxTicks: 128001,
      fee: 0.05,
    });
    expect(() => eventFromV5Execution({ ...x, execId: "" }, g, Source.Stream, 1)).toThrow(NormalizeError);
  });
});

describe("balances and positions: latest timestamp wins", () => {
  const row = (currency: string, main: number | string) => ({
    currency,
    name: currency,
    main_balance: main,
    blocked_balance_order: "0",
    buy_average_price: 0,
    invested_value: 0,
    invested_value_excluding_fee: 0,
    current_value: 0,
    sell_rate: 0,
    buy_rate: 0,
    is_average_price_available: false,
    is_delisted_coin: false,
  });
  it("ignores an older balance snapshot", () => {
    const b = new BalanceBook();
    expect(b.applySnapshot({ balances: [row("inr", 100)], timestamp: 10 })).toBe(true);
    expect(b.applySnapshot({ balances: [row("INR", "50.5")], timestamp: 5 })).toBe(false);
    expect(b.get("INR")?.available).toBe("100");
    expect(b.applySnapshot({ balances: [row("INR", "50.5")], timestamp: 11 })).toBe(true);
    expect(b.get("inr")?.available).toBe("50.5");
    expect(b.ignored).toBe(1);
  });
  it("a bad balance row changes nothing", () => {
    const b = new BalanceBook();
    b.applySnapshot({ balances: [row("INR", 1)], timestamp: 1 });
    expect(() => b.applySnapshot({ balances: [row("BTC", 2), row("INR", "x")], timestamp: 2 })).toThrow();
    expect(b.get("BTC")).toBeUndefined();
    expect(b.get("INR")?.available).toBe("1");
  });
  it("positions: snapshot then newer fills; stale fills and snapshots ignored", () => {
    const p = new PositionBook();
    const pos = (size: string, side: "Buy" | "Sell", t: number) => ({
      symbol: "BTCUSDT",
      positionIdx: 0 as const,
      side,
      size,
      avgPrice: "1",
      positionValue: "0",
      leverage: "1",
      unrealisedPnl: "0",
      cumRealisedPnl: "0",
      updatedTime: String(t),
    });
    p.applySnapshot(pos("0.5", "Sell", 100));
    expect(p.get("BTCUSDT")?.size).toBe("-0.5");
    expect(p.applyFill("BTCUSDT", 0, "buy", "0.2", 90)).toBe(false);
    expect(p.applyFill("BTCUSDT", 0, "buy", "0.2", 110)).toBe(true);
    expect(p.get("BTCUSDT")?.size).toBe("-0.3");
    expect(p.applySnapshot(pos("9", "Buy", 105))).toBe(false);
    expect(p.applySnapshot(pos("1", "Buy", 120))).toBe(true);
    expect(p.get("BTCUSDT")?.size).toBe("1");
  });
});
