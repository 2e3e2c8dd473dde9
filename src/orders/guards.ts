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
