/**
 * The one way a venue record reaches the order store, whatever brought it: a create or cancel answer
 * that carries the order's record (`answer`), a stream message (`pushed`), a poll page row or a
 * targeted query's record (`apply`), a record read back from the journal at restart (`replayed`).
 * Each is normalized by its reader (the venue surface's own `normalize`) into one reused OrderEvent and
 * handed to the sink; a malformed record is counted and dropped, never applied in part. Depends on
 * interfaces only (the sink, the grids, the journal): nothing here knows the engine.
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
import type { RecordNormalizer, RecordReader, Surfaces } from "./surface.js";

export interface IngestDeps {
  /** The grid of an order's instrument (undefined: unknown instrument, the record is dropped). */
  gridOf(instrumentId: number): Grid | undefined;
  /** Applies one normalized event: the store's `apply`, or the engine's (store + latency stamps). */
  apply(ev: OrderEvent): ApplyResult;
  /** Poll and query records are journaled here before they are applied (`<tag>-poll`, `<tag>-query`). */
  journal: Pick<Journal, "event"> | undefined;
  /** A malformed record was dropped. */
  onInvalid(): void;
  /**
   * Sees every valid stream record right before it is applied (`pushed`): the stream's journal hook.
   * Must not throw.
   */
  beforePush?(tag: string, source: Source, raw: unknown, ev: OrderEvent): void;
}

/** What became of a record replayed from the journal. */
export type ReplayOutcome = "applied" | "malformed" | "unknownInstrument";

export class VenueIngest {
  private readonly seenPrint = new Map<string, string>();
  private readonly ev: OrderEvent = newEvent();
  /** After shutdown: answers and records that arrive late are dropped (the journal and store are closed). */
  stopped = false;
  applied = 0;

  constructor(private readonly d: IngestDeps) {}

  /**
   * A poll page row or a targeted query's record of an order the store holds: skipped when nothing
   * changed since the last one (same status, cumulative quantity and update time), else journaled
   * first, normalized and applied.
   */
  apply(o: Order, reader: RecordReader, rec: unknown, source: Source): void {
    if (this.stopped) return;
    const print = reader.printOf(rec);
    if (this.seenPrint.get(o.clientId) === print && !needsAnswer(o)) return;
    const grid = this.d.gridOf(o.instrumentId);
    if (grid === undefined) return;
    const tag = `${reader.journalTag}-${source === Source.Poll ? "poll" : "query"}`;
    this.d.journal?.event({ source: tag, clientId: o.clientId, body: JSON.stringify(rec) });
    if (!this.read(reader, rec, grid, source, monoNs(), false)) return;
    this.seenPrint.set(o.clientId, print);
    this.applied++;
    this.d.apply(this.ev);
    if (TERMINAL[o.status]) this.seenPrint.delete(o.clientId);
  }

  /**
   * The record a create or cancel answer carries (Spot, Futures: it may already show fills), applied
   * as a REST outcome; the answer itself is journaled by the request (src/engine/venueRequest.ts).
   */
  answer(o: Order, reader: RecordNormalizer, rec: unknown): void {
    if (this.stopped) return;
    const grid = this.d.gridOf(o.instrumentId);
    if (grid === undefined) return;
    // The answer's record is not shape-checked first: anything it makes the normalizer throw is malformed.
    if (!this.read(reader, rec, grid, Source.Rest, monoNs(), true)) return;
    this.applied++;
    this.d.apply(this.ev);
  }

  /**
   * A stream message whose shape the stream checked and whose instrument it found: normalized,
   * shown to `beforePush`, applied. Undefined when malformed (counted).
   */
  pushed(
    reader: RecordNormalizer,
    raw: unknown,
    grid: Grid,
    source: Source,
    tsNs: number,
  ): ApplyResult | undefined {
    if (this.stopped || !this.read(reader, raw, grid, source, tsNs, false)) return undefined;
    this.applied++;
    this.d.beforePush?.(reader.journalTag, source, raw, this.ev);
    return this.d.apply(this.ev);
  }

  /**
   * A record read back from the journal at restart (an `evt` body, or the order record a Spot or
   * Futures answer body is) for an order the replay rebuilt: applied as a query's answer, never
   * journaled again. The replay finds its reader by the record's tag (`readerOfTag`) and counts what is
   * not applied; `onInvalid` is not called (a replay is not the venue speaking now).
   */
  replayed(o: Order, reader: RecordNormalizer, rec: unknown): ReplayOutcome {
    const grid = this.d.gridOf(o.instrumentId);
    if (grid === undefined) return "unknownInstrument";
    try {
      reader.normalize(rec, grid, Source.Query, monoNs(), this.ev);
    } catch (err) {
      if (err instanceof NormalizeError) return "malformed";
      throw err;
    }
    this.applied++;
    this.d.apply(this.ev);
    return "applied";
  }

  /** Normalizes into the reused event; false (counted) when malformed. */
  private read(
    reader: RecordNormalizer,
    rec: unknown,
    grid: Grid,
    source: Source,
    tsNs: number,
    anyError: boolean,
  ): boolean {
    try {
      reader.normalize(rec, grid, source, tsNs, this.ev);
      return true;
    } catch (err) {
      if (!anyError && !(err instanceof NormalizeError)) throw err;
      this.d.onInvalid();
      return false;
    }
  }
}

/**
 * The reader of a journaled record by its `evt.source` tag (`spot-poll`, `hftx-stream`, …): the
 * surface, or the fill list, whose journal tag begins it (the longest such tag: `hftx` before `hft`).
 */
export function readerOfTag(surfaces: Surfaces, source: string): RecordNormalizer | undefined {
  let best: RecordNormalizer | undefined;
  for (const s of Object.values(surfaces)) {
    for (const r of s.fills === undefined ? [s] : [s, s.fills]) {
      const tag = r.journalTag;
      if (source.startsWith(tag) && (source.length === tag.length || source[tag.length] === "-"))
        if (best === undefined || tag.length > best.journalTag.length) best = r;
    }
  }
  return best;
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
