/**
 * The command API at start: the tokens, `/health` (per-surface readiness, readiness.ts), the operator's view
 * (`/admin/state`), the Gateway built around the sessions the restart restored, the optional NATS bus
 * (whose drop-copy tap sees every frame) and the in-process transport (`handle.client()`). Built
 * before it listens, so a restart can sequence what restored sessions were due first (restart.ts).
 */
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import type { Logger } from "pino";
import { Bus, busOptions } from "../bus/bus.js";
import type { GatewayClient } from "../client/client.js";
import type { Config } from "../config/load.js";
import { type FixAcceptorOptions, fixAcceptor } from "../fix/acceptor.js";
import { type FrameTap, Gateway } from "../gateway/gateway.js";
import type { RestoreResult } from "../gateway/restore.js";
import type { Journal } from "../journal/writer.js";
import type { RateLimiter } from "../limits/index.js";
import type { MarketDataFeeds } from "../marketdata/index.js";
import type { RiskGate } from "../risk/riskGate.js";
import { registerSecret } from "../telemetry/logger.js";
import type { RestStack } from "../venue/stack.js";
import type { VenueFeed, VenueSync } from "../venue/sync.js";
import { AdminView } from "./adminView.js";
import type { Engine } from "./engine.js";
import { hftStreamHealth, liveFeeds, registerBusGauges } from "./gauges.js";
import { flowStopped, type HealthStatus, healthReply, metricsReply, takesOrders } from "./health.js";
import { type InProcessClientOptions, InProcessTransport, inProcessClient } from "./inProcess.js";
import type { InstrumentBook } from "./instruments.js";
import type { EngineMetrics } from "./metrics.js";
import type { Readiness } from "./readiness.js";
import { StartupError } from "./startupError.js";
import { venueRead } from "./venueReads.js";

export interface CommandApiParts {
  config: Config;
  engine: Engine;
  sync: VenueSync;
  feeds: readonly VenueFeed[];
  instruments: InstrumentBook;
  metrics: EngineMetrics;
  limiter: RateLimiter | undefined;
  rest: RestStack;
  risk: RiskGate;
  journal: Journal | undefined;
  marketData: MarketDataFeeds;
  /** Per-surface readiness: whether orders are taken, and why not (/health). */
  readiness: Pick<Readiness, "status" | "report">;
  /** A journal that cannot write: /health says so (503, halted). */
  journalHalt: { readonly problem: string | undefined };
  log: Logger;
}

export interface CommandApi {
  readonly gateway: Gateway;
  readonly token: string;
  readonly adminToken: string;
  readonly bus: Bus | undefined;
  /** Orders are taken (/health 200: every surface ready, or some degraded). */
  ready(): boolean;
  /** The gateway for the lazily read gauges; undefined once closed. */
  current(): Gateway | undefined;
  /** Listens on `gateway.host:port`, adds the in-process transport, starts the bus. */
  listen(): Promise<void>;
  /** A strategy client in this process (the user token unless given). */
  client(o: InProcessClientOptions): GatewayClient;
  /** Closes the gateway (and forgets it for /health), then the bus. */
  close(): Promise<void>;
}

export function buildCommandApi(
  p: CommandApiParts,
  restored: RestoreResult | undefined,
  cleanups: (() => Promise<void> | void)[],
): CommandApi {
  const { config, engine, sync, feeds, log } = p;
  const token = config.gateway.token ?? randomBytes(16).toString("hex");
  let adminToken = config.gateway.adminToken ?? randomBytes(16).toString("hex");
  while (adminToken === token) adminToken = randomBytes(16).toString("hex");
  registerSecret(token);
  registerSecret(adminToken);
  const started = Date.now();
  const ready = () => takesOrders(p.readiness.status());
  let current: Gateway | undefined;
  let bus: Bus | undefined;
  // A bus or drop copy that cannot work does not stop trading, but /health says so (degraded).
  const healthStatus = (): HealthStatus => {
    const s = p.readiness.status();
    return s === "ok" && bus?.health().error !== undefined ? "degraded" : s;
  };
  const healthDetail = () => ({
    venue: config.venue.kind,
    uptimeMs: Date.now() - started,
    reconciled: sync.ready,
    lastVenueOkMsAgo: sync.lastVenueOkMs === 0 ? -1 : Date.now() - sync.lastVenueOkMs,
    tradingState: p.risk.state,
    liveOrders: engine.store.liveSet().size,
    // sessions held (connected + kept for resume), of which connected / retained
    sessions: current?.counts().sessions ?? 0,
    sessionsConnected: current?.counts().connected ?? 0,
    sessionsRetained: current?.counts().retained ?? 0,
    feeds: liveFeeds(feeds),
    hftStream: hftStreamHealth(feeds),
    // "checking" or "refuse": nothing signed leaves (orders get the retryable ClockSkew).
    clock:
      p.rest.clock === undefined ? undefined : { state: p.rest.clock.state, offsetMs: p.rest.clock.offsetMs },
    surfaces: p.readiness.report(),
    bus: bus?.health(),
  });
  const admin = new AdminView({
    engine,
    gateway: () => current,
    instruments: p.instruments,
    metrics: p.metrics,
    limiter: p.limiter,
    adminToken,
  });
  const g = config.gateway;
  const md = config.marketData;
  const gateway = new Gateway(engine, {
    // The command API's config section as it is; the tokens resolved above (the environment's).
    ...g,
    token,
    adminToken,
    journal: p.journal,
    restored,
    marketData: md.enabled ? p.marketData.hub : undefined,
    marketDataLimits: md,
    logger: { info: (o, m) => log.info(o, m), warn: (o, m) => log.warn(o, m) },
    http: {
      health: () => healthReply(healthStatus(), healthDetail(), flowStopped(p.journalHalt, engine)),
      metrics: () => metricsReply(p.metrics.render()),
      // Run-time account reads (trading fee, trade info, TDS, portfolio) signed with the gateway's keys.
      venue: (name, query) => venueRead(p.rest.client, p.limiter, name, query),
      admin: (auth) => admin.reply(auth, { ready: ready(), ...healthDetail() }),
    },
  });
  current = gateway;
  const busOpts = busOptions(config, log);
  bus = busOpts === undefined ? undefined : new Bus(busOpts);
  if (bus !== undefined) {
    const b = bus;
    cleanups.push(() => b.close(0));
    registerBusGauges(p.metrics, b);
  }
  // The operator's view keeps the last fills and rejects from the same tap as the bus's drop copy.
  // The FIX drop copy sees the same frames (its tap is known once the acceptor runs).
  let fixTap: FrameTap | undefined;
  const busTap = bus?.tap;
  gateway.tap = admin.tap(
    config.fix.port < 0
      ? busTap
      : (s, n, f) => {
          busTap?.(s, n, f);
          fixTap?.(s, n, f);
        },
  );
  const local = new InProcessTransport();
  return {
    gateway,
    token,
    adminToken,
    bus,
    ready,
    current: () => current,
    async listen() {
      try {
        await gateway.start();
      } catch (err) {
        throw new StartupError(
          `command API could not listen on ${g.host}:${g.port}: ${(err as Error).message}`,
        );
      }
      cleanups.push(() => gateway.close());
      await gateway.addTransport(local.start);
      if (config.fix.port >= 0) {
        const fix = fixAcceptor(fixOptions(config, token, p));
        await gateway.addTransport(async (h) => {
          const t = await fix(h);
          fixTap = t.tap;
          return t;
        });
      }
      bus?.start(gateway, engine);
      log.info({ url: gateway.url, transport: gateway.transportKind }, "command API open");
    },
    client: (o) => inProcessClient(local, token, o),
    async close() {
      await gateway.close();
      current = undefined;
      await bus?.close();
    },
  };
}

/** The FIX acceptor's settings (its store beside the journal unless fix.storeDir names one). */
function fixOptions(config: Config, token: string, p: CommandApiParts): FixAcceptorOptions {
  const f = config.fix;
  const storeDir =
    f.storeDir !== "" ? f.storeDir : p.journal ? join(dirname(p.journal.path), "fix") : join("var", "fix");
  return {
    host: f.host,
    port: f.port,
    compId: f.compId,
    sessions: f.sessions,
    dropCopy: f.dropCopy,
    requirePassword: f.requirePassword,
    gatewayToken: token,
    maxSkewMs: f.maxSkewMs,
    badLogonDelayMs: config.gateway.badTokenDelayMs,
    maxBufferedBytes: config.gateway.maxBufferedBytes,
    storeDir,
    keep: f.resendKeep,
    tlsCert: f.tls.cert,
    tlsKey: f.tls.key,
    instruments: () => p.engine.instruments(),
    orderOf: (sid, no) => {
      const o = p.engine.store.bySessionOrder(sid, no);
      return o === undefined ? undefined : { side: o.side === "buy" ? 1 : 2, instrumentId: o.instrumentId };
    },
    log: { info: (o, m) => p.log.info(o, m), warn: (o, m) => p.log.warn(o, m) },
  };
}
