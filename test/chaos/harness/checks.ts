/**
 * Checks shared by the engine-level scenarios: the final truth read over the protocol, and the
 * strategy-side accounting of fills.
 */
import type { Strategy } from "./strategy.js";
import { converge, type TruthReport, venueOrders } from "./truth.js";
import type { ChaosVenue } from "./venue.js";

/** Final-truth check through the protocol, plus the strategy-side bookkeeping. */
export async function engineTruth(v: ChaosVenue, strategies: Strategy[], ms = 6_000): Promise<TruthReport> {
  const t = await converge(
    async () => (await Promise.all(strategies.map((s) => s.views()))).flat(),
    () => venueOrders(v.sim, v.keys.apiKey),
    ms,
  );
  return t;
}

/**
 * Fills the strategy was pushed equal the gateway's filled qty, each execution once. With
 * `updatesCount`, a pushed OrderUpdate's cumulative qty also counts as being told.
 */
export async function fillsAddUp(s: Strategy, updatesCount = false): Promise<string[]> {
  const bad: string[] = [];
  for (const g of await s.views()) {
    const n = Number(g.key.slice(g.key.indexOf("#") + 1));
    const told = s.told.get(n)!;
    const lots = updatesCount ? Math.max(told.fillLots, told.lastCum) : told.fillLots;
    if (lots !== g.filledLots) bad.push(`${g.key}: told ${lots} lots, gateway ${g.filledLots}`);
  }
  if (s.duplicateFills > 0) bad.push(`${s.duplicateFills} duplicate fills`);
  return bad;
}
