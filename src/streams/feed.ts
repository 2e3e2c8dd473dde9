/**
 * The streams' side of the way into the store (stream push, reconciliation snapshot, the reconciler's
 * targeted query): validate the record's shape and find its instrument's grid by symbol, then the
 * venue ingest (src/venue/ingest.ts `pushed`: normalize with the venue's reader into a reused
 * OrderEvent, journal hook, `store.apply`). Malformed or unknown-instrument records are counted and
 * dropped; they never throw to the caller.
 */
import type { Instrument, Surface } from "../domain/types.js";
import {
  type ApplyResult,
  gridOf,
  monoNs,
  type OrderEvent,
  type OrderStore,
  type Source,
} from "../orders/index.js";
import type { SpotBalanceUpdate, SpotOrderRecord, V5Execution, V5OrderRecord } from "../rest/wire.js";
import { V5_EXECUTIONS, V5_ORDERS } from "../venue/hft/surface.js";
import { VenueIngest } from "../venue/ingest.js";
import { SPOT_ORDERS } from "../venue/spot/surface.js";

/** Finds the instrument of a record: Spot by exchange + `BASE/QUOTE`, HFT by category-less symbol. */
export interface InstrumentIndex {
  lookup(surface: Surface, symbol: string, venue?: string): Instrument | undefined;
}

export class InstrumentTable implements InstrumentIndex {
  private readonly byKey = new Map<string, Instrument>();

  constructor(list: readonly Instrument[] = []) {
    for (const i of list) this.add(i);
  }

  add(i: Instrument): void {
    this.memo.spot.clear();
    this.memo.hft.clear();
    const sym = i.symbol.toUpperCase();
    this.byKey.set(`${i.surface}|${i.venue.toLowerCase()}|${sym}`, i);
    // Symbol-only fallback: the first instrument registered for a symbol wins.
    const k = `${i.surface}||${sym}`;
    if (!this.byKey.has(k)) this.byKey.set(k, i);
  }

  /** Raw spellings seen on the wire → instrument (or null): no string building per record. */
  private readonly memo = {
    spot: new Map<string, Map<string, Instrument | null>>(),
    hft: new Map<string, Map<string, Instrument | null>>(),
    futures: new Map<string, Map<string, Instrument | null>>(),
  };

  lookup(surface: Surface, symbol: string, venue = ""): Instrument | undefined {
    let bySym = this.memo[surface].get(venue);
    if (bySym === undefined) {
      bySym = new Map();
      this.memo[surface].set(venue, bySym);
    }
    const hit = bySym.get(symbol);
    if (hit !== undefined) return hit ?? undefined;
    const found = this.resolve(surface, symbol, venue);
    // Bounded: a peer inventing symbols must not grow the memo without limit.
    if (bySym.size < 4_096) bySym.set(symbol, found ?? null);
    return found;
  }

  private resolve(surface: Surface, symbol: string, venue: string): Instrument | undefined {
    const sym = symbol.toUpperCase();
    if (venue !== "") {
      const hit = this.byKey.get(`${surface}|${venue.toLowerCase()}|${sym}`);
      if (hit !== undefined) return hit;
    }
    return this.byKey.get(`${surface}||${sym}`);
  }

  all(): Instrument[] {
    const out = new Set<Instrument>();
    for (const i of this.byKey.values()) out.add(i);
    return [...out];
  }
}

// ---------- boundary validation (shape only; values are checked by the normalizers) ----------

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";
const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === "string";

export function isSpotOrderRecord(v: unknown): v is SpotOrderRecord {
  if (!isObj(v)) return false;
  const cid = v.client_order_id;
  return (
    isStr(v.order_id) &&
    v.order_id !== "" &&
    isStr(v.status) &&
    isStr(v.symbol) &&
    isNum(v.executed_qty) &&
    (v.average_price === undefined || isNum(v.average_price)) &&
    (cid === undefined || cid === null || isStr(cid)) &&
    (v.updated_time === undefined || isNum(v.updated_time)) &&
    (v.exchange === undefined || isStr(v.exchange))
  );
}

export function isV5OrderRecord(v: unknown): v is V5OrderRecord {
  if (!isObj(v)) return false;
  return (
    isStr(v.orderId) &&
    isStr(v.orderLinkId) &&
    (v.orderId !== "" || v.orderLinkId !== "") &&
    isStr(v.orderStatus) &&
    isStr(v.symbol) &&
    isStr(v.cumExecQty) &&
    (v.avgPrice === undefined || isStr(v.avgPrice)) &&
    (v.cumExecFee === undefined || isStr(v.cumExecFee)) &&
    (v.updatedTime === undefined || isStr(v.updatedTime))
  );
}

export function isV5Execution(v: unknown): v is V5Execution {
  if (!isObj(v)) return false;
  return (
    isStr(v.execId) &&
    isStr(v.orderId) &&
    isStr(v.symbol) &&
    isStr(v.execQty) &&
    isStr(v.execPrice) &&
    (v.orderLinkId === undefined || isStr(v.orderLinkId)) &&
    (v.execFee === undefined || isStr(v.execFee)) &&
    (v.execTime === undefined || isStr(v.execTime))
  );
}

export function isSpotBalanceUpdate(v: unknown): v is SpotBalanceUpdate {
  if (!isObj(v) || !isNum(v.timestamp) || !Array.isArray(v.balances)) return false;
  for (const r of v.balances) {
    if (!isObj(r) || !isStr(r.currency)) return false;
    if (!isNum(r.main_balance) && !isStr(r.main_balance)) return false;
    if (!isNum(r.blocked_balance_order) && !isStr(r.blocked_balance_order)) return false;
  }
  return true;
}

export interface FeedStats {
  applied: number;
  malformed: number;
  unknownInstrument: number;
}

export type RecordKind = "spotOrder" | "v5Order" | "v5Execution";

/** The kind of a record by its reader's journal tag. */
const KIND_OF_TAG: Readonly<Record<string, RecordKind>> = {
  [SPOT_ORDERS.journalTag]: "spotOrder",
  [V5_ORDERS.journalTag]: "v5Order",
  [V5_EXECUTIONS.journalTag]: "v5Execution",
};

/**
 * Sees every valid record right before it is applied (the engine journals it there: principle 7,
 * "record every exchange message before acting on it"). Must not throw.
 */
export type FeedTap = (kind: RecordKind, source: Source, clientId: string, raw: unknown) => void;

/** Normalizes records and applies them to the store. One instance per store; not re-entrant. */
export class OrderFeed {
  readonly stats: FeedStats = { applied: 0, malformed: 0, unknownInstrument: 0 };
  /** Optional journal hook (see FeedTap). */
  tap: FeedTap | undefined;
  /** Newest execution time (venue ms) seen, for `/v5/execution/list?startTime=`. 0 = none yet. */
  lastExecMs = 0;
  private readonly ingest: VenueIngest;

  constructor(
    readonly store: OrderStore,
    readonly instruments: InstrumentIndex,
  ) {
    this.ingest = new VenueIngest({
      // Stream records are matched to their instrument by symbol (`pushed`), never by order.
      gridOf: () => undefined,
      apply: (ev) => store.apply(ev),
      journal: undefined,
      onInvalid: () => {
        this.stats.malformed++;
      },
      beforePush: (tag, source, raw, ev) => this.beforeApply(tag, source, raw, ev),
    });
  }

  /** True when the record's order is one the store knows (by client id, then exchange id). */
  knows(clientId: string | null | undefined, exchangeId: string | undefined): boolean {
    if (clientId && this.store.byClientId(clientId) !== undefined) return true;
    return !!exchangeId && this.store.byExchangeId(exchangeId) !== undefined;
  }

  /**
   * For a v5 order record of an order the store holds: its cumulative quantity and the quantity real
   * executions have brought so far, in lots (undefined when malformed or unknown; nothing counted).
   */
  v5Progress(raw: unknown): { cumLots: number; execLots: number } | undefined {
    if (!isV5OrderRecord(raw)) return undefined;
    const inst = this.instruments.lookup("hft", raw.symbol);
    const o =
      (raw.orderLinkId ? this.store.byClientId(raw.orderLinkId) : undefined) ??
      (raw.orderId ? this.store.byExchangeId(raw.orderId) : undefined);
    const cum = Number(raw.cumExecQty);
    if (inst === undefined || o === undefined || !Number.isFinite(cum)) return undefined;
    return { cumLots: Math.round(cum / gridOf(inst).stepNum), execLots: o.extra.execLots };
  }

  /** A Spot order record; undefined when malformed (counted). */
  spotOrder(raw: unknown, source: Source, tsNs: number = monoNs()): ApplyResult | undefined {
    if (!isSpotOrderRecord(raw)) return this.bad();
    const inst = this.instruments.lookup("spot", raw.symbol, raw.exchange);
    if (inst === undefined) return this.noInstrument();
    return this.ingest.pushed(SPOT_ORDERS, raw, gridOf(inst), source, tsNs);
  }

  /** A v5 order record (realtime row or HFT order stream). */
  v5Order(raw: unknown, source: Source, tsNs: number = monoNs()): ApplyResult | undefined {
    if (!isV5OrderRecord(raw)) return this.bad();
    const inst = this.instruments.lookup("hft", raw.symbol);
    if (inst === undefined) return this.noInstrument();
    return this.ingest.pushed(V5_ORDERS, raw, gridOf(inst), source, tsNs);
  }

  /** One v5 execution → Fill (de-duplicated by execId in the store). */
  v5Execution(raw: unknown, source: Source, tsNs: number = monoNs()): ApplyResult | undefined {
    if (!isV5Execution(raw)) return this.bad();
    const inst = this.instruments.lookup("hft", raw.symbol);
    if (inst === undefined) return this.noInstrument();
    return this.ingest.pushed(V5_EXECUTIONS, raw, gridOf(inst), source, tsNs);
  }

  /** A valid record, normalized, right before the store applies it: counted, shown to the tap. */
  private beforeApply(tag: string, source: Source, raw: unknown, ev: OrderEvent): void {
    if (tag === V5_EXECUTIONS.journalTag && ev.venueMs > this.lastExecMs) this.lastExecMs = ev.venueMs;
    this.stats.applied++;
    if (this.tap !== undefined) this.tap(KIND_OF_TAG[tag]!, source, ev.clientId, raw);
  }

  private bad(): undefined {
    this.stats.malformed++;
    return undefined;
  }

  private noInstrument(): undefined {
    this.stats.unknownInstrument++;
    return undefined;
  }
}
