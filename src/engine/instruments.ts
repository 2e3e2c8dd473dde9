/**
 * Instruments as the engine trades them: loaded once from the venue (Spot `tradeInfo` per configured
 * exchange, HFT `instruments-info`), numbered for the binary wire, and indexed with the per-instrument
 * helpers the hot path needs (order grid for the REST client, normalizer grid for the store, and
 * tick/lot → decimal text formatters without BigInt).
 */
import type { Instrument, Surface } from "../domain/types.js";
import { type Grid, gridOf } from "../orders/normalize.js";
import type { FuturesInstrument, SpotTradeInfo, V5Instrument } from "../rest/wire.js";
import { parseDec } from "../util/decimal.js";
import type { VenueClient } from "../venue/client.js";
import { FUTURES_EXCHANGE } from "../venue/futures/fields.js";
import { isNotAllowlisted } from "../venue/hft/fields.js";
import { makeGrid, type OrderGrid } from "../venue/orderFields.js";

export class InstrumentError extends Error {
  override readonly name = "InstrumentError";
}

/** Formats integer multiples of a decimal step as canonical decimal text, allocation-light. */
export class StepFormatter {
  private readonly m: number;
  private readonly s: number;
  constructor(step: string) {
    const d = parseDec(step);
    if (d.m <= 0n || d.m > BigInt(Number.MAX_SAFE_INTEGER)) throw new InstrumentError(`bad step ${step}`);
    this.m = Number(d.m);
    this.s = d.s;
  }
  /** `n` steps as text; `n` must be a positive safe integer and `n * m` must stay safe. */
  format(n: number): string {
    const v = n * this.m;
    if (!Number.isSafeInteger(v)) throw new InstrumentError("value too large for the step");
    const s = this.s;
    if (s <= 0) return s === 0 ? String(v) : String(v) + "0".repeat(-s);
    let digits = String(v);
    if (digits.length <= s) digits = "0".repeat(s - digits.length + 1) + digits;
    const cut = digits.length - s;
    let end = digits.length;
    while (end > cut && digits.charCodeAt(end - 1) === 48) end--;
    return end === cut ? digits.slice(0, cut) : `${digits.slice(0, cut)}.${digits.slice(cut, end)}`;
  }
  /** The step as mantissa × 10^-scale. */
  get mantissa(): number {
    return this.m;
  }
  get scale(): number {
    return this.s;
  }
}

/** Everything the engine keeps per instrument. */
export interface InstrumentEntry {
  readonly inst: Instrument;
  /** `${surface}:${venue}:${symbol}`: stable across restarts (journal replay uses it). */
  readonly key: string;
  readonly orderGrid: OrderGrid;
  readonly grid: Grid;
  readonly price: StepFormatter;
  readonly qty: StepFormatter;
}

export function instrumentKey(surface: Surface, venue: string, symbol: string): string {
  return `${surface}:${venue}:${symbol}`;
}

/** The loaded instruments; ids are assigned 1.. in load order (Spot exchanges as configured, HFT, Futures). */
export class InstrumentBook {
  private readonly list: Instrument[] = [];
  private readonly byIdMap = new Map<number, InstrumentEntry>();
  private readonly byKeyMap = new Map<string, InstrumentEntry>();
  private frozen: readonly Instrument[] = [];

  add(def: Omit<Instrument, "id">): InstrumentEntry {
    const key = instrumentKey(def.surface, def.venue, def.symbol);
    const existing = this.byKeyMap.get(key);
    if (existing) return existing;
    const inst: Instrument = { ...def, id: this.list.length + 1 };
    const e: InstrumentEntry = {
      inst,
      key,
      orderGrid: makeGrid(inst.tickSize, inst.qtyStep),
      grid: gridOf(inst),
      price: new StepFormatter(inst.tickSize),
      qty: new StepFormatter(inst.qtyStep),
    };
    this.list.push(inst);
    this.byIdMap.set(inst.id, e);
    this.byKeyMap.set(key, e);
    this.frozen = this.list.slice();
    return e;
  }
  /** The same array object while nothing changes (the gateway caches by identity). */
  all(): readonly Instrument[] {
    return this.frozen;
  }
  byId(id: number): InstrumentEntry | undefined {
    return this.byIdMap.get(id);
  }
  byKey(key: string): InstrumentEntry | undefined {
    return this.byKeyMap.get(key);
  }
  /** HFT symbols are unique per category; Spot symbols repeat across exchanges, so pass the venue. */
  find(surface: Surface, venue: string, symbol: string): InstrumentEntry | undefined {
    return this.byKeyMap.get(instrumentKey(surface, venue, symbol));
  }
  get size(): number {
    return this.list.length;
  }
}

/** 10^-n as decimal text ("1" for n = 0). */
export function pow10Step(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n > 18) throw new InstrumentError(`bad precision ${n}`);
  return n === 0 ? "1" : `0.${"0".repeat(n - 1)}1`;
}

/** Spot rows from `tradeInfo`: tickSize = 10^-precision.quote, qtyStep = 10^-precision.base. */
export function spotInstruments(
  exchange: string,
  rows: Readonly<Record<string, SpotTradeInfo>>,
): Omit<Instrument, "id">[] {
  const out: Omit<Instrument, "id">[] = [];
  for (const symbol of Object.keys(rows).sort()) {
    const r = rows[symbol]!;
    const [base, quote] = symbol.split("/");
    if (!base || !quote || typeof r?.precision?.base !== "number" || typeof r.precision.quote !== "number") {
      throw new InstrumentError(`tradeInfo ${exchange} ${symbol}: unexpected shape`);
    }
    const qtyStep = pow10Step(r.precision.base);
    out.push({
      surface: "spot",
      symbol,
      venue: exchange,
      base,
      quote,
      tickSize: pow10Step(r.precision.quote),
      qtyStep,
      // [assumed] Spot publishes no quantity bounds: one step minimum, no maximum ("0").
      minQty: qtyStep,
      maxQty: "0",
      minNotional: r.quote?.min ?? "0",
      active: r.active !== false,
    });
  }
  return out;
}

export function hftInstruments(category: string, rows: readonly V5Instrument[]): Omit<Instrument, "id">[] {
  return [...rows]
    .sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0))
    .map((r) => {
      if (!r?.lotSizeFilter?.qtyStep || !r.priceFilter?.tickSize) {
        throw new InstrumentError(`instruments-info ${r?.symbol}: unexpected shape`);
      }
      return {
        surface: "hft" as const,
        symbol: r.symbol,
        venue: category,
        base: r.baseCoin,
        quote: r.quoteCoin,
        tickSize: r.priceFilter.tickSize,
        qtyStep: r.lotSizeFilter.qtyStep,
        minQty: r.lotSizeFilter.minOrderQty || r.lotSizeFilter.qtyStep,
        maxQty: r.lotSizeFilter.maxOrderQty || "0",
        minNotional: r.lotSizeFilter.minNotionalValue || "0",
        active: r.status === "Trading",
      };
    });
}

/** Futures rows from `instrument_info` [assumed shape]; the venue is the exchange id `EXCHANGE_2`. */
export function futuresInstruments(rows: readonly FuturesInstrument[]): Omit<Instrument, "id">[] {
  if (!Array.isArray(rows)) throw new InstrumentError("futures instrument_info: expected a list");
  return [...rows]
    .sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0))
    .map((r) => {
      if (!r?.tick_size || !r.quantity_step || typeof r.symbol !== "string") {
        throw new InstrumentError(`futures instrument_info ${r?.symbol}: unexpected shape`);
      }
      return {
        surface: "futures" as const,
        symbol: r.symbol.toUpperCase(),
        venue: FUTURES_EXCHANGE,
        base: r.base_asset,
        quote: r.quote_asset || "USDT",
        tickSize: r.tick_size,
        qtyStep: r.quantity_step,
        minQty: r.min_quantity || r.quantity_step,
        maxQty: r.max_quantity || "0",
        minNotional: r.min_notional || "0",
        active: r.status === "TRADING",
      };
    });
}

/** Loads every configured instrument from the venue and registers the grids with the REST client. */
export async function loadInstruments(
  client: VenueClient,
  o: {
    surfaces: readonly Surface[];
    spotExchanges: readonly string[];
    hftCategories: readonly string[];
    /** A category the venue refused for this key (options allowlist): loading goes on without it. */
    onRefused?: (category: string, err: Error) => void;
  },
): Promise<InstrumentBook> {
  const book = new InstrumentBook();
  if (o.surfaces.includes("spot")) {
    for (const ex of o.spotExchanges) {
      const res = await client.tradeInfo({ exchange: ex });
      for (const def of spotInstruments(ex, res[ex] ?? {})) book.add(def);
    }
  }
  if (o.surfaces.includes("hft")) {
    for (const category of o.hftCategories) {
      let res: Awaited<ReturnType<VenueClient["instruments"]>>;
      try {
        res = await client.instruments({ category });
      } catch (err) {
        if (category !== "option" || !isNotAllowlisted(err)) throw err;
        o.onRefused?.(category, err as Error);
        continue;
      }
      for (const def of hftInstruments(category, res.list ?? [])) book.add(def);
    }
  }
  if (o.surfaces.includes("futures")) {
    for (const def of futuresInstruments(await client.futuresInstruments())) book.add(def);
  }
  for (const inst of book.all()) client.setGrid(inst.surface, inst.symbol, book.byId(inst.id)!.orderGrid);
  return book;
}

/**
 * The HFT categories whose private lists this key may read. A category the venue refuses (options
 * without the allowlist, §3.3) keeps its instruments, so its orders reach the venue and come back with
 * its refusal, but is left out of polling and stream reconciliation, which would otherwise never settle.
 */
export async function listableCategories<T extends string>(
  client: VenueClient,
  categories: readonly T[],
  onRefused: (category: string, err: Error) => void,
): Promise<T[]> {
  const out: T[] = [];
  for (const category of categories) {
    try {
      if (category !== categories[0]) await client.realtime({ category });
      out.push(category);
    } catch (err) {
      if (!isNotAllowlisted(err)) throw err;
      onRefused(category, err as Error);
    }
  }
  return out;
}
