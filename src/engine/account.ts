/**
 * Account state pushed to every session: Spot balances, HFT positions (ledger from fills, replaced by
 * `/v5/position/list` snapshots and a re-read shortly after fills), and the rate-limit credit.
 */

import type { Logger } from "pino";
import type { Config } from "../config/load.js";
import type { LimitClass, RateLimiter } from "../limits/index.js";
import { DEFAULT_LIMIT_TABLE } from "../limits/index.js";
import type { FillReport, Order } from "../orders/index.js";
import type { Body } from "../protocol/schema.js";
import type { RestClient } from "../rest/client.js";
import { RestError } from "../rest/errors.js";
import type { V5Position } from "../rest/wire.js";
import { hftPositions } from "../venue/hft/reads.js";
import type { InstrumentBook, InstrumentEntry } from "./instruments.js";
import type { Owners } from "./owners.js";
import { Coalescer, PositionLedger } from "./pushes.js";
import type { RunState } from "./runState.js";
import { balanceBody } from "./wireMap.js";

/** Query tokens that must be free before an optional HFT read (eager query, position refresh). */
export const EAGER_QUERY_CREDIT = 25;

export interface AccountOptions {
  /** Positions are read for the first category (options positions are not tracked). */
  venue: Pick<Config["venue"], "hftCategories">;
  /** BalanceUpdate / PositionUpdate: at most one per asset / position per this many ms (last wins); 100. */
  pushIntervalMs?: number;
  /** After an HFT fill, re-read `/v5/position/list` this many ms later (bursts share one read); 250. */
  positionRefreshMs?: number;
}

export interface AccountDeps {
  client: RestClient;
  book: InstrumentBook;
  limiter: RateLimiter | undefined;
  owners: Owners;
  run: RunState;
  log: Logger;
  options: AccountOptions;
}

export class Account {
  private readonly balances = new Map<string, { key: string; body: Body<"BalanceUpdate"> }>();
  private readonly balancePush: Coalescer<Body<"BalanceUpdate">>;
  private readonly positions = new PositionLedger();
  private readonly entryOf = (id: number) => this.d.book.byId(id);
  private readonly positionPush: Coalescer<Body<"PositionUpdate">>;
  private refreshTimer: NodeJS.Timeout | undefined;
  private refreshing = false;
  private refreshAgain = false;

  constructor(private readonly d: AccountDeps) {
    const every = d.options.pushIntervalMs ?? 100;
    this.balancePush = new Coalescer(every, (_k, b) => d.owners.sessions.broadcast("BalanceUpdate", b));
    this.positionPush = new Coalescer(every, (_k, b) => d.owners.sessions.broadcast("PositionUpdate", b));
  }

  close(): void {
    this.balancePush.close();
    this.positionPush.close();
    if (this.refreshTimer !== undefined) clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
  }

  /** At logon: the latest balances and positions, then the create credit. */
  sendSnapshot(sid: number): void {
    const sink = this.d.owners.sessions;
    for (const b of this.balances.values()) sink.send(sid, "BalanceUpdate", b.body);
    for (const k of this.positions.keys()) {
      const body = this.positions.body(k, this.entryOf);
      if (body !== undefined) sink.send(sid, "PositionUpdate", body);
    }
  }

  sendCredit(sid: number, cls: LimitClass): void {
    const limiter = this.d.limiter;
    if (limiter === undefined || sid === 0) return;
    const spec = DEFAULT_LIMIT_TABLE.buckets[DEFAULT_LIMIT_TABLE.classes[cls]]!;
    this.d.owners.sessions.send(sid, "Credit", {
      bucket: cls.endsWith("cancel") ? 2 : 1,
      remaining: limiter.credit(cls),
      capacity: spec.capacity,
      resetInMs: spec.windowMs,
    });
  }

  /** Broadcasts the create credit of a class (circuit changes). */
  broadcastCredit(cls: LimitClass): void {
    for (const s of this.d.owners.sessions.sessions()) this.sendCredit(s.sessionId, cls);
  }

  /** Latest Spot balances (account-wide); sent to every session on change and to each at logon. */
  onBalances(rows: readonly { currency: string; available: string; blocked: string }[]): void {
    for (const r of rows) {
      const key = `${r.available}|${r.blocked}`;
      if (this.balances.get(r.currency)?.key === key) continue;
      const body = balanceBody(r.currency, r.available, r.blocked);
      if (body === undefined) continue;
      this.balances.set(r.currency, { key, body });
      this.balancePush.push(r.currency, body);
    }
  }

  /** An HFT fill moves the position ledger at once; the venue's figures follow shortly after. */
  onHftFill(o: Order, e: InstrumentEntry, f: FillReport): void {
    this.pushPosition(this.positions.fill(e, o.positionIdx, o.side === "buy", f.lots, f.pxTicks));
    this.schedulePositionRefresh();
  }

  /** A `/v5/position/list` snapshot of the whole category: replaces the ledger, pushes what changed. */
  onPositions(rows: readonly V5Position[]): void {
    const cat = this.d.options.venue.hftCategories[0] ?? "linear";
    for (const k of this.positions.snapshot(rows, (sym) => this.d.book.find("hft", cat, sym)))
      this.pushPosition(k);
  }

  /** Latest PositionUpdate bodies (tests, health). */
  positionBodies(): Body<"PositionUpdate">[] {
    const out: Body<"PositionUpdate">[] = [];
    for (const k of this.positions.keys()) {
      const b = this.positions.body(k, this.entryOf);
      if (b !== undefined) out.push(b);
    }
    return out;
  }

  private pushPosition(key: string): void {
    const body = this.positions.body(key, this.entryOf);
    if (body !== undefined) this.positionPush.push(key, body);
  }

  private schedulePositionRefresh(): void {
    if (this.d.run.dead || this.d.run.replaying) return;
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    if (this.refreshTimer !== undefined) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      void this.refreshPositions();
    }, this.d.options.positionRefreshMs ?? 250);
    this.refreshTimer.unref();
  }

  /** Re-reads the venue's positions (rate-limited like any other HFT request; retried when refused). */
  private async refreshPositions(): Promise<void> {
    if (this.d.run.dead) return;
    const limiter = this.d.limiter;
    // A read like the order queries (the venue counts them in one HFT bucket): only with budget to spare.
    if ((limiter?.credit("hft.query") ?? EAGER_QUERY_CREDIT) < EAGER_QUERY_CREDIT) {
      this.schedulePositionRefresh();
      return;
    }
    const lim = limiter?.acquire("hft.query", "query", 0);
    if (lim !== undefined && lim.status !== "granted") {
      if (lim.status === "queued") lim.withdraw();
      this.schedulePositionRefresh();
      return;
    }
    this.refreshing = true;
    try {
      const res = await hftPositions(this.d.client, {
        category: this.d.options.venue.hftCategories[0] ?? "linear",
      });
      limiter?.reportOutcome("hft.query", 200);
      if (!this.d.run.dead) this.onPositions(res.list ?? []);
    } catch (err) {
      limiter?.reportOutcome("hft.query", err instanceof RestError ? err.status : 0);
      this.d.log.debug({ err: (err as Error)?.message }, "position refresh failed");
    } finally {
      this.refreshing = false;
      if (this.refreshAgain) {
        this.refreshAgain = false;
        this.schedulePositionRefresh();
      }
    }
  }
}
