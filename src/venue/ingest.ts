/**
 * The one way a venue record of a known order (poll page, targeted query) reaches the store: skipped
 * when nothing changed since the last one (same status, cumulative quantity and update time), else
 * journaled first, normalized and applied.
 */
import type { Journal } from "../journal/writer.js";
import {
  type ApplyResult,
  type Grid,
  monoNs,
  NormalizeError,
  newEvent,
  type Order,
  type OrderEvent,
  Source,
  Status,
  TERMINAL,
} from "../orders/index.js";
import type { RecordReader } from "./surface.js";

export interface ApplierDeps {
  /** The grid of an order's instrument (undefined: unknown instrument, the record is dropped). */
  gridOf(instrumentId: number): Grid | undefined;
  /** Applies one normalized event (the engine's `applyVenueEvent`: store + latency stamps). */
  apply(ev: OrderEvent): ApplyResult;
  journal: Journal | undefined;
  onInvalid(): void;
}

export class RecordApplier {
  private readonly seenPrint = new Map<string, string>();
  private readonly ev: OrderEvent = newEvent();
  stopped = false;
  applied = 0;

  constructor(private readonly d: ApplierDeps) {}

  apply(o: Order, surface: RecordReader, rec: unknown, source: Source): void {
    if (this.stopped) return; // answered after shutdown: the journal and the store are closed
    const print = surface.printOf(rec);
    if (this.seenPrint.get(o.clientId) === print && !needsAnswer(o)) return;
    const grid = this.d.gridOf(o.instrumentId);
    if (grid === undefined) return;
    const tag = `${surface.journalTag}-${source === Source.Poll ? "poll" : "query"}`;
    this.d.journal?.event({ source: tag, clientId: o.clientId, body: JSON.stringify(rec) });
    try {
      surface.normalize(rec, grid, source, monoNs(), this.ev);
    } catch (err) {
      if (err instanceof NormalizeError) {
        this.d.onInvalid();
        return;
      }
      throw err;
    }
    this.seenPrint.set(o.clientId, print);
    this.applied++;
    this.d.apply(this.ev);
    if (TERMINAL[o.status]) this.seenPrint.delete(o.clientId);
  }
}

/** Waiting for the venue's word: a create or a cancel whose outcome is not known yet. */
export function needsAnswer(o: Order): boolean {
  return o.status === Status.PendingNew || o.status === Status.Unknown || o.status === Status.PendingCancel;
}

/**
 * Rejected by the gateway's own verdict (never acked, no exchange id): the venue's evidence for the
 * order still applies (a late answer or record overturns the verdict).
 */
export function judgedRejected(o: Order): boolean {
  return o.status === Status.Rejected && o.exchangeId === "";
}
