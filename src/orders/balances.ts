/**
 * Balances (Spot) and positions (HFT), kept from snapshots and fills with the newest venue timestamp
 * winning: a snapshot older than what we hold is ignored, and a fill adjusts a position only when it is
 * newer than the snapshot it would otherwise already be part of.
 */
import type { SpotBalanceUpdate, V5Position } from "../rest/wire.js";
import {
  addDec,
  type Dec,
  decFromNumber,
  formatDec,
  parseDec,
  subDec,
  tryParseDec,
  ZERO,
} from "../util/decimal.js";

export interface Balance {
  readonly currency: string;
  readonly available: string;
  readonly blocked: string;
  /** Venue ms timestamp of the snapshot it came from. */
  readonly ts: number;
}

function toDec(v: number | string): Dec {
  return typeof v === "number" ? decFromNumber(v) : parseDec(v);
}

export class BalanceBook {
  private readonly rows = new Map<string, Balance>();
  private lastTs = -1;
  ignored = 0;

  /** Applies a FETCH_BALANCE_UPDATES / portfolio snapshot; returns false (and changes nothing) if stale. */
  applySnapshot(u: SpotBalanceUpdate): boolean {
    if (u.timestamp < this.lastTs) {
      this.ignored++;
      return false;
    }
    const next: Balance[] = [];
    for (const r of u.balances) {
      // Parse everything first so a bad row changes nothing.
      next.push({
        currency: r.currency.toUpperCase(),
        available: formatDec(toDec(r.main_balance)),
        blocked: formatDec(toDec(r.blocked_balance_order)),
        ts: u.timestamp,
      });
    }
    this.lastTs = u.timestamp;
    for (const b of next) this.rows.set(b.currency, b);
    return true;
  }

  get(currency: string): Balance | undefined {
    return this.rows.get(currency.toUpperCase());
  }

  all(): Balance[] {
    return [...this.rows.values()];
  }
}

export interface Position {
  readonly symbol: string;
  readonly positionIdx: 0 | 1 | 2;
  /** Signed size (long > 0) as a decimal string. */
  readonly size: string;
  readonly avgPrice: string;
  /** Venue ms timestamp of the newest snapshot or fill applied. */
  readonly ts: number;
}

interface PosState {
  size: Dec;
  avgPrice: string;
  ts: number;
}

export class PositionBook {
  private readonly rows = new Map<string, PosState>();
  ignored = 0;

  private static key(symbol: string, idx: number): string {
    return `${symbol}#${idx}`;
  }

  /** Applies one `/v5/position/list` row; stale (older than held) rows are ignored. */
  applySnapshot(p: V5Position): boolean {
    const ts = Number(p.updatedTime);
    const k = PositionBook.key(p.symbol, p.positionIdx);
    const cur = this.rows.get(k);
    if (cur !== undefined && ts < cur.ts) {
      this.ignored++;
      return false;
    }
    const abs = tryParseDec(p.size || "0");
    if (abs === undefined || !Number.isFinite(ts)) return false;
    const size = p.side === "Sell" ? subDec(ZERO, abs) : abs;
    this.rows.set(k, { size, avgPrice: p.avgPrice, ts });
    return true;
  }

  /** Adjusts a position by a fill newer than its snapshot (`qty` a decimal string, buy adds). */
  applyFill(symbol: string, positionIdx: 0 | 1 | 2, side: "buy" | "sell", qty: string, ts: number): boolean {
    const k = PositionBook.key(symbol, positionIdx);
    const cur = this.rows.get(k);
    if (cur !== undefined && ts <= cur.ts) {
      this.ignored++;
      return false;
    }
    const q = tryParseDec(qty);
    if (q === undefined) return false;
    const base = cur?.size ?? ZERO;
    this.rows.set(k, {
      size: side === "buy" ? addDec(base, q) : subDec(base, q),
      avgPrice: cur?.avgPrice ?? "",
      ts,
    });
    return true;
  }

  get(symbol: string, positionIdx: 0 | 1 | 2 = 0): Position | undefined {
    const s = this.rows.get(PositionBook.key(symbol, positionIdx));
    if (s === undefined) return undefined;
    return { symbol, positionIdx, size: formatDec(s.size), avgPrice: s.avgPrice, ts: s.ts };
  }
}
