/**
 * The clock's states and what moves them, as a table: whether signed requests may leave in each state,
 * and the state each event leads to. ClockSync (clockSync.ts) measures and feeds the events.
 */

/**
 * - `unsynced`: no sample yet (epochs use offset 0).
 * - `ok`: the last sample is within the venue's tolerance (`warnMs`).
 * - `warn`: beyond `warnMs` but within `refuseMs`: epochs are corrected by the offset.
 * - `checking`: a signed request came back 401 and a re-sync is deciding whether the epoch window
 *   was the cause; nothing signed leaves meanwhile (it would meet the same 401 if it was).
 * - `refuse`: known wrong: the last sample is beyond `refuseMs` (the drift guard), or a check could not
 *   measure; nothing signed leaves until a re-sync measures a plausible offset.
 */
export type ClockState = "unsynced" | "ok" | "warn" | "checking" | "refuse";

/**
 * - `inWindow` / `beyondWarn` / `beyondRefuse`: a sync measured an offset of that size.
 * - `noSample`: a sync found no usable sample (every sample failed or was too slow).
 * - `unauthorized`: the venue answered 401 to a signed request.
 */
export type ClockEvent = "inWindow" | "beyondWarn" | "beyondRefuse" | "noSample" | "unauthorized";

/** Whether signed requests may be sent in each state. */
export const SIGNS: Readonly<Record<ClockState, boolean>> = {
  unsynced: true,
  ok: true,
  warn: true,
  checking: false,
  refuse: false,
};

/**
 * Next state by current state and event. A sample decides from any state (a plausible offset ends a
 * refusal by itself); a failed sync leaves a state as it is, except that a check which could not
 * measure becomes a refusal (the 401 stays unexplained, so the clock cannot be trusted).
 */
export const NEXT: Readonly<Record<ClockState, Readonly<Record<ClockEvent, ClockState>>>> = {
  unsynced: {
    inWindow: "ok",
    beyondWarn: "warn",
    beyondRefuse: "refuse",
    noSample: "unsynced",
    unauthorized: "checking",
  },
  ok: {
    inWindow: "ok",
    beyondWarn: "warn",
    beyondRefuse: "refuse",
    noSample: "ok",
    unauthorized: "checking",
  },
  warn: {
    inWindow: "ok",
    beyondWarn: "warn",
    beyondRefuse: "refuse",
    noSample: "warn",
    unauthorized: "checking",
  },
  checking: {
    inWindow: "ok",
    beyondWarn: "warn",
    beyondRefuse: "refuse",
    noSample: "refuse",
    unauthorized: "checking",
  },
  refuse: {
    inWindow: "ok",
    beyondWarn: "warn",
    beyondRefuse: "refuse",
    noSample: "refuse",
    unauthorized: "refuse",
  },
};
