import type { Logger } from "pino";
import { lotsOf } from "../orders/index.js";
import type { RiskGate } from "../risk/riskGate.js";
import type { RestStack } from "../venue/stack.js";
import type { Engine } from "./engine.js";
import type { InstrumentBook } from "./instruments.js";

/** HFT positions at start, so the risk gate's position limits and reducing state see the account. */
export async function loadPositions(
  rest: RestStack,
  book: InstrumentBook,
  risk: RiskGate,
  engine: Engine,
  category: string,
  log: Logger,
): Promise<void> {
  try {
    const res = await rest.client.positions({ category });
    // Also the ledger behind PositionUpdate (sent to each session at logon, then on change).
    engine.onPositions(res.list ?? []);
    const net = new Map<number, number>();
    for (const p of res.list ?? []) {
      const e = book.find("hft", category, p.symbol);
      if (e === undefined || !p.size) continue;
      const lots = lotsOf(p.size, e.grid) * (p.side === "Sell" ? -1 : 1);
      net.set(e.inst.id, (net.get(e.inst.id) ?? 0) + lots);
    }
    for (const [id, lots] of net) risk.setPosition(id, lots);
    if (net.size > 0) log.info({ instruments: net.size }, "HFT positions loaded into the risk gate");
  } catch (err) {
    log.warn({ err: (err as Error).message }, "could not load HFT positions; risk starts flat");
  }
}
