/** What a push feed needs from the engine (its own file: the feeds and the start-up both import it). */
import type { Logger } from "pino";
import type { KeyPair } from "../auth/keys.js";
import type { Config } from "../config/load.js";
import type { RestStack } from "../venue/stack.js";
import type { Engine } from "./engine.js";
import type { InstrumentBook } from "./instruments.js";
import type { EngineMetrics } from "./metrics.js";

export interface FeedContext {
  engine: Engine;
  rest: RestStack;
  instruments: InstrumentBook;
  keys: KeyPair;
  /** The configuration as the venue allows it (`venue.hftCategories`: the listable ones). */
  config: Config;
  streamBaseUrl: string;
  /** NATS WebSocket URL of the HFT private streams; undefined = none (HFT is polled). */
  hftNatsUrl: string | undefined;
  metrics: EngineMetrics;
  log: Logger;
}
