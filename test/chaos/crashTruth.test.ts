/**
 * The crash-truth comparison must be able to fail: each kind of finding on known inputs (a strategy
 * ledger filled by hand, gateway views, a venue listing), and a clean result when all three agree.
 */
import { describe, expect, it } from "vitest";
import { OrderStatus, RejectSource } from "../../src/protocol/schema.js";
import { compareCrashTruth, findingCount } from "./harness/crashTruth.js";
import type { ListedExecution, ListedOrder } from "./harness/listings.js";
import { Strategy } from "./harness/strategy.js";
import type { GatewayView } from "./harness/truth.js";

/** A strategy that never connects: its ledger is written by the test. */
function ledger(): Strategy {
  return new Strategy("ws://127.0.0.1:9", "t", "unit");
}

function placed(s: Strategy, n: number): ReturnType<Strategy["entry"]> {
  s.placed.push(n);
  return s.entry(n);
}

const order = (id: string, clientId: string, status: ListedOrder["status"], filledLots = 0): ListedOrder => ({
  surface: "hft",
  id,
  clientId,
  status,
  filledLots,
});
const view = (exchangeId: string, status: GatewayView["status"], filledLots = 0): GatewayView => ({
  key: "k",
  exchangeId,
  status,
  filledLots,
});
const reject = (source: number) => ({ clOrdNo: 0, code: 300, source, retryable: 1, text: "t" });

function compare(
  s: Strategy,
  views: Array<[number, GatewayView]>,
  orders: ListedOrder[],
  executions: ListedExecution[] = [],
  clOrdNos: Array<[string, number]> = [],
) {
  return compareCrashTruth({
    strategy: s,
    views: new Map(views),
    venue: { orders, executions },
    clOrdNoOf: new Map(clOrdNos),
  });
}

describe("compareCrashTruth", () => {
  it("finds nothing when venue, gateway and strategy agree", () => {
    const s = ledger();
    const a = placed(s, 1);
    a.acks = 1;
    a.exchangeId = "x1";
    a.updates = 1;
    a.lastStatus = OrderStatus.Filled;
    a.execLots.set("e1", 5);
    const r = placed(s, 2);
    r.rejects.push(reject(RejectSource.Throttle));
    const f = compare(
      s,
      [
        [1, view("x1", "Filled", 5)],
        [2, view("", "Rejected")],
      ],
      [order("x1", "c1", "Filled", 5)],
      [{ execId: "e1", orderId: "x1", lots: 5 }],
    );
    expect(findingCount(f)).toBe(0);
  });

  it("lost: the gateway says Rejected while the venue holds the order; a venue order nobody knows", () => {
    const s = ledger();
    placed(s, 1);
    const f = compare(
      s,
      [[1, view("", "Rejected")]],
      [order("x1", "c1", "New"), order("x2", "c2", "Filled", 5)],
      [],
      [["c1", 1]],
    );
    expect([...f.lost.keys()].sort()).toEqual(["#1", "venue:x2"]);
  });

  it("rejected at venue: a local refusal that reached the venue", () => {
    const s = ledger();
    const t = placed(s, 1);
    t.rejects.push(reject(RejectSource.Throttle));
    const f = compare(s, [[1, view("x1", "New")]], [order("x1", "c1", "New")], [], [["c1", 1]]);
    expect(f.rejectedAtVenue.size).toBe(1);
  });

  it("fill mismatch: fills short of the venue's executed qty, or an execution the venue never made", () => {
    const s = ledger();
    const t = placed(s, 1);
    t.acks = 1;
    t.exchangeId = "x1";
    t.execLots.set("e1", 5);
    t.execLots.set("bogus", 5);
    const f = compare(
      s,
      [[1, view("x1", "Filled", 15)]],
      [order("x1", "c1", "Filled", 15)],
      [{ execId: "e1", orderId: "x1", lots: 5 }],
    );
    expect([...f.fillMismatches.keys()].sort()).toEqual(["#1", "#1:exec"]);
  });

  it("state mismatch: gateway cumulative qty differs; strategy last told a different final status", () => {
    const s = ledger();
    const t = placed(s, 1);
    t.acks = 1;
    t.exchangeId = "x1";
    t.updates = 1;
    t.lastStatus = OrderStatus.New;
    const f = compare(s, [[1, view("x1", "Cancelled", 0)]], [order("x1", "c1", "Cancelled", 0)]);
    expect([...f.stateMismatches.keys()]).toEqual(["#1:told"]);
    const g = compare(s, [[1, view("x1", "New", 0)]], [order("x1", "c1", "PartiallyFilled", 5)]);
    expect(g.stateMismatches.has("#1")).toBe(true);
  });

  it("duplicated: one client id twice at the venue; a repeated Fill", () => {
    const s = ledger();
    const t = placed(s, 1);
    t.acks = 1;
    t.exchangeId = "x1";
    s.duplicateFillIds.push("#1 e1");
    const f = compare(s, [[1, view("x1", "New")]], [order("x1", "c1", "New"), order("x2", "c1", "New")]);
    expect(f.duplicated.size).toBe(2);
  });
});
