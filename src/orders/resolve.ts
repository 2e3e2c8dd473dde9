/**
 * Resolution of ambiguous outcomes, as a pure decision. The reconciler asks the venue about an order by
 * client id (HFT `/v5/order/realtime?orderLinkId=`, Spot `GET /trade/api/v2/order?client_order_id=`) and
 * passes the answer here; the decision says which event to apply and what to do next. A network error
 * is never evidence that the order does not exist.
 */
import type { Order } from "./order.js";
import { Ev, Status } from "./status.js";

export type QueryOutcome =
  /** The venue returned the order; `status` is its unified status (the caller applies the record event). */
  | { readonly kind: "found"; readonly status: Status }
  /** The venue answered authoritatively that no order has this client id. */
  | { readonly kind: "notFound" }
  /** Timeout, reset, 5xx, 429: says nothing about the order. */
  | { readonly kind: "networkError" };

export interface ResolutionPolicy {
  /** Queries per order before escalating (network errors count). */
  readonly maxQueries: number;
  /** Same-id create resends after an authoritative not-found before the create is declared rejected. */
  readonly maxResends: number;
}

export const DEFAULT_RESOLUTION_POLICY: ResolutionPolicy = { maxQueries: 10, maxResends: 2 };

export type ResolutionAction =
  /** Apply the found record (normalize it and `store.apply`). */
  | "apply_record"
  /** Re-send the create with the same client id (the venue de-duplicates). */
  | "resend_create"
  /** The order is live but our cancel's fate is unknown: re-send the cancel. */
  | "resend_cancel"
  /** Ask again later. */
  | "retry_query"
  /** Apply `event` (e.g. CreateRejected after bounded resends) and stop. */
  | "apply_event"
  /** Out of attempts with no evidence either way: keep the order as it is and raise an alarm. */
  | "escalate"
  /** Nothing to do. */
  | "none";

export interface ResolutionDecision {
  readonly action: ResolutionAction;
  /** For "apply_event". */
  readonly event?: Ev;
  readonly reason: string;
}

export function decideResolution(
  o: Pick<Order, "status" | "sends" | "exchangeId"> & {
    readonly extra: { readonly resolveAttempts: number };
  },
  q: QueryOutcome,
  policy: ResolutionPolicy = DEFAULT_RESOLUTION_POLICY,
): ResolutionDecision {
  const createOpen = o.status === Status.PendingNew || o.status === Status.Unknown;
  if (q.kind === "networkError") {
    return o.extra.resolveAttempts < policy.maxQueries
      ? { action: "retry_query", reason: "network error is not evidence" }
      : { action: "escalate", reason: "query attempts exhausted; outcome still unknown" };
  }
  if (q.kind === "notFound") {
    if (createOpen) {
      // sends counts the first send too: resends so far = sends - 1.
      if (o.sends - 1 < policy.maxResends) {
        return { action: "resend_create", reason: "not found: resend with the same client id" };
      }
      return { action: "apply_event", event: Ev.CreateRejected, reason: "not found after bounded resends" };
    }
    // An acked order the venue cannot find: the realtime window may have passed, or something is wrong.
    return { action: "escalate", reason: "acked order not found at the venue" };
  }
  if (o.status === Status.PendingCancel && (q.status === Status.New || q.status === Status.PartiallyFilled)) {
    return { action: "resend_cancel", reason: "order still live; cancel outcome unknown" };
  }
  return { action: "apply_record", reason: "found" };
}
