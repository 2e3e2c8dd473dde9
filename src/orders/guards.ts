/**
 * Cancel guard: a pure decision from the order's current state, no I/O. The answers are preallocated
 * constants so the hot path allocates nothing.
 */
import { STATUS_NAMES, Status } from "./status.js";

export type CancelRejectCode =
  | "CANCEL_ALREADY_PENDING"
  | "EXPIRATION_RAISED"
  | "ALREADY_TERMINAL"
  | "UNKNOWN_ORDER";

export type CancelDecision =
  /** Send the cancel now (the engine sends it; the store is already PendingCancel). */
  | { readonly kind: "send" }
  /** Create not answered yet: held, sent when the exchange id is known, resolved if the create is rejected. */
  | { readonly kind: "hold" }
  /** Nothing is sent. */
  | { readonly kind: "reject"; readonly code: CancelRejectCode; readonly message: string };

export const CANCEL_SEND: CancelDecision = Object.freeze({ kind: "send" });
export const CANCEL_HOLD: CancelDecision = Object.freeze({ kind: "hold" });
const reject = (code: CancelRejectCode, message: string): CancelDecision =>
  Object.freeze({ kind: "reject", code, message });

export const CANCEL_UNKNOWN_ORDER = reject("UNKNOWN_ORDER", "no such order");
export const CANCEL_ALREADY_PENDING = reject("CANCEL_ALREADY_PENDING", "cancel already pending");
export const CANCEL_EXPIRATION_RAISED = reject(
  "EXPIRATION_RAISED",
  "order is expiring at the venue; cancellation is not allowed",
);
const ALREADY: readonly CancelDecision[] = STATUS_NAMES.map((n) =>
  reject("ALREADY_TERMINAL", `already ${n.toLowerCase()}`),
);

export interface CancelGuardInput {
  readonly status: Status;
  readonly cancelHeld: boolean;
}

/** Decides what a cancel request does. `undefined` = the store has no such order. */
export function cancelGuard(o: CancelGuardInput | undefined): CancelDecision {
  if (o === undefined) return CANCEL_UNKNOWN_ORDER;
  switch (o.status) {
    case Status.New:
    case Status.PartiallyFilled:
      return CANCEL_SEND;
    case Status.PendingNew:
    case Status.Unknown:
    // An amend in flight: the cancel waits for its answer (then the order is working again).
    case Status.PendingReplace:
      return o.cancelHeld ? CANCEL_ALREADY_PENDING : CANCEL_HOLD;
    case Status.PendingCancel:
    case Status.CancellationRaised:
      return CANCEL_ALREADY_PENDING;
    case Status.ExpirationRaised:
      return CANCEL_EXPIRATION_RAISED;
    default:
      return ALREADY[o.status]!;
  }
}

// ---- amend ----

export type AmendRejectCode =
  | "UNKNOWN_ORDER"
  | "ALREADY_TERMINAL"
  | "CANCEL_PENDING"
  | "EXPIRATION_RAISED"
  | "AMEND_PENDING"
  | "NOT_WORKING"
  | "QTY_NOT_ABOVE_FILLED"
  | "NOTHING_TO_AMEND";

export type AmendDecision =
  /** Send the amend (in place) or the replace's cancel now: the store has recorded the target. */
  | { readonly kind: "send" }
  /** Nothing is sent, nothing changes. */
  | { readonly kind: "reject"; readonly code: AmendRejectCode; readonly message: string };

export const AMEND_SEND: AmendDecision = Object.freeze({ kind: "send" });
const amendReject = (code: AmendRejectCode, message: string): AmendDecision =>
  Object.freeze({ kind: "reject", code, message });
export const AMEND_UNKNOWN_ORDER = amendReject("UNKNOWN_ORDER", "no such order");
const AMEND_TERMINAL = amendReject("ALREADY_TERMINAL", "order is final");
const AMEND_CANCEL_PENDING = amendReject("CANCEL_PENDING", "a cancel is pending");
const AMEND_EXPIRING = amendReject("EXPIRATION_RAISED", "order is expiring at the venue");
const AMEND_PENDING = amendReject("AMEND_PENDING", "another amend is in flight");
const AMEND_NOT_WORKING = amendReject("NOT_WORKING", "create not answered yet");
const AMEND_BELOW_FILLED = amendReject("QTY_NOT_ABOVE_FILLED", "quantity must exceed the filled quantity");
const AMEND_NOTHING = amendReject("NOTHING_TO_AMEND", "nothing to amend");

export interface AmendGuardInput {
  readonly status: Status;
  readonly cancelHeld: boolean;
  readonly type: "limit" | "market";
  readonly priceTicks: number;
  readonly qtyLots: number;
  readonly filledLots: number;
  /** Cancel-replace running: the replacement's number (0 = none). */
  readonly extra: { readonly replacedBy: number };
}

/**
 * Decides what an amend does: the order must be working (New / PartiallyFilled) with no cancel and no
 * other amend in flight; `priceTicks` / `qtyLots` are the targets (0 = unchanged); the new total must
 * exceed what is filled; a market order has nothing to amend.
 */
export function amendGuard(
  o: AmendGuardInput | undefined,
  priceTicks: number,
  qtyLots: number,
): AmendDecision {
  if (o === undefined) return AMEND_UNKNOWN_ORDER;
  if (o.extra.replacedBy > 0) return AMEND_PENDING;
  switch (o.status) {
    case Status.New:
    case Status.PartiallyFilled:
      break;
    case Status.PendingReplace:
      return AMEND_PENDING;
    case Status.PendingNew:
    case Status.Unknown:
      return AMEND_NOT_WORKING;
    case Status.PendingCancel:
    case Status.CancellationRaised:
      return AMEND_CANCEL_PENDING;
    case Status.ExpirationRaised:
      return AMEND_EXPIRING;
    default:
      return AMEND_TERMINAL;
  }
  if (o.cancelHeld) return AMEND_CANCEL_PENDING;
  if (o.type !== "limit") return AMEND_NOTHING;
  if (qtyLots > 0 && qtyLots <= o.filledLots) return AMEND_BELOW_FILLED;
  const samePx = priceTicks === 0 || priceTicks === o.priceTicks;
  const sameQty = qtyLots === 0 || qtyLots === o.qtyLots;
  if (samePx && sameQty) return AMEND_NOTHING;
  return AMEND_SEND;
}
