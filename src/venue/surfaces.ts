/**
 * The venue surfaces, built once per process from the config and handed to both of their users: the
 * engine's command path (create, cancel, amend) and the venue sync (resolver, poller, kill switch
 * sweep, orphan listing). One build means one set of arguments: an order is amended, listed and
 * asked about by the same surface object everywhere.
 */
import type { Config } from "../config/load.js";
import type { RestClient } from "../rest/client.js";
import { FuturesSurface } from "./futures/surface.js";
import { HftSurface } from "./hft/surface.js";
import { SpotSurface } from "./spot/surface.js";
import type { Surfaces } from "./surface.js";

/** The knobs the surfaces read, as the config's own sections (schema.ts documents each). */
export interface SurfacesConfig {
  /** `hftCategories`: the listed categories; `hftAmendBy`: the id the amend names; `futuresPollMs`. */
  venue: Pick<Config["venue"], "hftCategories" | "hftAmendBy" | "futuresPollMs"> &
    Partial<Pick<Config["venue"], "hftListMaxPages">>;
  orders: Pick<Config["orders"], "spotExpirySeconds">;
}

/** Where an order's instrument trades (its `venue`: HFT category, Spot exchange). */
export interface SurfaceBook {
  byId(instrumentId: number): { inst?: { venue: string } } | undefined;
}

/**
 * Spot, HFT and Futures over one REST client. An HFT order's category is its instrument's venue; an
 * order whose instrument is not in the book cannot exist in the store, and the first listed category
 * is the same fallback the HFT surface's own listing and the account's position reads use.
 */
export function buildSurfaces(client: RestClient, book: SurfaceBook, config: SurfacesConfig): Surfaces {
  const categories = config.venue.hftCategories;
  const fallback = categories[0] ?? "linear";
  return {
    spot: new SpotSurface(client, config.orders.spotExpirySeconds),
    hft: new HftSurface(
      client,
      categories,
      (o) => book.byId(o.instrumentId)?.inst?.venue ?? fallback,
      config.venue.hftAmendBy,
      config.venue.hftListMaxPages,
    ),
    futures: new FuturesSurface(client, config.venue.futuresPollMs),
  };
}
