/**
 * The realtime poller: while the Spot order stream is down (and always for HFT, which has no push
 * stream here yet), ask the venue about the orders the store holds live, about once per
 * `pollIntervalMs`, and feed the answers through the same normalizers into the same store.
 *
 * Budget: every request first takes a limiter token with deadline 0; when none is free the rest of
 * the round is skipped (counted), never queued behind strategy traffic. A failed request ends the
 * round and changes nothing: a network error is never evidence that an order is gone.
 */
import type { LimitClass, RateLimiter } from "../limits/index.js";
import { type Order, Source, Status } from "../orders/index.js";
import type { RestClient } from "../rest/client.js";
import type { V5Execution, V5List, V5OrderRecord } from "../rest/wire.js";
import type { OrderFeed } from "./feed.js";
import { errText, reportOutcome, takeToken } from "./venue.js";

export interface PollerOptions {
  feed: OrderFeed;
  rest: RestClient;
  limiter?: RateLimiter;
  /** Default 1,000 ms. */
  pollIntervalMs?: number;
  /** Poll HFT orders in every round (no HFT push stream, or it is not trusted). Default true. */
  hftAlways?: boolean;
  /** While HFT polling is off (its push stream trusted), still poll HFT this often (ms; 0 = never). Default 30,000. */
  hftAuditMs?: number;
  /** HFT category when an order's instrument is unknown. Default "linear". */
  defaultCategory?: string;
  /** Spot `GET /trade/api/v2/order` per round at most, for live orders missing from the open list. Default 10. */
  maxOrderQueriesPerRound?: number;
  /** Pages per listing per round at most. Default 10. */
  maxPages?: number;
  /** First executions query looks back this far when nothing was seen yet (ms). Default 600,000. */
  execLookbackMs?: number;
  /** Called with each failure (for logs); the poller itself only counts. */
  onError?: (what: string, err: unknown) => void;
}

export interface PollerStats {
  rounds: number;
  /** Rounds cut short because no rate-limit token was free. */
  skippedBudget: number;
  errors: number;
  requests: number;
  records: number;
  executions: number;
}

const HFT_QUERY: LimitClass = "hft.query";
const SPOT_LIST: LimitClass = "spot.listOrders";
const SPOT_GET: LimitClass = "spot.other";

/** Thrown inside a round to stop it; never escapes `pollOnce`. */
class StopRound extends Error {}

export class RealtimePoller {
  readonly stats: PollerStats = {
    rounds: 0,
    skippedBudget: 0,
    errors: 0,
    requests: 0,
    records: 0,
    executions: 0,
  };
  /** Poll Spot orders in each round (set while the Spot order stream is down or untrusted). */
  spotActive = false;
  /** Poll HFT orders in each round; false while the HFT push stream is trusted (then: audit only). */
  hftActive: boolean;
  /** Rounds that polled HFT (fast or audit). */
  hftRounds = 0;
  private lastHftMs = 0;
  private readonly o: PollerOptions;
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private started = false;

  constructor(o: PollerOptions) {
    this.o = o;
    this.intervalMs = o.pollIntervalMs ?? 1_000;
    this.hftActive = o.hftAlways ?? true;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.started = false;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(): void {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.pollOnce().finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }

  /** One round (rounds never overlap: a call during a round waits for it). */
  pollOnce(): Promise<void> {
    if (this.running !== undefined) return this.running;
    this.running = this.round().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async round(): Promise<void> {
    this.stats.rounds++;
    const live = [...this.o.feed.store.liveSet()];
    const now = Date.now();
    const audit = this.o.hftAuditMs ?? 30_000;
    const hftDue = this.hftActive || (audit > 0 && now - this.lastHftMs >= audit);
    try {
      if (hftDue && live.some((x) => x.surface === "hft")) {
        this.lastHftMs = now;
        this.hftRounds++;
        await this.pollHft(live);
      }
      if (this.spotActive && live.some((x) => x.surface === "spot")) await this.pollSpot(live);
    } catch (e) {
      if (!(e instanceof StopRound)) {
        this.stats.errors++;
        this.o.onError?.("poll", e);
      }
    }
  }

  private async token(cls: LimitClass): Promise<void> {
    if (!(await takeToken(this.o.limiter, cls, 0))) {
      this.stats.skippedBudget++;
      throw new StopRound();
    }
    this.stats.requests++;
  }

  private async request<T>(cls: LimitClass, what: string, f: () => Promise<T>): Promise<T> {
    await this.token(cls);
    try {
      const r = await f();
      reportOutcome(this.o.limiter, cls, undefined);
      return r;
    } catch (e) {
      reportOutcome(this.o.limiter, cls, e);
      this.stats.errors++;
      this.o.onError?.(what, e);
      throw new StopRound(errText(e));
    }
  }

  private categoryOf(o: Order): string {
    return this.o.feed.instruments.lookup("hft", o.symbol)?.venue ?? this.o.defaultCategory ?? "linear";
  }

  private async pollHft(live: Order[]): Promise<void> {
    const feed = this.o.feed;
    const rest = this.o.rest;
    const bySym = new Map<string, string>();
    for (const x of live) if (x.surface === "hft") bySym.set(x.symbol, this.categoryOf(x));
    const maxPages = this.o.maxPages ?? 10;
    const cats = new Set<string>();
    for (const [symbol, category] of bySym) {
      cats.add(category);
      let cursor = "";
      for (let page = 0; page < maxPages; page++) {
        const res: V5List<V5OrderRecord> = await this.request(HFT_QUERY, "realtime", () =>
          rest.realtime({ category, symbol, cursor }),
        );
        for (const rec of res.list) {
          if (!feed.knows(rec.orderLinkId, rec.orderId)) continue;
          if (feed.v5Order(rec, Source.Poll) !== undefined) this.stats.records++;
        }
        cursor = res.nextPageCursor ?? "";
        if (cursor === "") break;
      }
    }
    // Fills since the newest execution seen (inclusive: the store de-duplicates by execId).
    const since = feed.lastExecMs > 0 ? feed.lastExecMs : Date.now() - (this.o.execLookbackMs ?? 600_000);
    for (const category of cats) {
      let cursor = "";
      for (let page = 0; page < maxPages; page++) {
        const q: [string, string][] = [
          ["category", category],
          ["startTime", String(since)],
        ];
        if (cursor !== "") q.push(["cursor", cursor]);
        const res: V5List<V5Execution> = await this.request(HFT_QUERY, "executions", () =>
          rest.call<V5List<V5Execution>>("hft.executions", q),
        );
        for (const x of res.list) {
          if (!feed.knows(x.orderLinkId, x.orderId)) continue;
          if (feed.v5Execution(x, Source.Poll) !== undefined) this.stats.executions++;
        }
        cursor = res.nextPageCursor ?? "";
        if (cursor === "") break;
      }
    }
  }

  private async pollSpot(live: Order[]): Promise<void> {
    const feed = this.o.feed;
    const rest = this.o.rest;
    const list = await this.request(SPOT_LIST, "spot open orders", () =>
      rest.listSpotOrders({ open: true, count: 500 }),
    );
    const seen = new Set<string>();
    for (const rec of list.orders ?? []) {
      if (typeof rec?.order_id === "string") seen.add(rec.order_id);
      if (!feed.knows(rec?.client_order_id, rec?.order_id)) continue;
      if (feed.spotOrder(rec, Source.Poll) !== undefined) this.stats.records++;
    }
    // Live orders absent from the open list have probably finished: ask for each (bounded per round).
    let budget = this.o.maxOrderQueriesPerRound ?? 10;
    for (const x of live) {
      if (budget <= 0) break;
      if (x.surface !== "spot" || x.exchangeId === "" || seen.has(x.exchangeId)) continue;
      if (x.status === Status.PendingNew || x.status === Status.Unknown) continue;
      if (x.status !== Status.New && !isLiveStatus(x.status)) continue;
      budget--;
      const rec = await this.request(SPOT_GET, "spot get order", () =>
        rest.getSpotOrder({ orderId: x.exchangeId }),
      );
      if (feed.spotOrder(rec, Source.Poll) !== undefined) this.stats.records++;
    }
  }
}

function isLiveStatus(s: Status): boolean {
  return (
    s === Status.PartiallyFilled ||
    s === Status.PendingCancel ||
    s === Status.CancellationRaised ||
    s === Status.ExpirationRaised
  );
}
