/**
 * The REST client, venue-neutral: a set of undici Clients per origin behind one FIFO
 * (src/rest/clientSet.ts: keep-alive, every connection pre-warmed and kept warm, ms timeouts, no
 * pipelining), request assembly and signing from the catalogue, the answer's envelope and error
 * mapping. What each venue's requests say (bodies, queries, their checks) is in src/venue/{spot,hft,
 * futures}/; they come here through `prepareBody` (the fast path: validated body, header array built
 * directly, signature from the pre-signer's ring), `prepare` and `call`.
 */
import { rootCertificates } from "node:tls";
import type { RequestSigner } from "../auth/requestSigner.js";
import { encodeQuery, wireTarget } from "../auth/signedMessage.js";
import { buildCatalogue, type Catalogue, type Endpoint, type EndpointId } from "./catalogue.js";
import { ClientSet, type SetHandler } from "./clientSet.js";
import {
  AuthError,
  MissingEpochError,
  OutcomeUnknownError,
  RateLimitedError,
  ResponseShapeError,
  type RestError,
  transportError,
  ValidationError,
} from "./errors.js";
import { FastPath, type FastPathSpec } from "./fast/fastPath.js";

/** [assumed] the local simulator's default address; the real hosts are src/venue/stack.ts's REAL_HOSTS. */
export const DEFAULT_BASE_URL = "http://127.0.0.1:8787";

export interface HttpOptions {
  /** Connections per origin. Default 4. */
  connections?: number;
  /** Connections opened by start() before the first order. Default: all `connections`. */
  prewarm?: number;
  /**
   * Every this many ms, an origin whose connections are idle (nothing in flight or waiting) gets one
   * unsigned GET of the time endpoint per connection: closed connections reopen and open ones stay
   * inside the idle timeouts (undici's `keepAliveTimeoutMs`, the venue's own), so the first burst
   * after a quiet spell pays no TCP/TLS handshake. 0 = off. Default 10,000.
   */
  keepWarmMs?: number;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  /**
   * Keep the connection after a DELETE with a body (the Spot cancel). Default true. undici otherwise
   * closes the socket after any request whose method does not anticipate a body, so every cancel
   * would pay a new TCP (and TLS) connection. The venue documents the DELETE body and reads it.
   */
  deleteBodyKeepAlive?: boolean;
  /**
   * Order requests (the endpoints of `RestClientOptions.fast`) on the fast path's own sockets
   * (src/rest/fast/); false sends them on undici like every other request. Default false here; the
   * gateway's config (`http.fastPath`) turns it on by default.
   */
  fastPath?: boolean;
  /**
   * PEM text of further certificate authorities trusted for TLS to the venue, beside Node's own
   * (`tls.rootCertificates`); undici's connections and the fast path's both use it.
   */
  ca?: string;
}

export interface RestClientOptions {
  apiKey: string;
  signer: RequestSigner;
  spotBaseUrl?: string;
  hftBaseUrl?: string;
  http?: HttpOptions;
  /** Defaults to buildCatalogue() with no pre-signed prefixes; pass one built with the presigner's list. */
  catalogue?: Catalogue;
  /**
   * Told of every 401 to a signed request, with the epoch it carried; its answer (does the clock
   * explain it?) is attached to the AuthError as `clockExplains`. The clock guard (venue/stack.ts).
   */
  onUnauthorized?: (epochMs: number | undefined) => Promise<boolean>;
  /** The order endpoints a venue sends on the fast path (src/rest/fast/), when `http.fastPath`. */
  fast?: FastPathSpec;
  /**
   * Envelope return codes that mean "rate limited" (a RateLimitedError, as an HTTP 429 is); the
   * venue's own (src/venue/hft/retCodes.ts). Default none.
   */
  rateLimitCodes?: readonly number[];
}

export type Query = ReadonlyArray<readonly [string, string]>;

/** A request ready for the wire: everything a connection needs. */
export interface PreparedRequest {
  endpoint: Endpoint;
  /** Wire request-target (encoded query). */
  path: string;
  headers: string[];
  body: string | undefined;
  /** X-AUTH-EPOCH of a signed request (a 401 is judged against it). */
  epoch?: string;
}

/**
 * Where a request's outcome goes (`sendTo`): one long-lived object per caller, handed back the
 * request's context and a number of the caller's (its send time), so no closure is made per request.
 * Called on a later tick than the answer's arrival, never inside undici's callbacks; the fast path
 * calls a plainly successful answer's `answered` in its socket's read callback, with the socket free.
 */
export interface AnswerSink<C> {
  /** 2xx: the unwrapped payload (`data` on Spot, `result` on v5). */
  /**
   * `text`: the 2xx answer's body as received (journaled as it is): its text, or its UTF-8 bytes where
   * the fast path read a plain success without decoding it (valid only during the call).
   */
  answered(ctx: C, res: unknown, stamp: number, text: string | Buffer): void;
  /** A typed RestError (or a transport error mapped to one). */
  failed(ctx: C, err: unknown, stamp: number): void;
}

/** Node's certificate authorities and `extra` (a TLS `ca` option replaces Node's own otherwise). */
function trusted(extra: string | undefined): string[] | undefined {
  return extra === undefined || extra === "" ? undefined : [...rootCertificates, extra];
}

const CT = "content-type";
const JSON_CT = "application/json";
const UNSIGNED_HEADERS = [CT, JSON_CT];

export class RestClient {
  readonly catalogue: Catalogue;
  private readonly origins = new Map<string, ClientSet>();
  private readonly spotConns: ClientSet;
  private readonly hftConns: ClientSet;
  private readonly apiKey: string;
  private readonly signer: RequestSigner;
  private readonly prewarmN: number;
  private readonly connections: number;
  private readonly keepWarmMs: number;
  private warmTimer: NodeJS.Timeout | undefined;
  /** Periodic keep-warm rounds that sent a GET on the general client's connections (for tests). */
  readonly warmStats = { rounds: 0 };
  /**
   * The longest a request can wait for its answer (connect + headers + body timeouts): past it every
   * request sent earlier has been answered or has failed. The resolver's verdicts wait for it.
   */
  readonly answerDeadlineMs: number;
  /** undici's `reset` for a DELETE with a body: false keeps the connection (see HttpOptions). */
  private readonly deleteReset: boolean | undefined;
  private readonly onUnauthorized: RestClientOptions["onUnauthorized"];
  /** The fast path for order requests, when on (src/rest/fast/). */
  private readonly fast: FastPath | undefined;
  private readonly rateLimitCodes: readonly number[];
  /** Each origin's connections and the path of the catalogue's warm-up GET for them. */
  private readonly warmTargets: [ClientSet, string][] = [];
  /** The catalogue's warm-up endpoints of the Spot/Futures host and of the HFT host (the fast path's). */
  private warmMain: Endpoint | undefined;
  private warmHft: Endpoint | undefined;

  constructor(opts: RestClientOptions) {
    this.apiKey = opts.apiKey;
    this.signer = opts.signer;
    this.onUnauthorized = opts.onUnauthorized;
    this.rateLimitCodes = opts.rateLimitCodes ?? [];
    this.catalogue = opts.catalogue ?? buildCatalogue();
    const h = opts.http ?? {};
    this.connections = h.connections ?? 4;
    this.prewarmN = Math.min(h.prewarm ?? this.connections, this.connections);
    this.keepWarmMs = h.keepWarmMs ?? 10_000;
    this.deleteReset = h.deleteBodyKeepAlive === false ? undefined : false;
    this.answerDeadlineMs =
      (h.connectTimeoutMs ?? 2_000) + (h.headersTimeoutMs ?? 5_000) + (h.bodyTimeoutMs ?? 5_000);
    // One list for every connection of both clients (Node's authorities copied once).
    const ca = trusted(h.ca);
    this.spotConns = this.connsFor(opts.spotBaseUrl ?? DEFAULT_BASE_URL, h, ca);
    this.hftConns = this.connsFor(opts.hftBaseUrl ?? DEFAULT_BASE_URL, h, ca);
    this.fast =
      opts.fast === undefined || h.fastPath !== true
        ? undefined
        : new FastPath(
            opts.fast,
            this.spotConns.origin,
            this.hftConns.origin,
            {
              connections: this.connections,
              connectTimeoutMs: h.connectTimeoutMs ?? 2_000,
              headersTimeoutMs: h.headersTimeoutMs ?? 5_000,
              bodyTimeoutMs: h.bodyTimeoutMs ?? 5_000,
              ca,
            },
            {
              send: (req, sink, ctx, stamp) => this.sendGeneral(req, sink, ctx, stamp),
              parse: (ep, status, retryAfter, text, epoch) =>
                parseResponse(ep, status, retryAfter, text, epoch, this.rateLimitCodes),
              onUnauthorized: this.onUnauthorized,
            },
          );
    // The first warm endpoint of each origin (the catalogue marks them), in the catalogue's order.
    for (const ep of Object.values<Endpoint>(this.catalogue)) {
      if (ep.warm !== true) continue;
      if (ep.surface === "hft") this.warmHft ??= ep;
      else this.warmMain ??= ep;
      const set = ep.surface === "hft" ? this.hftConns : this.spotConns;
      if (!this.warmTargets.some(([s]) => s === set)) this.warmTargets.push([set, ep.path]);
    }
  }

  private connsFor(base: string, h: HttpOptions, ca: string[] | undefined): ClientSet {
    const origin = new URL(base).origin;
    let set = this.origins.get(origin);
    if (set === undefined) {
      set = new ClientSet(origin, {
        connections: this.connections,
        connectTimeout: h.connectTimeoutMs ?? 2_000,
        headersTimeout: h.headersTimeoutMs ?? 5_000,
        bodyTimeout: h.bodyTimeoutMs ?? 5_000,
        keepAliveTimeout: h.keepAliveTimeoutMs ?? 30_000,
        ca,
      });
      this.origins.set(origin, set);
    }
    return set;
  }

  /**
   * Opens `prewarm` keep-alive connections per origin with concurrent unsigned GETs, then keeps them
   * warm (see `keepWarmMs`), and connects the fast path's sockets. Returns the connections that failed
   * (pre-warm GETs and fast sockets: their order requests go out on undici until they reopen).
   */
  async start(): Promise<number> {
    let failed = await this.warmRound(this.prewarmN, false);
    if (this.fast !== undefined) failed += await this.fast.start();
    if (this.keepWarmMs > 0 && this.warmTimer === undefined) {
      this.warmTimer = setInterval(() => void this.warmRound(this.connections, true), this.keepWarmMs);
      this.warmTimer.unref();
    }
    return failed;
  }

  /**
   * One unsigned GET on each of the first `n` connections of every origin. `idleOnly` (the periodic
   * rounds): an origin with requests in flight or waiting is left alone (its connections are in use,
   * and a GET must never take a connection an order could use), and so is a connection that took a
   * request in the last half period: it is warm already, and a GET on it would only stand in the way
   * of the next order. So a connection goes at most 1.5 × `keepWarmMs` without a request.
   */
  private async warmRound(n: number, idleOnly: boolean): Promise<number> {
    let failed = 0;
    const quietMs = idleOnly ? this.keepWarmMs / 2 : 0;
    const jobs: Promise<void>[] = [];
    let sent = 0;
    for (const [set, path] of this.warmTargets) {
      if (idleOnly && !set.idle) continue;
      for (let i = 0; i < Math.min(n, set.size); i++) {
        jobs.push(
          new Promise<void>((done) => {
            const h = new WarmGet((ok) => {
              if (!ok) failed++;
              done();
            });
            if (set.dispatchOn(i, { method: "GET", path, headers: UNSIGNED_HEADERS }, h, quietMs)) sent++;
            else done();
          }),
        );
      }
    }
    if (idleOnly && sent > 0) this.warmStats.rounds++;
    if (this.fast !== undefined && idleOnly && this.warmMain !== undefined && this.warmHft !== undefined) {
      jobs.push(
        this.fast.warm(n, true, this.warmMain, this.warmHft, quietMs).then((f) => {
          failed += f;
        }),
      );
    }
    await Promise.all(jobs);
    return failed;
  }

  async close(): Promise<void> {
    if (this.warmTimer !== undefined) clearInterval(this.warmTimer);
    this.warmTimer = undefined;
    const sets = [...this.origins.values()];
    this.origins.clear();
    await Promise.all([this.fast?.close(), ...sets.map((c) => c.close())]);
  }

  // ---------- assembly ----------

  /** Generic assembly: signs `METHOD + decoded(path?query) + epoch` (inline, or ring when hot and query-less). */
  prepare(id: EndpointId, query: Query = [], body?: string): PreparedRequest {
    const ep = this.catalogue[id];
    const path = wireTarget(ep.path, encodeQuery(query));
    if (!ep.signed) return { endpoint: ep, path, headers: UNSIGNED_HEADERS, body };
    const st = this.signer.signFor(ep.method, path, path === ep.path ? ep.presignId : -1);
    return {
      endpoint: ep,
      path,
      headers: [
        CT,
        JSON_CT,
        "x-auth-apikey",
        this.apiKey,
        "x-auth-signature",
        st.signature,
        "x-auth-epoch",
        st.epoch,
      ],
      body,
      epoch: st.epoch,
    };
  }

  /**
   * The fast path: an endpoint's fixed path (no query) with a body its venue module validated and
   * built; the signature comes from the pre-signer's ring when the endpoint is pre-signed.
   */
  prepareBody(id: EndpointId, body: string): PreparedRequest {
    const ep = this.catalogue[id];
    const st = this.signer.signFor(ep.method, ep.path, ep.presignId);
    return {
      endpoint: ep,
      path: ep.path,
      headers: [
        CT,
        JSON_CT,
        "x-auth-apikey",
        this.apiKey,
        "x-auth-signature",
        st.signature,
        "x-auth-epoch",
        st.epoch,
      ],
      body,
      epoch: st.epoch,
    };
  }

  // ---------- transport and parsing ----------

  /**
   * Sends a prepared request; its outcome goes to `sink` with `ctx` and `stamp` (see AnswerSink). Uses
   * undici's dispatch API with a small collector: measurably cheaper than `request` (no stream).
   */
  sendTo<C>(req: PreparedRequest, sink: AnswerSink<C>, ctx: C, stamp: number): void {
    const fast = this.fast;
    if (fast?.carries(req.endpoint)) fast.send(req, sink as AnswerSink<unknown>, ctx, stamp);
    else this.sendGeneral(req, sink, ctx, stamp);
  }

  /** The general client: undici, every endpoint. */
  private sendGeneral<C>(req: PreparedRequest, sink: AnswerSink<C>, ctx: C, stamp: number): void {
    const ep = req.endpoint;
    // Spot and Futures v2 share the host (coinswitch.co); HFT has its own.
    const set = ep.surface === "hft" ? this.hftConns : this.spotConns;
    set.dispatch(
      {
        method: ep.method,
        path: req.path,
        headers: req.headers,
        body: req.body,
        reset: ep.method === "DELETE" && req.body !== undefined ? this.deleteReset : undefined,
      },
      new Collector(
        ep,
        sink as AnswerSink<unknown>,
        ctx,
        stamp,
        req.epoch,
        this.onUnauthorized,
        this.rateLimitCodes,
      ),
    );
  }

  /** Sends a prepared request and returns the unwrapped payload (`data` on Spot, `result` on v5). */
  send<T>(req: PreparedRequest): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.sendTo(req, SETTLE, { resolve: resolve as (v: unknown) => void, reject }, 0);
    });
  }

  /** Any catalogue endpoint: `query` is signed decoded and sent encoded; `body` is a JSON value. */
  async call<T = unknown>(id: EndpointId, query: Query = [], body?: unknown): Promise<T> {
    return this.send<T>(this.prepare(id, query, body === undefined ? undefined : JSON.stringify(body)));
  }
}

interface Settle {
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

/** `send`'s sink: the outcome settles the caller's promise. */
const SETTLE: AnswerSink<Settle> = {
  answered: (p, res) => p.resolve(res),
  failed: (p, err) => p.reject(err),
};

/**
 * Collects one response, reads it through parseResponse and hands the outcome to its sink on the next
 * tick (process.nextTick with the collector as argument: no closure), outside undici's callbacks.
 * Implements undici's classic handler methods (raw header buffers): the newer onResponse* interface
 * makes undici wrap every request in two adapter objects and build a header object per response, of
 * which only Retry-After is ever read.
 */
class Collector implements SetHandler {
  slot = -1;
  finished: ((h: SetHandler) => void) | undefined = undefined;
  private status = 0;
  private retryAfter: string | undefined;
  private first: Buffer | undefined;
  private rest: Buffer[] | undefined;
  /** The outcome: the payload when `ok`, else the error. Only the first one is delivered. */
  ok = false;
  outcome: unknown = undefined;
  /** The answer's body text (kept for the journal). */
  text = "";
  private settled = false;

  constructor(
    private readonly ep: Endpoint,
    readonly sink: AnswerSink<unknown>,
    readonly ctx: unknown,
    readonly stamp: number,
    private readonly epoch: string | undefined,
    private readonly onUnauthorized: RestClientOptions["onUnauthorized"],
    private readonly rateLimitCodes: readonly number[],
  ) {}

  onConnect(): void {}

  onHeaders(status: number, rawHeaders: Buffer[]): boolean {
    this.status = status;
    this.retryAfter = findRetryAfter(rawHeaders);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.first === undefined) this.first = chunk;
    else {
      if (this.rest === undefined) this.rest = [this.first];
      this.rest.push(chunk);
    }
    return true;
  }

  onComplete(): void {
    // The connection is free again: the oldest waiting request takes it before this answer is read.
    this.finished?.(this);
    if (this.settled) return;
    this.settled = true;
    const buf = this.rest !== undefined ? Buffer.concat(this.rest) : this.first;
    const text = buf === undefined ? "" : buf.toString("utf8");
    this.text = text;
    try {
      this.outcome = parseResponse(
        this.ep,
        this.status,
        this.retryAfter,
        text,
        this.epoch,
        this.rateLimitCodes,
      );
      this.ok = true;
    } catch (err) {
      // The venue says the same 401 for a bad key and an epoch outside its window: the clock decides.
      if (err instanceof AuthError && this.epoch !== undefined && this.onUnauthorized !== undefined)
        err.clockExplains = this.onUnauthorized(err.epochMs);
      this.outcome = err;
    }
    process.nextTick(deliver, this);
  }

  onError(err: Error): void {
    this.finished?.(this);
    if (this.settled) return;
    this.settled = true;
    this.outcome = transportError(err, this.ep.id);
    process.nextTick(deliver, this);
  }
}

function deliver(c: Collector): void {
  if (c.ok) c.sink.answered(c.ctx, c.outcome, c.stamp, c.text);
  else c.sink.failed(c.ctx, c.outcome, c.stamp);
}

/** An unsigned warm-up GET: its body is read and dropped; `done(ok)` once. */
class WarmGet implements SetHandler {
  slot = -1;
  finished: ((h: SetHandler) => void) | undefined = undefined;
  constructor(private readonly done: (ok: boolean) => void) {}
  onConnect(): void {}
  onHeaders(): boolean {
    return true;
  }
  onData(): boolean {
    return true;
  }
  onComplete(): void {
    this.finished?.(this);
    this.done(true);
  }
  onError(): void {
    this.finished?.(this);
    this.done(false);
  }
}

/** First Retry-After value (latin1, as undici's own header parsing gives it), from raw name/value pairs. */
function findRetryAfter(raw: Buffer[]): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 11 && name.toString("latin1").toLowerCase() === "retry-after") {
      return raw[i + 1]!.toString("latin1");
    }
  }
  return undefined;
}

// ---------- response parsing and error mapping ----------

/**
 * The payload of a successful answer's envelope: v5 `result`; Spot and Futures `{data}`, where a few
 * endpoints (time, ping) answer bare objects. Journal replay reads raw answers with it too.
 */
export function envelopePayload(o: Record<string, unknown>, hft: boolean): unknown {
  if (hft) return o.result;
  return "data" in o ? o.data : o;
}

/**
 * Parses a response per surface and maps failures to the typed hierarchy; `rateLimitCodes` are the
 * envelope codes that mean "rate limited" (RestClientOptions).
 */
export function parseResponse(
  ep: Endpoint,
  status: number,
  retryAfter: unknown,
  text: string,
  epoch?: string,
  rateLimitCodes: readonly number[] = [],
): unknown {
  const json = tryJson(text);
  if (status >= 200 && status < 300) {
    if (json === undefined || json === null || typeof json !== "object") {
      throw new ResponseShapeError(`${ep.id}: ${status} with a non-JSON body`, ep.id, status);
    }
    if (ep.bare) return json;
    const o = json as Record<string, unknown>;
    if (ep.surface === "hft") {
      if (typeof o.retCode !== "number") {
        throw new ResponseShapeError(`${ep.id}: missing retCode in v5 envelope`, ep.id, status);
      }
      if (o.retCode !== 0)
        throw envelopeError(ep, status, o.retCode, String(o.retMsg ?? ""), retryAfter, rateLimitCodes);
      if (ep.envelopeTime === true) return { ...(o.result as object), time: o.time };
    }
    return envelopePayload(o, ep.surface === "hft");
  }
  const msg = errorText(json, text);
  const code =
    json !== null && typeof json === "object" ? (json as { retCode?: unknown }).retCode : undefined;
  if (status === 401)
    throw new AuthError(
      `${ep.id}: 401 ${msg}`,
      ep.id,
      status,
      epoch === undefined ? undefined : Number(epoch),
    );
  if (status === 429)
    throw new RateLimitedError(`${ep.id}: 429 ${msg}`, ep.id, status, retryAfterMs(retryAfter));
  if (status >= 500)
    throw new OutcomeUnknownError(`${ep.id}: ${status} ${msg}; outcome unknown`, ep.id, status, undefined);
  if (status === 400 && /epoch/i.test(msg))
    throw new MissingEpochError(`${ep.id}: 400 ${msg}`, ep.id, status);
  return throwValidation(ep, status, typeof code === "number" ? code : undefined, msg);
}

function throwValidation(ep: Endpoint, status: number, code: number | undefined, msg: string): never {
  throw new ValidationError(
    `${ep.id}: ${status}${code !== undefined ? ` retCode ${code}` : ""} ${msg}`,
    ep.id,
    status,
    code,
    msg,
  );
}

function envelopeError(
  ep: Endpoint,
  status: number,
  code: number,
  msg: string,
  retryAfter: unknown,
  rateLimitCodes: readonly number[],
): RestError {
  if (rateLimitCodes.includes(code)) {
    return new RateLimitedError(`${ep.id}: retCode ${code} ${msg}`, ep.id, status, retryAfterMs(retryAfter));
  }
  return new ValidationError(`${ep.id}: retCode ${code} ${msg}`, ep.id, status, code, msg);
}

function tryJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorText(json: unknown, text: string): string {
  if (json !== null && typeof json === "object") {
    const o = json as { message?: unknown; retMsg?: unknown };
    if (typeof o.message === "string") return o.message;
    if (typeof o.retMsg === "string") return o.retMsg;
  }
  return text.slice(0, 200);
}

/** Retry-After as seconds or an HTTP date, in ms; undefined when absent or unparsable. */
export function retryAfterMs(v: unknown): number | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (typeof s !== "string" || s === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s) * 1000);
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : Math.max(0, t - Date.now());
}
