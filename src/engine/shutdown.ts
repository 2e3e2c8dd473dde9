/**
 * The stop order, the reverse of the start, bounded by `shutdown.timeoutMs`: stop taking orders,
 * optionally cancel live ones (bounded wait), close the command API, feeds, sync, journal, REST,
 * and the embedded simulator.
 */
import type { Logger } from "pino";
import type { Config } from "../config/load.js";
import type { Journal } from "../journal/writer.js";
import type { RateLimiter } from "../limits/index.js";
import type { MarketDataFeeds } from "../marketdata/index.js";
import type { RestStack } from "../rest/stack.js";
import type { VenueFeed, VenueSync } from "../venue/sync.js";
import type { EmbeddedVenue } from "./embeddedVenue.js";
import type { Engine } from "./engine.js";
import type { ReferencePrices } from "./referencePrices.js";

/** What a shutdown closes, in the order it closes them. */
export interface StopParts {
  riskTimer: NodeJS.Timeout;
  engine: Engine;
  journal: Journal | undefined;
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
}

export async function shutdownInOrder(
  reason: string,
  o: Config["shutdown"],
  log: Logger,
  p: StopParts,
): Promise<void> {
  const { riskTimer, engine, journal, gateway, feeds, referencePrices, sync, limiter, rest, sim, stopNats } =
    p;
  const { marketData } = p;

  const deadline = Date.now() + o.timeoutMs;
  log.info({ reason }, "shutting down");
  clearInterval(riskTimer);
  engine.stopAccepting();
  journal?.note({ text: `stop: ${reason}` });
  const work = (async () => {
    if (o.cancelLiveOrders) {
      const n = engine.cancelEverything();
      // Wait (bounded) for the cancels to be answered; half the budget at most.
      const until = Date.now() + o.timeoutMs / 2;
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
    await gateway();
    engine.detach();
    step("gateway");
    for (const f of feeds) await f.stop().catch(() => {});
    referencePrices.stop();
    await marketData.stop();
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
  log.info({ reason, ms: Date.now() - (deadline - o.timeoutMs) }, "stopped");
  log.flush?.();
}
