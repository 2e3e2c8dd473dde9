/**
 * The embedded venue: for venue `sim`, the exchange simulator (`sim/`, a product of its own) started
 * in-process with the configured port, seed and market knobs, and the loopback NATS server it
 * publishes the HFT private streams through (a nats-server when installed, else its built-in endpoint). Besides the CLI's `sim` command this is
 * the only gateway module that imports the simulator (a rule checked in CI, docs/architecture.md).
 */
import type { DeepPartial, SimHandle, SimNatsMode, SimOptions } from "../../sim/index.js";
import { startSimNats, startSimulator } from "../../sim/index.js";
import type { Config } from "../config/load.js";

export type EmbeddedVenue = SimHandle;
/** Extra simulator options (tests: synthetic market off, faults, delays, their own nats-server). */
export type EmbeddedVenueOptions = DeepPartial<SimOptions>;
/** The loopback NATS server and the simulator's side of it; undefined when off. */
export type EmbeddedNats = Awaited<ReturnType<typeof startSimNats>>;

/**
 * `sim.nats`: auto = nats-server when installed, else the simulator's built-in endpoint. `pidFile`:
 * where a nats-server's pid is recorded, so the next start stops one a killed gateway left behind.
 */
export function startEmbeddedNats(mode: SimNatsMode, pidFile: string | undefined): Promise<EmbeddedNats> {
  return startSimNats(mode, pidFile);
}

/** Starts the simulator on 127.0.0.1 with one funded account for `apiKey`. */
export function startEmbeddedVenue(
  config: Config,
  apiKey: string,
  nats: SimOptions["nats"] | undefined,
  extra: EmbeddedVenueOptions | undefined,
): Promise<EmbeddedVenue> {
  return startSimulator({
    host: "127.0.0.1",
    port: config.sim.port,
    seed: config.sim.seed,
    apiKeys: [apiKey],
    ...(config.sim.adminPort >= 0 ? { adminPort: config.sim.adminPort } : {}),
    ...(nats !== undefined ? { nats } : {}),
    ...extra,
    market: { synthetic: config.sim.syntheticMarket, tickMs: config.sim.tickMs, ...extra?.market },
  });
}
