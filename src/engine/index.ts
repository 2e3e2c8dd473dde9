/** Public surface of the engine: import from here. */

export { type SyncConfig, type VenueFeed, VenueSync } from "../venue/sync.js";
export { Engine, type EngineDeps, type EngineOptions } from "./engine.js";
export { healthReply, metricsReply } from "./health.js";
export {
  hftInstruments,
  InstrumentBook,
  type InstrumentEntry,
  InstrumentError,
  instrumentKey,
  loadInstruments,
  pow10Step,
  StepFormatter,
  spotInstruments,
} from "./instruments.js";
export {
  type EngineHandle,
  type FeedContext,
  type StartOptions,
  StartupError,
  startEngine,
} from "./lifecycle.js";
export { EngineMetrics, OUTCOMES, STAGES } from "./metrics.js";
export { parseOrderTag, type ReplaySummary } from "./orderReplay.js";
export type { AdoptedOrphan, NotAdopted, OrphanSummary } from "./orphans.js";
export type { RestartSummary } from "./restart.js";
