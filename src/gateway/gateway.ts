/**
 * The strategy-facing gateway: sessions over the binary protocol (src/protocol/PROTOCOL.md §3) on one
 * or more transports (uWebSockets.js or `ws`), their start, stop and timers (heartbeats, logon
 * timeout, retention), and the engine's `SessionSink`. Its parts: logon.ts, dispatch.ts, outbound.ts,
 * httpRoutes.ts.
 */
import type { Body } from "../protocol/schema.js";
import { WS_PATH } from "../protocol/schema.js";
import { CommandDispatch } from "./dispatch.js";
import type { SessionJournal } from "./durableGate.js";
import type { EngineMessage, GatewayEngine, SessionInfo, SessionSink } from "./engineApi.js";
import { HttpRoutes } from "./httpRoutes.js";
import { CLOSE, type Link, newLink } from "./link.js";
import { LogonDesk } from "./logon.js";
import type { MarketDataFanout } from "./marketData.js";
import { detectUws, type UwsReport } from "./native.js";
import {
  type GatewayConfig,
  type GatewayLogger,
  type GatewaySettings,
  newGatewayStats,
  resolveSettings,
  stderrLogger,
} from "./options.js";
import { type FrameTap, Outbound } from "./outbound.js";
import { SessionTable } from "./sessions.js";
import {
  type Conn,
  type RunningTransport,
  startUwsTransport,
  startWsTransport,
  type TransportHandlers,
} from "./transport.js";

export type { FrameTap, GatewayConfig, GatewayLogger, SessionJournal };
export { CLOSE };

/** Starts one more transport on the gateway's handlers (src/bus's NATS sessions). */
export type TransportStarter = <L>(h: TransportHandlers<L>) => Promise<RunningTransport>;

/** Session-map figures (/health, tests): every session object the gateway holds is in one of these. */
export interface SessionCounts {
  /** Sessions in the maps (connected + retained). */
  sessions: number;
  connected: number;
  /** Disconnected named sessions kept for resume. */
  retained: number;
  /** Open connections (logged on or not). */
  links: number;
}

export class Gateway implements SessionSink {
  readonly uws: UwsReport;
  private transport: RunningTransport | undefined;
  private readonly table: SessionTable<Link>;
  private readonly links = new Set<Link>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly cfg: GatewaySettings;
  private readonly log: GatewayLogger;
  /** Transports added with `addTransport` (closed with the gateway). */
  private readonly extra: RunningTransport[] = [];
  /** Counters for /metrics and tests. */
  readonly stats = newGatewayStats();
  private readonly out: Outbound;
  private readonly logon: LogonDesk;
  private readonly commands: CommandDispatch;
  private readonly routes: HttpRoutes;
  /** Market data subscriptions and their fan-out (kept off the order path: src/gateway/marketData.ts). */
  readonly md: MarketDataFanout<Link>;
  private readonly handlers: TransportHandlers<Link> = {
    open: (conn) => this.onOpen(conn),
    message: (link, data, isBinary) => this.commands.onFrame(link, data, isBinary),
    close: (link) => this.onClose(link),
    http: (route, authorization) => this.routes.route(route, authorization),
    venue: (name, query, auth) => this.routes.venueRead(name, query, auth),
  };

  constructor(
    private readonly engine: GatewayEngine,
    config: GatewayConfig,
  ) {
    this.cfg = resolveSettings(config);
    this.log = config.logger ?? stderrLogger;
    this.table = new SessionTable<Link>({
      ring: this.cfg.resumeRing,
      retentionMs: this.cfg.sessionRetentionMs,
      maxRetained: this.cfg.maxRetainedSessions,
      journal: config.journal,
      onRelease: (s) => this.released(s),
      logInfo: (o, m) => this.log.info(o, m),
    });
    if (config.restored) this.table.restore(config.restored);
    this.out = new Outbound(engine, this.table, config, this.cfg, this.log, this.stats);
    this.md = this.out.md;
    this.logon = new LogonDesk(engine, this.table, this.out, this.cfg, this.log, this.stats);
    this.commands = new CommandDispatch(engine, this.out, this.logon, this.log, this.stats);
    this.routes = new HttpRoutes(config.http ?? {}, this.logon, this.cfg, this.stats, () => ({
      transport: this.transportKind,
      ...this.counts(),
    }));
    this.uws = detectUws();
  }

  /** Drop-copy tap; undefined (one check per frame) unless the bus is configured. */
  get tap(): FrameTap | undefined {
    return this.out.tap;
  }
  set tap(t: FrameTap | undefined) {
    this.out.tap = t;
  }

  get port(): number {
    return this.transport?.port ?? 0;
  }
  /** "uws-native" or "ws" once started. */
  get transportKind(): string {
    return this.transport?.kind ?? "stopped";
  }
  get url(): string {
    return `ws://${this.cfg.host}:${this.port}${WS_PATH}`;
  }

  async start(): Promise<this> {
    const opts = {
      host: this.cfg.host,
      port: this.cfg.port,
      maxPayload: 64 * 1024,
      maxBackpressure: this.cfg.maxBufferedBytes * 2,
    };
    const handlers = this.handlers;
    const wantNative = this.cfg.transport !== "ws";
    if (wantNative && this.uws.native) this.transport = await startUwsTransport(opts, handlers);
    else {
      if (wantNative) {
        this.log.warn(
          { binary: this.uws.binary, reason: this.uws.reason },
          "!!! uWebSockets.js native binary NOT available: falling back to the pure-JS `ws` server (slower) !!!",
        );
      } else this.log.warn({}, "gateway running on the pure-JS `ws` server (transport=ws configured)");
      this.transport = await startWsTransport(opts, handlers);
    }
    this.sweeper = setInterval(() => this.sweep(), 50);
    this.sweeper.unref();
    this.log.info({ url: this.url, transport: this.transport.kind, uws: this.uws }, "gateway listening");
    if (!/^(127\.|::1$|localhost$)/.test(this.cfg.host)) {
      this.log.warn({ host: this.cfg.host }, "gateway command API is listening beyond loopback");
    }
    return this;
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    for (const l of this.links) {
      this.out.release(l);
      l.closeReason = "shutdown";
      if (l.timer) clearTimeout(l.timer);
    }
    await this.transport?.close();
    this.transport = undefined;
    for (const t of this.extra.splice(0)) await t.close();
    this.out.detachJournal();
    this.table.detachJournal();
  }

  /**
   * The end of a drain: every connection, on every transport, gets the frames it is owed that the
   * journal holds, then its close with 1001 (going away); named sessions stay resumable. Resolves with
   * how many were closed once the peers have answered, or after `waitMs`.
   */
  async goAway(waitMs: number): Promise<number> {
    const open = [...this.links].filter((l) => !l.closed);
    for (const l of open) this.out.drop(l, "shutdown", CLOSE.Shutdown, "gateway shutting down");
    const until = Date.now() + waitMs;
    while (this.links.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    return open.length;
  }

  /** Serves the same sessions over one more transport (same rules: logon, seq, resume, heartbeats, COD). */
  async addTransport(start: TransportStarter): Promise<RunningTransport> {
    const t = await start(this.handlers);
    this.extra.push(t);
    return t;
  }

  // ---- SessionSink ----

  send<N extends EngineMessage>(sessionId: number, name: N, body: Body<N>, recvNs = 0): number {
    const s = this.table.get(sessionId);
    return s ? this.out.sendSeq(s, name, body, recvNs) : 0;
  }

  broadcast<N extends EngineMessage>(name: N, body: Body<N>): number {
    return this.out.broadcast(name, body);
  }

  cork(sessionId: number, fn: () => void): void {
    this.out.cork(sessionId, fn);
  }

  session(sessionId: number): SessionInfo | undefined {
    return this.table.get(sessionId);
  }

  sessions(): readonly SessionInfo[] {
    return [...this.table.values()];
  }

  /** Id of the session with this name that is still held (connected or kept for resume), else 0. */
  sessionIdOf(name: string): number {
    return this.table.named(name)?.sessionId ?? 0;
  }

  counts(): SessionCounts {
    let connected = 0;
    for (const s of this.table.values()) if (s.link !== undefined) connected++;
    return { sessions: this.table.size, connected, retained: this.table.retained, links: this.links.size };
  }

  /** The session table let a session go: the engine unbinds it. */
  private released(s: SessionInfo): void {
    try {
      this.engine.onRelease?.(s);
    } catch (err) {
      this.log.warn({ sessionId: s.sessionId, err: String(err) }, "engine.onRelease threw");
    }
  }

  // ---- transport events ----

  private onOpen(conn: Conn): Link {
    const l = newLink(conn);
    this.links.add(l);
    return l;
  }

  private onClose(l: Link): void {
    this.links.delete(l);
    this.md.dropLink(l);
    if (l.timer) clearTimeout(l.timer);
    l.closed = true;
    this.out.detach(l);
  }

  // ---- timers ----

  private sweep(): void {
    const now = Date.now();
    this.table.expire(now);
    this.md.sweep();
    for (const l of this.links) {
      if (l.closed) continue;
      const s = l.session;
      if (!s) {
        if (!l.logonPending && now - l.openedMs > this.cfg.logonTimeoutMs) {
          this.out.release(l);
          l.closed = true;
          l.conn.end(CLOSE.LogonRejected, "no logon");
        }
        continue;
      }
      if (now - l.lastRecvMs > s.heartbeatMs * this.cfg.missedHeartbeats) {
        this.out.drop(l, "missed-heartbeats", CLOSE.MissedHeartbeats, "missed heartbeats");
      } else if (now - l.lastSendMs >= s.heartbeatMs) {
        this.out.heartbeat(l, 0, 0);
      }
    }
  }
}

/** Creates and starts a gateway. The caller should log `gateway.uws` (native or fallback). */
export async function startGateway(engine: GatewayEngine, config: GatewayConfig): Promise<Gateway> {
  return new Gateway(engine, config).start();
}
