/**
 * One NATS connection over WebSocket, kept alive: credentials fetched before every connect, the
 * subjects subscribed on every connect (up = connected, subscribed, and the server has processed the
 * subscriptions), a staleness rule (NATS PING/PONG: `maxPingOut` unanswered pings within `staleMs`
 * close the connection), and reconnects with bounded exponential back-off driven here, not by the
 * client library, so each attempt presents a fresh credential. Nothing a peer sends can throw into
 * the connection loop; an authorization refusal is reported as `NatsAuthError` (no secret in it).
 */
import { type Authenticator, type NatsConnection, type Subscription, wsconnect } from "@nats-io/nats-core";
import WebSocket from "ws";
import type { BackoffOptions, StreamStateListener } from "../socketStream.js";

/** The server refused the credentials (NATS `Authorization Violation`) or a subscription's permission. */
export class NatsAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NatsAuthError";
  }
}

export interface NatsStreamOptions {
  name: string;
  /** `ws://` or `wss://` URL of the NATS WebSocket listener. */
  url: string;
  /** The CONNECT auth fields for the next connect (called before each one); undefined = none. */
  auth?: () => Promise<Record<string, unknown> | undefined>;
  /** Subjects subscribed on every connect (change with `setSubjects`). */
  subjects: readonly string[];
  /** One message (must not throw; a throw is counted as a sink error). */
  onMessage: (subject: string, data: Uint8Array) => void;
  listener?: StreamStateListener;
  /** No PONG for this long → the connection is closed and re-opened. Default 30,000 ms. */
  staleMs?: number;
  backoff?: BackoffOptions;
  /** Connect attempt timeout (ms). Default 5,000. */
  connectTimeoutMs?: number;
  /** Refusals and failures worth a log line (credential, auth, permission, connect errors). */
  onError?: (err: Error) => void;
}

export interface NatsStreamStats {
  messages: number;
  sinkErrors: number;
  connects: number;
  disconnects: number;
  authFailures: number;
  connectFailures: number;
  /** Wall-clock ms of the last message (0 = none yet). */
  lastMessageMs: number;
}

const NOOP_STATE: StreamStateListener = { onUp() {}, onDown() {} };

// The client expects a W3C WebSocket; Node 20 has no global one, so hand it the `ws` implementation
// (it also serves Node 22, keeping one implementation for both).
const wsFactory = async (u: string) => ({
  socket: new WebSocket(u) as unknown as globalThis.WebSocket,
  encrypted: u.startsWith("wss://"),
});

export class NatsStream {
  readonly name: string;
  readonly stats: NatsStreamStats = {
    messages: 0,
    sinkErrors: 0,
    connects: 0,
    disconnects: 0,
    authFailures: 0,
    connectFailures: 0,
    lastMessageMs: 0,
  };
  private readonly listener: StreamStateListener;
  private subjects: readonly string[];
  private subs = new Map<string, Subscription>();
  private nc: NatsConnection | undefined;
  private started = false;
  private isUp = false;
  private loopDone: Promise<void> | undefined;
  private delayMs: number;
  private wake: (() => void) | undefined;

  constructor(private readonly o: NatsStreamOptions) {
    this.name = o.name;
    this.listener = o.listener ?? NOOP_STATE;
    this.subjects = o.subjects;
    this.delayMs = o.backoff?.minMs ?? 250;
  }

  get up(): boolean {
    return this.isUp;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.started = false;
    this.wake?.();
    const nc = this.nc;
    if (nc !== undefined) await nc.close().catch(() => {});
    await this.loopDone;
  }

  /** Replaces the subject set: new subjects subscribed first, then the old ones dropped (no gap). */
  setSubjects(subjects: readonly string[]): void {
    this.subjects = subjects;
    const nc = this.nc;
    if (nc === undefined || nc.isClosed()) return;
    for (const s of subjects) if (!this.subs.has(s)) this.subscribe(nc, s);
    // Old subscriptions go only once the server has the new ones (its PONG answers the flush): a
    // message routed meanwhile still arrives on the old one (a duplicate at worst, de-duplicated).
    nc.flush().then(
      () => {
        if (this.nc !== nc) return;
        for (const [s, sub] of this.subs) {
          if (this.subjects.includes(s)) continue;
          sub.unsubscribe();
          this.subs.delete(s);
        }
      },
      () => {},
    );
  }

  /** Test hook and fault path: drop the current connection (the loop reconnects). */
  async dropConnection(): Promise<void> {
    await this.nc?.close().catch(() => {});
  }

  private async loop(): Promise<void> {
    while (this.started) {
      const nc = await this.connect();
      if (nc === undefined) {
        await this.backoff();
        continue;
      }
      const reason = await nc.closed().then(
        (e) => (e instanceof Error ? e.message : this.started ? "closed" : "stopped"),
        (e: unknown) => String(e),
      );
      this.nc = undefined;
      this.subs.clear();
      if (this.isUp) {
        this.isUp = false;
        this.stats.disconnects++;
        this.listener.onDown(this.name, this.started ? reason : "stopped");
      }
      if (this.started) await this.backoff();
    }
  }

  /** One attempt: credentials, connect, subscribe, flush. Undefined on any failure (reported). */
  private async connect(): Promise<NatsConnection | undefined> {
    let fields: Record<string, unknown> | undefined;
    try {
      fields = await this.o.auth?.();
    } catch (e) {
      this.report(new Error(`${this.name}: no socket credential: ${errMessage(e)}`));
      return undefined;
    }
    if (!this.started) return undefined;
    const staleMs = this.o.staleMs ?? 30_000;
    let nc: NatsConnection;
    try {
      nc = await wsconnect({
        servers: this.o.url,
        wsFactory,
        name: "hftgate",
        reconnect: false,
        timeout: this.o.connectTimeoutMs ?? 5_000,
        // Two unanswered pings, one every staleMs/2: the connection is stale after about staleMs.
        pingInterval: Math.max(50, Math.floor(staleMs / 2)),
        maxPingOut: 2,
        // The client merges what the authenticator returns into the CONNECT (custom fields included).
        authenticator: (() => fields ?? {}) as unknown as Authenticator,
      });
    } catch (e) {
      if (isAuthRefusal(e)) {
        this.stats.authFailures++;
        this.report(
          new NatsAuthError(`${this.name}: the NATS server refused the credentials (${errMessage(e)})`),
        );
      } else {
        this.stats.connectFailures++;
        this.report(new Error(`${this.name}: connect to ${this.o.url} failed: ${errMessage(e)}`));
      }
      return undefined;
    }
    if (!this.started) {
      await nc.close().catch(() => {});
      return undefined;
    }
    this.nc = nc;
    for (const s of this.subjects) this.subscribe(nc, s);
    try {
      // The server has processed the SUBs once the PONG answering this flush arrives.
      await nc.flush();
    } catch {
      return nc; // closed meanwhile: the loop sees the close
    }
    if (nc.isClosed()) return nc;
    this.stats.connects++;
    this.delayMs = this.o.backoff?.minMs ?? 250;
    this.isUp = true;
    this.listener.onUp(this.name, this.stats.connects > 1);
    return nc;
  }

  private subscribe(nc: NatsConnection, subject: string): void {
    const sub = nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err !== null) {
          this.report(new NatsAuthError(`${this.name}: subscription to ${subject} refused: ${err.message}`));
          return;
        }
        this.stats.messages++;
        this.stats.lastMessageMs = Date.now();
        try {
          this.o.onMessage(msg.subject, msg.data);
        } catch {
          this.stats.sinkErrors++;
        }
      },
    });
    this.subs.set(subject, sub);
  }

  private report(e: Error): void {
    try {
      this.o.onError?.(e);
    } catch {
      // a logging failure must not stop the loop
    }
  }

  private backoff(): Promise<void> {
    const max = this.o.backoff?.maxMs ?? 5_000;
    const jitter = this.o.backoff?.jitter ?? 0.3;
    const base = this.delayMs;
    this.delayMs = Math.min(max, this.delayMs * 2);
    const ms = base * (1 - jitter / 2 + Math.random() * jitter);
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done(): void {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    });
  }
}

function errMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function isAuthRefusal(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  return e.name === "AuthorizationError" || /authoriz|authenticat/i.test(e.message);
}
