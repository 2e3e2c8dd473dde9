import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  cellOf,
  compile,
  DROP_BASE,
  DROP_REASONS,
  EVENT_COUNT,
  EVENT_NAMES,
  Ev,
  type Order,
  OrderStore,
  ownExtra,
  renderTransitionTable,
  Source,
  STATUS_COUNT,
  Status,
  TABLE,
  TERMINAL,
} from "../../src/orders/index.js";
import { ev, req } from "./helpers.js";

/** An order forced into status `s` (with `filled` lots filled), for table enumeration. */
function orderIn(store: OrderStore, s: Status, n: number, filled = 0): Order {
  const o = store.create(req(n, 10));
  store.apply(ev(Ev.CreateAcked, { clientId: o.clientId, exchangeId: `X${n}` }, Source.Rest));
  o.status = s;
  o.filledLots = filled;
  ownExtra(o).execLots = filled;
  o.leavesLots = 10 - filled;
  return o;
}

function eventFor(o: Order, e: Ev, n: number) {
  return ev(e, {
    clientId: o.clientId,
    exchangeId: o.exchangeId,
    execId: e === Ev.Fill ? `f${n}` : "",
    lots: e === Ev.Fill ? 1 : 0,
    pxTicks: 1000,
    cumLots: -1,
  });
}

describe("transition table", () => {
  it("compiles: every (status, event) has exactly one code", () => {
    expect(TABLE.length).toBe(STATUS_COUNT * EVENT_COUNT);
    expect(compile()).toEqual(TABLE);
    for (let i = 0; i < TABLE.length; i++) {
      const c = TABLE[i]!;
      expect(c >= -4 || (c <= DROP_BASE && DROP_BASE - c < DROP_REASONS.length)).toBe(true);
    }
  });

  it("every pair either transitions as listed or is dropped with its reason and counted", () => {
    const store = new OrderStore();
    let n = 0;
    for (let s = 0; s < STATUS_COUNT; s++) {
      for (let e = 0; e < EVENT_COUNT; e++) {
        for (const filled of [0, 3]) {
          if (filled > 0 && s === Status.New) continue;
          n++;
          const o = orderIn(store, s as Status, n, filled);
          const before = store.dropCounters();
          const r = store.apply(eventFor(o, e as Ev, n));
          const after = store.dropCounters();
          const cell = cellOf(s as Status, e as Ev);
          const label = `${Status[s as never] ?? s} × ${EVENT_NAMES[e]} (${cell})`;
          if (cell.startsWith("drop:")) {
            const reason = cell.slice(5) as (typeof DROP_REASONS)[number];
            expect(r.drop, label).toBe(reason);
            expect(after[reason] - before[reason], label).toBe(1);
            expect(o.status, label).toBe(s);
            expect(o.filledLots, label).toBe(filled);
          } else {
            expect(r.drop, label).toBeUndefined();
            let want: number;
            if (cell === "=") want = s;
            else if (cell === "working") want = filled > 0 ? Status.PartiallyFilled : Status.New;
            else if (cell === "settle") want = filled > 0 ? Status.PartiallyFilled : Status.New;
            else if (cell === "fill") {
              const isEarly =
                s === Status.New || s === Status.PendingNew || s === Status.Unknown || s === Status.Rejected;
              want = isEarly ? Status.PartiallyFilled : s;
            } else want = Status[cell as keyof typeof Status];
            expect(o.status, label).toBe(want);
            if (e === Ev.Fill) expect(o.filledLots, label).toBe(filled + 1);
          }
        }
      }
    }
  });

  it("terminal states absorb, except the documented fill edges and venue evidence after a verdict", () => {
    for (let s = 0; s < STATUS_COUNT; s++) {
      if (!TERMINAL[s]) continue;
      for (let e = 0; e < EVENT_COUNT; e++) {
        const cell = cellOf(s as Status, e as Ev);
        const edge =
          (e === Ev.Fill && (s === Status.Cancelled || s === Status.Expired || s === Status.Filled)) ||
          (e === Ev.VenueFilled && (s === Status.Cancelled || s === Status.Expired));
        // A rejection the gateway concluded is overturned by any venue evidence for the order.
        const overturned = s === Status.Rejected && (e === Ev.CreateAcked || isVenueEvidence(e as Ev));
        if (overturned) expect(cell.startsWith("drop:"), `${s} × ${EVENT_NAMES[e]}`).toBe(false);
        else if (edge) expect(cell === "fill" || cell === "=" || cell === "Filled").toBe(true);
        else expect(cell.startsWith("drop:"), `${s} × ${EVENT_NAMES[e]}`).toBe(true);
      }
    }
  });

  it("CancellationRaised and ExpirationRaised are pending (not terminal) and end in venue finals", () => {
    for (const s of [Status.CancellationRaised, Status.ExpirationRaised]) {
      expect(TERMINAL[s]).toBe(false);
      expect(cellOf(s, Ev.VenueCancelled)).toBe("Cancelled");
      expect(cellOf(s, Ev.VenueFilled)).toBe("Filled");
      expect(cellOf(s, Ev.VenueExpired)).toBe("Expired");
      expect(cellOf(s, Ev.Fill)).toBe("fill");
    }
  });

  it("renders the whole table", () => {
    const md = renderTransitionTable();
    for (const name of EVENT_NAMES) expect(md).toContain(`| ${name} |`);
    expect(md.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| event")).length).toBe(
      EVENT_COUNT,
    );
  });
});

describe("random event sequences (property)", () => {
  const anyEvent = fc.record({
    kind: fc.integer({ min: 0, max: EVENT_COUNT - 1 }),
    cum: fc.integer({ min: -1, max: 12 }),
    lots: fc.integer({ min: 1, max: 4 }),
    exec: fc.integer({ min: 0, max: 6 }),
    cancel: fc.boolean(),
  });

  it("cumulative qty never decreases; terminal never becomes non-terminal; counters add up", () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 60 }), (events) => {
        const store = new OrderStore();
        const o = store.create(req(1, 10));
        let filled = 0;
        let wasTerminal = false;
        let wasRejected = false;
        for (const x of events) {
          if (x.cancel) store.requestCancel(o.clientId);
          const e = ev(x.kind as Ev, {
            clientId: o.clientId,
            exchangeId: "X",
            cumLots: x.kind === Ev.Fill ? -1 : x.cum,
            lots: x.lots,
            pxTicks: 1000,
            execId: `e${x.exec}`,
          });
          store.apply(e);
          expect(o.filledLots).toBeGreaterThanOrEqual(filled);
          expect(o.leavesLots).toBe(Math.max(0, o.qtyLots - o.filledLots));
          // Only a rejection is reopened (by venue evidence for the order); other terminals stay.
          if (wasTerminal) expect(TERMINAL[o.status] || wasRejected).toBe(true);
          wasTerminal = TERMINAL[o.status]!;
          wasRejected = o.status === Status.Rejected;
          filled = o.filledLots;
          if (o.filledLots >= o.qtyLots && o.status !== Status.Rejected) expect(o.status).toBe(Status.Filled);
        }
        const drops = Object.values(store.dropCounters()).reduce((a, b) => a + b, 0);
        expect(drops).toBeLessThanOrEqual(store.stats.events * 2);
      }),
      { numRuns: 400 },
    );
  });
});

/** Venue events that say the venue holds the order (a venue rejection is not among them). */
function isVenueEvidence(e: Ev): boolean {
  return (
    e === Ev.VenueNew ||
    e === Ev.VenuePartiallyFilled ||
    e === Ev.VenueCancellationRaised ||
    e === Ev.ExpiryRaised ||
    e === Ev.VenueFilled ||
    e === Ev.VenueCancelled ||
    e === Ev.VenueExpired ||
    e === Ev.Fill
  );
}
