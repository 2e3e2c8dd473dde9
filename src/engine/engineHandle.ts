/** What `startEngine` takes and gives back. */
import type { Logger } from "pino";
import type { Bus } from "../bus/bus.js";
import type { GatewayClient } from "../client/client.js";
import type { Gateway } from "../gateway/gateway.js";
import type { StartCheck } from "../journal/startCheck.js";
import type { Journal } from "../journal/writer.js";
import type { MarketDataFeeds } from "../marketdata/index.js";
import type { RiskConfig } from "../risk/config.js";
import type { RiskGate } from "../risk/riskGate.js";
import type { RestStack } from "../venue/stack.js";
import type { VenueFeed, VenueSync } from "../venue/sync.js";
import type { EmbeddedVenue, EmbeddedVenueOptions } from "./embeddedVenue.js";
import type { Engine } from "./engine.js";
import type { FeedContext } from "./feedContext.js";
import type { InProcessClientOptions } from "./inProcess.js";
import type { InstrumentBook } from "./instruments.js";
import type { EngineMetrics } from "./metrics.js";
import type { ReplaySummary } from "./orderReplay.js";
import type { ReferencePrices } from "./referencePrices.js";
import type { RestartSummary } from "./restart.js";

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
  /** Install SIGINT/SIGTERM handlers: the first drains and stops, a second exits at once (stopSignals.ts). */
  handleSignals?: boolean;
}

export type { FeedContext };

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
  /** Public market data (hub and venue adapters), shared by risk and the strategies' subscriptions. */
  readonly marketData: MarketDataFeeds;
  readonly journal: Journal | undefined;
  /** The embedded simulator (venue `sim`), else undefined. */
  readonly sim: EmbeddedVenue | undefined;
  /** The NATS bus (remote sessions, drop copy, control plane) when `bus.nats.servers` is set. */
  readonly bus: Bus | undefined;
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
  /** The journal's order replay (also `restart.replay`). */
  readonly replay: ReplaySummary | undefined;
  /**
   * What start-up found in the journal directory (undefined with the journal off): files, the torn
   * tail cut, and `recovery` when damaged files were moved aside (`journal.recoverFromVenue`).
   */
  readonly journalCheck: StartCheck | undefined;
  /**
   * What the restart found and did: replay, restored sessions, messages due, cancel-on-disconnect,
   * and the orphans (venue orders the journal did not know, adopted; `orphans.unlisted` when a
   * surface could not be listed yet).
   */
  readonly restart: RestartSummary;
  /** Reconciled and the venue answered recently. */
  ready(): boolean;
  /**
   * A strategy client in this process (no socket): the same GatewayClient API, events and session
   * rules as over the WebSocket. Not yet connected: call `connect()`. Token: the user token unless given.
   */
  client(opts: InProcessClientOptions): GatewayClient;
  /**
   * Graceful stop = drain (docs/operator.md): refuse new orders, wait for every in-flight request's
   * answer, apply cancel-on-disconnect, close every connection with 1001; idempotent; resolves within
   * `shutdown.timeoutMs`.
   */
  stop(reason?: string): Promise<void>;
  /** A stop that will not wait for the drain (a second signal): journals why, synchronously. */
  forceStop(why: string): void;
}
