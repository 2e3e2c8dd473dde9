/**
 * Fill bookkeeping: a real execution (de-duplicated by execution id, a bounded ring per order) or a
 * rise of a record's cumulative quantity (a synthesized fill) becomes filled lots, the average price,
 * fees, the order's last fill and one reused FillReport; the overfill guard flags an order filled past
 * its quantity once. The caller pushes the report to the listener.
 */
import { targetStatus } from "./effects.js";
import type { OrderEvent } from "./event.js";
import { NO_EXEC_IDS, type Order, ownExtra } from "./order.js";
import type { ApplyResult, FillReport, StoreStats } from "./reports.js";
import { DROP_REASON_INDEX } from "./transitions.js";

export class FillBook {
  /** The fill just booked; reused by the next one. */
  readonly report: FillReport = {
    execId: "",
    lots: 0,
    pxTicks: 0,
    fee: 0,
    synthetic: false,
    tsNs: 0,
    venueMs: 0,
    liquidity: 0,
  };

  constructor(
    /** Execution ids remembered per order for de-duplication. */
    private readonly maxExecIds: number,
    private readonly stats: StoreStats,
    private readonly dropCounts: Float64Array,
  ) {}

  /**
   * A real execution: de-duplicated by id; counts toward filled only beyond what a cumulative record
   * gave. True when it booked a fill (`report`); false when it was dropped (`r.drop` says why).
   */
  exec(o: Order, ev: OrderEvent, r: ApplyResult, code: number): boolean {
    const id = ev.execId;
    if (id !== "" && o.extra.execIds.has(id)) {
      this.dropCounts[DROP_REASON_INDEX.duplicate_exec]! += 1;
      r.drop = "duplicate_exec";
      return false;
    }
    const x = ownExtra(o);
    if (id !== "") {
      if (x.execIds === NO_EXEC_IDS) {
        x.execIds = new Set();
        x.execRing = [];
      }
      x.execIds.add(id);
      if (x.execRing.length < this.maxExecIds) x.execRing.push(id);
      else {
        x.execIds.delete(x.execRing[x.execRingPos]!);
        x.execRing[x.execRingPos] = id;
        x.execRingPos = (x.execRingPos + 1) % this.maxExecIds;
      }
    }
    x.execLots += ev.lots;
    const fee = Math.max(ev.fee, 0);
    x.fees += fee;
    const delta = x.execLots - o.filledLots;
    if (delta <= 0) {
      this.dropCounts[DROP_REASON_INDEX.fill_covered_by_cum]! += 1;
      r.drop = "fill_covered_by_cum";
      return false;
    }
    const lots = Math.min(delta, ev.lots);
    const newFilled = o.filledLots + lots;
    x.avgPxTicks = (x.avgPxTicks * o.filledLots + ev.pxTicks * lots) / newFilled;
    this.addFilled(o, lots, r, ev.tsNs);
    o.status = targetStatus(o, code);
    const f = this.report;
    f.execId = id !== "" ? id : `${o.exchangeId || o.clientId}:${o.filledLots}`;
    f.lots = lots;
    f.pxTicks = ev.pxTicks;
    f.fee = fee;
    f.synthetic = id === "";
    f.tsNs = ev.tsNs;
    f.liquidity = ev.liquidity;
    this.noteLastFill(o, f, ev.venueMs);
    return true;
  }

  /**
   * A cumulative quantity above the filled one from an order record (Spot has no execution ids): the
   * delta is booked as a synthesized fill (`report`). `feesBefore`: the order's fees before the record.
   */
  cum(o: Order, ev: OrderEvent, r: ApplyResult, code: number, feesBefore: number): void {
    const lots = ev.cumLots - o.filledLots;
    const prevNotional = o.extra.avgPxTicks * o.filledLots;
    let px: number;
    if (ev.avgPxTicks > 0) {
      px = (ev.avgPxTicks * ev.cumLots - prevNotional) / lots;
      ownExtra(o).avgPxTicks = ev.avgPxTicks;
    } else {
      // [assumed] no average on the record: the limit price is the best estimate for a resting order.
      px = o.priceTicks;
      ownExtra(o).avgPxTicks = (prevNotional + px * lots) / ev.cumLots;
    }
    this.addFilled(o, lots, r, ev.tsNs);
    o.status = targetStatus(o, code);
    const f = this.report;
    f.execId = `${o.exchangeId || o.clientId}:${o.filledLots}`;
    f.lots = lots;
    f.pxTicks = px;
    // The record's cumulative fee (HFT cumExecFee) less what earlier fills carried; 0 when it has none (Spot).
    f.fee = ev.fee > feesBefore ? ev.fee - feesBefore : 0;
    f.synthetic = true;
    f.tsNs = ev.tsNs;
    f.liquidity = 0;
    this.noteLastFill(o, f, ev.venueMs);
  }

  /** The order keeps its latest fill (OrderUpdate's lastFill fields); the report gets the venue time. */
  private noteLastFill(o: Order, f: FillReport, venueMs: number): void {
    f.venueMs = venueMs > 0 ? venueMs : 0;
    const x = ownExtra(o);
    x.lastFillPxTicks = f.pxTicks;
    x.lastFillLots = f.lots;
    x.lastFillMs = f.venueMs;
  }

  /** Filled and leaves quantities, counters, and the overfill guard. */
  private addFilled(o: Order, lots: number, r: ApplyResult, ts: number): void {
    o.filledLots += lots;
    o.leavesLots = o.filledLots >= o.qtyLots ? 0 : o.qtyLots - o.filledLots;
    if (o.extra.firstFillNs === 0) ownExtra(o).firstFillNs = ts;
    r.filledLots += lots;
    this.stats.fills++;
    // An amend in flight may raise the quantity: fills up to it are not an overfill yet.
    const cap = o.extra.amendQtyLots > o.qtyLots ? o.extra.amendQtyLots : o.qtyLots;
    if (o.filledLots > cap && !o.extra.overfilled) {
      ownExtra(o).overfilled = true;
      r.overfill = true;
      this.stats.overfills++;
    }
  }
}
