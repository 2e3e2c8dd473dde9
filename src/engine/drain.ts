/**
 * Stop = drain: what happens between a stop signal and the close of the command API. New orders and
 * amends are already refused (Reject 501 ShuttingDown; cancels still pass). The drain waits until
 * every in-flight create, cancel and amend is answered or resolved (the feeds, the resolver and the
 * REST stack keep running meanwhile), applies cancel-on-disconnect to every live order of the
 * sessions that asked for it — the cancel of an order whose create is still unanswered is held by
 * the store and sent at its ack — and waits for those cancels' answers too, all within one deadline.
 * Each step is journaled. The caller then closes every connection with 1001 (Gateway.goAway).
 */
import type { Logger } from "pino";
import type { Journal } from "../journal/writer.js";
import { type Order, Status } from "../orders/index.js";
import { CodPolicy } from "../protocol/schema.js";
import type { Engine } from "./engine.js";

/** Orders with a request of ours the venue has not finished answering. */
const IN_FLIGHT: readonly boolean[] = (() => {
  const t: boolean[] = [];
  for (const s of [
    Status.PendingNew,
    Status.Unknown,
    Status.PendingCancel,
    Status.CancellationRaised,
    Status.PendingReplace,
  ])
    t[s] = true;
  return t;
})();

export function inFlight(o: Order): boolean {
  return IN_FLIGHT[o.status] === true || o.cancelHeld || o.extra.replacedBy > 0;
}

/** A cancel-on-disconnect order still to be cancelled (not in flight, not final). */
function stillWorking(o: Order): boolean {
  return o.status === Status.New || o.status === Status.PartiallyFilled;
}

/** How often the drain looks again; a refused cancel-on-disconnect cancel is asked again this often. */
const POLL_MS = 10;
const RECANCEL_MS = 250;

export interface DrainDeps {
  engine: Pick<Engine, "store" | "owners" | "cancels">;
  journal: Journal | undefined;
  log: Logger;
  /** `shutdown.cancelLiveOrders`: every session's live orders are cancelled, as for cancel-on-disconnect. */
  cancelAll: boolean;
}

export interface DrainResult {
  ms: number;
  /** In flight when the drain began / when it ended (0 unless the deadline passed). */
  inFlightAtStart: number;
  inFlight: number;
  /** Owners whose orders were cancelled (cancel-on-disconnect, or every one with `cancelAll`). */
  codOwners: number;
  /** Their orders still working or in flight at the end (0 unless the deadline passed). */
  codOpen: number;
}

export async function drain(d: DrainDeps, reason: string, deadlineMs: number): Promise<DrainResult> {
  const t0 = Date.now();
  const { store, owners, cancels } = d.engine;
  const cod = codOwners(d);
  const counts = inFlightCounts(store.liveSet());
  const start = counts.creates + counts.cancels + counts.amends;
  const text = `drain: start (${reason}): in flight ${start} (creates ${counts.creates}, cancels ${counts.cancels}, amends ${counts.amends}); cancel-on-disconnect sessions ${cod.size}`;
  d.journal?.note({ text });
  d.log.info({ reason, ...counts, codSessions: cod.size }, "draining");
  const cancelOwner = (owner: number) => {
    d.journal?.command({ session: owners.ownerName(owner), op: "cancelAll", reason: "cod at stop" });
    cancels.cancelAll(owner);
  };
  for (const owner of cod) cancelOwner(owner);
  let lastCancel = Date.now();
  for (;;) {
    const open = codOpen(store, cod);
    const pending = inFlightCounts(store.liveSet());
    const left = pending.creates + pending.cancels + pending.amends;
    if ((left === 0 && open.working === 0) || Date.now() >= deadlineMs) {
      const r: DrainResult = {
        ms: Date.now() - t0,
        inFlightAtStart: start,
        inFlight: left,
        codOwners: cod.size,
        codOpen: open.working + open.inFlight,
      };
      const done = `drain: done in ${r.ms} ms: in flight ${r.inFlight}; cancel-on-disconnect open ${r.codOpen}`;
      d.journal?.note({ text: left > 0 || r.codOpen > 0 ? `${done} (deadline passed)` : done });
      if (left > 0 || r.codOpen > 0)
        d.log.warn(
          { ...r },
          "drain deadline passed: what is still owed is resolved after the restart and told on resume",
        );
      else d.log.info({ ...r }, "drained");
      return r;
    }
    if (Date.now() - lastCancel >= RECANCEL_MS) {
      lastCancel = Date.now();
      // A session that logged on with cancel-on-disconnect during the drain.
      for (const owner of codOwners(d))
        if (!cod.has(owner)) {
          cod.add(owner);
          cancelOwner(owner);
        }
      // An order whose cancel was refused (throttled, venue busy) is asked again, spaced out.
      if (open.working > 0) for (const owner of cod) cancels.cancelAll(owner);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Owners to cancel: sessions that logged on with cancel-on-disconnect (connected or kept for resume),
 * those of an earlier run not back yet, or every owner with a live order under `cancelAll`. */
function codOwners(d: DrainDeps): Set<number> {
  const { store, owners } = d.engine;
  const out = new Set<number>();
  for (const s of owners.sessions.sessions())
    if (s.codPolicy === CodPolicy.CancelOnDisconnect) out.add(owners.ownerOf(s.name));
  for (const owner of owners.restartCodPending()) out.add(owner);
  if (d.cancelAll) for (const o of store.liveSet()) out.add(o.sessionId);
  return out;
}

function inFlightCounts(live: ReadonlySet<Order>): { creates: number; cancels: number; amends: number } {
  let creates = 0;
  let cancels = 0;
  let amends = 0;
  for (const o of live) {
    if (!inFlight(o)) continue;
    if (o.status === Status.PendingNew || o.status === Status.Unknown) creates++;
    else if (o.status === Status.PendingReplace || o.extra.replacedBy > 0) amends++;
    else cancels++;
  }
  return { creates, cancels, amends };
}

function codOpen(
  store: DrainDeps["engine"]["store"],
  cod: ReadonlySet<number>,
): { working: number; inFlight: number } {
  let working = 0;
  let pending = 0;
  for (const owner of cod)
    for (const o of store.liveOrders(owner)) {
      if (stillWorking(o) && !o.cancelHeld) working++;
      else if (inFlight(o)) pending++;
    }
  return { working, inFlight: pending };
}
