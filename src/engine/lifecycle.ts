/**
 * The one place that owns the process lifecycle. Start order: keys (and the embedded simulator for
 * venue `sim`), REST stack (clock sync, warm connections, pre-signer), instruments from the venue,
 * risk and limits, journal replay, venue feeds and reconciliation, then the command API. Stop order
 * is the reverse, bounded by `shutdown.timeoutMs`.
 */
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { Bus, busOptions } from "../bus/bus.js";
import type { Config } from "../config/load.js";
import type { Surface } from "../domain/types.js";
import { Gateway } from "../gateway/gateway.js";
import { type RestoreResult, restoreSessions } from "../gateway/restore.js";
import { listJournals } from "../journal/reader.js";
import { Journal } from "../journal/writer.js";
import { DEFAULT_LIMIT_TABLE, RateLimiter } from "../limits/index.js";
import { TERMINAL } from "../orders/index.js";
import { riskFromKnobs } from "../risk/config.js";
import { RiskGate } from "../risk/riskGate.js";
import { createLogger, registerSecret } from "../telemetry/logger.js";
import { buildSurfaces } from "../venue/surfaces.js";
import { type VenueFeed, VenueSync } from "../venue/sync.js";
import { AdminView } from "./adminView.js";
import { Engine } from "./engine.js";
import type { FeedContext } from "./feedContext.js";
import {
  liveFeeds,
  registerFeedGauges,
  registerGauges,
  registerRiskGauges,
  registerSessionGauges,
} from "./gauges.js";
import { flowStopped, healthReply, metricsReply, takesOrders } from "./health.js";
import { InProcessTransport, inProcessClient } from "./inProcess.js";
import { type InstrumentBook, listableCategories, loadInstruments } from "./instruments.js";
import { checkJournal, holdJournal } from "./journalGate.js";
import { JournalHalt } from "./journalHalt.js";
import { startMarketData } from "./marketData.js";
import { EngineMetrics } from "./metrics.js";
import { Readiness } from "./readiness.js";
import { chronological, type ReplaySummary, replayInto } from "./recovery.js";
import { noteForcedStop, shutdownInOrder } from "./shutdown.js";
import { loadPositions } from "./startPositions.js";
import { StartupError } from "./startupError.js";
import { createRest, startVenue } from "./startVenue.js";
import { onStopSignals } from "./stopSignals.js";
import { StreamsFeed } from "./streamsFeed.js";
import { ToldLedger, tellWhatWasDue } from "./toldVsKnown.js";
import { venueRead } from "./venueReads.js";

export { StartupError } from "./startupError.js";

import type { EngineHandle, StartOptions } from "./engineHandle.js";

export type { EngineHandle, FeedContext, StartOptions } from "./engineHandle.js";

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
  configured: Config,
  opts: StartOptions,
  log: Logger,
  cleanups: (() => Promise<void> | void)[],
): Promise<EngineHandle> {
  if (configured.gateway.token !== null && configured.gateway.token === configured.gateway.adminToken) {
    // Equal tokens would make every user session privileged (kill switch, trading state).
    throw new StartupError("gateway.adminToken must differ from gateway.token");
  }
  // 0. the journal directory: `{venue}` expanded, locked for the process lifetime (one gateway per journal)
  const hold = holdJournal(configured, log);
  const journalLock = hold.lock;
  if (journalLock) cleanups.push(() => journalLock.release());
  const config = hold.config;
  // 1. keys and venue (the embedded simulator and its nats-server for venue `sim`)
  const v = await startVenue(config, opts.sim, log, cleanups);
  const { keys, sim, streamBase, hftNatsUrl, stopNats } = v;
  const spotBase = v.spotBase;
  // This venue's and account's journal, undamaged (or damage moved aside on request), torn tail cut.
  const { check: journalCheck, identity } = checkJournal(hold, configured.journal.dir, keys.apiKey, log);

  // 2. REST stack: clock sync, warm pool, pre-signer
  const rest = createRest(config, keys, v.spotBase, v.hftBase, log);
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
    // The worker reports its nice value before its first refill ends (null: priority not lowered).
    if (rest.presigner) log.info({ nice: rest.presigner.niced }, "pre-signer started");
  } catch (err) {
    // Slower, still correct: every hot-path request signs inline.
    log.warn({ err: (err as Error).message }, "pre-signer did not start; signing inline");
  }

  // 3. instruments (HFT: every configured category; the first one is the primary for positions and references)
  const hftCategories = config.venue.hftCategories;
  const hftCategory = hftCategories[0] ?? "linear";
  const surfaces = config.venue.surfaces as Surface[];
  let instruments: InstrumentBook;
  try {
    instruments = await loadInstruments(rest.client, {
      surfaces,
      spotExchanges: config.venue.spotExchanges,
      hftCategories,
      onRefused: (category, err) =>
        log.warn({ category, err: err.message }, "HFT category not enabled for this API key: not loaded"),
    });
  } catch (err) {
    throw new StartupError(`could not load instruments from the venue: ${(err as Error).message}`);
  }
  log.info({ count: instruments.size }, "instruments loaded");
  // Categories whose orders can be listed (polled, reconciled); a refused one is still sent orders.
  let listedCategories = hftCategories;
  if (surfaces.includes("hft") && hftCategories.length > 1) {
    try {
      listedCategories = await listableCategories(rest.client, hftCategories, (category, err) =>
        log.warn(
          { category, err: err.message },
          "HFT category refused for this API key: its orders are sent and will be refused by the venue",
        ),
      );
    } catch (err) {
      throw new StartupError(`could not read the HFT order lists: ${(err as Error).message}`);
    }
  }
  // The configuration as the venue allows it: the parts built from it list the listable categories only.
  const tradeConfig: Config =
    listedCategories === hftCategories
      ? config
      : { ...config, venue: { ...config.venue, hftCategories: listedCategories } };

  // 4. risk, limits, metrics
  const risk = new RiskGate({ ...riskFromKnobs(config.risk), ...opts.risk });
  const readiness = new Readiness(tradeConfig, risk, log);
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
  const journalHalt = new JournalHalt(risk, log);
  if (config.journal.enabled) {
    journal = Journal.open({
      dir: config.journal.dir,
      identity,
      fsync:
        config.journal.fsync === "interval"
          ? { intervalMs: config.journal.fsyncIntervalMs }
          : config.journal.fsync,
      onWarning: (msg) => log.warn({}, msg),
      onError: journalHalt.onError,
      onRecover: journalHalt.onRecover,
      retryIntervalMs: config.journal.retryIntervalMs,
    });
    const j = journal;
    cleanups.push(() => j.close());
  }

  // 6. engine and venue sync, over one set of venue surfaces
  const venueSurfaces = buildSurfaces(rest.client, instruments, tradeConfig);
  const engine = new Engine({
    client: rest.client,
    instruments,
    risk,
    limiter,
    journal,
    metrics,
    log,
    options: tradeConfig,
    clock: rest.clock,
    surfaces: venueSurfaces,
    // The venue sync and the feeds are built around the engine (below); these run only once they are.
    links: {
      resolveSoon: (o) => sync.resolveSoon(o),
      gate: readiness,
      venueSweep: () => void sync.cancelForeign(),
    },
  });
  engineRef = engine;
  const sync = new VenueSync(
    engine,
    rest.client,
    venueSurfaces,
    instruments,
    limiter,
    journal,
    metrics,
    log,
    tradeConfig,
  );
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
  // Order numbers the moved-aside journal used are never accepted again (LogonAck.lastClOrdNo does not go back).
  for (const [name, no] of Object.entries(journalCheck?.recovery?.orderNumbers ?? {}))
    engine.noteOrderNo(engine.ownerOf(name), no);
  journal?.note({ text: `start venue=${config.venue.kind} instruments=${instruments.size}` });
  const recovery = journalCheck?.recovery;
  if (recovery)
    journal?.note({
      text: `recovered from venue: ${recovery.moved.length} damaged journal file(s) moved to ${recovery.movedTo}`,
    });
  // Replayed orders are resolved by client id first (nothing re-sent), then the push feeds start and
  // run their own reconciliation (open + recent orders through the same store).
  await sync.start();
  await sync.reconcile();
  const ctx: FeedContext = {
    engine,
    rest,
    instruments,
    keys,
    config: tradeConfig,
    streamBaseUrl: streamBase,
    hftNatsUrl,
    metrics,
    log,
  };
  const feeds: VenueFeed[] = opts.feeds
    ? opts.feeds(ctx)
    : config.streams.enabled
      ? [new StreamsFeed({ ctx, limiter, journal, venueSync: sync })]
      : [];
  for (const f of feeds) {
    cleanups.push(() => f.stop());
    await f.start();
  }
  // After replay and reconciliation: the venue's snapshot replaces what their fills added up to.
  if (surfaces.includes("hft")) await loadPositions(rest, instruments, risk, engine, hftCategory, log);
  registerFeedGauges(metrics, feeds);
  readiness.attach({ sync, feeds, store: engine.store, metrics });
  cleanups.push(() => readiness.stop());
  if (replay && replay.live > 0) {
    let live = 0;
    for (const o of engine.store.liveSet()) if (!TERMINAL[o.status]) live++;
    log.info({ replayedLive: replay.live, liveAfterReconcile: live }, "restart reconciliation done");
  }

  // Market data and reference prices before the command API opens (the first HFT tickers poll is awaited).
  const md = await startMarketData(
    config,
    { instruments, risk, rest, limiter, log, streamBase, hftNatsUrl },
    cleanups,
  );
  const referencePrices = md.referencePrices;

  // 8. metrics that read other parts lazily
  registerGauges(metrics, engine, rest, limiter, sync, journal);
  registerRiskGauges(metrics, risk);

  // 9. the command API
  const token = config.gateway.token ?? randomBytes(16).toString("hex");
  let adminToken = config.gateway.adminToken ?? randomBytes(16).toString("hex");
  while (adminToken === token) adminToken = randomBytes(16).toString("hex");
  registerSecret(token);
  registerSecret(adminToken);
  const started = Date.now();
  const isReady = () => takesOrders(readiness.status());
  // Restart = resume: named sessions of earlier runs continue (seq, resume ring) from the journal.
  let restored: RestoreResult | undefined;
  const ledger = new ToldLedger();
  if (journal && config.engine.replayJournal) {
    const j = journal;
    const files = chronological(listJournals(config.journal.dir).filter((f) => f !== j.path));
    const opts = {
      ring: config.gateway.resumeRing,
      retentionMs: config.gateway.sessionRetentionMs,
      maxSessions: config.gateway.maxRetainedSessions,
      nowMs: Date.now(),
    };
    restored = restoreSessions(files, opts, (r) => ledger.add(r));
    if (restored.sessions.length > 0 || restored.expired > 0)
      log.info(
        { sessions: restored.sessions.length, expired: restored.expired },
        "sessions restored from the journal (resumable)",
      );
  }
  const healthDetail = () => ({
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
    // "checking" or "refuse": nothing signed leaves (orders get the retryable ClockSkew).
    clock: rest.clock === undefined ? undefined : { state: rest.clock.state, offsetMs: rest.clock.offsetMs },
    surfaces: readiness.report(),
  });
  const admin = new AdminView({
    engine,
    gateway: () => gatewayRef,
    instruments,
    metrics,
    limiter,
    adminToken,
  });
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
    marketData: config.marketData.enabled ? md.feeds.hub : undefined,
    marketDataMaxSubscriptions: config.marketData.maxSubscriptionsPerSession,
    marketDataMaxBufferedBytes: config.marketData.maxBufferedBytes,
    logger: { info: (o, m) => log.info(o, m), warn: (o, m) => log.warn(o, m) },
    http: {
      health: () => healthReply(readiness.status(), healthDetail(), flowStopped(journalHalt, engine)),
      metrics: () => metricsReply(metrics.render()),
      // Run-time account reads (trading fee, trade info, TDS, portfolio) signed with the gateway's keys.
      venue: (name, query) => venueRead(rest.client, limiter, name, query),
      admin: (auth) => admin.reply(auth, { ready: isReady(), ...healthDetail() }),
    },
  });
  let gatewayRef: Gateway | undefined = gateway;
  // The optional bus (bus.nats.servers): its drop-copy tap sees every frame from here on.
  const busOpts = busOptions(config, log);
  const bus = busOpts === undefined ? undefined : new Bus(busOpts);
  if (bus !== undefined) cleanups.push(() => bus.close(0));
  // The operator's view (GET /admin/state) keeps the last fills and rejects from the same tap.
  gateway.tap = admin.tap(bus?.tap);
  if (restored && restored.sessions.length > 0) {
    // What a restored session was due before the crash and never told (told vs known), then attach.
    const names = restored.sessions.map((s) => s.name);
    const due = tellWhatWasDue(
      { store: engine.store, owners: engine.owners, book: instruments },
      ledger,
      names,
    );
    if (due.acks + due.rejects + due.fills + due.updates > 0)
      log.info(due, "restart: messages due before the crash sent to restored sessions");
  }
  engine.attach(gateway);
  try {
    await gateway.start();
  } catch (err) {
    throw new StartupError(
      `command API could not listen on ${config.gateway.host}:${config.gateway.port}: ${(err as Error).message}`,
    );
  }
  cleanups.push(() => gateway.close());
  journalLock?.update({ port: gateway.port });
  const local = new InProcessTransport(); // strategies in this process: handle.client()
  await gateway.addTransport(local.start);
  bus?.start(gateway, engine);
  // Cancel-on-disconnect sessions of the previous process get their heartbeat allowance from now on.
  const codArmed = engine.armRestartCod();
  if (codArmed > 0) log.info({ sessions: codArmed }, "cancel-on-disconnect re-armed after restart");
  registerSessionGauges(metrics, () => gatewayRef);
  const riskTimer = setInterval(() => risk.tick(), 1000);
  riskTimer.unref();
  log.info({ url: gateway.url, transport: gateway.transportKind }, "command API open");

  let stopping: Promise<void> | undefined;
  const stop = (reason = "stop"): Promise<void> => {
    if (stopping) return stopping;
    readiness.stop();
    // The journal directory is free for the next process once this one has closed its file.
    stopping = shutdown(reason).finally(() => journalLock?.release());
    return stopping;
  };
  const shutdown = (reason: string): Promise<void> =>
    shutdownInOrder(reason, config.shutdown, log, {
      riskTimer,
      engine,
      journal,
      connections: gateway,
      gateway: async () => {
        await gateway.close();
        gatewayRef = undefined;
        await bus?.close();
      },
      feeds,
      referencePrices,
      marketData: md.feeds,
      sync,
      limiter,
      rest,
      sim,
      stopNats,
    });

  const forceStop = (why: string) => noteForcedStop(why, journal, log);
  if (opts.handleSignals) onStopSignals({ stop, forceStop }, (code) => process.exit(code));

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
    marketData: md.feeds,
    journal,
    sim,
    bus,
    url: gateway.url,
    httpUrl: `http://${httpHost}:${gateway.port}`,
    token,
    adminToken,
    tokenGenerated: config.gateway.token === null,
    venue: config.venue.kind,
    venueUrl: spotBase,
    replay,
    journalCheck,
    ready: isReady,
    client: (o) => inProcessClient(local, token, o),
    stop,
    forceStop,
  };
}
