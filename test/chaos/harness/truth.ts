/**
 * The final-truth check every chaos scenario ends with: the gateway's belief about each order against
 * the simulator's own record of the account. Status vocabularies of the three sides (simulator Spot /
 * v5 strings, the order store's Status, the wire protocol's OrderStatus) are mapped onto one small set
 * so they can be compared directly.
 */

import type { SimHandle } from "../../../sim/index.js";
import { Status } from "../../../src/orders/index.js";
import { OrderStatus } from "../../../src/protocol/schema.js";

/** The compared vocabulary. `CancelRaised` is the venue's accepted-but-unfinished cancel. */
export type Norm =
  | "PendingNew"
  | "Unknown"
  | "New"
  | "PartiallyFilled"
  | "PendingCancel"
  | "CancelRaised"
  | "ExpirationRaised"
  | "Filled"
  | "Cancelled"
  | "Expired"
  | "Rejected";

export const LIVE: ReadonlySet<Norm> = new Set([
  "PendingNew",
  "Unknown",
  "New",
  "PartiallyFilled",
  "PendingCancel",
  "CancelRaised",
  "ExpirationRaised",
]);

const SPOT: Record<string, Norm> = {
  OPEN: "New",
  PARTIALLY_EXECUTED: "PartiallyFilled",
  EXECUTED: "Filled",
  CANCELLATION_RAISED: "CancelRaised",
  CANCELLED: "Cancelled",
  EXPIRATION_RAISED: "ExpirationRaised",
  EXPIRED: "Expired",
  DISCARDED: "Rejected",
};
const V5: Record<string, Norm> = {
  New: "New",
  PartiallyFilled: "PartiallyFilled",
  Filled: "Filled",
  Cancelled: "Cancelled",
  PartiallyFilledCanceled: "Cancelled",
  Rejected: "Rejected",
};
const STORE: Record<number, Norm> = {
  [Status.PendingNew]: "PendingNew",
  [Status.Unknown]: "Unknown",
  [Status.New]: "New",
  [Status.PartiallyFilled]: "PartiallyFilled",
  [Status.PendingCancel]: "PendingCancel",
  [Status.CancellationRaised]: "CancelRaised",
  [Status.ExpirationRaised]: "ExpirationRaised",
  [Status.Filled]: "Filled",
  [Status.Cancelled]: "Cancelled",
  [Status.Expired]: "Expired",
  [Status.Rejected]: "Rejected",
};
/** The wire has one PendingCancel for both our in-flight cancel and the venue's CANCELLATION_RAISED. */
const WIRE: Record<number, Norm> = {
  [OrderStatus.PendingNew]: "PendingNew",
  [OrderStatus.New]: "New",
  [OrderStatus.PartiallyFilled]: "PartiallyFilled",
  [OrderStatus.Filled]: "Filled",
  [OrderStatus.PendingCancel]: "PendingCancel",
  [OrderStatus.Cancelled]: "Cancelled",
  [OrderStatus.Rejected]: "Rejected",
  [OrderStatus.Expired]: "Expired",
  [OrderStatus.ExpirationRaised]: "ExpirationRaised",
  [OrderStatus.Unknown]: "Unknown",
};

export const normFromStore = (s: number): Norm => STORE[s] ?? "Unknown";
export const normFromWire = (s: number): Norm => WIRE[s] ?? "Unknown";

/** One order as the gateway believes it. `clientId` is known for in-process components, not on the wire. */
export interface GatewayView {
  /** Stable key for reports (client id, or `session#clOrdNo`). */
  key: string;
  clientId?: string;
  exchangeId: string;
  status: Norm;
  filledLots: number;
  /** Limit price and total quantity as the gateway reports them (an amend changes them); absent = not checked. */
  priceTicks?: number;
  qtyLots?: number;
}

/** One order as the venue holds it. */
export interface VenueView {
  surface: "spot" | "hft";
  id: string;
  clientId: string;
  status: Norm;
  filledLots: number;
  /** Price and total quantity at the venue (absent = not checked). */
  priceTicks?: number;
  qtyLots?: number;
}

/** Every order the simulator holds for the account (both surfaces), straight from its exchange state. */
export function venueOrders(sim: SimHandle, apiKey: string): VenueView[] {
  const acct = sim.exchange.accounts.get(apiKey.toLowerCase());
  if (acct === undefined) throw new Error("account not registered at the simulator");
  const out: VenueView[] = [];
  for (const o of acct.spotList) {
    out.push({
      surface: "spot",
      id: o.id,
      clientId: o.clientId,
      status: SPOT[o.spotStatus]!,
      filledLots: o.execLots,
      priceTicks: o.market ? undefined : o.priceTicks,
      qtyLots: o.origLots,
    });
  }
  for (const o of acct.hftList) {
    out.push({
      surface: "hft",
      id: o.id,
      clientId: o.clientId,
      status: V5[o.v5Status]!,
      filledLots: o.execLots,
      priceTicks: o.market ? undefined : o.priceTicks,
      qtyLots: o.origLots,
    });
  }
  return out;
}

export interface Mismatch {
  key: string;
  exchangeId: string;
  gateway: string;
  venue: string;
}

export interface TruthReport {
  /** Orders the strategy placed (as the gateway lists them). */
  orders: number;
  venueOrders: number;
  /** Venue orders sharing a client id with another venue order (extra copies). */
  duplicated: number;
  /**
   * Orders lost: venue orders the gateway does not know, gateway orders still unresolved
   * (PendingNew/Unknown) after settling, and gateway orders with an exchange id the venue never had.
   */
  lost: number;
  /** Known on both sides but status or filled quantity differ. */
  mismatched: Mismatch[];
  /** Among the mismatches: the gateway believes live, the venue says terminal or absent. */
  ghostLive: number;
  details: string[];
}

/**
 * Compares after the scenario has settled. Matching is by exchange order id (what the wire carries);
 * when client ids are known they are checked too (a Rejected order must not exist at the venue).
 */
export function compareTruth(gw: readonly GatewayView[], venue: readonly VenueView[]): TruthReport {
  const details: string[] = [];
  const byId = new Map(venue.map((v) => [v.id, v]));
  const byClient = new Map<string, VenueView[]>();
  let duplicated = 0;
  for (const v of venue) {
    if (v.clientId === "") {
      details.push(`venue order ${v.id} has no client id (not minted by the gateway)`);
      continue;
    }
    const l = byClient.get(v.clientId);
    if (l === undefined) byClient.set(v.clientId, [v]);
    else {
      l.push(v);
      duplicated++;
      details.push(`duplicate at venue: client id ${v.clientId} x${l.length}`);
    }
  }
  let lost = 0;
  let ghostLive = 0;
  const mismatched: Mismatch[] = [];
  const matched = new Set<string>();
  for (const g of gw) {
    if (g.status === "PendingNew" || g.status === "Unknown") {
      lost++;
      details.push(`${g.key}: still ${g.status} after settling`);
      continue;
    }
    let v = g.exchangeId !== "" ? byId.get(g.exchangeId) : undefined;
    if (v === undefined && g.clientId !== undefined) v = byClient.get(g.clientId)?.[0];
    if (v === undefined) {
      if (g.status === "Rejected") continue; // never reached the book: correct when the venue has nothing
      lost++;
      if (LIVE.has(g.status)) ghostLive++;
      details.push(
        `${g.key}: gateway says ${g.status} ${g.exchangeId || "(no id)"}, venue has no such order`,
      );
      continue;
    }
    matched.add(v.id);
    const same = g.status === v.status || (g.status === "PendingCancel" && v.status === "CancelRaised");
    // Amends: the price and total quantity the gateway reports are the venue's (where both say).
    const terms = (x: { priceTicks?: number; qtyLots?: number }, px: boolean) =>
      `${px ? (x.priceTicks ?? "") : ""}x${x.qtyLots ?? ""}`;
    const px = (g.priceTicks ?? 0) > 0 && v.priceTicks !== undefined;
    const sameTerms = g.qtyLots === undefined || v.qtyLots === undefined || terms(g, px) === terms(v, px);
    if (!same || g.filledLots !== v.filledLots || !sameTerms) {
      mismatched.push({
        key: g.key,
        exchangeId: v.id,
        gateway: `${g.status} filled=${g.filledLots} ${terms(g, px)}`,
        venue: `${v.status} filled=${v.filledLots} ${terms(v, px)}`,
      });
      if (LIVE.has(g.status) && !LIVE.has(v.status)) ghostLive++;
    }
  }
  for (const v of venue) {
    if (!matched.has(v.id) && (byClient.get(v.clientId)?.length ?? 1) === 1) {
      lost++;
      details.push(`venue order ${v.id} (${v.clientId}, ${v.status}) unknown to the gateway`);
    }
  }
  for (const m of mismatched)
    details.push(`${m.key} ${m.exchangeId}: gateway ${m.gateway}, venue ${m.venue}`);
  return { orders: gw.length, venueOrders: venue.length, duplicated, lost, mismatched, ghostLive, details };
}

/**
 * Polls until the gateway's view equals the venue's (or the time is up) and returns the last report.
 * Nothing is triggered here: convergence must come from the system's own streams, polls and
 * reconciliations.
 */
export async function converge(
  gateway: () => GatewayView[] | Promise<GatewayView[]>,
  venue: () => VenueView[],
  timeoutMs: number,
): Promise<TruthReport> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const t = compareTruth(await gateway(), venue());
    if (t.details.length === 0 || Date.now() > end) return t;
    await new Promise((r) => setTimeout(r, 25));
  }
}
