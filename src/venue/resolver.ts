/**
 * The resolver: the only owner of an order whose outcome is not known (a create unanswered, timed out
 * or rebuilt from the journal as in flight; a cancel unanswered). It asks the venue by client id,
 * re-sends a create with the same client id a bounded number of times, and only then gives a verdict.
 *
 * The in-flight rule (docs/engine.md): no verdict is final while a request with that client id may still be answered.
 * No query is made at all while the order's own request is outstanding at the HTTP layer (`requestsOut`).
 * A "not found" counts only when the query left after the deadline of the latest send of the create
 * (its answer, or its failure, is in by then); until that, neither a resend nor a verdict. The verdict
 * is journaled as the create's answer. Should the venue show the order after all (a late answer, a
 * stream or poll record), the store applies it and the strategy is told (see transitions.ts).
 */
import type { Logger } from "pino";
import type { Journal } from "../journal/writer.js";
import type { RateLimiter } from "../limits/index.js";
import {
  DEFAULT_RESOLUTION_POLICY,
  decideResolution,
  monoNs,
  type Order,
  type OrderStore,
  ownExtra,
  type QueryOutcome,
  type ResolutionDecision,
  type ResolutionPolicy,
  Source,
  STATUS_NAMES,
  Status,
  TERMINAL,
} from "../orders/index.js";
import { needsAnswer, type VenueIngest } from "./ingest.js";
import { type Surfaces, surfaceOf, type VenueSurface } from "./surface.js";

/** Counters shared with the poller (one `stats` object for the venue-sync module). */
export interface SyncStats {
  polls: number;
  queries: number;
  throttledQueries: number;
  applied: number;
  resends: number;
  escalations: number;
  /** Verdicts held back because a request with the order's client id could still be answered. */
  heldVerdicts: number;
}

export function newSyncStats(): SyncStats {
  return {
    polls: 0,
    queries: 0,
    throttledQueries: 0,
    applied: 0,
    resends: 0,
    escalations: 0,
    heldVerdicts: 0,
  };
}

/** One resolution outcome (the reconciler's report lists them). */
export interface Resolution {
  clientId: string;
  action: string;
  reason: string;
  /** The order's status after the action (name). */
  status: string;
}

export interface ResolverDeps {
  store: OrderStore;
  surfaces: Surfaces;
  applier: VenueIngest;
  limiter: RateLimiter | undefined;
  journal: Journal | undefined;
  log: Logger;
  stats: SyncStats;
  /** Same-id resends: the create (the store holds the order), the cancel (order live, cancel unknown). */
  resendCreate(o: Order): void;
  resendCancel(o: Order): void;
  /** An order PendingReplace: the record (undefined = none) decides its amend; true when decided. */
  resolveAmend?(o: Order, surface: VenueSurface, rec: unknown, deadlinePassed: boolean): boolean;
  /** A query was answered (health: last venue contact) / an order escalated (metrics). */
  onVenueOk(): void;
  onQuery(): void;
  onEscalation(): void;
}

export interface ResolverOptions {
  maxQueries: number;
  /** How long a sent create may still be answered (connect + headers + body timeouts of the client). */
  answerDeadlineMs: number;
  /** An escalated order is asked again this often (ms); 5,000. */
  escalatedRetryMs?: number;
}

type Found = { outcome: QueryOutcome; rec?: unknown };
const NETWORK: Found = { outcome: { kind: "networkError" } };
const NOT_FOUND: Found = { outcome: { kind: "notFound" } };
const FOUND: ResolutionDecision = { action: "apply_record", reason: "found" };
const WAIT: ResolutionDecision = {
  action: "retry_query",
  reason: "a request with this client id may still be answered",
};

export class Resolver {
  /** Ask again at the next round (throttled, waiting for a deadline, network error). */
  readonly urgent = new Set<string>();
  private readonly inFlight = new Set<string>();
  /**
   * Escalated orders (bounded queries spent, outcome still open) → when they were last asked. They are
   * not given up: asked again every `escalatedRetryMs`, and at once by a reconciliation (`settle`).
   */
  private readonly escalated = new Map<string, number>();
  private readonly escalatedRetryNs: number;
  /** Orders rebuilt from the journal: resolved without re-sending (the strategy may be gone). */
  private readonly replayed = new Set<string>();
  private readonly policy: ResolutionPolicy;
  private readonly replayPolicy: ResolutionPolicy;
  private readonly deadlineNs: number;
  stopped = false;

  constructor(
    private readonly d: ResolverDeps,
    o: ResolverOptions,
  ) {
    this.policy = { ...DEFAULT_RESOLUTION_POLICY, maxQueries: o.maxQueries };
    this.replayPolicy = { maxQueries: o.maxQueries, maxResends: 0 };
    this.deadlineNs = o.answerDeadlineMs * 1e6;
    this.escalatedRetryNs = (o.escalatedRetryMs ?? 5_000) * 1e6;
  }

  markReplayed(clientId: string): void {
    this.replayed.add(clientId);
  }

  isReplayed(clientId: string): boolean {
    return this.replayed.has(clientId);
  }

  /** Being asked now, or escalated and not due for another question yet. */
  isBusy(clientId: string, nowNs: number = monoNs()): boolean {
    if (this.inFlight.has(clientId)) return true;
    const at = this.escalated.get(clientId);
    return at !== undefined && nowNs - at < this.escalatedRetryNs;
  }

  /**
   * The resolver would not ask about this order now: it is busy with it (above), or a request of the
   * order's own is still outstanding at the HTTP layer (see resolveOne).
   */
  leavesAlone(o: Order, nowNs: number = monoNs()): boolean {
    return o.requestsOut > 0 || this.isBusy(o.clientId, nowNs);
  }

  /** A reconciliation (start-up, reconnect) is new evidence: escalated orders are asked again now. */
  retryEscalated(): void {
    for (const id of this.escalated.keys()) this.escalated.set(id, Number.NEGATIVE_INFINITY);
  }

  /** Every order whose outcome is open (plus the urgent ones), one step each; returns the outcomes. */
  async round(): Promise<Resolution[]> {
    if (this.stopped) return [];
    const ids = new Set(this.urgent);
    this.urgent.clear();
    const now = monoNs();
    for (const [id] of this.escalated) {
      const o = this.d.store.byClientId(id);
      if (o === undefined || !needsAnswer(o)) this.escalated.delete(id); // settled by other evidence
    }
    for (const o of this.d.store.needingResolution(now)) ids.add(o.clientId);
    const jobs: Promise<Resolution | undefined>[] = [];
    for (const id of ids) {
      if (this.isBusy(id, now)) continue;
      const o = this.d.store.byClientId(id);
      if (o === undefined || TERMINAL[o.status]) continue;
      if (o.requestsOut > 0) {
        // Asked for while its own request is outstanding: asked once that request has ended.
        this.urgent.add(id);
        continue;
      }
      jobs.push(this.resolveOne(o));
    }
    const out: Resolution[] = [];
    for (const r of await Promise.all(jobs)) if (r !== undefined) out.push(r);
    return out;
  }

  /**
   * One targeted query by client id, then one decision. Undefined when nothing was decided, or when a
   * request of the order's own (create, cancel, amend) is still outstanding at the HTTP layer: the
   * query could reach the venue before that request is acted on, and its answer decides first.
   */
  async resolveOne(o: Order): Promise<Resolution | undefined> {
    if (this.inFlight.has(o.clientId) || o.requestsOut > 0) return undefined;
    this.inFlight.add(o.clientId);
    try {
      const surface = surfaceOf(this.d.surfaces, o);
      const inResolution = needsAnswer(o);
      // Our own limiter refusing the query sends nothing and learns nothing: it must not use up one of
      // the order's bounded attempts (else a busy restart escalates orders no query ever reached).
      const cls = surface.classOf("query");
      const lim = this.d.limiter?.acquire(cls, "query", 0);
      if (lim !== undefined && lim.status !== "granted") {
        if (lim.status === "queued") lim.withdraw();
        this.d.stats.throttledQueries++;
        this.urgent.add(o.clientId);
        return undefined;
      }
      if (inResolution) this.d.store.noteResolveAttempt(o);
      const askedNs = monoNs();
      const f = await this.query(o, surface);
      if (this.stopped) return undefined;
      if (f.rec !== undefined) this.d.applier.apply(o, surface, f.rec, Source.Query);
      if (o.status === Status.PendingReplace) {
        // An unanswered in-place amend: decided from the record (never re-sent), else asked again.
        const late = o.extra.amendSentNs + this.deadlineNs <= askedNs;
        if (!this.d.resolveAmend?.(o, surface, f.rec, late)) this.urgent.add(o.clientId);
        return undefined;
      }
      if (!inResolution) return undefined;
      // The record just applied settled it (reported, e.g. in a reconciliation's report); answered
      // meanwhile by other evidence (the create's answer, a stream record): nothing of ours to report.
      if (!needsAnswer(o)) return f.rec !== undefined ? this.act(o, FOUND) : undefined;
      const policy = this.replayed.has(o.clientId) ? this.replayPolicy : this.policy;
      let d = decideResolution(o, f.outcome, policy);
      const createStep = d.action === "resend_create" || d.action === "apply_event";
      if (createStep && o.lastSentNs + this.deadlineNs > askedNs) {
        // The latest send's answer may still come (or the venue may still be handling it): wait.
        ownExtra(o).resolveAttempts -= 1; // waiting is not one of the order's bounded attempts
        this.d.stats.heldVerdicts++;
        d = WAIT;
      }
      return this.act(o, d);
    } finally {
      this.inFlight.delete(o.clientId);
    }
  }

  private act(o: Order, d: ResolutionDecision): Resolution {
    switch (d.action) {
      case "resend_cancel":
        if (o.status === Status.PendingCancel) this.d.resendCancel(o);
        break;
      case "resend_create":
        this.d.stats.resends++;
        this.d.log.info(
          { clientId: o.clientId, attempt: o.sends + 1 },
          "create not found at the venue: resend with the same client id",
        );
        this.d.resendCreate(o);
        break;
      case "apply_event":
        // The verdict, journaled as the create's answer (the venue said "no such order" after every
        // request's deadline): a later replay applies it instead of resolving the order again.
        this.d.journal?.response({
          clientId: o.clientId,
          op: "create",
          status: 404,
          latencyUs: 0,
          body: `resolution: ${d.reason}`,
        });
        this.d.store.rejectCreate(o.clientId, d.reason);
        break;
      case "escalate":
        if (this.escalated.has(o.clientId)) {
          // Asked again and still open: wait for the next retry; told once already.
          this.escalated.set(o.clientId, monoNs());
          break;
        }
        this.escalated.set(o.clientId, monoNs());
        this.d.stats.escalations++;
        this.d.onEscalation();
        this.d.journal?.note({ text: `escalated: ${d.reason}`, clientId: o.clientId });
        this.d.log.error(
          { clientId: o.clientId, status: o.status, reason: d.reason },
          "order outcome unresolved",
        );
        break;
      case "retry_query":
        this.urgent.add(o.clientId);
        break;
      case "apply_record":
      case "none":
        break;
    }
    if (TERMINAL[o.status] || o.exchangeId !== "") this.replayed.delete(o.clientId);
    if (TERMINAL[o.status] || !needsAnswer(o)) this.escalated.delete(o.clientId);
    return { clientId: o.clientId, action: d.action, reason: d.reason, status: STATUS_NAMES[o.status]! };
  }

  /** One query by client id; the caller has taken the limiter token. */
  private async query(o: Order, surface: VenueSurface): Promise<Found> {
    this.d.stats.queries++;
    this.d.onQuery();
    const cls = surface.classOf("query");
    try {
      const rec = await surface.queryByClientId(o);
      this.d.onVenueOk();
      this.d.limiter?.reportOutcome(cls, 200);
      if (rec === undefined) return NOT_FOUND;
      return { outcome: { kind: "found", status: surface.statusOf(rec) }, rec };
    } catch (err) {
      this.d.limiter?.reportOutcome(cls, (err as { status?: number }).status ?? 0);
      return NETWORK;
    }
  }
}
