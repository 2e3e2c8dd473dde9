/**
 * The optional NATS bus of one gateway (one account): remote strategy sessions (a second transport of
 * the gateway's session layer), the drop copy to JetStream, the admin control plane. Off unless
 * `bus.nats.servers` is set; then `openBus` (before the gateway runs: the drop-copy tap and its spool)
 * and `Bus.start` (after: the NATS connection, which may come and go without stopping local trading).
 */
import type { NatsConnection, Subscription } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import type { Config } from "../config/load.js";
import type { GatewayEngine } from "../gateway/engineApi.js";
import type { Gateway } from "../gateway/gateway.js";
import { serveControl } from "./control.js";
import { DropCopy, type DropCopyState } from "./dropCopy.js";
import { inboxOf } from "./permissions.js";
import { natsSessions, type RemoteSessions } from "./sessionTransport.js";
import { checkAccount } from "./subjects.js";

export interface BusLogger {
  info(o: object, m: string): void;
  warn(o: object, m: string): void;
  error(o: object, m: string): void;
}

export interface BusOptions {
  servers: string[];
  user: string | null;
  password: string | null;
  account: string;
  sessions: boolean;
  maxConnections: number;
  control: boolean;
  dropCopy:
    | {
        spoolDir: string;
        replicas: number;
        maxAgeMs: number;
        maxMsgs: number;
        dedupWindowMs: number;
        maxPending: number;
      }
    | undefined;
  fsync: Config["journal"]["fsync"];
  fsyncIntervalMs: number;
  log: BusLogger;
  /** NATS down this long makes /health report `bus.error` (default 5 s). */
  downErrorMs?: number;
}

/** The bus options a configuration asks for, or undefined when the bus is off. */
export function busOptions(c: Config, log: BusLogger): BusOptions | undefined {
  const b = c.bus;
  if (b.nats.servers.length === 0) return undefined;
  return {
    servers: b.nats.servers,
    user: b.nats.user,
    password: b.nats.password,
    account: checkAccount(b.account),
    sessions: b.sessions,
    maxConnections: b.maxConnections,
    control: b.control,
    dropCopy: b.dropCopy.enabled ? { ...b.dropCopy } : undefined,
    fsync: c.journal.fsync,
    fsyncIntervalMs: c.journal.fsyncIntervalMs,
    log,
  };
}

/** NATS down this long (at start or later) makes /health `degraded` with `bus.error`. */
const DOWN_IS_ERROR_MS = 5_000;

export interface BusHealth {
  up: boolean;
  server: string;
  account: string;
  remoteConnections: number;
  /** Set while the bus or its drop copy cannot work: /health is then `degraded`. */
  error?: string;
  dropCopy:
    | { state: "off" }
    | {
        state: DropCopyState;
        error?: string;
        pending: number;
        lastDcSeq: number;
        lagMs: number;
        lost: number;
      };
}

export class Bus {
  readonly dropCopy: DropCopy | undefined;
  private nc: NatsConnection | undefined;
  private sessions: RemoteSessions | undefined;
  private ctl: Subscription[] = [];
  private closed = false;
  private connecting: Promise<void> | undefined;
  /** True while the NATS connection is up. */
  up = false;
  /** Why the bus could not connect (it then does not retry: a configuration error, e.g. the user). */
  connectError: string | undefined;
  /** Since when the NATS connection has been down (ms; 0 while up or before `start`). */
  private downSinceMs = 0;

  /** Opens the drop-copy spool (no network yet); hand `tap` to the gateway before it runs. */
  constructor(readonly o: BusOptions) {
    if (o.dropCopy !== undefined) {
      const fsync = o.fsync === "interval" ? { intervalMs: o.fsyncIntervalMs } : o.fsync;
      this.dropCopy = new DropCopy({ account: o.account, fsync, log: o.log, ...o.dropCopy });
    }
  }

  get tap() {
    return this.dropCopy?.tap;
  }

  /** Connects in the background (retrying for ever); local trading never waits for the bus. */
  start(gateway: Gateway, engine: GatewayEngine): void {
    this.downSinceMs = Date.now();
    this.connecting = this.connectLoop(gateway, engine);
  }

  /** Resolves once the first connection is up (tests, `hftgate start` logs). */
  async whenUp(timeoutMs: number): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (!this.up && Date.now() < until && !this.closed) await new Promise((r) => setTimeout(r, 10));
    return this.up;
  }

  private async connectLoop(gateway: Gateway, engine: GatewayEngine): Promise<void> {
    const o = this.o;
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers: o.servers,
        ...(o.user !== null ? { user: o.user } : {}),
        ...(o.password !== null ? { pass: o.password } : {}),
        name: `hftgate-${o.account}`,
        inboxPrefix: inboxOf(o.user ?? `hftgate-${o.account}`),
        waitOnFirstConnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        pingInterval: 5_000,
        maxPingOut: 2,
      });
    } catch (err) {
      if (this.closed) return;
      this.connectError = String(err);
      o.log.error(
        { err: this.connectError },
        "bus: NATS connect failed; local trading continues without the bus",
      );
      return;
    }
    if (this.closed) {
      await nc.close();
      return;
    }
    this.nc = nc;
    this.up = true;
    this.downSinceMs = 0;
    o.log.info({ server: nc.getServer(), account: o.account }, "bus connected");
    if (o.sessions)
      this.sessions = (await gateway.addTransport(
        natsSessions(nc, { account: o.account, maxConnections: o.maxConnections }),
      )) as RemoteSessions;
    if (o.control) this.ctl = serveControl(nc, o.account, engine, o.log);
    this.dropCopy?.attach(nc);
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === "disconnect") {
          this.up = false;
          this.downSinceMs = Date.now();
          this.dropCopy?.disconnected();
          o.log.warn({ server: s.server }, "bus disconnected; local trading continues");
        } else if (s.type === "reconnect") {
          this.up = true;
          this.downSinceMs = 0;
          this.dropCopy?.reconnected();
          o.log.info({ server: s.server }, "bus reconnected");
        }
      }
    })();
  }

  /** The server the bus connection is on now (`host:port`), "" when down. */
  get server(): string {
    return this.up && this.nc !== undefined ? this.nc.getServer() : "";
  }

  /** Remote connections open now. */
  get remoteConnections(): number {
    return this.sessions?.open ?? 0;
  }

  /** The bus for /health: connection, remote sessions and the drop copy's state (`error` names why). */
  health(): BusHealth {
    const dc = this.dropCopy;
    const downMs = this.downSinceMs === 0 || this.closed ? 0 : Date.now() - this.downSinceMs;
    // A short reconnect is not an error; NATS away longer than this is (remote sessions, drop copy wait).
    const error =
      this.connectError ??
      (downMs > (this.o.downErrorMs ?? DOWN_IS_ERROR_MS)
        ? `NATS not reachable for ${Math.round(downMs / 1000)} s`
        : dc?.state === "error"
          ? `drop copy: ${dc.error}`
          : undefined);
    return {
      up: this.up,
      server: this.server,
      account: this.o.account,
      remoteConnections: this.remoteConnections,
      ...(error !== undefined ? { error } : {}),
      dropCopy:
        dc === undefined
          ? { state: "off" }
          : {
              state: this.connectError !== undefined ? "error" : dc.state,
              ...(dc.error !== undefined ? { error: dc.error } : {}),
              pending: dc.pending,
              lastDcSeq: dc.lastDc,
              lagMs: dc.lagMs(),
              lost: dc.stats.lost,
            },
    };
  }

  /** After the gateway closed: publishes what it can within `drainMs`, then closes the connection. */
  async close(drainMs = 1000): Promise<void> {
    this.closed = true;
    if (this.up) await this.dropCopy?.drain(drainMs);
    for (const s of this.ctl) s.unsubscribe();
    await this.dropCopy?.close();
    const nc = this.nc;
    this.nc = undefined;
    this.up = false;
    if (nc !== undefined && !nc.isClosed()) await nc.close().catch(() => {});
    // A first connection still being attempted cannot be aborted: it closes itself once it succeeds
    // (connectLoop sees `closed`); the stop does not wait for a NATS server that may never answer.
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((r) => {
      timer = setTimeout(r, Math.min(drainMs, 250));
    });
    await Promise.race([this.connecting?.catch(() => {}), waited]);
    clearTimeout(timer);
  }
}
