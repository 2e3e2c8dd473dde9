/**
 * The unified order status set, the event vocabulary that moves an order between statuses, and the
 * mapping tables from each surface's status strings. Numbers (not strings) so the transition table is a
 * flat array indexed by `status * EVENT_COUNT + event` on the hot path.
 */
import type { FuturesStatus, SpotStatus, V5OrderStatus } from "../rest/wire.js";

export const Status = {
  /** Create sent (or about to be), no answer yet. Local in-flight state. */
  PendingNew: 0,
  /** Create outcome ambiguous (timeout, reset, 5xx): resolved by client id, never re-sent under a new id. */
  Unknown: 1,
  /** Accepted by the venue, no fills (Spot OPEN, v5 New). */
  New: 2,
  PartiallyFilled: 3,
  /** Our cancel request is in flight. Local in-flight state. */
  PendingCancel: 4,
  /** The venue has accepted a cancel but not finished it (Spot CANCELLATION_RAISED). Pending, not terminal. */
  CancellationRaised: 5,
  /** The venue is expiring the order (Spot EXPIRATION_RAISED). Pending; cancels are refused. */
  ExpirationRaised: 6,
  Filled: 7,
  /** Cancelled; `filledQty > 0` means partially filled then cancelled (v5 PartiallyFilledCanceled). */
  Cancelled: 8,
  Expired: 9,
  /** Refused by the venue: create rejected, Spot DISCARDED, v5 Rejected. */
  Rejected: 10,
  /** Our in-place amend (price / quantity) is in flight. Local in-flight state, like PendingCancel. */
  PendingReplace: 11,
} as const;
export type Status = (typeof Status)[keyof typeof Status];
export const STATUS_COUNT = 12;

export const STATUS_NAMES: readonly string[] = [
  "PendingNew",
  "Unknown",
  "New",
  "PartiallyFilled",
  "PendingCancel",
  "CancellationRaised",
  "ExpirationRaised",
  "Filled",
  "Cancelled",
  "Expired",
  "Rejected",
  "PendingReplace",
];

/** "Filled", "Cancelled", ... for logs and the protocol's text fields. */
export function statusName(s: Status): string {
  return STATUS_NAMES[s]!;
}

/** Terminal statuses; indexed by Status. Only the documented edges in the transition table leave them. */
export const TERMINAL: readonly boolean[] = [
  false,
  false,
  false,
  false,
  false,
  false,
  false,
  true,
  true,
  true,
  true,
  false,
];

/**
 * The gateway's own cancel or amend in flight (PendingCancel, PendingReplace); indexed by Status. Their
 * updates are what a session logged on with NoPendingUpdates is not sent, live or after a restart.
 */
export const OWN_REQUEST_PENDING: readonly boolean[] = (() => {
  const t: boolean[] = new Array(STATUS_COUNT).fill(false);
  t[Status.PendingCancel] = true;
  t[Status.PendingReplace] = true;
  return t;
})();

/**
 * Whether an update in `status` only acknowledges the gateway's own cancel or amend: the two statuses
 * above, and CancellationRaised while a cancel the gateway sent stands (the venue's CANCELLATION_RAISED
 * answering it; the protocol shows both as PendingCancel). A cancel the venue raised on its own is news.
 * `cancelSentNs` is the order's: set when the gateway sends a cancel, 0 again when the venue refuses it.
 */
export function acksOwnRequest(status: Status, cancelSentNs: number): boolean {
  return OWN_REQUEST_PENDING[status] === true || (status === Status.CancellationRaised && cancelSentNs > 0);
}

/** Statuses in which the order may still trade at the venue (or may exist there): cancel-all targets these. */
export function isLive(s: Status): boolean {
  return !TERMINAL[s];
}

export const Ev = {
  /** The create request left the process (first send or a same-id resend). */
  Submitted: 0,
  /** REST create answered with an exchange order id. */
  CreateAcked: 1,
  /** REST create answered with a definite refusal (4xx / non-zero retCode that is not ambiguous). */
  CreateRejected: 2,
  /** REST create timed out / reset / 5xx: the order may or may not exist. */
  CreateOutcomeUnknown: 3,
  /** The strategy asked to cancel and the guard allowed it (send or hold). */
  CancelRequested: 4,
  /** REST cancel accepted by the venue (the venue still has to finish it). */
  CancelAcked: 5,
  /** REST cancel definitely refused (already filled / not found / expiring). */
  CancelRejected: 6,
  /** REST cancel outcome ambiguous. */
  CancelOutcomeUnknown: 7,
  /** Venue record (stream, poll or query) says New / OPEN. */
  VenueNew: 8,
  VenuePartiallyFilled: 9,
  VenueCancellationRaised: 10,
  /** Venue record says EXPIRATION_RAISED. */
  ExpiryRaised: 11,
  VenueFilled: 12,
  VenueCancelled: 13,
  VenueExpired: 14,
  VenueRejected: 15,
  /** One execution (trade) of the order, with an execution id, or synthesized from a cumulative qty. */
  Fill: 16,
  /** An authoritative query found no such order. Never produced from a network error. */
  NotFound: 17,
  /** The strategy asked to amend and the guard allowed it (the order carries the target). */
  AmendRequested: 18,
  /** The venue took the amend (REST answer, or a query showing the target): the target applies. */
  AmendAcked: 19,
  /** The venue refused the amend, or a query after its deadline shows the order unchanged. */
  AmendRejected: 20,
  /** REST amend outcome ambiguous: stays PendingReplace; the resolver asks the venue. */
  AmendOutcomeUnknown: 21,
} as const;
export type Ev = (typeof Ev)[keyof typeof Ev];
export const EVENT_COUNT = 22;

export const EVENT_NAMES: readonly string[] = [
  "Submitted",
  "CreateAcked",
  "CreateRejected",
  "CreateOutcomeUnknown",
  "CancelRequested",
  "CancelAcked",
  "CancelRejected",
  "CancelOutcomeUnknown",
  "VenueNew",
  "VenuePartiallyFilled",
  "VenueCancellationRaised",
  "ExpiryRaised",
  "VenueFilled",
  "VenueCancelled",
  "VenueExpired",
  "VenueRejected",
  "Fill",
  "NotFound",
  "AmendRequested",
  "AmendAcked",
  "AmendRejected",
  "AmendOutcomeUnknown",
];

/** True for the events that carry a venue status (and possibly cumulative qty). */
export function isVenueStatusEvent(e: Ev): boolean {
  return e >= Ev.VenueNew && e <= Ev.VenueRejected;
}

/** The venue-status event that reports a unified status, or -1 for local-only statuses. */
export const VENUE_EVENT_FOR_STATUS: readonly number[] = [
  -1,
  -1,
  Ev.VenueNew,
  Ev.VenuePartiallyFilled,
  -1,
  Ev.VenueCancellationRaised,
  Ev.ExpiryRaised,
  Ev.VenueFilled,
  Ev.VenueCancelled,
  Ev.VenueExpired,
  Ev.VenueRejected,
  -1,
];

/** HFT v5 `orderStatus` → unified status. PartiallyFilledCanceled keeps its fills: Cancelled with filledQty > 0. */
export const V5_STATUS_MAP: Readonly<Record<V5OrderStatus, Status>> = {
  New: Status.New,
  PartiallyFilled: Status.PartiallyFilled,
  Filled: Status.Filled,
  Cancelled: Status.Cancelled,
  PartiallyFilledCanceled: Status.Cancelled,
  Rejected: Status.Rejected,
};

/** Spot v2 `status` → unified status. DISCARDED (refused before reaching the book) is Rejected. */
export const SPOT_STATUS_MAP: Readonly<Record<SpotStatus, Status>> = {
  OPEN: Status.New,
  PARTIALLY_EXECUTED: Status.PartiallyFilled,
  EXECUTED: Status.Filled,
  CANCELLED: Status.Cancelled,
  EXPIRED: Status.Expired,
  DISCARDED: Status.Rejected,
  CANCELLATION_RAISED: Status.CancellationRaised,
  EXPIRATION_RAISED: Status.ExpirationRaised,
};

/**
 * Futures v2 `status` → unified status (§7.2). RAISED is the working state; with a fill it is
 * PartiallyFilled (see statusFromFutures). PARTIALLY_EXECUTED is terminal at the venue (the remainder
 * no longer works): Cancelled with filledQty > 0, like v5 PartiallyFilledCanceled.
 */
export const FUTURES_STATUS_MAP: Readonly<Record<FuturesStatus, Status>> = {
  RAISED: Status.New,
  EXECUTED: Status.Filled,
  PARTIALLY_EXECUTED: Status.Cancelled,
  CANCELLED: Status.Cancelled,
  CANCELLATION_RAISED: Status.CancellationRaised,
};

export class UnknownVenueStatusError extends Error {
  override readonly name = "UnknownVenueStatusError";
  constructor(
    readonly surface: "spot" | "hft" | "futures",
    readonly value: string,
  ) {
    super(`unknown ${surface} order status ${JSON.stringify(String(value).slice(0, 40))}`);
  }
}

/** Maps a v5 `orderStatus`; an unlisted string is a typed error (the record is then ignored, nothing changes). */
export function statusFromV5(s: string): Status {
  const v = (V5_STATUS_MAP as Record<string, Status | undefined>)[s];
  if (v === undefined || !Object.hasOwn(V5_STATUS_MAP, s)) throw new UnknownVenueStatusError("hft", s);
  return v;
}

export function statusFromSpot(s: string): Status {
  const v = (SPOT_STATUS_MAP as Record<string, Status | undefined>)[s];
  if (v === undefined || !Object.hasOwn(SPOT_STATUS_MAP, s)) throw new UnknownVenueStatusError("spot", s);
  return v;
}

/**
 * Maps a Futures `status`; `filled` says whether the record shows any executed quantity. [assumed] a
 * working order that has traded stays RAISED at the venue (the docs list no working-and-partly-filled
 * status), so RAISED with a fill is PartiallyFilled.
 */
export function statusFromFutures(s: string, filled: boolean): Status {
  const v = (FUTURES_STATUS_MAP as Record<string, Status | undefined>)[s];
  if (v === undefined || !Object.hasOwn(FUTURES_STATUS_MAP, s))
    throw new UnknownVenueStatusError("futures", s);
  return v === Status.New && filled ? Status.PartiallyFilled : v;
}
