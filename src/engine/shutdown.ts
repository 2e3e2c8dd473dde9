/**
 * The stop order, bounded by `shutdown.timeoutMs`: stop taking orders, drain (drain.ts: every
 * in-flight request answered or resolved, cancel-on-disconnect applied and answered), make what the
 * sessions are owed durable and close every connection with 1001, then the command API, feeds, sync,
 * journal, REST and the embedded simulator. Everything the drain needs runs until it is done.
 */
import type { Logger } from "pino";
import type { Config } from "../config/load.js";
import type { Journal } from "../journal/writer.js";
import type { RateLimiter } from "../limits/index.js";
import type { MarketDataFeeds } from "../marketdata/index.js";
import type { RestStack } from "../venue/stack.js";
import type { VenueFeed, VenueSync } from "../venue/sync.js";
import { drain } from "./drain.js";
import type { EmbeddedVenue } from "./embeddedVenue.js";
import type { Engine } from "./engine.js";
import type { ReferencePrices } from "./referencePrices.js";

/** What a shutdown closes, in the order it closes them. */
export interface StopParts {
  riskTimer: NodeJS.Timeout;
  engine: Engine;
  journal: Journal | undefined;
  /** The command API's connections: each is closed with 1001 once the drain is done. */
  connections: { goAway(waitMs: number): Promise<number> };
  /** Closes the command API (and forgets it for /health). */
  gateway: () => Promise<void>;
  feeds: readonly VenueFeed[];
  referencePrices: ReferencePrices;
  marketData: MarketDataFeeds;
  sync: VenueSync;
  limiter: RateLimiter | undefined;
  rest: RestStack;
  sim: EmbeddedVenue | undefined;
  stopNats: (() => Promise<void>) | undefined;
  /** The journal's checkpoint at a clean stop (checkpointer.ts), taken once the drain is journaled. */
  checkpoint?: () => Promise<unknown>;
}

/** Kept from the budget for the closing steps after the drain (at most a quarter of it). */
const CLOSE_RESERVE_MS = 1_500;
/** How long the peers get to answer the close frames (bounded by the budget too). */
const GO_AWAY_MS = 500;

export async function shutdownInOrder(
  reason: string,
  o: Config["shutdown"],
  log: Logger,
  p: StopParts,
): Promise<void> {
  const { riskTimer, engine, journal, gateway, feeds, referencePrices, sync, limiter, rest, sim, stopNats } =
    p;
  const { marketData } = p;

  const started = Date.now();
  const deadline = started + o.timeoutMs;
  const drainUntil = deadline - Math.min(CLOSE_RESERVE_MS, o.timeoutMs / 4);
  log.info({ reason }, "shutting down");
  clearInterval(riskTimer);
  engine.stopAccepting();
  journal?.note({ text: `stop: ${reason}` });
  const work = (async () => {
    let t = Date.now();
    const step = (name: string) => {
      log.debug({ step: name, ms: Date.now() - t }, "shutdown step");
      t = Date.now();
    };
    await drain({ engine, journal, log, cancelAll: o.cancelLiveOrders }, reason, drainUntil);
    step("drain");
    // What the sessions are owed goes out only once the journal holds it; then each connection ends.
    if (journal !== undefined) await beforeDeadline(journal.flush(), drainUntil);
    await new Promise((r) => setImmediate(r));
    const closed = await p.connections.goAway(Math.max(0, Math.min(GO_AWAY_MS, deadline - Date.now())));
    journal?.note({ text: `stop: ${closed} connection(s) closed with 1001` });
    step("connections");
    await gateway();
    engine.detach();
    step("gateway");
    for (const f of feeds) await f.stop().catch(() => {});
    referencePrices.stop();
    await marketData.stop();
    await sync.stop();
    step("feeds");
    limiter?.close();
    // The next start reads this checkpoint and (almost) nothing after it.
    if (p.checkpoint !== undefined) await beforeDeadline(p.checkpoint().then(nothing), deadline - GO_AWAY_MS);
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
  log.info({ reason, ms: Date.now() - started }, "stopped");
  log.flush?.();
}

function nothing(): void {}

/** Resolves when `p` settles or at `deadlineMs`, whichever is first. */
function beforeDeadline(p: Promise<void>, deadlineMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, Math.max(0, deadlineMs - Date.now()));
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    p.then(done, done);
  });
}

/** A second signal during the drain: journaled and logged now, synchronously (the process exits next). */
export function noteForcedStop(why: string, journal: Journal | undefined, log: Logger): void {
  log.warn({ why }, "stop forced: exiting before the drain finished");
  try {
    journal?.note({ text: `stop forced: ${why}` });
    journal?.flushSync();
  } catch {
    // the journal is already closed: the stop had finished its own journaling
  }
  log.flush?.();
}
