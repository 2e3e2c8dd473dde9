/**
 * The fast HTTP path for order requests (create, cancel, amend): the endpoints a venue names go out on
 * the fast path's own sockets (fast/origin.ts) in the caller's turn, or wait there in one FIFO when all
 * are busy (on the general client when none is connected); everything else stays on the general
 * (undici) client.
 * The answer is read with the general client's rules (parseResponse, the 401 clock question), so a
 * sink sees the same outcome whichever path carried the request. A 2xx answer a venue's scanner
 * recognises as plainly successful is taken from its bytes without decoding them or a full parse
 * (`FastScanner`) and delivered at once, in the socket's read callback, with those bytes as its text
 * (valid during the call: the journal copies them): the socket is already free for the next request
 * and nothing of the read is kept, so a sink may send from there (one tick queue drain less per
 * order). Any other answer is decoded and fully parsed, and delivered there too (its text is a copy).
 * A failure (a timeout, a reset, a request the general client must carry) is delivered on the next
 * tick: it can arise inside the caller's own send.
 */
import type { Endpoint, EndpointId } from "../catalogue.js";
import { NOT_SENT_CODE } from "../clientSet.js";
import { AuthError, transportError } from "../errors.js";
import { type FastJob, FastOrigin, type FastOriginOptions } from "./origin.js";

/** What the fast path needs of a prepared request (client.ts's PreparedRequest has this shape). */
interface PreparedRequest {
  endpoint: Endpoint;
  path: string;
  headers: string[];
  body: string | undefined;
  epoch?: string;
}

/** Where an outcome goes (client.ts's AnswerSink). */
interface AnswerSink<C> {
  answered(ctx: C, res: unknown, stamp: number, text: string | Buffer): void;
  failed(ctx: C, err: unknown, stamp: number): void;
}

/**
 * Reads a 2xx answer's bytes (a view of the socket's read buffer: whatever is kept is copied out);
 * returns the payload the general parse would give when they are the plain success it expects,
 * undefined for anything else (the general parse then decides).
 */
export type FastScanner = (body: Buffer) => unknown;

/** What a venue puts on the fast path: its order endpoints and, optionally, their answers' scanners. */
export interface FastPathSpec {
  endpoints: readonly EndpointId[];
  scanners?: Partial<Record<EndpointId, FastScanner>>;
}

/** The general client's pieces the fast path uses (RestClient passes them). */
export interface GeneralPath {
  /** Sends a prepared request on the general client (a request the fast path did not send). */
  send(req: PreparedRequest, sink: AnswerSink<unknown>, ctx: unknown, stamp: number): void;
  parse(ep: Endpoint, status: number, retryAfter: string | undefined, text: string, epoch?: string): unknown;
  onUnauthorized: ((epochMs: number | undefined) => Promise<boolean>) | undefined;
}

/** One order request on the fast path: an answer goes to the sink at once, a failure on the next tick. */
class FastRequest implements FastJob {
  private settled = false;
  readonly ep: Endpoint;
  readonly path: string;
  readonly headers: readonly string[];
  readonly body: string | undefined;

  constructor(
    private readonly fp: FastPath,
    readonly req: PreparedRequest,
    readonly sink: AnswerSink<unknown>,
    readonly ctx: unknown,
    readonly stamp: number,
  ) {
    this.ep = req.endpoint;
    this.path = req.path;
    this.headers = req.headers;
    this.body = req.body;
  }

  complete(status: number, retryAfter: string | undefined, body: Buffer): void {
    if (this.settled) return;
    this.settled = true;
    const fp = this.fp;
    if (status >= 200 && status < 300) {
      const scan = fp.scanners[this.ep.id];
      if (scan !== undefined) {
        const v = scan(body);
        if (v !== undefined) {
          this.sink.answered(this.ctx, v, this.stamp, body);
          return;
        }
      }
    }
    const text = body.toString("utf8");
    const g = fp.general;
    let res: unknown;
    // Delivered here, in the socket's read callback, like a scanned answer: the socket is free and
    // the text a copy.
    try {
      res = g.parse(this.ep, status, retryAfter, text, this.req.epoch);
    } catch (err) {
      // The venue says the same 401 for a bad key and an epoch outside its window: the clock decides.
      if (err instanceof AuthError && this.req.epoch !== undefined && g.onUnauthorized !== undefined)
        err.clockExplains = g.onUnauthorized(err.epochMs);
      this.sink.failed(this.ctx, err, this.stamp);
      return;
    }
    this.sink.answered(this.ctx, res, this.stamp, text);
  }

  fail(err: Error, sent: boolean): void {
    if (this.settled) return;
    if (!sent && (err as { code?: unknown }).code !== NOT_SENT_CODE) {
      // No byte left: the general client carries it (still sent once).
      this.settled = true;
      this.fp.general.send(this.req, this.sink, this.ctx, this.stamp);
      return;
    }
    this.settled = true;
    process.nextTick(deliverFailure, this, transportError(err, this.ep.id));
  }
}

function deliverFailure(r: FastRequest, failure: unknown): void {
  r.sink.failed(r.ctx, failure, r.stamp);
}

/** An unsigned warm-up GET on one fast socket: `done(ok)` once. */
class WarmJob implements FastJob {
  readonly headers: readonly string[] = ["content-type", "application/json"];
  readonly body = undefined;
  readonly path: string;
  constructor(
    readonly ep: Endpoint,
    private readonly done: (ok: boolean) => void,
  ) {
    this.path = ep.path;
  }
  complete(status: number): void {
    this.done(status < 500);
  }
  fail(): void {
    this.done(false);
  }
}

export class FastPath {
  private readonly fast = new Set<EndpointId>();
  readonly scanners: Partial<Record<EndpointId, FastScanner>>;
  private readonly origins = new Map<string, FastOrigin>();
  private readonly byOrigin: FastOrigin[];

  constructor(
    spec: FastPathSpec,
    /** Origins of the Spot (and Futures) host and the HFT host (possibly the same). */
    spotOrigin: string,
    hftOrigin: string,
    o: FastOriginOptions,
    readonly general: GeneralPath,
  ) {
    for (const id of spec.endpoints) this.fast.add(id);
    this.scanners = spec.scanners ?? {};
    // No fast socket connected or connecting: the general client sends it (not sent here).
    const fallback = (j: FastJob) => (j as FastRequest).fail(new Error("not sent"), false);
    for (const origin of new Set([spotOrigin, hftOrigin]))
      this.origins.set(origin, new FastOrigin(origin, o, fallback));
    this.spot = this.origins.get(spotOrigin)!;
    this.hft = this.origins.get(hftOrigin)!;
    this.byOrigin = [...this.origins.values()];
  }

  private readonly spot: FastOrigin;
  private readonly hft: FastOrigin;

  /** The endpoint goes out on the fast path. */
  carries(ep: Endpoint): boolean {
    return this.fast.has(ep.id);
  }

  send(req: PreparedRequest, sink: AnswerSink<unknown>, ctx: unknown, stamp: number): void {
    const o = req.endpoint.surface === "hft" ? this.hft : this.spot;
    o.dispatch(new FastRequest(this, req, sink, ctx, stamp));
  }

  /** Connects every socket; resolves with the number that failed. */
  async start(): Promise<number> {
    const r = await Promise.all(this.byOrigin.map((o) => o.start()));
    return r.reduce((a, b) => a + b, 0);
  }

  /**
   * One unsigned GET of `spotTime` / `hftTime` on each of the first `n` sockets per origin (closed ones
   * reopen); `idleOnly` leaves an origin with requests in flight alone, `quietMs` a socket that took a
   * request less than that long ago. Resolves with the failures.
   */
  async warm(
    n: number,
    idleOnly: boolean,
    spotTime: Endpoint,
    hftTime: Endpoint,
    quietMs = 0,
  ): Promise<number> {
    let failed = 0;
    const jobs: Promise<void>[] = [];
    const pairs: [FastOrigin, Endpoint][] = [[this.spot, spotTime]];
    if (this.hft !== this.spot) pairs.push([this.hft, hftTime]);
    for (const [o, ep] of pairs) {
      if (idleOnly && !o.idle) continue;
      for (let i = 0; i < Math.min(n, o.size); i++) {
        jobs.push(
          new Promise<void>((done) => {
            const j = new WarmJob(ep, (ok) => {
              if (!ok) failed++;
              done();
            });
            if (!o.dispatchOn(i, j, quietMs)) done();
          }),
        );
      }
    }
    await Promise.all(jobs);
    return failed;
  }

  /** Resolves once the requests in flight are answered or have failed; waiting ones fail unsent. */
  async close(): Promise<void> {
    await Promise.all(this.byOrigin.map((o) => o.close()));
  }
}
