/**
 * One NATS connection over WebSocket, kept alive: credentials fetched before every connect, the
 * subjects subscribed on every connect (up = connected, subscribed, and the server has processed the
 * subscriptions), a staleness rule (NATS PING/PONG: `maxPingOut` unanswered pings within `staleMs`
 * close the connection), and reconnects with bounded exponential back-off driven here, not by the
 * client library, so each attempt presents a fresh credential. `roll()` replaces the connection with
 * one opened on the current credential before the old one is closed (no gap: a credential refresh
 * never costs a down); `restart(reason)` drops it on purpose (a silent stream). Nothing a peer sends
 * can throw into the connection loop; an authorization refusal is reported as `NatsAuthError` (no
 * secret in it) and told to `onAuthRefused`.
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
  /** The server refused the credential presented (connect or roll). */
  onAuthRefused?: () => void;
}

export interface NatsStreamStats {
  messages: number;
  sinkErrors: number;
  connects: number;
  disconnects: number;
  authFailures: number;
  connectFailures: number;
  /** Connections replaced without a gap (`roll`), and attempts that failed. */
  rolls: number;
  rollFailures: number;
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
    rolls: 0,
    rollFailures: 0,
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
  private rolling = false;
  /** Why the current connection is being dropped on purpose (`restart`), for the down report. */
  private dropReason: string | undefined;

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
    for (const s of subjects) if (!this.subs.has(s)) this.subs.set(s, this.subscribe(nc, s));
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
    await this.restart("dropped");
  }

  /** Drops the current connection on purpose; the down report says `reason`, then the loop reconnects. */
  async restart(reason: string): Promise<void> {
    const nc = this.nc;
    if (nc === undefined) return;
    this.dropReason = reason;
    await nc.close().catch(() => {});
  }

  /**
   * Make before break: a new connection on a fresh `auth()`, subscribed and flushed, then swapped in
   * and the old one closed. Messages seen on both meanwhile are duplicates (the sink de-duplicates).
   * False (nothing changed) when not up, already rolling, or the new connection failed.
   */
  async roll(): Promise<boolean> {
    const old = this.nc;
    if (!this.isUp || old === undefined || this.rolling || !this.started) return false;
    this.rolling = true;
    try {
      const nc = await this.open();
      if (nc === undefined) {
        this.stats.rollFailures++;
        return false;
      }
      const subs = new Map<string, Subscription>();
      for (const s of this.subjects) subs.set(s, this.subscribe(nc, s));
      await nc.flush().catch(() => {});
      if (this.nc !== old || old.isClosed() || nc.isClosed() || !this.started) {
        await nc.close().catch(() => {});
        this.stats.rollFailures++;
        return false;
      }
      this.nc = nc;
      this.subs = subs;
      this.stats.rolls++;
      await old.close().catch(() => {});
      return true;
    } finally {
      this.rolling = false;
    }
  }

  private async loop(): Promise<void> {
    while (this.started) {
      const nc = await this.connect();
      if (nc === undefined) {
        await this.backoff();
        continue;
      }
      let reason = "closed";
      // A roll swaps `this.nc` and closes the old connection: keep watching the new one.
      for (let cur = nc; ; cur = this.nc!) {
        reason = await cur.closed().then(
          (e) => (e instanceof Error ? e.message : this.started ? "closed" : "stopped"),
          (e: unknown) => String(e),
        );
        if (this.nc === cur || this.nc === undefined || this.nc.isClosed()) break;
      }
      if (this.dropReason !== undefined) reason = this.dropReason;
      this.dropReason = undefined;
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
    const nc = await this.open();
    if (nc === undefined) return undefined;
    this.nc = nc;
    this.subs.clear();
    for (const s of this.subjects) this.subs.set(s, this.subscribe(nc, s));
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

  /** Credentials, then a connection (not yet subscribed). Undefined on any failure (reported). */
  private async open(): Promise<NatsConnection | undefined> {
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
        try {
          this.o.onAuthRefused?.();
        } catch {
          // the loop goes on
        }
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
    return nc;
  }

  private subscribe(nc: NatsConnection, subject: string): Subscription {
    return nc.subscribe(subject, {
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
