/**
 * Instruments at start: every configured surface's instruments loaded from the venue (HFT: every
 * configured category; the first is the primary for positions and reference prices), and the
 * configuration as the venue allows it (a category this key may not list is left out of what is
 * polled and reconciled, while its orders are still sent and come back with the venue's refusal).
 */
import type { Logger } from "pino";
import type { Config } from "../config/load.js";
import type { Surface } from "../domain/types.js";
import type { VenueClient } from "../venue/client.js";
import { type InstrumentBook, listableCategories, loadInstruments } from "./instruments.js";
import { StartupError } from "./startupError.js";

export interface TradeBook {
  instruments: InstrumentBook;
  /** `config` with `venue.hftCategories` narrowed to the listable categories (the same object if all are). */
  tradeConfig: Config;
}

export async function loadTradeBook(client: VenueClient, config: Config, log: Logger): Promise<TradeBook> {
  const hftCategories = config.venue.hftCategories;
  const surfaces = config.venue.surfaces as Surface[];
  let instruments: InstrumentBook;
  try {
    instruments = await loadInstruments(client, {
      surfaces,
      spotExchanges: config.venue.spotExchanges,
      hftCategories,
      onRefused: (category, err) =>
        log.warn({ category, err: err.message }, "HFT category not enabled for this API key: not loaded"),
    });
  } catch (err) {
    throw new StartupError(`could not load instruments from the venue: ${(err as Error).message}`);
  }
  log.info({ count: instruments.size }, "instruments loaded");
  let listed = hftCategories;
  if (surfaces.includes("hft") && hftCategories.length > 1) {
    try {
      listed = await listableCategories(client, hftCategories, (category, err) =>
        log.warn(
          { category, err: err.message },
          "HFT category refused for this API key: its orders are sent and will be refused by the venue",
        ),
      );
    } catch (err) {
      throw new StartupError(`could not read the HFT order lists: ${(err as Error).message}`);
    }
  }
  const tradeConfig: Config =
    listed === hftCategories ? config : { ...config, venue: { ...config.venue, hftCategories: listed } };
  return { instruments, tradeConfig };
}
