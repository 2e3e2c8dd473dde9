/**
 * The one place that owns the process lifecycle. Start order: V8's inlining budget (inlining.ts),
 * keys (and the embedded simulator for venue `sim`), REST stack (clock sync, warm connections,
 * pre-signer), instruments from the venue, risk and limits, the journal, the engine and the venue
 * sync over one set of venue surfaces, public market data, then the restart (restart.ts: journal,
 * reconciliation, orphans, feeds, positions, sessions, the command API). Stop order is the reverse,
 * bounded by `shutdown.timeoutMs`.
 */
import type { Logger } from "pino";
import type { Config } from "../config/load.js";
import { DEFAULT_LIMIT_TABLE, RateLimiter } from "../limits/index.js";
import type { Order } from "../orders/index.js";
import { monoNs } from "../protocol/clock.js";
import { riskFromKnobs } from "../risk/config.js";
import { RiskGate } from "../risk/riskGate.js";
import { createLogger, registerSecret } from "../telemetry/logger.js";
import { buildSurfaces } from "../venue/surfaces.js";
import { type VenueFeed, VenueSync } from "../venue/sync.js";
import { Checkpointer, checkpointOptions } from "./checkpointer.js";
import { buildCommandApi } from "./commandApi.js";
import { Engine } from "./engine.js";
import type { EngineHandle, StartOptions } from "./engineHandle.js";
import type { FeedContext } from "./feedContext.js";
import { registerFeedGauges, registerGauges, registerRiskGauges, registerSessionGauges } from "./gauges.js";
import { applyInlining } from "./inlining.js";
import { checkJournal, holdJournal } from "./journalGate.js";
import { JournalHalt } from "./journalHalt.js";
import { startMarketData } from "./marketData.js";
import { EngineMetrics } from "./metrics.js";
import { Readiness } from "./readiness.js";
import { restart } from "./restart.js";
import { noteForcedStop, shutdownInOrder } from "./shutdown.js";
import { loadTradeBook } from "./startInstruments.js";
import { openJournal } from "./startJournal.js";
import { StartupError } from "./startupError.js";
import { startRest, startVenue } from "./startVenue.js";
import { onStopSignals } from "./stopSignals.js";
import { StreamsFeed } from "./streamsFeed.js";

export type { EngineHandle, FeedContext, StartOptions } from "./engineHandle.js";
export { StartupError } from "./startupError.js";

/**
 * Finished orders forgotten per one-second sweep at most: ~1.2 µs each (the retention bench), so a
 * backlog (e.g. after a restart) drains a thousand a second without holding the event loop long. A
 * thousand a second is far above what the venue's rate limits let one account finish, so in steady
 * operation the bound is never what holds it back.
 */
const FORGET_PER_SWEEP = 1_000;

export async function startEngine(config: Config, opts: StartOptions = {}): Promise<EngineHandle> {
  const log = opts.logger ?? createLogger({ level: config.log.level, pretty: config.log.pretty });
  registerSecret(config.keys.secretKey);
  // Before any order-path code runs hot: the optimizer reads the budget when it compiles.
  const inlining = applyInlining(config.engine.inlining);
  if (inlining.length > 0)
    log.info({ inlining: config.engine.inlining, flags: inlining }, "V8 inlining budget");
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
  // 1. keys and venue (the embedded simulator and its nats-server for venue `sim`), the REST stack
  const v = await startVenue(config, opts.sim, log, cleanups);
  const { keys, sim, streamBase, hftNatsUrl } = v;
  // This venue's and account's journal, undamaged (or damage moved aside on request), torn tail cut.
  const { check: journalCheck, identity } = checkJournal(hold, configured.journal.dir, keys.apiKey, log);
  const rest = await startRest(config, v, log, cleanups);
  // 2. instruments, and the configuration as the venue allows it (listable HFT categories)
  const { instruments, tradeConfig } = await loadTradeBook(rest.client, config, log);
  // 3. risk, limits, metrics, this run's journal file
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
  const journalHalt = new JournalHalt(risk, log);
  const journal = openJournal(config, journalHalt, identity, log, cleanups);
  // 4. engine and venue sync over one set of venue surfaces; the feeds are built by the restart
  const surfaces = buildSurfaces(rest.client, instruments, tradeConfig);
  let feeds: VenueFeed[] = [];
  const core = { client: rest.client, instruments, risk, limiter, journal, metrics, log };
  const engine = new Engine({
    ...core,
    options: tradeConfig,
    surfaces,
    clock: rest.clock,
    // The venue sync and the feeds are built around the engine; these run only once they are.
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
    surfaces,
    instruments,
    limiter,
    journal,
    metrics,
    log,
    tradeConfig,
  );
  cleanups.push(() => sync.stop());
  registerGauges(metrics, engine, rest, limiter, sync, journal);
  registerRiskGauges(metrics, risk);
  // 5. market data and reference prices before the command API opens (the first HFT poll is awaited)
  const mdParts = { instruments, risk, rest, limiter, log, streamBase, hftNatsUrl };
  const md = await startMarketData(config, mdParts, cleanups);
  // 6. the restart: journal, reconciliation, orphans, feeds, positions, sessions, the command API
  const ctx: FeedContext = {
    ...{ engine, rest, instruments, keys, config: tradeConfig, metrics, log },
    ...{ streamBaseUrl: streamBase, hftNatsUrl },
  };
  const apiParts = { ...core, config, engine, sync, readiness, rest, marketData: md.feeds, journalHalt };
  const { api, summary } = await restart(
    { ...core, config: tradeConfig, engine, sync, surfaces, rest, journalCheck, cleanups },
    {
      async startFeeds() {
        feeds = opts.feeds
          ? opts.feeds(ctx)
          : config.streams.enabled
            ? [new StreamsFeed({ ctx, limiter, journal, venueSync: sync })]
            : [];
        for (const f of feeds) {
          cleanups.push(() => f.stop());
          await f.start();
        }
        registerFeedGauges(metrics, feeds);
        readiness.attach({ sync, feeds, store: engine.store, metrics });
        cleanups.push(() => readiness.stop());
      },
      commandApi: (restored) => buildCommandApi({ ...apiParts, feeds }, restored, cleanups),
      listen: async (a) => {
        await a.listen();
        journalLock?.update({ port: a.gateway.port });
      },
    },
  );
  registerSessionGauges(metrics, api.current);
  // 7. the journal's checkpoint, periodic and at a clean stop, and the retention after each
  const checkpointer =
    journal &&
    new Checkpointer(checkpointOptions(config, identity), {
      ...{ engine, risk, book: instruments, journal, log, start: journalCheck?.checkpoint },
    });
  checkpointer?.start();
  if (checkpointer) cleanups.push(() => checkpointer.stop());
  // Once a second: the risk gate's clock, and finished orders forgotten past their keep (memory bound).
  // Never one whose owner is still owed a message about it: a checkpoint keeps the records of such an
  // order only while the store knows it, and a restart rebuilds what is owed from those records.
  const keep = config.orders;
  const owed = (o: Order) => engine.owners.owes(o.sessionId, o.clientOrderNo);
  const riskTimer = setInterval(() => {
    risk.tick();
    const before = monoNs() - keep.keepFinishedMs * 1e6;
    engine.store.forgetFinished(before, keep.keepFinishedMax, FORGET_PER_SWEEP, owed);
  }, 1000);
  riskTimer.unref();

  let stopping: Promise<void> | undefined;
  const stop = (reason = "stop"): Promise<void> => {
    if (stopping) return stopping;
    readiness.stop();
    stopping = shutdownInOrder(reason, config.shutdown, log, {
      ...{ riskTimer, engine, journal, connections: api.gateway, gateway: () => api.close(), feeds, sync },
      ...{ limiter, rest, sim },
      ...{ referencePrices: md.referencePrices, marketData: md.feeds, stopNats: v.stopNats },
      checkpoint: checkpointer && (() => checkpointer.atStop()),
      // The journal directory is free for the next process once this one has closed its file.
    }).finally(() => journalLock?.release());
    return stopping;
  };
  const forceStop = (why: string) => noteForcedStop(why, journal, log);
  if (opts.handleSignals) onStopSignals({ stop, forceStop }, (code) => process.exit(code));

  const gateway = api.gateway;
  const httpHost = config.gateway.host.includes(":") ? `[${config.gateway.host}]` : config.gateway.host;
  return {
    ...{ engine, gateway, rest, instruments, sync, feeds, metrics, risk, journal, sim, bus: api.bus },
    ...{ referencePrices: md.referencePrices, marketData: md.feeds },
    url: gateway.url,
    httpUrl: `http://${httpHost}:${gateway.port}`,
    token: api.token,
    adminToken: api.adminToken,
    tokenGenerated: config.gateway.token === null,
    venue: config.venue.kind,
    venueUrl: v.spotBase,
    replay: summary.replay,
    journalCheck,
    restart: summary,
    ready: api.ready,
    client: api.client,
    stop,
    forceStop,
  };
}
