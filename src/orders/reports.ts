/**
 * What the order store tells the rest of the gateway: the listener it pushes changes to (status
 * changes, create answers, fills, released cancels), the reused result of one `apply`, and its
 * counters. Shared by the store's parts (apply, fills, indexes) so none of them imports the store.
 */
import type { Order } from "./order.js";
import type { Ev, Status } from "./status.js";
import type { DropReason } from "./transitions.js";

/** One fill as pushed to the listener. The object is reused: copy what you keep. */
export interface FillReport {
  /** Execution id, or `<exchangeId|clientId>:<cumLots>` when synthesized from a cumulative quantity. */
  execId: string;
  lots: number;
  pxTicks: number;
  /** This fill's fee when known, else 0. */
  fee: number;
  synthetic: boolean;
  tsNs: number;
  /**
   * Venue time of the execution (Unix ms): the execution record's `execTime`, or for a fill synthesized
   * from a cumulative order record that record's update time (the venue says no more); 0 = unknown.
   */
  venueMs: number;
  /** Maker / taker from the execution record (`LIQUIDITY`); 0 when unknown or synthesized. */
  liquidity: number;
}

/** How a create stands while its definite answer is still owed (see OrderListener.onCreateAnswer). */
export const CreateAnswer = {
  /** Back to PendingNew (a same-id resend): nothing new to tell. */
  Pending: 0,
  /** The outcome is ambiguous (timeout, reset, 5xx): resolving by client id. */
  Unknown: 1,
  /** The venue has it (an exchange id): acked, possibly already past New. */
  Acked: 2,
  /** Definitely refused, never placed (no exchange id). */
  Rejected: 3,
} as const;
export type CreateAnswer = (typeof CreateAnswer)[keyof typeof CreateAnswer];

/** Receives every change. One object with methods; called synchronously inside `apply`. */
export interface OrderListener {
  /**
   * A status change of an order whose create has not had its definite answer yet (instead of
   * onUpdate): the store says which answer it is. After Acked or Rejected, changes go to onUpdate.
   * A listener without it gets every change through onUpdate.
   */
  onCreateAnswer?(order: Order, prev: Status, answer: CreateAnswer): void;
  onUpdate(order: Order, prev: Status, cause: Ev): void;
  onFill(order: Order, fill: FillReport): void;
  /** A held cancel became sendable (create acked): the store is now PendingCancel; send the cancel. */
  onCancelReleased(order: Order): void;
}

/** What one `apply` changed. The object is reused by the store: read it before the next call. */
export interface ApplyResult {
  order: Order | undefined;
  prev: Status;
  status: Status;
  changed: boolean;
  /** Lots newly filled by this event (0 if none). */
  filledLots: number;
  /** Why the status part was dropped (undefined when it applied). */
  drop: DropReason | undefined;
  /** A held cancel is now to be sent. */
  sendCancel: boolean;
  /** This event pushed the filled quantity above the ordered quantity. */
  overfill: boolean;
  /** The order is not known (yet): the event was kept for when it is (or for the reconciler). */
  buffered: boolean;
}

/** Totals: events applied, status changes, fills, overfills, events for unknown orders. */
export interface StoreStats {
  events: number;
  transitions: number;
  fills: number;
  overfills: number;
  unknownOrder: number;
  /** Finished orders forgotten past their keep (forgetFinished). */
  forgotten: number;
}
