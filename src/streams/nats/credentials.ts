/**
 * The HFT private-stream credentials of docs/venue-api.md §3.12: `GET /dma/api/v1/socket/signature`
 * (signed like any request) answers `{api_key, expires, signature}`. Kept in memory only, refreshed on
 * a timer well before `expires` (listeners are told, so the connection can be rolled onto the new one
 * before the old expires), dropped when the server refuses it (`invalidate`: the next connect fetches
 * a fresh one), handed to the NATS authenticator synchronously (it may not await).
 * The values never leave this object except through `current()`; `toJSON` and `inspect` show none.
 */
import { inspect } from "node:util";
import type { RestClient } from "../../rest/client.js";

export interface SocketCredential {
  readonly apiKey: string;
  /** Unix ms after which the venue refuses the credential. */
  readonly expires: number;
  readonly signature: string;
}

export interface CredentialOptions {
  rest: RestClient;
  /** Lifetime asked for (`expires_in_seconds`). Default 3,600. */
  ttlS?: number;
  /** Refresh when this fraction of the lifetime is left. Default 0.34 (≈ 2/3 used). */
  refreshAtFraction?: number;
  /** First retry of a failed fetch (ms, doubles to 30 s). Default 1,000. */
  retryMs?: number;
  now?: () => number;
  /** After each successful fetch / each failure (counts for metrics; no values). */
  onRefresh?: (ok: boolean, err?: unknown) => void;
  /** Each issued signature, so the logger can scrub it should it ever reach a line. */
  registerSecret?: (value: string) => void;
}

/** The answer was not `{api_key: string, expires: number, signature: string}`. */
export class CredentialShapeError extends Error {
  constructor(what: string) {
    super(`socket signature answer malformed: ${what}`);
    this.name = "CredentialShapeError";
  }
}

export function parseCredential(raw: unknown): SocketCredential {
  if (raw === null || typeof raw !== "object") throw new CredentialShapeError("not an object");
  const r = raw as Record<string, unknown>;
  if (typeof r.api_key !== "string" || r.api_key === "") throw new CredentialShapeError("api_key");
  if (typeof r.signature !== "string" || r.signature === "") throw new CredentialShapeError("signature");
  // [assumed] `expires` is Unix ms (the sample 1718000300000 is); a numeric string is accepted too.
  const e = typeof r.expires === "string" ? Number(r.expires) : r.expires;
  if (typeof e !== "number" || !Number.isFinite(e) || e <= 0) throw new CredentialShapeError("expires");
  return { apiKey: r.api_key, expires: e, signature: r.signature };
}

export class SocketCredentials {
  readonly stats = { fetches: 0, failures: 0 };
  private cred: SocketCredential | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inflight: Promise<SocketCredential> | undefined;
  private retryMs: number;
  private stopped = false;
  private readonly renewed: Array<(c: SocketCredential) => void> = [];
  private readonly now: () => number;

  constructor(private readonly o: CredentialOptions) {
    this.now = o.now ?? Date.now;
    this.retryMs = o.retryMs ?? 1_000;
  }

  /** The held credential if it is still valid, else undefined (callers then `fetch()`). */
  current(): SocketCredential | undefined {
    const c = this.cred;
    return c !== undefined && c.expires > this.now() ? c : undefined;
  }

  /** A valid credential: the held one, or a fresh fetch (concurrent callers share it). */
  async get(): Promise<SocketCredential> {
    return this.current() ?? this.fetch();
  }

  /** Fetches now and schedules the next refresh. Rejects with the REST error (no secret in it). */
  fetch(): Promise<SocketCredential> {
    if (this.inflight !== undefined) return this.inflight;
    const ttl = this.o.ttlS ?? 3_600;
    this.inflight = this.o.rest
      .call<unknown>("hft.socketSignature", [["expires_in_seconds", String(ttl)]])
      .then(parseCredential)
      .then(
        (c) => {
          this.cred = c;
          this.stats.fetches++;
          this.retryMs = this.o.retryMs ?? 1_000;
          this.o.registerSecret?.(c.signature);
          this.o.onRefresh?.(true);
          this.schedule(this.refreshDelay(c));
          return c;
        },
        (e: unknown) => {
          this.stats.failures++;
          this.o.onRefresh?.(false, e);
          const ms = this.retryMs;
          this.retryMs = Math.min(30_000, this.retryMs * 2);
          this.schedule(ms);
          throw e;
        },
      )
      .finally(() => {
        this.inflight = undefined;
      });
    return this.inflight;
  }

  /** The server refused the held credential: forget it, so the next `get()` fetches a fresh one. */
  invalidate(): void {
    this.cred = undefined;
  }

  /** `fn` after each timed refresh (not after fetches a connect asked for). */
  onRenewed(fn: (c: SocketCredential) => void): void {
    this.renewed.push(fn);
  }

  /** Allows the refresh timer again after `stop()`. */
  start(): void {
    this.stopped = false;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Ms until the refresh: when `refreshAtFraction` of the lifetime is left (at least 1 s from now). */
  private refreshDelay(c: SocketCredential): number {
    const left = c.expires - this.now();
    return Math.max(1_000, left - left * (this.o.refreshAtFraction ?? 0.34));
  }

  private schedule(ms: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fetch().then(
        (c) => {
          for (const fn of this.renewed) fn(c);
        },
        () => {},
      );
    }, ms);
    this.timer.unref();
  }

  toJSON(): unknown {
    return { held: this.cred !== undefined, expires: this.cred?.expires };
  }

  [inspect.custom](): string {
    return `SocketCredentials { held: ${this.cred !== undefined} }`;
  }
}
