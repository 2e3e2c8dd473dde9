/**
 * The order transition table, as data. Each row is a status; each cell names the next status, a
 * computed target, or a drop reason. A row's `otherwise` is the drop reason for every event the row
 * does not list, so every (status, event) pair has exactly one outcome; `compile()` expands the rows
 * into a flat Int16Array for the hot path.
 *
 * Targets:
 * - a status name: go there;
 * - "=": stay (the event's effects still apply, e.g. timestamps or a late fill's quantity);
 * - "working": New when nothing is filled yet, otherwise PartiallyFilled;
 * - "fill": Filled when no quantity is left, PartiallyFilled from New/PendingNew/Unknown/Rejected, otherwise stay
 *   (a partial fill during PendingCancel / CancellationRaised / ExpirationRaised / Cancelled / Expired
 *   keeps that status; during PendingReplace an amend raising the quantity keeps it even at 0 left).
 * - "settle": the amend's answer: Filled when its quantity is all filled, else as "working".
 * - "drop:<reason>": nothing changes; the reason is counted.
 */
import { EVENT_COUNT, EVENT_NAMES, type Ev, STATUS_COUNT, STATUS_NAMES, Status } from "./status.js";

export const DROP_REASONS = [
  "already_acked",
  "reject_after_accept",
  "no_cancel_in_flight",
  "cancel_already_pending",
  "expiration_raised",
  "same_status",
  "stale_status",
  "cancel_in_flight",
  "cancel_raised_first",
  "expiration_raised_first",
  "not_found_in_flight",
  "not_found_live",
  "terminal",
  "fill_on_rejected",
  "not_acked",
  "amend_in_flight",
  "amend_already_pending",
  "no_amend_in_flight",
  // Counted outside the table (the store's own checks):
  "duplicate_exec",
  "fill_covered_by_cum",
  "unknown_order",
  "orphan_evicted",
  "bad_event",
] as const;
export type DropReason = (typeof DROP_REASONS)[number];
export const DROP_REASON_INDEX: Readonly<Record<DropReason, number>> = Object.fromEntries(
  DROP_REASONS.map((r, i) => [r, i]),
) as Record<DropReason, number>;

type StatusName = keyof typeof Status;
type EventName =
  | "Submitted"
  | "CreateAcked"
  | "CreateRejected"
  | "CreateOutcomeUnknown"
  | "CancelRequested"
  | "CancelAcked"
  | "CancelRejected"
  | "CancelOutcomeUnknown"
  | "VenueNew"
  | "VenuePartiallyFilled"
  | "VenueCancellationRaised"
  | "ExpiryRaised"
  | "VenueFilled"
  | "VenueCancelled"
  | "VenueExpired"
  | "VenueRejected"
  | "Fill"
  | "NotFound"
  | "AmendRequested"
  | "AmendAcked"
  | "AmendRejected"
  | "AmendOutcomeUnknown";
export type Cell = StatusName | "=" | "working" | "fill" | "settle" | `drop:${DropReason}`;
interface Row {
  readonly cells: Partial<Record<EventName, Cell>>;
  readonly otherwise: `drop:${DropReason}`;
}

/** What the venue can say about an order it has accepted; shared by every non-terminal acked row. */
const VENUE_FINALS = {
  VenueFilled: "Filled",
  VenueCancelled: "Cancelled",
  VenueExpired: "Expired",
  VenueRejected: "Rejected",
  Fill: "fill",
} as const satisfies Partial<Record<EventName, Cell>>;

/** Before the create is answered: any venue evidence about the order wins over our in-flight state. */
const IN_FLIGHT: Partial<Record<EventName, Cell>> = {
  CreateAcked: "working",
  CreateRejected: "Rejected",
  CancelRequested: "=",
  VenueNew: "working",
  VenuePartiallyFilled: "PartiallyFilled",
  VenueCancellationRaised: "CancellationRaised",
  ExpiryRaised: "ExpirationRaised",
  ...VENUE_FINALS,
  CancelAcked: "drop:not_acked",
  CancelRejected: "drop:not_acked",
  CancelOutcomeUnknown: "drop:not_acked",
};

/** Amend answers where no amend is in flight (a late or replayed answer): nothing changes. */
const NO_AMEND = {
  AmendAcked: "drop:no_amend_in_flight",
  AmendRejected: "drop:no_amend_in_flight",
  AmendOutcomeUnknown: "drop:no_amend_in_flight",
} as const satisfies Partial<Record<EventName, Cell>>;

export const TRANSITIONS: Readonly<Record<StatusName, Row>> = {
  PendingNew: {
    cells: {
      ...IN_FLIGHT,
      Submitted: "=",
      CreateOutcomeUnknown: "Unknown",
      NotFound: "drop:not_found_in_flight",
      ...NO_AMEND,
    },
    otherwise: "drop:not_acked",
  },
  Unknown: {
    cells: {
      ...IN_FLIGHT,
      // A same-id resend while resolving.
      Submitted: "=",
      CreateOutcomeUnknown: "=",
      // Stays Unknown: the resolver decides (resend with the same id, or give up after bounded tries).
      NotFound: "=",
      ...NO_AMEND,
    },
    otherwise: "drop:not_acked",
  },
  New: {
    cells: {
      Submitted: "drop:already_acked",
      CreateAcked: "drop:already_acked",
      CreateOutcomeUnknown: "drop:already_acked",
      CreateRejected: "drop:reject_after_accept",
      CancelRequested: "PendingCancel",
      AmendRequested: "PendingReplace",
      ...NO_AMEND,
      VenueNew: "drop:same_status",
      VenuePartiallyFilled: "PartiallyFilled",
      VenueCancellationRaised: "CancellationRaised",
      ExpiryRaised: "ExpirationRaised",
      ...VENUE_FINALS,
      NotFound: "drop:not_found_live",
    },
    otherwise: "drop:no_cancel_in_flight",
  },
  PartiallyFilled: {
    cells: {
      Submitted: "drop:already_acked",
      CreateAcked: "drop:already_acked",
      CreateOutcomeUnknown: "drop:already_acked",
      CreateRejected: "drop:reject_after_accept",
      CancelRequested: "PendingCancel",
      AmendRequested: "PendingReplace",
      ...NO_AMEND,
      VenueNew: "drop:stale_status",
      VenuePartiallyFilled: "drop:same_status",
      VenueCancellationRaised: "CancellationRaised",
      ExpiryRaised: "ExpirationRaised",
      ...VENUE_FINALS,
      NotFound: "drop:not_found_live",
    },
    otherwise: "drop:no_cancel_in_flight",
  },
  PendingCancel: {
    cells: {
      Submitted: "drop:already_acked",
      CreateAcked: "drop:already_acked",
      CreateOutcomeUnknown: "drop:already_acked",
      CreateRejected: "drop:reject_after_accept",
      CancelRequested: "drop:cancel_already_pending",
      CancelAcked: "CancellationRaised",
      // Refused (already filled / expiring): back to working; the venue's status follows.
      CancelRejected: "working",
      // Stays in flight; the reconciler resolves it (and re-sends the cancel if the order is still live).
      CancelOutcomeUnknown: "=",
      AmendRequested: "drop:cancel_in_flight",
      ...NO_AMEND,
      VenueNew: "drop:cancel_in_flight",
      VenuePartiallyFilled: "drop:cancel_in_flight",
      VenueCancellationRaised: "CancellationRaised",
      ExpiryRaised: "ExpirationRaised",
      ...VENUE_FINALS,
      NotFound: "drop:not_found_live",
    },
    otherwise: "drop:cancel_in_flight",
  },
  CancellationRaised: {
    cells: {
      Submitted: "drop:already_acked",
      CreateAcked: "drop:already_acked",
      CreateOutcomeUnknown: "drop:already_acked",
      CreateRejected: "drop:reject_after_accept",
      CancelRequested: "drop:cancel_already_pending",
      CancelAcked: "drop:same_status",
      CancelRejected: "drop:cancel_raised_first",
      CancelOutcomeUnknown: "drop:cancel_already_pending",
      AmendRequested: "drop:cancel_already_pending",
      ...NO_AMEND,
      VenueNew: "drop:stale_status",
      VenuePartiallyFilled: "drop:stale_status",
      VenueCancellationRaised: "drop:same_status",
      ExpiryRaised: "drop:cancel_raised_first",
      ...VENUE_FINALS,
      NotFound: "drop:not_found_live",
    },
    otherwise: "drop:cancel_already_pending",
  },
  ExpirationRaised: {
    cells: {
      Submitted: "drop:already_acked",
      CreateAcked: "drop:already_acked",
      CreateOutcomeUnknown: "drop:already_acked",
      CreateRejected: "drop:reject_after_accept",
      CancelRequested: "drop:expiration_raised",
      CancelAcked: "drop:expiration_raised",
      CancelRejected: "drop:expiration_raised",
      CancelOutcomeUnknown: "drop:expiration_raised",
      AmendRequested: "drop:expiration_raised",
      ...NO_AMEND,
      VenueNew: "drop:stale_status",
      VenuePartiallyFilled: "drop:stale_status",
      VenueCancellationRaised: "drop:expiration_raised_first",
      ExpiryRaised: "drop:same_status",
      ...VENUE_FINALS,
      NotFound: "drop:not_found_live",
    },
    otherwise: "drop:expiration_raised",
  },
  PendingReplace: {
    // Our in-place amend is in flight. A cancel asked for meanwhile is held (guards.ts) and sent once
    // the amend is answered; fills still apply; the venue's finals end the order whatever the amend.
    cells: {
      Submitted: "drop:already_acked",
      CreateAcked: "drop:already_acked",
      CreateOutcomeUnknown: "drop:already_acked",
      CreateRejected: "drop:reject_after_accept",
      CancelRequested: "drop:amend_in_flight",
      AmendRequested: "drop:amend_already_pending",
      AmendAcked: "settle",
      AmendRejected: "settle",
      // Stays in flight; the resolver asks the venue (an amend is never re-sent).
      AmendOutcomeUnknown: "=",
      // The record's status says nothing of the amend; its cumulative quantity still applies.
      VenueNew: "drop:amend_in_flight",
      VenuePartiallyFilled: "drop:amend_in_flight",
      VenueCancellationRaised: "CancellationRaised",
      ExpiryRaised: "ExpirationRaised",
      ...VENUE_FINALS,
      NotFound: "drop:not_found_live",
    },
    otherwise: "drop:no_cancel_in_flight",
  },
  Filled: {
    // Absorbing. A distinct new execution is still counted so an overfill is detected and reported.
    cells: { Fill: "=", VenueFilled: "drop:same_status" },
    otherwise: "drop:terminal",
  },
  Cancelled: {
    // Documented edge: a fill executed before the cancel took effect can arrive after it; it is applied.
    // If it completes the order, the venue's truth is Filled (the cancel lost the race).
    cells: { Fill: "fill", VenueFilled: "Filled", VenueCancelled: "drop:same_status" },
    otherwise: "drop:terminal",
  },
  Expired: {
    cells: { Fill: "fill", VenueFilled: "Filled", VenueExpired: "drop:same_status" },
    otherwise: "drop:terminal",
  },
  Rejected: {
    // Documented edge: a rejection the gateway concluded itself (an in-flight create not found after
    // every deadline) is overturned by the venue's evidence: a late create answer, an order record or
    // an execution for that client id. The order is applied as the venue holds it, never dropped. A
    // venue that refused the create has no record to send, so a venue rejection is never reopened.
    cells: {
      CreateAcked: "working",
      VenueNew: "working",
      VenuePartiallyFilled: "PartiallyFilled",
      VenueCancellationRaised: "CancellationRaised",
      ExpiryRaised: "ExpirationRaised",
      VenueFilled: "Filled",
      VenueCancelled: "Cancelled",
      VenueExpired: "Expired",
      Fill: "fill",
      VenueRejected: "drop:same_status",
    },
    otherwise: "drop:terminal",
  },
};

/** Compiled cell codes: >= 0 a status; STAY / WORKING / FILL computed; <= DROP_BASE a drop reason. */
export const STAY = -1;
export const WORKING = -2;
export const FILL = -3;
export const SETTLE = -4;
export const DROP_BASE = -100;

function compileCell(c: Cell): number {
  if (c === "=") return STAY;
  if (c === "working") return WORKING;
  if (c === "fill") return FILL;
  if (c === "settle") return SETTLE;
  if (c.startsWith("drop:")) {
    const idx = DROP_REASON_INDEX[c.slice(5) as DropReason];
    if (idx === undefined) throw new Error(`transition table: unknown drop reason in ${c}`);
    return DROP_BASE - idx;
  }
  const s = Status[c as StatusName];
  if (s === undefined) throw new Error(`transition table: unknown target ${c}`);
  return s;
}

/** Expands TRANSITIONS into one code per (status, event). Throws on a malformed table (at import). */
export function compile(rows: Readonly<Record<StatusName, Row>> = TRANSITIONS): Int16Array {
  const out = new Int16Array(STATUS_COUNT * EVENT_COUNT);
  for (let s = 0; s < STATUS_COUNT; s++) {
    const row = rows[STATUS_NAMES[s] as StatusName];
    if (row === undefined) throw new Error(`transition table: no row for ${STATUS_NAMES[s]}`);
    for (let e = 0; e < EVENT_COUNT; e++) {
      const cell = row.cells[EVENT_NAMES[e] as EventName] ?? row.otherwise;
      out[s * EVENT_COUNT + e] = compileCell(cell);
    }
  }
  return out;
}

export const TABLE: Int16Array = compile();

/** The raw cell for (status, event), for tests and the docs renderer. */
export function cellOf(s: Status, e: Ev): Cell {
  const row = TRANSITIONS[STATUS_NAMES[s] as StatusName];
  return row.cells[EVENT_NAMES[e] as EventName] ?? row.otherwise;
}

export function dropReasonOf(code: number): DropReason | undefined {
  return code <= DROP_BASE ? DROP_REASONS[DROP_BASE - code] : undefined;
}

/** Short column headers for the rendered matrix. */
export const STATUS_ABBREV: readonly string[] = [
  "PendNew",
  "Unknown",
  "New",
  "PartFill",
  "PendCxl",
  "CxlRaised",
  "ExpRaised",
  "Filled",
  "Cancelled",
  "Expired",
  "Rejected",
  "PendRepl",
];

/**
 * Markdown rendering of the whole table: one row per event, one column per current status. A cell is
 * the next status (abbreviated), `=` (stay, effects applied), `working`, `fill`, `settle`, or `·reason` (dropped).
 * docs/orders.md embeds this output; a test keeps the two identical.
 */
export function renderTransitionTable(): string {
  const short = (c: Cell): string => {
    if (c.startsWith("drop:")) return `·${c.slice(5)}`;
    const s = Status[c as StatusName];
    return s === undefined ? c : `**${STATUS_ABBREV[s]}**`;
  };
  const lines: string[] = [];
  lines.push(`| event \\ status | ${STATUS_ABBREV.join(" | ")} |`);
  lines.push(`|---|${STATUS_ABBREV.map(() => "---").join("|")}|`);
  for (let e = 0; e < EVENT_COUNT; e++) {
    const cells: string[] = [];
    for (let s = 0; s < STATUS_COUNT; s++) cells.push(short(cellOf(s as Status, e as Ev)));
    lines.push(`| ${EVENT_NAMES[e]} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}
