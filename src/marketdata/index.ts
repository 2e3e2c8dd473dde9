/**
 * The gateway's public market data: the hub and the venue adapters that feed it (Spot Socket.IO,
 * HFT NATS), built once and shared by the risk reference prices and the strategies' subscriptions.
 */
import type { Instrument } from "../domain/types.js";
import type { StreamStateListener } from "../streams/socketStream.js";
import { HftPublicStream } from "./hftFeed.js";
import { MarketDataHub } from "./hub.js";
import { SpotFeed } from "./spotFeed.js";

export * from "./hub.js";
export * from "./types.js";

export interface MarketDataOptions {
  instruments: readonly Instrument[];
  /** Spot public Socket.IO origin; undefined = no Spot public feed. */
  spotBaseUrl: string | undefined;
  /** HFT NATS WebSocket URL of the public subjects; undefined = no HFT public feed. */
  hftNatsUrl: string | undefined;
  staleMs: number;
  candleGraceMs: number;
  /** Connection silence / NATS ping staleness of the adapters' transports. */
  transportStaleMs?: number;
  listener?: StreamStateListener;
  onError?: (err: Error) => void;
}

export class MarketDataFeeds {
  readonly hub: MarketDataHub;
  readonly spot: SpotFeed | undefined;
  readonly hft: HftPublicStream | undefined;

  constructor(o: MarketDataOptions) {
    const spotInst = o.instruments.filter((i) => i.surface === "spot");
    // The public HFT subjects name a market (`BTC/USDT`), not a category: linear perpetuals only.
    const hftInst = o.instruments.filter((i) => i.surface === "hft" && i.venue === "linear");
    let spot: SpotFeed | undefined;
    let hft: HftPublicStream | undefined;
    this.hub = new MarketDataHub({
      upstreamFor: (id) => (spot?.covers(id) ? spot : hft?.covers(id) ? hft : undefined),
      staleMs: o.staleMs,
      candleGraceMs: o.candleGraceMs,
    });
    if (o.spotBaseUrl !== undefined && spotInst.length > 0)
      spot = new SpotFeed({
        baseUrl: o.spotBaseUrl,
        instruments: spotInst,
        sink: this.hub,
        staleMs: o.transportStaleMs,
        listener: o.listener,
      });
    if (o.hftNatsUrl !== undefined && hftInst.length > 0)
      hft = new HftPublicStream({
        url: o.hftNatsUrl,
        instruments: hftInst,
        sink: this.hub,
        staleMs: o.transportStaleMs,
        listener: o.listener,
        onError: o.onError,
      });
    this.spot = spot;
    this.hft = hft;
  }

  async stop(): Promise<void> {
    this.hub.stop();
    this.spot?.stop();
    await this.hft?.stop();
  }
}
