/**
 * One-minute candles built by the gateway from public trades, for feeds whose venue gives none (the
 * HFT NATS subjects have no candle subject, docs/venue-api.md §6.4). Minutes are bucketed by the trade's
 * venue time; a candle closes when a trade of a later minute arrives or, failing that, `graceMs` after
 * its minute ended by the local clock. A minute without trades has no candle (as the venue's own
 * candle socket, §6.1). A candle whose minute overlapped a feed outage is flagged Incomplete.
 */
import { MdFlags } from "../protocol/schema.js";
import type { CandleRec } from "./types.js";

const MINUTE = 60_000;

export class CandleBuilder {
  private cur: CandleRec | undefined;
  /** Start of the newest closed minute: later prints for it are too late for its candle. */
  private closedStart = -1;
  /** Candles starting at or before this minute miss prints (the feed was down during it). */
  private gapUntil = -1;
  lateTrades = 0;

  constructor(private readonly graceMs: number) {}

  /** Adds one print; returns the candle this print closed (an earlier minute), if any. */
  trade(ticks: number, lots: number, ts: number): CandleRec | undefined {
    const start = ts - (ts % MINUTE);
    if (start <= this.closedStart) {
      this.lateTrades++;
      return undefined;
    }
    let closed: CandleRec | undefined;
    const c = this.cur;
    if (c !== undefined && start > c.startMs) closed = this.close();
    if (this.cur === undefined) {
      this.cur = {
        startMs: start,
        open: ticks,
        high: ticks,
        low: ticks,
        close: ticks,
        volume: 0,
        trades: 0,
        flags: MdFlags.Built | (start <= this.gapUntil ? MdFlags.Incomplete : 0),
      };
    }
    const k = this.cur;
    if (ticks > k.high) k.high = ticks;
    if (ticks < k.low) k.low = ticks;
    k.close = ticks;
    k.volume += lots;
    k.trades++;
    return closed;
  }

  /** Closes the open candle once its minute is over by `nowMs` plus the grace. */
  due(nowMs: number): CandleRec | undefined {
    const c = this.cur;
    return c !== undefined && nowMs >= c.startMs + MINUTE + this.graceMs ? this.close() : undefined;
  }

  /** The feed is interrupted (`nowMs` local): the open candle and the minute of `nowMs` miss prints. */
  gap(nowMs: number): void {
    if (this.cur !== undefined) this.cur.flags |= MdFlags.Incomplete;
    this.gapUntil = Math.max(this.gapUntil, nowMs - (nowMs % MINUTE));
  }

  private close(): CandleRec {
    const c = this.cur!;
    this.cur = undefined;
    this.closedStart = c.startMs;
    return c;
  }
}
