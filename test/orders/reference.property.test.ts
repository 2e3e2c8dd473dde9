/**
 * Reference-model property test: random true order lifecycles (as the venue lived them) are turned into
 * the messages the gateway would see: REST outcomes, stream/poll records and executions, delivered
 * shuffled (respecting causality around our own cancel), duplicated and partly dropped, and finally an
 * authoritative snapshot as the reconciler would fetch. The store must end in exactly the true final
 * status with exactly the true filled quantity.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  Ev,
  type FillReport,
  type Order,
  type OrderEvent,
  type OrderListener,
  OrderStore,
  Source,
  STATUS_NAMES,
  Status,
  type Status as StatusT,
} from "../../src/orders/index.js";
import { ev, req } from "./helpers.js";

type Surface = "spot" | "hft";
type Ending = "rejected" | "open" | "filled" | "cancelled" | "cancelRaceFilled" | "expired" | "expiring";

/** A message in flight to the gateway. `after` = causally after our cancel request. */
interface Msg {
  e: OrderEvent;
  after: boolean;
  rest: "createOutcome" | "cancelOutcome" | "";
}

interface Truth {
  surface: Surface;
  qty: number;
  final: StatusT;
  filled: number;
  ending: Ending;
  msgs: Msg[];
  /** Our cancel is requested (after the create ack) in this lifecycle. */
  cancels: boolean;
  /** Final authoritative records (snapshot row + executions). */
  snapshot: OrderEvent[];
}

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KIND: Record<number, Ev> = {
  [Status.New]: Ev.VenueNew,
  [Status.PartiallyFilled]: Ev.VenuePartiallyFilled,
  [Status.CancellationRaised]: Ev.VenueCancellationRaised,
  [Status.ExpirationRaised]: Ev.ExpiryRaised,
  [Status.Filled]: Ev.VenueFilled,
  [Status.Cancelled]: Ev.VenueCancelled,
  [Status.Expired]: Ev.VenueExpired,
  [Status.Rejected]: Ev.VenueRejected,
};

function lifecycle(seed: number, clientId: string): Truth {
  const r = rng(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const surface: Surface = r() < 0.5 ? "spot" : "hft";
  const qty = int(1, 20);
  const endings: Ending[] =
    surface === "spot"
      ? ["rejected", "open", "filled", "cancelled", "cancelRaceFilled", "expired", "expiring"]
      : ["rejected", "open", "filled", "cancelled", "cancelRaceFilled"];
  const ending = endings[int(0, endings.length - 1)]!;
  const X = `X${seed}`;
  const msgs: Msg[] = [];
  let cum = 0;
  let notional = 0;
  let execN = 0;
  let after = false;
  let status: StatusT = Status.New;
  const execs: OrderEvent[] = [];

  const record = (s: StatusT) => {
    msgs.push({
      e: ev(KIND[s]!, {
        clientId,
        exchangeId: X,
        cumLots: cum,
        avgPxTicks: cum > 0 ? notional / cum : -1,
      }),
      after,
      rest: "",
    });
  };
  const fill = (lots: number) => {
    const px = 1000 + int(0, 5);
    cum += lots;
    notional += px * lots;
    if (surface === "hft") {
      const x = ev(Ev.Fill, { clientId, exchangeId: X, execId: `${X}-e${++execN}`, lots, pxTicks: px });
      execs.push(x);
      msgs.push({ e: x, after, rest: "" });
    }
    // Status of the record after this fill: the gap states keep their status while filling. [assumed]
    if (cum >= qty) status = Status.Filled;
    else if (status === Status.New) status = Status.PartiallyFilled;
    record(status);
  };
  const partials = (max: number) => {
    const n = int(0, 3);
    for (let i = 0; i < n && cum < max; i++) fill(int(1, max - cum));
  };

  if (ending === "rejected") {
    msgs.push({
      e: ev(Ev.CreateRejected, { clientId, reason: "no" }, Source.Rest),
      after: false,
      rest: "createOutcome",
    });
    status = Status.Rejected;
    record(status);
    return {
      surface,
      qty,
      final: Status.Rejected,
      filled: 0,
      ending,
      msgs,
      cancels: false,
      snapshot: mkSnap(),
    };
  }

  const cancels =
    ending === "cancelled" || ending === "cancelRaceFilled" || (ending === "expired" && r() < 0.5);
  // The create ack; lost (ambiguous) only when no cancel follows it in this model.
  const ackLost = !cancels && r() < 0.3;
  msgs.push({
    e: ev(
      ackLost ? Ev.CreateOutcomeUnknown : Ev.CreateAcked,
      { clientId, exchangeId: ackLost ? "" : X },
      Source.Rest,
    ),
    after: false,
    rest: "createOutcome",
  });
  record(Status.New);
  partials(qty - 1);

  let cancelOutcome: Ev | undefined;
  switch (ending) {
    case "open":
      break;
    case "filled":
      while (cum < qty) fill(int(1, qty - cum));
      break;
    case "cancelled":
      after = true;
      cancelOutcome = Ev.CancelAcked;
      if (surface === "spot") {
        status = Status.CancellationRaised;
        record(status);
        partials(qty - 1);
      }
      status = Status.Cancelled;
      record(status);
      break;
    case "cancelRaceFilled":
      after = true;
      cancelOutcome = Ev.CancelRejected;
      while (cum < qty) fill(int(1, qty - cum));
      break;
    case "expired":
    case "expiring": {
      status = Status.ExpirationRaised;
      record(status);
      if (cancels) {
        // Our cancel arrives while expiring: the venue refuses it.
        after = true;
        cancelOutcome = Ev.CancelRejected;
      }
      if (r() < 0.3) while (cum < qty) fill(int(1, qty - cum));
      else partials(qty - 1);
      if (ending === "expired" && (status as StatusT) !== Status.Filled) {
        status = Status.Expired;
        record(status);
      }
      break;
    }
  }
  if (cancelOutcome !== undefined) {
    const lost = r() < 0.2;
    msgs.push({
      e: ev(lost ? Ev.CancelOutcomeUnknown : cancelOutcome, { clientId }, Source.Rest),
      after: true,
      rest: "cancelOutcome",
    });
  }
  return { surface, qty, final: status, filled: cum, ending, msgs, cancels, snapshot: mkSnap() };

  function mkSnap(): OrderEvent[] {
    const snap = ev(KIND[status]!, {
      clientId,
      exchangeId: X,
      cumLots: cum,
      avgPxTicks: cum > 0 ? notional / cum : -1,
      source: Source.Query,
    });
    return [snap, ...execs.map((x) => ({ ...x, source: Source.Query }))];
  }
}

/** Delivers the messages: shuffled within causality, duplicated, partly dropped; then the snapshot. */
function deliver(store: OrderStore, o: Order, t: Truth, seed: number, onEach: () => void): void {
  const r = rng(seed ^ 0x5bd1e995);
  const tCancel = 0.5 + r();
  const timed: Array<{ at: number; m: Msg | "cancel" }> = [];
  for (const m of t.msgs) {
    if (m.rest === "createOutcome") {
      timed.push({ at: t.cancels ? r() * 0.5 : r() * 2, m });
      continue;
    }
    if (m.rest === "cancelOutcome") {
      timed.push({ at: tCancel + r() * (2 - tCancel), m });
      continue;
    }
    const copies = r() < 0.2 ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      if (r() < 0.3) continue; // dropped
      const lo = m.after ? tCancel : 0;
      const e = { ...m.e, source: r() < 0.5 ? Source.Stream : Source.Poll };
      // Some stream messages carry only the exchange id: they must wait for the ack (or the snapshot).
      if (r() < 0.3) e.clientId = "";
      timed.push({ at: lo + r() * (2 - lo), m: { ...m, e } });
    }
  }
  if (t.cancels) timed.push({ at: tCancel, m: "cancel" });
  timed.sort((a, b) => a.at - b.at);
  let cancelSent = false;
  for (const { m } of timed) {
    if (m === "cancel") {
      const d = store.requestCancel(o.clientId);
      cancelSent = d.kind === "send";
      onEach();
      continue;
    }
    // A cancel outcome only exists if our cancel was actually sent.
    if (m.rest === "cancelOutcome" && !cancelSent) continue;
    store.apply(m.e);
    onEach();
  }
  for (const e of t.snapshot) {
    store.apply(e);
    onEach();
  }
}

class FillSum implements OrderListener {
  lots = 0;
  onUpdate(): void {}
  onFill(_o: Order, f: FillReport): void {
    this.lots += f.lots;
  }
  onCancelReleased(): void {}
}

describe("reference model: shuffled, duplicated, dropped venue events + final snapshot", () => {
  it("ends in exactly the true final status and filled quantity", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 0x7fffffff }), fc.integer(), (seed, dseed) => {
        const sum = new FillSum();
        const store2 = new OrderStore({ listener: sum });
        const t0 = lifecycle(seed, `ref-${seed}`);
        const order = store2.create({ ...req(1, t0.qty), surface: t0.surface }, 0, `ref-${seed}`);
        store2.apply(ev(Ev.Submitted, { clientId: order.clientId }, Source.Rest));
        let prevFilled = 0;
        deliver(store2, order, t0, dseed, () => {
          expect(order.filledLots).toBeGreaterThanOrEqual(prevFilled);
          expect(order.filledLots).toBeLessThanOrEqual(t0.qty);
          prevFilled = order.filledLots;
        });
        const label = `${t0.surface} ${t0.ending}: want ${STATUS_NAMES[t0.final]}/${t0.filled}, got ${STATUS_NAMES[order.status]}/${order.filledLots}`;
        expect(STATUS_NAMES[order.status], label).toBe(STATUS_NAMES[t0.final]);
        expect(order.filledLots, label).toBe(t0.filled);
        expect(sum.lots, label).toBe(t0.filled);
        expect(order.overfilled).toBe(false);
        expect(store2.orphanCount).toBe(0);
      }),
      { numRuns: 3000 },
    );
  });
});
