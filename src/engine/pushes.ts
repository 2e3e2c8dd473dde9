/**
 * Account-wide pushes (BalanceUpdate, PositionUpdate): a per-key coalescer so a burst of fills does
 * not flood sessions, and the HFT position ledger kept from fills and `/v5/position/list` snapshots.
 */
import type { Body } from "../protocol/schema.js";
import type { V5Position } from "../rest/wire.js";
import { tryParseDec } from "../util/decimal.js";
import type { InstrumentEntry } from "./instruments.js";

/**
 * At most one emission per key per `intervalMs`: the first change goes out at once, later ones inside
 * the interval wait and only the newest value is sent when it ends (last value wins). Bodies are kept
 * by reference: callers pass fresh objects.
 */
export class Coalescer<B> {
  private readonly lastSent = new Map<string, number>();
  private readonly waiting = new Map<string, B>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly emit: (key: string, body: B) => void,
  ) {}

  push(key: string, body: B): void {
    const now = Date.now();
    const last = this.lastSent.get(key);
    if (!this.waiting.has(key) && (last === undefined || now - last >= this.intervalMs)) {
      this.lastSent.set(key, now);
      this.emit(key, body);
      return;
    }
    this.waiting.set(key, body);
    if (this.timer === undefined) {
      const wait = Math.max(1, (last ?? now) + this.intervalMs - now);
      this.timer = setTimeout(() => this.flush(), wait);
      this.timer.unref();
    }
  }

  /** Sends everything waiting now. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const now = Date.now();
    for (const [key, body] of this.waiting) {
      this.lastSent.set(key, now);
      this.emit(key, body);
    }
    this.waiting.clear();
  }

  /** Drops what is waiting (shutdown). */
  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting.clear();
  }
}

/** Decimal places of entry prices on the wire: the tick's scale plus four (as average prices). */
const ENTRY_EXTRA = 4;
/** Realised PnL on the wire: 10^-8 of the settlement asset. */
const PNL_EXP = -8;

interface Pos {
  lots: number;
  /** Average entry price (quote units), 0 when flat. */
  entry: number;
  /** Cumulative realised PnL (settlement asset), fees excluded. */
  realised: number;
}

/**
 * HFT positions per (instrument, positionIdx). Fills move them at once (average entry on increase,
 * realised PnL on reduction, the entry resets on a flip); a `/v5/position/list` snapshot replaces them
 * with the venue's figures. [assumed] a fill already contained in a snapshot taken just before it is
 * applied is counted twice until the next snapshot, which the engine asks for after every fill.
 */
export class PositionLedger {
  private readonly rows = new Map<string, Pos>();

  private static key(instrumentId: number, idx: number): string {
    return `${instrumentId}#${idx}`;
  }

  /** Applies one fill; returns the changed key. */
  fill(e: InstrumentEntry, positionIdx: number, buy: boolean, lots: number, pxTicks: number): string {
    const key = PositionLedger.key(e.inst.id, positionIdx);
    let p = this.rows.get(key);
    if (p === undefined) {
      p = { lots: 0, entry: 0, realised: 0 };
      this.rows.set(key, p);
    }
    const px = (pxTicks * e.price.mantissa) / 10 ** e.price.scale;
    const step = e.qty.mantissa / 10 ** e.qty.scale;
    const signed = buy ? lots : -lots;
    if (p.lots === 0 || Math.sign(p.lots) === Math.sign(signed)) {
      const total = Math.abs(p.lots) + lots;
      p.entry = (Math.abs(p.lots) * p.entry + lots * px) / total;
      p.lots += signed;
    } else {
      const closing = Math.min(lots, Math.abs(p.lots));
      p.realised += closing * step * (px - p.entry) * Math.sign(p.lots);
      const after = p.lots + signed;
      if (after === 0) p.entry = 0;
      else if (Math.sign(after) !== Math.sign(p.lots)) p.entry = px;
      p.lots = after;
    }
    return key;
  }

  /**
   * Replaces positions from a full snapshot (every position of the category); keys held but absent
   * from it are flat. Returns the keys whose values changed. Rows that do not parse are skipped.
   */
  snapshot(rows: readonly V5Position[], find: (symbol: string) => InstrumentEntry | undefined): string[] {
    const seen = new Set<string>();
    const changed: string[] = [];
    for (const r of rows) {
      const e = find(r.symbol);
      const size = tryParseDec(r.size || "0");
      if (e === undefined || size === undefined || size.m < 0n) continue;
      const q = e.qty;
      const lotsAbs = Number(
        size.s <= q.scale
          ? (size.m * 10n ** BigInt(q.scale - size.s)) / BigInt(q.mantissa)
          : size.m / 10n ** BigInt(size.s - q.scale) / BigInt(q.mantissa),
      );
      const next: Pos = {
        lots: r.side === "Sell" ? -lotsAbs : lotsAbs,
        entry: lotsAbs === 0 ? 0 : Number(r.avgPrice) || 0,
        realised: Number(r.cumRealisedPnl) || 0,
      };
      const key = PositionLedger.key(e.inst.id, r.positionIdx);
      seen.add(key);
      if (this.set(key, next)) changed.push(key);
    }
    for (const key of this.rows.keys()) {
      if (seen.has(key)) continue;
      const cur = this.rows.get(key)!;
      if (this.set(key, { lots: 0, entry: 0, realised: cur.realised })) changed.push(key);
    }
    return changed;
  }

  private set(key: string, next: Pos): boolean {
    const cur = this.rows.get(key);
    if (cur && cur.lots === next.lots && cur.entry === next.entry && cur.realised === next.realised)
      return false;
    this.rows.set(key, next);
    return true;
  }

  keys(): IterableIterator<string> {
    return this.rows.keys();
  }

  /** A fresh PositionUpdate body for a key, or undefined when unknown. */
  body(
    key: string,
    entryOf: (instrumentId: number) => InstrumentEntry | undefined,
  ): Body<"PositionUpdate"> | undefined {
    const p = this.rows.get(key);
    if (p === undefined) return undefined;
    const hash = key.indexOf("#");
    const instrumentId = Number(key.slice(0, hash));
    const scale = (entryOf(instrumentId)?.price.scale ?? 4) + ENTRY_EXTRA;
    const entry = Math.round(p.entry * 10 ** scale);
    const pnl = Math.round(p.realised * 10 ** -PNL_EXP);
    return {
      instrumentId,
      positionIdx: Number(key.slice(hash + 1)),
      sizeLots: p.lots,
      entryPxMantissa: Number.isSafeInteger(entry) && entry > 0 ? entry : 0,
      entryPxExponent: -scale,
      realisedPnlMantissa: Number.isSafeInteger(pnl) ? pnl : 0,
      pnlExponent: PNL_EXP,
    };
  }
}
