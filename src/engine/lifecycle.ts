/**
 * The one place that owns the process lifecycle. Start order: keys (and the embedded simulator for
 * venue `sim`), REST stack (clock sync, warm connections, pre-signer), instruments from the venue,
 * risk and limits, journal replay, venue feeds and reconciliation, then the command API. Stop order
 * is the reverse, bounded by `shutdown.timeoutMs`.
 */
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { KeyError, type KeyPair, loadKeyPair } from "../auth/keys.js";
import { generateKeyHex } from "../commands/keygen.js";
import type { Config } from "../config/load.js";
import type { Surface } from "../domain/types.js";
import { Gateway } from "../gateway/gateway.js";
import { type RestoreResult, restoreSessions } from "../gateway/restore.js";
import { listJournals } from "../journal/reader.js";
import { Journal } from "../journal/writer.js";
import { DEFAULT_LIMIT_TABLE, RateLimiter } from "../limits/index.js";
import { lotsOf, type Order, TERMINAL } from "../orders/index.js";
import { createRestStack, type RestStack } from "../rest/stack.js";
import type { RiskConfig } from "../risk/config.js";
import { RiskGate } from "../risk/riskGate.js";
import { HFT_NATS_URL, type HftPrivateStream, type OrderSync } from "../streams/index.js";
import { createLogger, registerSecret } from "../telemetry/logger.js";
import {
  type EmbeddedVenue,
  type EmbeddedVenueOptions,
  startEmbeddedNats,
  startEmbeddedVenue,
} from "./embeddedVenue.js";
import { Engine } from "./engine.js";
import type { FeedContext } from "./feedContext.js";
import { healthReply, metricsReply } from "./health.js";
import { type InstrumentBook, loadInstruments } from "./instruments.js";
import { EngineMetrics } from "./metrics.js";
import { chronological, type ReplaySummary, replayInto } from "./recovery.js";
import { ReferencePrices } from "./referencePrices.js";
import { StreamsFeed } from "./streamsFeed.js";
import { type VenueFeed, VenueSync } from "./sync.js";

/** A start-up problem the user must fix (missing keys, bad configuration); the message says what. */
export class StartupError extends Error {
  override readonly name = "StartupError";
}

export interface StartOptions {
  /** Logger to use (default: one from `config.log`). */
  logger?: Logger;
  /** Extra simulator options for venue `sim` (tests: synthetic market off, faults, delays). */
  sim?: EmbeddedVenueOptions;
  /** Risk overrides beyond the config knobs (tests). */
  risk?: Partial<RiskConfig>;
  /**
   * Push feeds to use instead of the default (src/streams' OrderSync when `streams.enabled`). They
   * start after the journal replay and its resolution, and stop at shutdown.
   */
  feeds?: (ctx: FeedContext) => VenueFeed[];
  /** Install SIGINT/SIGTERM handlers that stop the engine (the `start` command does). */
  handleSignals?: boolean;
}

export type { FeedContext } from "./feedContext.js";

export interface EngineHandle {
  readonly engine: Engine;
  readonly gateway: Gateway;
  readonly rest: RestStack;
  readonly instruments: InstrumentBook;
  readonly sync: VenueSync;
  /** Push feeds (default: the src/streams OrderSync adapter). */
  readonly feeds: readonly VenueFeed[];
  readonly metrics: EngineMetrics;
  readonly risk: RiskGate;
  /** Feeds the risk gate's reference prices (price band, market-order value cap). */
  readonly referencePrices: ReferencePrices;
  readonly journal: Journal | undefined;
  /** The embedded simulator (venue `sim`), else undefined. */
  readonly sim: EmbeddedVenue | undefined;
  /** ws://host:port/v1/ws */
  readonly url: string;
  /** http://host:port (serves /health and /metrics) */
  readonly httpUrl: string;
  readonly token: string;
  readonly adminToken: string;
  /** True when the token was generated at start (print it; it is not in the config). */
  readonly tokenGenerated: boolean;
  readonly venue: "sim" | "exchange";
  /** Spot REST base URL in use (the embedded simulator's URL for venue `sim`). */
  readonly venueUrl: string;
  readonly replay: ReplaySummary | undefined;
  /** Reconciled and the venue answered recently. */
  ready(): boolean;
  /** Graceful stop; idempotent; resolves within `shutdown.timeoutMs`. */
  stop(reason?: string): Promise<void>;
}

function loadKeys(config: Config): KeyPair {
  try {
    return loadKeyPair(config.keys.secretKey ?? undefined, config.keys.apiKey ?? undefined);
  } catch (err) {
    if (err instanceof KeyError) {
      throw new StartupError(
        `venue "exchange" needs valid keys: ${err.message}. Set HFTGATE_SECRET_KEY (and optionally HFTGATE_API_KEY) or keys.secretKey in the config file.`,
      );
    }
    throw err;
  }
}

export async function startEngine(config: Config, opts: StartOptions = {}): Promise<EngineHandle> {
  const log = opts.logger ?? createLogger({ level: config.log.level, pretty: config.log.pretty });
  registerSecret(config.keys.secretKey);
  const cleanups: (() => Promise<void> | void)[] = [];
  const undo = async () => {
    for (const f of cleanups.reverse()) await Promise.resolve(f()).catch(() => {});
  };
  try {
    return await boot(config, opts, log, cleanups);
  } catch (err) {
    await undo();
    throw err;
  }
}

async function boot(
  config: Config,
  opts: StartOptions,
  log: Logger,
  cleanups: (() => Promise<void> | void)[],
): Promise<EngineHandle> {
  if (config.gateway.token !== null && config.gateway.token === config.gateway.adminToken) {
    // Equal tokens would make every user session privileged (kill switch, trading state).
    throw new StartupError("gateway.adminToken must differ from gateway.token");
  }
  // 1. keys and venue
  let keys: KeyPair;
  let sim: EmbeddedVenue | undefined;
  let spotBase = config.venue.spotBaseUrl;
  let hftBase = config.venue.hftBaseUrl;
  let streamBase = config.venue.streamUrl;
  let stopNats: (() => Promise<void>) | undefined;
  let hftNatsUrl = config.streams.hftNats.enabled ? natsUrlFor(config) : undefined;
  if (config.venue.kind === "sim") {
    // A caller (test) may bring its own server through the simulator options.
    const given = opts.sim?.nats?.url;
    const nats =
      config.streams.hftNats.enabled && given === undefined
        ? await startEmbeddedNats(config.sim.nats)
        : undefined;
    if (nats !== undefined) cleanups.push(() => nats.server.stop());
    hftNatsUrl = config.streams.hftNats.enabled ? (given ?? nats?.server.wsUrl) : undefined;
    stopNats = nats !== undefined ? () => nats.server.stop() : undefined;
    const kp = config.keys.secretKey ? undefined : generateKeyHex();
    if (kp) registerSecret(kp.secretKey);
    keys = kp ? loadKeyPair(kp.secretKey) : loadKeys(config);
    sim = await startEmbeddedVenue(config, keys.apiKey, nats?.sim, opts.sim);
    const s = sim;
    cleanups.push(() => s.stop());
    spotBase = hftBase = streamBase = sim.baseUrl;
    log.info({ url: sim.baseUrl, apiKey: keys.apiKey }, "embedded simulator started");
    if (hftNatsUrl !== undefined)
      log.info({ url: hftNatsUrl }, "HFT private streams: simulator publishing through a nats-server");
    else if (config.venue.surfaces.includes("hft"))
      log.info(
        { simNats: config.sim.nats, hftNats: config.streams.hftNats.enabled },
        "HFT private streams off (no nats-server installed, or sim.nats=off): HFT orders are covered by polling",
      );
  } else {
    keys = loadKeys(config);
  }

  // 2. REST stack: clock sync, warm pool, pre-signer
  const rest = createRestStack({
    keys,
    spotBaseUrl: spotBase,
    hftBaseUrl: hftBase,
    http: {
      connections: config.http.connections,
      connectTimeoutMs: config.http.connectTimeoutMs,
      headersTimeoutMs: config.http.headersTimeoutMs,
      bodyTimeoutMs: config.http.bodyTimeoutMs,
    },
    epochPolicy: config.signing.epochPolicy,
    maxAheadMs: config.signing.uniqueMaxAheadMs,
    signerKind: config.signing.signer,
    presign: config.signing.presign
      ? {
          horizonMs: config.signing.presignHorizonMs,
          refillMs: config.signing.presignRefillMs,
          threads: config.signing.presignWorkers,
        }
      : false,
    clock: {
      samples: config.clock.samples,
      resyncMs: config.clock.resyncMs,
      warnMs: config.clock.warnMs,
      refuseMs: config.clock.refuseMs,
      onWarn: (msg: string) => log.warn({}, msg),
    },
    pathOverrides: { "hft.cancelOrder": config.venue.hftCancelPath },
  });
  cleanups.push(() => rest.stop());
  const failedWarm = await rest.client.start();
  if (failedWarm > 0) log.warn({ failed: failedWarm }, "some keep-alive connections could not be pre-warmed");
  try {
    await rest.clock?.start();
  } catch (err) {
    throw new StartupError(`venue not reachable for the clock sync: ${(err as Error).message}`);
  }
  try {
    await rest.presigner?.start();
  } catch (err) {
    // Slower, still correct: every hot-path request signs inline.
    log.warn({ err: (err as Error).message }, "pre-signer did not start; signing inline");
  }

  // 3. instruments
  const surfaces = config.venue.surfaces as Surface[];
  let instruments: InstrumentBook;
  try {
    instruments = await loadInstruments(rest.client, {
      surfaces,
      spotExchanges: config.venue.spotExchanges,
      hftCategory: config.venue.hftCategory,
    });
  } catch (err) {
    throw new StartupError(`could not load instruments from the venue: ${(err as Error).message}`);
  }
  log.info({ count: instruments.size }, "instruments loaded");

  // 4. risk, limits, metrics
  const risk = new RiskGate({
    maxOpenOrdersPerSession: config.risk.maxOpenOrdersPerSession,
    maxOpenOrdersPerInstrument: config.risk.maxOpenOrdersPerInstrument,
    maxOrderNotionalByQuote: { INR: config.risk.maxOrderNotionalInr, USDT: config.risk.maxOrderNotionalUsdt },
    priceBandBps: config.risk.priceBandBps,
    noReference: { market: config.risk.noReferenceMarket, limit: config.risk.noReferenceLimit },
    referenceMaxAgeMs: config.risk.referenceMaxAgeMs,
    duplicateWindowMs: config.risk.duplicateWindowMs,
    ...opts.risk,
  });
  for (const i of instruments.all()) risk.addInstrument(i);
  const metrics = new EngineMetrics();
  let engineRef: Engine | undefined;
  const limiter = config.limits.enabled
    ? new RateLimiter({
        table: DEFAULT_LIMIT_TABLE,
        onCircuit: (cls, state, retryAfterMs) => {
          log.warn({ cls, state, retryAfterMs }, "rate-limit circuit");
          engineRef?.broadcastCredit(cls);
        },
      })
    : undefined;
  if (limiter) cleanups.push(() => limiter.close());

  // 5. journal (opened after listing the earlier files, so replay never reads the new one)
  let journal: Journal | undefined;
  if (config.journal.enabled) {
    journal = Journal.open({
      dir: config.journal.dir,
      fsync:
        config.journal.fsync === "interval"
          ? { intervalMs: config.journal.fsyncIntervalMs }
          : config.journal.fsync,
      onWarning: (msg) => log.warn({}, msg),
      onError: (err) => {
        log.error({ err: err.message }, "journal write failed: halting new orders");
        risk.setState("halted", "journal write failed", "trigger");
      },
    });
    const j = journal;
    cleanups.push(() => j.close());
  }

  // 6. engine and venue sync
  const engine = new Engine({
    client: rest.client,
    instruments,
    risk,
    limiter,
    journal,
    metrics,
    log,
    options: {
      hftCategory: config.venue.hftCategory,
      spotExpirySeconds: config.orders.spotExpirySeconds,
      createWaitMs: config.limits.createWaitMs,
      cancelWaitMs: config.limits.cancelWaitMs,
      hftQueryAfterAck: config.orders.hftQueryAfterAck,
    },
  });
  engineRef = engine;
  const sync = new VenueSync(engine, rest.client, instruments, limiter, journal, metrics, log, {
    hftCategory: config.venue.hftCategory,
    surfaces,
    pollIntervalMs: config.streams.pollIntervalMs,
    resolveIntervalMs: config.orders.unknownQueryIntervalMs,
    maxQueries: config.orders.unknownQueryRetries,
    auditIntervalMs: config.streams.auditIntervalMs,
    // The HFT open list is audited at the HFT rate: polled fast by the streams' poller whenever its
    // private stream is not trusted, so this audit is only the safety net.
    surfaceAuditMs: { hft: config.streams.hftAuditIntervalMs },
  });
  engine.setResolver((o: Order) => sync.resolveSoon(o));
  engine.venueSweep = () => {
    void sync.cancelForeign();
  };
  cleanups.push(() => sync.stop());

  // 7. journal replay, then reconciliation through the same path as a reconnect
  let replay: ReplaySummary | undefined;
  // The embedded simulator starts empty every time: a journal from an earlier run has nothing to
  // reconcile against, so replay applies to a persistent venue only.
  if (journal && config.engine.replayJournal && config.venue.kind === "exchange") {
    const r = replayInto(engine, instruments, config.journal.dir, journal.path, log);
    replay = r.summary;
    for (const id of r.replayedIds) sync.markReplayed(id);
  }
  journal?.note({ text: `start venue=${config.venue.kind} instruments=${instruments.size}` });
  // Replayed orders are resolved by client id first (nothing re-sent), then the push feeds start and
  // run their own reconciliation (open + recent orders through the same store).
  await sync.start();
  await sync.reconcile();
  const ctx: FeedContext = {
    engine,
    rest,
    instruments,
    keys,
    config,
    streamBaseUrl: streamBase,
    hftNatsUrl,
    metrics,
    log,
  };
  const feeds: VenueFeed[] = opts.feeds
    ? opts.feeds(ctx)
    : config.streams.enabled
      ? [new StreamsFeed({ ctx, limiter, journal, risk, venueSync: sync })]
      : [];
  for (const f of feeds) {
    cleanups.push(() => f.stop());
    await f.start();
  }
  engine.setReadyGate(() => feeds.every((f) => f.ready));
  // After replay and reconciliation: the venue's snapshot replaces what their fills added up to.
  if (surfaces.includes("hft"))
    await loadPositions(rest, instruments, risk, engine, config.venue.hftCategory, log);
  for (const f of feeds) {
    if (!(f instanceof StreamsFeed)) continue;
    const st = f.sync.feed.stats;
    metrics.gauge(
      "hftgate_stream_records_invalid",
      "Venue records dropped at the feed boundary (counter)",
      () => st.malformed,
      { reason: "malformed" },
    );
    metrics.gauge(
      "hftgate_stream_records_invalid",
      "Venue records dropped at the feed boundary (counter)",
      () => st.unknownInstrument,
      { reason: "unknown_instrument" },
    );
    metrics.gauge("hftgate_stream_up", "Spot order stream connected", () => (f.sync.orderStream?.up ? 1 : 0));
    const h = f.sync.hftStream;
    if (h !== undefined) registerHftStreamGauges(metrics, f.sync, h);
  }
  if (replay && replay.live > 0) {
    let live = 0;
    for (const o of engine.store.liveSet()) if (!TERMINAL[o.status]) live++;
    log.info({ replayedLive: replay.live, liveAfterReconcile: live }, "restart reconciliation done");
  }

  // Reference prices before the command API opens (the first HFT tickers poll is awaited).
  const referencePrices = new ReferencePrices({
    risk,
    instruments,
    client: rest.client,
    limiter,
    log,
    streamBaseUrl: streamBase,
    spotStream: config.risk.spotReferenceStream && surfaces.includes("spot"),
    hftCategory: config.venue.hftCategory,
    hftPollMs: surfaces.includes("hft") ? config.risk.hftReferencePollMs : 0,
    staleMs: config.streams.staleMs,
  });
  cleanups.push(() => referencePrices.stop());
  await referencePrices.start();

  // 8. metrics that read other parts lazily
  registerGauges(metrics, engine, rest, limiter, sync, journal);
  for (const type of ["limit", "market"] as const) {
    metrics.gauge(
      "hftgate_risk_unreferenced_orders",
      "Orders passed with no fresh reference price under the allow policy (counter)",
      () => (type === "limit" ? risk.stats.unreferencedLimit : risk.stats.unreferencedMarket),
      { type },
    );
  }

  // 9. the command API
  const token = config.gateway.token ?? randomBytes(16).toString("hex");
  let adminToken = config.gateway.adminToken ?? randomBytes(16).toString("hex");
  while (adminToken === token) adminToken = randomBytes(16).toString("hex");
  registerSecret(token);
  registerSecret(adminToken);
  const started = Date.now();
  const isReady = () =>
    sync.ready &&
    feeds.every((f) => f.ready) &&
    Date.now() - sync.lastVenueOkMs < Math.max(10_000, 5 * config.streams.pollIntervalMs);
  // Restart = resume: named sessions of earlier runs continue (seq, resume ring) from the journal.
  let restored: RestoreResult | undefined;
  if (journal && config.engine.replayJournal) {
    const j = journal;
    restored = restoreSessions(chronological(listJournals(config.journal.dir).filter((f) => f !== j.path)), {
      ring: config.gateway.resumeRing,
      retentionMs: config.gateway.sessionRetentionMs,
      maxSessions: config.gateway.maxRetainedSessions,
      nowMs: Date.now(),
    });
    if (restored.sessions.length > 0 || restored.expired > 0)
      log.info(
        { sessions: restored.sessions.length, expired: restored.expired },
        "sessions restored from the journal (resumable)",
      );
  }
  const gateway = new Gateway(engine, {
    token,
    adminToken,
    host: config.gateway.host,
    port: config.gateway.port,
    transport: config.gateway.transport,
    badTokenDelayMs: config.gateway.badTokenDelayMs,
    resumeRing: config.gateway.resumeRing,
    maxBufferedBytes: config.gateway.maxBufferedBytes,
    sessionRetentionMs: config.gateway.sessionRetentionMs,
    maxRetainedSessions: config.gateway.maxRetainedSessions,
    journal,
    restored,
    logger: { info: (o, m) => log.info(o, m), warn: (o, m) => log.warn(o, m) },
    http: {
      health: () =>
        healthReply(isReady(), {
          venue: config.venue.kind,
          uptimeMs: Date.now() - started,
          reconciled: sync.ready,
          lastVenueOkMsAgo: sync.lastVenueOkMs === 0 ? -1 : Date.now() - sync.lastVenueOkMs,
          tradingState: risk.state,
          liveOrders: engine.store.liveSet().size,
          // sessions held (connected + kept for resume), of which connected / retained
          sessions: gatewayRef?.counts().sessions ?? 0,
          sessionsConnected: gatewayRef?.counts().connected ?? 0,
          sessionsRetained: gatewayRef?.counts().retained ?? 0,
          feeds: liveFeeds(feeds),
        }),
      metrics: () => metricsReply(metrics.render()),
    },
  });
  let gatewayRef: Gateway | undefined = gateway;
  engine.attach(gateway);
  try {
    await gateway.start();
  } catch (err) {
    throw new StartupError(
      `command API could not listen on ${config.gateway.host}:${config.gateway.port}: ${(err as Error).message}`,
    );
  }
  cleanups.push(() => gateway.close());
  // Cancel-on-disconnect sessions of the previous process get their heartbeat allowance from now on.
  const codArmed = engine.armRestartCod();
  if (codArmed > 0) log.info({ sessions: codArmed }, "cancel-on-disconnect re-armed after restart");
  metrics.gauge(
    "hftgate_sessions",
    "Strategy sessions known to the gateway",
    () => gatewayRef?.sessions().length ?? 0,
  );
  metrics.gauge(
    "hftgate_sessions_connected",
    "Strategy sessions currently connected",
    () => gatewayRef?.sessions().filter((s) => s.connected).length ?? 0,
  );
  const riskTimer = setInterval(() => risk.tick(), 1000);
  riskTimer.unref();
  log.info({ url: gateway.url, transport: gateway.transportKind }, "command API open");

  let stopping: Promise<void> | undefined;
  const stop = (reason = "stop"): Promise<void> => {
    if (stopping) return stopping;
    stopping = shutdown(reason);
    return stopping;
  };
  const shutdown = async (reason: string): Promise<void> => {
    const deadline = Date.now() + config.shutdown.timeoutMs;
    log.info({ reason }, "shutting down");
    clearInterval(riskTimer);
    engine.stopAccepting();
    journal?.note({ text: `stop: ${reason}` });
    const work = (async () => {
      if (config.shutdown.cancelLiveOrders) {
        const n = engine.cancelEverything();
        // Wait (bounded) for the cancels to be answered; half the budget at most.
        const until = Date.now() + config.shutdown.timeoutMs / 2;
        while (n > 0 && Date.now() < until && engine.store.liveSet().size > 0) {
          await new Promise((r) => setTimeout(r, 20));
          if ([...engine.store.liveSet()].every((o) => o.status !== 4)) break;
        }
        log.info({ asked: n, stillLive: engine.store.liveSet().size }, "live orders cancelled at shutdown");
      }
      let t = Date.now();
      const step = (name: string) => {
        log.debug({ step: name, ms: Date.now() - t }, "shutdown step");
        t = Date.now();
      };
      await gateway.close();
      gatewayRef = undefined;
      engine.detach();
      step("gateway");
      for (const f of feeds) await f.stop().catch(() => {});
      referencePrices.stop();
      await sync.stop();
      step("feeds");
      limiter?.close();
      await journal?.close();
      step("journal");
      await rest.stop();
      step("rest");
      await sim?.stop();
      await stopNats?.();
      step("simulator");
    })();
    const timer = new Promise<void>((r) => {
      const t = setTimeout(r, Math.max(0, deadline - Date.now()));
      t.unref();
    });
    await Promise.race([work.catch((err) => log.error({ err: String(err) }, "shutdown step failed")), timer]);
    engine.detach();
    log.info({ reason, ms: Date.now() - (deadline - config.shutdown.timeoutMs) }, "stopped");
    log.flush?.();
  };

  if (opts.handleSignals) {
    const onSignal = (sig: string) => {
      void stop(sig).then(() => process.exit(0));
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
  }

  const httpHost = config.gateway.host.includes(":") ? `[${config.gateway.host}]` : config.gateway.host;
  return {
    engine,
    gateway,
    rest,
    instruments,
    sync,
    feeds,
    metrics,
    risk,
    referencePrices,
    journal,
    sim,
    url: gateway.url,
    httpUrl: `http://${httpHost}:${gateway.port}`,
    token,
    adminToken,
    tokenGenerated: config.gateway.token === null,
    venue: config.venue.kind,
    venueUrl: spotBase,
    replay,
    ready: isReady,
    stop,
  };
}

/** HFT positions at start, so the risk gate's position limits and reducing state see the account. */
async function loadPositions(
  rest: RestStack,
  book: InstrumentBook,
  risk: RiskGate,
  engine: Engine,
  category: string,
  log: Logger,
): Promise<void> {
  try {
    const res = await rest.client.positions({ category });
    // Also the ledger behind PositionUpdate (sent to each session at logon, then on change).
    engine.onPositions(res.list ?? []);
    const net = new Map<number, number>();
    for (const p of res.list ?? []) {
      const e = book.find("hft", category, p.symbol);
      if (e === undefined || !p.size) continue;
      const lots = lotsOf(p.size, e.grid) * (p.side === "Sell" ? -1 : 1);
      net.set(e.inst.id, (net.get(e.inst.id) ?? 0) + lots);
    }
    for (const [id, lots] of net) risk.setPosition(id, lots);
    if (net.size > 0) log.info({ instruments: net.size }, "HFT positions loaded into the risk gate");
  } catch (err) {
    log.warn({ err: (err as Error).message }, "could not load HFT positions; risk starts flat");
  }
}

function registerGauges(
  m: EngineMetrics,
  engine: Engine,
  rest: RestStack,
  limiter: RateLimiter | undefined,
  sync: VenueSync,
  journal: Journal | undefined,
): void {
  const ps = rest.presigner;
  m.gauge("hftgate_presign_hits", "Pre-signed signatures used (counter)", () => ps?.stats().hits ?? 0);
  m.gauge(
    "hftgate_presign_misses",
    "Hot-path requests signed inline (counter)",
    () => ps?.stats().misses ?? 0,
  );
  if (limiter) {
    for (const cls of [
      "spot.create",
      "spot.cancel",
      "hft.create",
      "hft.cancel",
      "hft.query",
      "spot.listOrders",
    ] as const) {
      m.gauge("hftgate_ratelimit_credit", "Requests the limiter would grant now", () => limiter.credit(cls), {
        class: cls,
      });
    }
  }
  const drops = engine.store.dropCounters();
  for (const reason of Object.keys(drops)) {
    m.gauge(
      "hftgate_events_dropped",
      "Order events dropped by the transition table, by reason (counter)",
      () => engine.store.dropCounters()[reason as keyof typeof drops] ?? 0,
      { reason },
    );
  }
  m.gauge("hftgate_orders_live", "Orders not in a terminal state", () => engine.store.liveSet().size);
  m.gauge(
    "hftgate_orders_unanswered",
    "Orders still waiting for their first answer",
    () => engine.unanswered,
  );
  m.gauge(
    "hftgate_events_unknown_order",
    "Venue events for orders the store never created",
    () => engine.store.stats.unknownOrder,
  );
  m.gauge("hftgate_venue_polls", "Poll rounds over the open-order lists", () => sync.stats.polls);
  m.gauge(
    "hftgate_journal_records",
    "Records appended to the journal this run",
    () => journal?.stats.records ?? 0,
  );
  m.gauge("hftgate_clock_offset_ms", "Venue clock offset applied to epochs", () => rest.clock?.offsetMs ?? 0);
}

/** Which push feeds are live (connected and trusted) for /health. */
function liveFeeds(feeds: readonly VenueFeed[]): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const f of feeds) {
    if (!(f instanceof StreamsFeed)) continue;
    if (f.sync.orderStream !== undefined) out.spotOrders = f.sync.spotTrusted;
    if (f.sync.hftStream !== undefined) out.hftPrivate = f.sync.hftTrusted;
  }
  return out;
}

function registerHftStreamGauges(metrics: EngineMetrics, sync: OrderSync, h: HftPrivateStream): void {
  const t = h.transport.stats;
  metrics.gauge("hftgate_hft_stream_up", "HFT private stream (NATS) connected", () => (h.up ? 1 : 0));
  metrics.gauge(
    "hftgate_hft_stream_trusted",
    "HFT private stream trusted (HFT polling at the audit rate)",
    () => (sync.hftTrusted ? 1 : 0),
  );
  metrics.gauge(
    "hftgate_hft_stream_messages",
    "HFT private stream messages received (counter)",
    () => t.messages,
  );
  metrics.gauge("hftgate_hft_stream_reconnects", "HFT private stream reconnects (counter)", () =>
    Math.max(0, t.connects - 1),
  );
  metrics.gauge(
    "hftgate_hft_stream_lag_ms",
    "Venue timestamp to receipt of the last HFT private message (ms)",
    () => h.stats.lastLagMs,
  );
  metrics.gauge(
    "hftgate_hft_stream_auth_failures",
    "HFT private stream connects refused by the server (counter)",
    () => t.authFailures,
  );
  metrics.gauge(
    "hftgate_hft_stream_credential_refreshes",
    "Socket credential fetches (counter)",
    () => h.credentialStats.fetches,
  );
}

/** The HFT NATS URL for a real venue: the configured one, else the documented one for the documented host. */
function natsUrlFor(config: Config): string | undefined {
  const u = config.streams.hftNats.url;
  if (u !== "") return u;
  return config.venue.hftBaseUrl.replace(/\/+$/, "") === "https://dma.coinswitch.co"
    ? HFT_NATS_URL
    : undefined;
}
