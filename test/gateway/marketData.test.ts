/**
 * The market data fan-out's own rules on known inputs (a real hub, a scripted venue adapter, links
 * whose unsent bytes the test sets): one venue subscription for every connection; a connection over
 * `maxBufferedBytes` is paused with SlowConsumer while the others go on, and resumes with a fresh
 * snapshot once drained (never a silent gap, never a close); the subscription limit is a typed reject.
 */
import { describe, expect, it } from "vitest";
import { MarketDataFanout } from "../../src/gateway/marketData.js";
import { MarketDataHub } from "../../src/marketdata/hub.js";
import type { MdUpstream } from "../../src/marketdata/types.js";
import { decodeG2C, type G2CMessage } from "../../src/protocol/codec.js";
import { CODES, MdFlags, MdStatus } from "../../src/protocol/schema.js";

interface Link {
  id: number;
  buffered: number;
  got: G2CMessage[];
}

function rig(maxSubscriptions = 8) {
  const calls: string[] = [];
  const upstream: MdUpstream = {
    name: "scripted",
    venueCandles: true,
    up: true,
    acquire: (id) => calls.push(`acquire ${id}`),
    release: (id) => calls.push(`release ${id}`),
    stop: () => {},
  };
  const hub = new MarketDataHub({
    upstreamFor: (id) => (id < 10 ? upstream : undefined),
    staleMs: 0,
    candleGraceMs: 0,
  });
  const fan = new MarketDataFanout<Link>(
    hub,
    {
      send: (l, f) => {
        const m = decodeG2C(Buffer.from(f));
        if (m.name === undefined) throw new Error("bad frame");
        l.got.push(m);
      },
      cork: (_l, fn) => fn(),
      buffered: (l) => l.buffered,
      sessionId: (l) => l.id,
    },
    { maxSubscriptions, maxBufferedBytes: 1000 },
  );
  const link = (id: number): Link => ({ id, buffered: 0, got: [] });
  return { hub, fan, calls, link };
}

const names = (l: Link) => l.got.map((m) => m.name);

describe("market data fan-out", () => {
  it("one venue subscription for every connection; snapshot then updates; each frame carries its session", () => {
    const { hub, fan, calls, link } = rig();
    const a = link(1);
    const b = link(2);
    fan.subscribe(a, 11, 3, 0);
    fan.subscribe(b, 12, 3, 0);
    expect(calls).toEqual(["acquire 3"]);
    expect(a.got.map((m) => m.body)).toEqual([
      { requestId: 11, instrumentId: 3, mdSeq: 0, status: MdStatus.Stale },
    ]);
    hub.book(3, 100, 5, 101, 6, 1_000);
    expect(names(a)).toEqual(["MarketDataStatus", "TopOfBook", "MarketDataStatus"]);
    expect(a.got[1]!.body).toMatchObject({
      flags: MdFlags.Snapshot,
      mdSeq: 1,
      bidPriceTicks: 100,
      askQtyLots: 6,
    });
    expect(a.got[2]!.body).toMatchObject({ requestId: 0, mdSeq: 1, status: MdStatus.Live });
    hub.trade(3, 101, 2, 1, 1_001);
    expect(a.got[3]).toMatchObject({
      name: "Trade",
      header: { sessionId: 1, seq: 0 },
      body: { mdSeq: 2, priceTicks: 101 },
    });
    expect(b.got[3]).toMatchObject({
      name: "Trade",
      header: { sessionId: 2, seq: 0 },
      body: { mdSeq: 2, priceTicks: 101 },
    });
    fan.unsubscribe(a, 13, 3, 0);
    expect(calls).toEqual(["acquire 3"]);
    fan.dropLink(b);
    expect(calls).toEqual(["acquire 3", "release 3"]);
    expect(hub.holders(3)).toBe(0);
  });

  it("a slow connection is paused (SlowConsumer), the others go on, and it resumes with a snapshot", () => {
    const { hub, fan, link } = rig();
    const slow = link(1);
    const fast = link(2);
    fan.subscribe(slow, 1, 3, 0);
    fan.subscribe(fast, 2, 3, 0);
    hub.book(3, 100, 5, 101, 6, 1_000);
    slow.buffered = 5_000;
    hub.trade(3, 101, 1, 1, 1_001);
    hub.trade(3, 102, 1, 1, 1_002);
    expect(fast.got.filter((m) => m.name === "Trade").map((m) => m.body.mdSeq)).toEqual([2, 3]);
    const after = slow.got.slice(3);
    expect(after.map((m) => [m.name, (m.body as { status?: number }).status])).toEqual([
      ["MarketDataStatus", MdStatus.SlowConsumer],
    ]);
    fan.sweep(); // still over half the limit: stays paused
    expect(slow.got.length).toBe(4);
    slow.buffered = 400;
    fan.sweep();
    const resumed = slow.got.slice(4);
    expect(resumed.map((m) => m.name)).toEqual(["TopOfBook", "Trade", "MarketDataStatus"]);
    expect(resumed[1]!.body).toMatchObject({ flags: MdFlags.Snapshot, mdSeq: 3, priceTicks: 102 });
    expect(resumed[2]!.body).toMatchObject({ status: MdStatus.Live, mdSeq: 3 });
    hub.trade(3, 103, 1, 1, 1_003);
    expect(slow.got.at(-1)!.body).toMatchObject({ mdSeq: 4 });
  });

  it("refusals: no feed, too many subscriptions; nothing changes", () => {
    const { hub, fan, calls, link } = rig(1);
    const a = link(1);
    fan.subscribe(a, 5, 42, 0); // no adapter covers 42
    fan.subscribe(a, 6, 3, 0);
    fan.subscribe(a, 7, 4, 0);
    const rejects = a.got.filter((m) => m.name === "SubscribeReject").map((m) => m.body);
    expect(rejects).toMatchObject([
      { requestId: 5, instrumentId: 42, code: CODES.MarketDataUnavailable.code },
      { requestId: 7, instrumentId: 4, code: CODES.TooManySubscriptions.code },
    ]);
    expect(calls).toEqual(["acquire 3"]);
    expect(fan.subscriptions(a)).toBe(1);
    expect(hub.holders(4)).toBe(0);
  });
});
