/**
 * Start-up of the public market data: the feeds (hub + Spot and HFT adapters) and the risk reference
 * prices that hold them. The command API's subscriptions share the same hub (src/gateway/marketData.ts).
 */
import type { Logger } from "pino";
import type { Config } from "../config/load.js";
import type { RateLimiter } from "../limits/limiter.js";
import { MarketDataFeeds } from "../marketdata/index.js";
import type { RiskGate } from "../risk/riskGate.js";
import type { RestStack } from "../venue/stack.js";
import type { InstrumentBook } from "./instruments.js";
import { ReferencePrices } from "./referencePrices.js";

export interface MarketDataStart {
  feeds: MarketDataFeeds;
  referencePrices: ReferencePrices;
}

export async function startMarketData(
  config: Config,
  d: {
    instruments: InstrumentBook;
    risk: RiskGate;
    rest: RestStack;
    limiter: RateLimiter | undefined;
    log: Logger;
    streamBase: string;
    hftNatsUrl: string | undefined;
  },
  cleanups: (() => Promise<void> | void)[],
): Promise<MarketDataStart> {
  const surfaces = config.venue.surfaces;
  const hftUrl = config.streams.hftPublic.enabled && surfaces.includes("hft") ? d.hftNatsUrl : undefined;
  const feeds = new MarketDataFeeds({
    instruments: d.instruments.all(),
    spotBaseUrl: surfaces.includes("spot") ? d.streamBase : undefined,
    hftNatsUrl: hftUrl,
    staleMs: config.marketData.staleMs,
    candleGraceMs: config.marketData.candleGraceMs,
    transportStaleMs: config.streams.staleMs,
    listener: {
      onUp: (name, reconnect) => d.log.info({ stream: name, reconnect }, "market data stream up"),
      onDown: (name, reason) => d.log.info({ stream: name, reason }, "market data stream down"),
    },
    onError: (e) => d.log.warn({ stream: "hft.public", err: e.message }, "HFT public stream problem"),
  });
  cleanups.push(() => feeds.stop());
  if (hftUrl !== undefined) d.log.info({ url: hftUrl }, "HFT public market data over NATS");
  const referencePrices = new ReferencePrices({
    risk: d.risk,
    instruments: d.instruments,
    client: d.rest.client,
    limiter: d.limiter,
    log: d.log,
    hub: feeds.hub,
    spotStream: config.risk.spotReferenceStream && surfaces.includes("spot"),
    hftStream: hftUrl !== undefined,
    hftCategory: config.venue.hftCategories[0] ?? "linear",
    hftPollMs: surfaces.includes("hft") ? config.risk.hftReferencePollMs : 0,
  });
  cleanups.push(() => referencePrices.stop());
  await referencePrices.start();
  return { feeds, referencePrices };
}
