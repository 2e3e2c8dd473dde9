/**
 * The crash truth: three accounts of the same orders compared after a kill and restart have settled —
 * what the venue lists (signed REST), what the gateway answers to Query, and what the strategy was told
 * (Ack, Reject, pushed OrderUpdates, Fills). Pure: every input is read before the call.
 *
 * Each finding is keyed (by order), so findings of several checkpoints of one run can be united.
 */
import { RejectSource } from "../../../src/protocol/schema.js";
import type { ListedOrder, VenueListing } from "./listings.js";
import type { Strategy, Told } from "./strategy.js";
import { type GatewayView, LIVE, type Norm, normFromWire } from "./truth.js";

export interface CrashFindings {
  /**
   * An acked order missing at the venue; a venue order the gateway does not know or calls Rejected
   * (the venue holds it); an order left unresolved (PendingNew / Unknown) after settling.
   */
  lost: Map<string, string>;
  /** A client id at the venue more than once; an execution delivered twice. */
  duplicated: Map<string, string>;
  /** Fills received (one per execution id) differ from the venue's executed quantity, or name an execution the venue never made. */
  fillMismatches: Map<string, string>;
  /** The gateway's Query or the strategy's last told status differ from the venue's (status or cumulative qty). */
  stateMismatches: Map<string, string>;
  /** The strategy was told Reject (and never told otherwise) for an order that exists at the venue. */
  rejectedAtVenue: Map<string, string>;
  /**
   * Not a failure: HFT Fills whose execId the gateway synthesized (`<orderId>:<cum>`, from an order
   * record that showed the fill before the execution list did) instead of the venue's execution id.
   */
  synthesizedExecIds: Map<string, string>;
}

export const FINDING_KINDS = [
  "lost",
  "duplicated",
  "fillMismatches",
  "stateMismatches",
  "rejectedAtVenue",
] as const satisfies readonly (keyof CrashFindings)[];

export function emptyFindings(): CrashFindings {
  return {
    lost: new Map(),
    duplicated: new Map(),
    fillMismatches: new Map(),
    stateMismatches: new Map(),
    rejectedAtVenue: new Map(),
    synthesizedExecIds: new Map(),
  };
}

export function mergeFindings(into: CrashFindings, from: CrashFindings): void {
  for (const k of FINDING_KINDS) for (const [key, d] of from[k]) into[k].set(key, d);
  for (const [key, d] of from.synthesizedExecIds) into.synthesizedExecIds.set(key, d);
}

export const findingCount = (f: CrashFindings): number => FINDING_KINDS.reduce((a, k) => a + f[k].size, 0);

export function findingLines(f: CrashFindings): string[] {
  return FINDING_KINDS.flatMap((k) => [...f[k].values()].map((d) => `${k}: ${d}`));
}

export interface CrashTruthInput {
  strategy: Strategy;
  /** The gateway's Query answer per client order number (Rejected with no id when it has no row). */
  views: ReadonlyMap<number, GatewayView>;
  venue: VenueListing;
  /** Client id -> client order number, from the journal's command records (for orders the gateway lost). */
  clOrdNoOf: ReadonlyMap<string, number>;
}

/** What the strategy was last told about an order's status. */
function toldStatus(t: Told): Norm | "none" {
  if (t.updates > 0) return normFromWire(t.lastStatus);
  if (t.acks > 0) return "New";
  if (t.rejects.length > 0) return "Rejected";
  if (t.unknowns > 0) return "Unknown";
  return "none";
}

const sameStatus = (g: Norm, v: Norm): boolean => g === v || (g === "PendingCancel" && v === "CancelRaised");

export function compareCrashTruth(i: CrashTruthInput): CrashFindings {
  const f = emptyFindings();
  const s = i.strategy;
  const byId = new Map<string, ListedOrder>();
  const byClient = new Map<string, ListedOrder[]>();
  for (const o of i.venue.orders) {
    byId.set(o.id, o);
    const l = byClient.get(o.clientId);
    if (l === undefined) byClient.set(o.clientId, [o]);
    else {
      l.push(o);
      const n = i.clOrdNoOf.get(o.clientId);
      f.duplicated.set(
        `venue:${o.clientId}`,
        `client id ${o.clientId} (#${n ?? "?"}) ${l.length}x at the venue`,
      );
    }
  }
  const execsOf = new Map<string, Set<string>>();
  for (const e of i.venue.executions) {
    let set = execsOf.get(e.orderId);
    if (set === undefined) {
      set = new Set();
      execsOf.set(e.orderId, set);
    }
    set.add(e.execId);
  }
  const venueOfNo = new Map<number, ListedOrder>();
  for (const o of i.venue.orders) {
    const n = i.clOrdNoOf.get(o.clientId);
    if (n !== undefined && !venueOfNo.has(n)) venueOfNo.set(n, o);
  }
  const knownIds = new Set<string>();
  for (const g of i.views.values()) if (g.exchangeId !== "") knownIds.add(g.exchangeId);

  for (const n of s.placed) {
    const t = s.told.get(n)!;
    const g = i.views.get(n);
    const key = `#${n}`;
    const v =
      (g && g.exchangeId !== "" ? byId.get(g.exchangeId) : undefined) ??
      (t.exchangeId !== "" ? byId.get(t.exchangeId) : undefined) ??
      venueOfNo.get(n);
    const told = toldStatus(t);
    const venueText = v ? `venue ${v.surface} ${v.id} ${v.status} filled=${v.filledLots}` : "venue: none";
    if (g && (g.status === "PendingNew" || g.status === "Unknown")) {
      f.lost.set(key, `${key}: gateway still ${g.status} after settling; ${venueText}`);
    } else if (v === undefined && (t.acks > 0 || (g !== undefined && g.exchangeId !== ""))) {
      f.lost.set(
        key,
        `${key}: acknowledged (${t.exchangeId || g?.exchangeId}) but the venue has no such order`,
      );
    }
    const held = v !== undefined && v.status !== "Rejected";
    if (held && g !== undefined && g.status === "Rejected") {
      // The "lost order": the gateway says it was never placed while the venue holds it.
      f.lost.set(key, `${key}: gateway says Rejected; ${venueText}`);
    }
    const localReject = t.rejects.find((r) => r.source !== RejectSource.Venue);
    if (held && (told === "Rejected" || localReject !== undefined)) {
      // A local refusal (not the venue's) must never reach the venue, even if told otherwise later.
      const r = localReject ?? t.rejects[0];
      const why = r ? `Reject ${r.code} (source ${r.source}) "${r.text}"` : "Rejected (OrderUpdate)";
      f.rejectedAtVenue.set(key, `${key}: told ${why}; ${venueText}`);
    }
    if (v !== undefined && g !== undefined && !(held && g.status === "Rejected") && g.exchangeId === v.id) {
      if (!sameStatus(g.status, v.status) || g.filledLots !== v.filledLots)
        f.stateMismatches.set(key, `${key}: gateway ${g.status} filled=${g.filledLots}; ${venueText}`);
    }
    if (held && !LIVE.has(v.status) && told !== "none" && told !== "Rejected" && told !== v.status) {
      f.stateMismatches.set(`${key}:told`, `${key}: strategy last told ${told}; ${venueText}`);
    }
    let received = 0;
    for (const lots of t.execLots.values()) received += lots;
    const venueLots = v?.filledLots ?? 0;
    if (received !== venueLots)
      f.fillMismatches.set(
        key,
        `${key}: fills received ${received} lots (${t.execLots.size} executions); ${venueText}`,
      );
    if (v?.surface === "hft") {
      const known = execsOf.get(v.id) ?? new Set<string>();
      const synthetic = `${v.id}:`;
      for (const e of t.execLots.keys())
        if (e.startsWith(synthetic)) f.synthesizedExecIds.set(`${key}:${e}`, `${key}: execId ${e}`);
      const foreign = [...t.execLots.keys()].filter((e) => !known.has(e) && !e.startsWith(synthetic));
      if (foreign.length > 0)
        f.fillMismatches.set(`${key}:exec`, `${key}: executions unknown to the venue: ${foreign.join(",")}`);
    }
  }
  for (const d of s.duplicateFillIds) f.duplicated.set(`fill:${d}`, `Fill repeated: ${d}`);
  for (const o of i.venue.orders) {
    if (knownIds.has(o.id) || byClient.get(o.clientId)![0] !== o) continue;
    const n = i.clOrdNoOf.get(o.clientId);
    const key = n !== undefined ? `#${n}` : `venue:${o.id}`;
    if (!f.lost.has(key))
      f.lost.set(
        key,
        `${key}: venue ${o.surface} ${o.id} (${o.clientId}) ${o.status} filled=${o.filledLots} unknown to the gateway`,
      );
  }
  return f;
}
