/**
 * The one way an order request goes to the venue and comes back, shared by the create, cancel and
 * amend paths: prepare (a local refusal is the path's failure, and nothing is sent) → journal the
 * request → the path marks it sent → send; then the answer or the failure is journaled and the limiter
 * told before the path decides what it means; a 401 the clock guard is judging waits for its verdict
 * here, once for the three paths, and reaches the path as a refusal. One `VenueRequest` per path,
 * built once: an order's request carries the order itself as the transport's context
 * (`RestClient.sendTo`), so no closure is made per order. From the send to its answer or failure the
 * request counts in the order's `requestsOut` (the resolver does not ask the venue about it meanwhile).
 */

import { REFUSED_LOCALLY } from "../journal/records.js";
import type { Journal } from "../journal/writer.js";
import type { LimitClass, RateLimiter } from "../limits/index.js";
import type { Order } from "../orders/index.js";
import { monoNs } from "../protocol/clock.js";
import type { AnswerSink, PreparedRequest, RestClient } from "../rest/client.js";
import {
  AuthError,
  NetworkError,
  OutcomeUnknownError,
  RateLimitedError,
  ResponseShapeError,
  RestError,
  ValidationError,
} from "../rest/errors.js";
import type { SurfaceOp, Surfaces } from "../venue/surface.js";
import type { RunState } from "./runState.js";

/** What one path (create, cancel, amend) adds to the skeleton. */
export interface RequestPath {
  readonly op: "create" | "cancel" | "amend";
  /** The surface operation whose rate class the request spends (an amend spends the create's). */
  readonly spends: SurfaceOp;
  /**
   * Builds the signed request from the order and the texts it carries (the price and quantity on the
   * instrument's grid, when the request names them); throws a typed error on bad input.
   */
  prepare(o: Order, priceText: string | undefined, qtyText: string | undefined): PreparedRequest;
  /**
   * The request is journaled and about to leave: the store and the counters learn it is sent.
   * `nowNs`: the send's time (monoNs), taken once for the store and the round trip.
   */
  sending(o: Order, nowNs: number): void;
  /** The venue answered 2xx (journaled, the limiter told); `rttNs` is the round trip. */
  answered(o: Order, res: unknown, rttNs: number, nowNs: number): void;
  /**
   * The request failed, or was never sent (`sentNs` 0); journaled and the limiter told. A 401 whose
   * cause the clock guard is judging does not come here: it comes to `refused` once judged.
   */
  failed(o: Order, err: unknown, sentNs: number): void;
  /**
   * The venue refused the request, or it was refused here before it left: the order is as it was,
   * its owner is told why. `clockExplains`: a 401 the clock's re-sync put down to the clock.
   */
  refused(o: Order, err: unknown, clockExplains: boolean): void;
}

export interface VenueRequestDeps {
  client: Pick<RestClient, "sendTo">;
  limiter: RateLimiter | undefined;
  journal: Journal | undefined;
  surfaces: Surfaces;
  /** `dead`: after shutdown, late answers are ignored (the journal and sockets are closed). */
  run: Pick<RunState, "dead">;
}

export class VenueRequest implements AnswerSink<Order> {
  /** The request's journal record, one for every send (the journal encodes it in the call). */
  private readonly reqRec: { clientId: string; op: string; method: string; path: string; attempt?: number } =
    { clientId: "", op: "", method: "", path: "", attempt: undefined };

  constructor(
    private readonly d: VenueRequestDeps,
    private readonly path: RequestPath,
  ) {}

  /** Prepares, journals and sends the path's request for `o` (`attempt` numbers a create's sends). */
  send(o: Order, priceText?: string, qtyText?: string, attempt?: number): void {
    const path = this.path;
    let req: PreparedRequest;
    try {
      req = path.prepare(o, priceText, qtyText);
    } catch (err) {
      // Local validation or the clock guard: nothing was sent (nothing outstanding to count down).
      this.concluded(o, err, 0);
      return;
    }
    if (this.d.journal !== undefined) {
      const rec = this.reqRec;
      rec.clientId = o.clientId;
      rec.op = path.op;
      rec.method = req.endpoint.method;
      rec.path = req.path;
      rec.attempt = attempt;
      this.d.journal.request(rec);
    }
    // Journal before the socket: this turn's records (the command and this request) in one write now
    // (mapped: already in the file, nothing to do), whichever HTTP path sends it and whenever it writes.
    this.d.journal?.flushSync();
    const now = monoNs();
    path.sending(o, now);
    // Outstanding until the client answers or fails it: the resolver leaves the order alone meanwhile.
    o.requestsOut++;
    this.d.client.sendTo(req, this, o, now);
  }

  answered(o: Order, res: unknown, sentNs: number, text?: string | Buffer): void {
    if (o.requestsOut > 0) o.requestsOut--;
    const d = this.d;
    if (d.run.dead) return;
    const now = monoNs();
    const rtt = now - sentNs;
    recordAnswer(d.limiter, d.journal, o, this.path.op, this.cls(o), res, rtt, text);
    this.path.answered(o, res, rtt, now);
  }

  failed(o: Order, err: unknown, sentNs: number): void {
    if (o.requestsOut > 0) o.requestsOut--;
    this.concluded(o, err, sentNs);
  }

  /** A request that failed, or was refused here before it left (`sentNs` 0). */
  private concluded(o: Order, err: unknown, sentNs: number): void {
    const d = this.d;
    if (d.run.dead) return;
    recordFailure(d.limiter, d.journal, o, this.path.op, this.cls(o), err, sentNs);
    if (err instanceof AuthError && err.clockExplains !== undefined) {
      // The venue did not act on a 401 (a create was not placed): whether the clock explains it
      // decides the reason the path gives, and a re-sync is deciding now.
      err.clockExplains.then((clock) => {
        if (!d.run.dead) this.path.refused(o, err, clock);
      });
      return;
    }
    this.path.failed(o, err, sentNs);
  }

  private cls(o: Order): LimitClass {
    return this.d.surfaces[o.surface].classOf(this.path.spends);
  }
}

/**
 * A create, cancel or amend the venue answered with 200: the limiter learns the outcome and the journal
 * records the answer (with its round trip) before the caller applies it: the venue's text (or its bytes)
 * as it arrived when there is one (`raw`), else the parsed payload as JSON.
 */
export function recordAnswer(
  limiter: RateLimiter | undefined,
  journal: Journal | undefined,
  o: Pick<Order, "clientId">,
  op: "create" | "cancel" | "amend",
  cls: LimitClass,
  res: unknown,
  rttNs: number,
  text?: string | Buffer,
): void {
  limiter?.reportOutcome(cls, 200);
  const raw = text !== undefined && text.length > 0;
  journal?.response({
    clientId: o.clientId,
    op,
    status: 200,
    latencyUs: Math.round(rttNs / 1000),
    body: raw ? text : JSON.stringify(res),
    raw: raw ? 1 : undefined,
  });
}

/**
 * A create or cancel that failed: the limiter learns the outcome of a sent request (a 429 opens its
 * circuit) and the journal records the answer, before the caller decides what the failure means and
 * tells the strategy. A request that never reached the venue (local validation, the clock guard, a
 * connect error) is journaled as REFUSED_LOCALLY, so replay rebuilds it as refused and never sends it.
 * `sentNs` 0 = not sent (or, for an ambiguous error, its 200 answer is already journaled).
 */
export function recordFailure(
  limiter: RateLimiter | undefined,
  journal: Journal | undefined,
  o: Order,
  op: "create" | "cancel" | "amend",
  cls: LimitClass,
  err: unknown,
  sentNs: number,
): void {
  const ambiguous = err instanceof OutcomeUnknownError || err instanceof ResponseShapeError;
  // An unsent cancel left no request in the journal: nothing for replay to undo.
  if (sentNs <= 0 && (ambiguous || op === "cancel")) return;
  const status = err instanceof RestError ? err.status : 0;
  if (sentNs > 0)
    limiter?.reportOutcome(cls, status, err instanceof RateLimitedError ? err.retryAfterMs : undefined);
  const refused = sentNs <= 0 || err instanceof NetworkError;
  journal?.response({
    clientId: o.clientId,
    op,
    status: refused ? REFUSED_LOCALLY : status,
    latencyUs: sentNs > 0 ? Math.round((monoNs() - sentNs) / 1000) : 0,
    body: err instanceof ValidationError ? err.exchangeMessage : String((err as Error)?.message ?? err),
  });
}

/** A create the gateway's own rate limiter refused: journaled as the create's answer before it is told. */
export function recordThrottled(journal: Journal | undefined, o: Order, reason: string): void {
  journal?.response({
    clientId: o.clientId,
    op: "create",
    status: REFUSED_LOCALLY,
    latencyUs: 0,
    body: reason,
  });
}
