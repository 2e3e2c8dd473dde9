/**
 * Orders open at the venue that the gateway does not hold: the open list of every traded surface,
 * less the records whose order the store knows as live (by client id, then exchange id). The kill
 * switch cancels them all; the restart adopts the ones the store has no order for at all (orphans).
 */
import type { Surface } from "../domain/types.js";
import { type Order, type OrderStore, type Status, TERMINAL } from "../orders/index.js";
import type { VenueSurface } from "./surface.js";

/** One open venue order the store does not hold as live. */
export interface UnheldOrder {
  surface: VenueSurface;
  rec: unknown;
  /** The record's status; undefined when the venue wrote one the gateway does not know. */
  status: Status | undefined;
  /** The store's order for it when there is one, final although the venue lists it open. */
  stale: Order | undefined;
}

export interface UnheldListing {
  rows: UnheldOrder[];
  /** Surfaces whose open list could not be read (their unheld orders are not in `rows`). */
  failed: { surface: Surface; err: string }[];
}

/** Lists every surface's open orders and keeps those the store does not hold as live. */
export async function unheldOrders(
  surfaces: readonly VenueSurface[],
  store: Pick<OrderStore, "byClientId" | "byExchangeId">,
): Promise<UnheldListing> {
  const out: UnheldListing = { rows: [], failed: [] };
  for (const s of surfaces) {
    let rows: unknown[];
    try {
      const list = await s.listOpen(true);
      rows = list.rows;
      // What was listed is adopted; the surface is listed again until a listing ends (never "none left").
      if (!list.complete)
        out.failed.push({
          surface: s.kind,
          err: `open orders listed up to the page bound (${rows.length} read) and more remain: venue.hftListMaxPages`,
        });
    } catch (err) {
      out.failed.push({ surface: s.kind, err: (err as Error).message });
      continue;
    }
    for (const rec of rows) {
      const status = statusOf(s, rec);
      if (status !== undefined && TERMINAL[status]) continue;
      const cid = s.clientIdOf(rec);
      const held = (cid ? store.byClientId(cid) : undefined) ?? store.byExchangeId(s.exchangeIdOf(rec));
      if (held !== undefined && !TERMINAL[held.status]) continue;
      out.rows.push({ surface: s, rec, status, stale: held });
    }
  }
  return out;
}

/** A listed record's status; undefined for a status string the gateway does not know (still listed open). */
function statusOf(s: VenueSurface, rec: unknown): Status | undefined {
  try {
    return s.statusOf(rec);
  } catch {
    return undefined;
  }
}
