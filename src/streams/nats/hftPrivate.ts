/**
 * The HFT private streams of docs/venue-api.md §6.4 over NATS: `v1.f.ex1.private.subAccountId.<id>.order`
 * and `.trade`. Payloads are not published; [assumed] an order message carries the fields of a
 * `/v5/order/realtime` record and a trade message those of a `/v5/execution/list` row (with
 * `isMaker`), each plus `sub_account_id`; a message may hold one record, an array of them, or
 * `{data: …}`. Both go through the same OrderFeed (same normalizers, same store: executions
 * de-duplicated by execId, cumulative quantity never decreasing).
 *
 * Sub-account id: from config, else learned: the wildcard subjects (`…subAccountId.*.order`) until the
 * first payload of an order this gateway knows names its `sub_account_id`, then the exact subjects.
 *
 * Liquidity: a Fill's maker/taker comes only from the execution. An order record that reports more
 * filled than the executions the store has applied is held up to `execWaitMs` for them, so the Fill
 * the strategy gets is the execution's (maker/taker known), not a quantity derived from the cumulative
 * record; only a trade that never comes within the grace leaves a derived fill (liquidity unknown).
 *
 * Silence: the venue publishes an order's New on its creation (§6.4 lists New), so an HFT create
 * acknowledged while the stream is trusted (`expectEcho`) must show up on it within `echoTimeoutMs`;
 * when it does not, the stream is silent although its connection is up: the connection is restarted
 * (down → polling at once → reconnect → reconcile → trusted). Any message naming the order counts,
 * also one that came before the create answer: the ids of the last `ECHO_SEEN_IDS` own orders the
 * stream delivered are kept (a ring, `RecentIds`), and an ack whose order is among them awaits
 * nothing. Credentials: each timed refresh rolls the connection onto the new one before the old
 * expires; a refused one is dropped and re-fetched.
 */
import { Source } from "../../orders/index.js";
import type { OrderFeed } from "../feed.js";
import type { BackoffOptions, StreamStateListener } from "../socketStream.js";
import { connectFields, type NatsAuthMode } from "./auth.js";
import type { SocketCredentials } from "./credentials.js";
import { NatsStream } from "./natsStream.js";
import { RecentIds } from "./recentIds.js";

export const HFT_PRIVATE_PREFIX = "v1.f.ex1.private.subAccountId";
/** The venue's NATS WebSocket endpoint (§6.4). */
export const HFT_NATS_URL = "wss://pc-nats-prod.coinswitch.co";
/**
 * Own orders the stream delivered that the echo check remembers: a message that beat its create
 * answer is still found when the answer is read up to this many other orders later (at 30,000
 * orders/s, an answer 270 ms behind its stream record).
 */
export const ECHO_SEEN_IDS = 8_192;

export function privateSubjects(subAccountId: string | undefined): string[] {
  const id = subAccountId === undefined || subAccountId === "" ? "*" : subAccountId;
  return [`${HFT_PRIVATE_PREFIX}.${id}.order`, `${HFT_PRIVATE_PREFIX}.${id}.trade`];
}

export interface HftPrivateOptions {
  url: string;
  feed: OrderFeed;
  credentials: SocketCredentials;
  authMode?: NatsAuthMode;
  /** Known sub-account id; empty/undefined = learn it from the first own payload. */
  subAccountId?: string;
  /** Hold an order record ahead of its executions at most this long (ms). 0 = never hold. Default 250. */
  execWaitMs?: number;
  /** An order acked while trusted must appear on the stream within this long (ms), else the stream is silent. 0 = off. Default 5,000. */
  echoTimeoutMs?: number;
  listener?: StreamStateListener;
  staleMs?: number;
  backoff?: BackoffOptions;
  onError?: (err: Error) => void;
  /** The sub-account id was learned (for the log). */
  onSubAccount?: (id: string) => void;
}

export interface HftPrivateStats {
  orders: number;
  trades: number;
  malformed: number;
  /** Records of orders this gateway does not hold (other sessions of the sub-account, old orders). */
  foreign: number;
  held: number;
  releasedByTrade: number;
  releasedByTimeout: number;
  /** Acked orders the stream never showed within `echoTimeoutMs` (each restarted the connection). */
  silentTrips: number;
  /** Acks (while trusted) of orders the stream had already shown before their create answer. */
  echoesAhead: number;
  /** Venue timestamp → receipt (ms), last message. */
  lastLagMs: number;
}

type Rec = Record<string, unknown>;

export class HftPrivateStream {
  readonly transport: NatsStream;
  readonly stats: HftPrivateStats = {
    orders: 0,
    trades: 0,
    malformed: 0,
    foreign: 0,
    held: 0,
    releasedByTrade: 0,
    releasedByTimeout: 0,
    silentTrips: 0,
    echoesAhead: 0,
    lastLagMs: 0,
  };
  private subAccount: string | undefined;
  private readonly dec = new TextDecoder();
  private readonly held = new Map<string, { rec: Rec; timer: NodeJS.Timeout }>();
  /** Exchange order id → deadline (ms) of its first message (acked while trusted, not yet seen). */
  private readonly echoes = new Map<string, number>();
  /** Link id → exchange order id of the awaited echoes: a message naming only the link id clears too. */
  private readonly echoLinks = new Map<string, string>();
  private echoTimer: NodeJS.Timeout | undefined;
  /** Order ids (link ids when a record has none) of own orders the stream delivered lately. */
  private readonly seen: RecentIds | undefined;

  constructor(private readonly o: HftPrivateOptions) {
    this.subAccount = o.subAccountId || undefined;
    if ((o.echoTimeoutMs ?? 5_000) > 0) this.seen = new RecentIds(ECHO_SEEN_IDS);
    const mode = o.authMode ?? "userPass";
    this.transport = new NatsStream({
      name: "hft.private",
      url: o.url,
      subjects: privateSubjects(this.subAccount),
      auth: async () => connectFields(mode, await o.credentials.get()),
      onMessage: (subject, data) => this.onMessage(subject, data),
      listener: {
        onUp: (n, r) => o.listener?.onUp(n, r),
        onDown: (n, reason) => {
          this.releaseAll();
          this.clearEchoes();
          o.listener?.onDown(n, reason);
        },
      },
      staleMs: o.staleMs,
      backoff: o.backoff,
      onError: o.onError,
      // A refused credential is never presented again: the next attempt fetches a fresh one.
      onAuthRefused: () => o.credentials.invalidate(),
    });
    // A timed refresh: move the connection onto the new credential before the old one expires.
    o.credentials.onRenewed(() => void this.transport.roll());
  }

  get up(): boolean {
    return this.transport.up;
  }

  /** Credential fetches and failures (no values). */
  get credentialStats(): { fetches: number; failures: number } {
    return this.o.credentials.stats;
  }

  get subAccountId(): string | undefined {
    return this.subAccount;
  }

  start(): void {
    this.o.credentials.start();
    this.transport.start();
  }

  async stop(): Promise<void> {
    this.o.credentials.stop();
    await this.transport.stop();
    this.releaseAll();
    this.clearEchoes();
  }

  /**
   * An HFT create was acknowledged while the stream is trusted: a message naming the order must come
   * on the stream, unless one already came (before the create answer).
   */
  expectEcho(orderId: string, linkId = ""): void {
    const ms = this.o.echoTimeoutMs ?? 5_000;
    if (ms <= 0 || orderId === "" || !this.transport.up) return;
    if (this.seen !== undefined && (this.seen.has(orderId) || this.seen.has(linkId))) {
      this.stats.echoesAhead++;
      return;
    }
    this.echoes.set(orderId, Date.now() + ms);
    if (linkId !== "") this.echoLinks.set(linkId, orderId);
    if (this.echoTimer === undefined) {
      this.echoTimer = setInterval(() => this.checkEchoes(), Math.max(10, Math.min(250, ms / 4)));
      this.echoTimer.unref();
    }
  }

  private checkEchoes(): void {
    const now = Date.now();
    // One timeout for all: insertion order is deadline order, so the first not overdue ends the scan.
    for (const [id, deadline] of this.echoes) {
      if (deadline > now) break;
      this.stats.silentTrips++;
      this.clearEchoes();
      this.o.onError?.(
        new Error(
          `${this.transport.name}: silent: order ${id}, acknowledged ${this.o.echoTimeoutMs ?? 5_000} ms ago, never appeared on the stream; reconnecting`,
        ),
      );
      void this.transport.restart("silent");
      return;
    }
    if (this.echoes.size === 0) this.clearEchoes();
  }

  private clearEchoes(): void {
    this.echoes.clear();
    this.echoLinks.clear();
    if (this.echoTimer !== undefined) clearInterval(this.echoTimer);
    this.echoTimer = undefined;
  }

  private onMessage(subject: string, data: Uint8Array): void {
    let payload: unknown;
    try {
      payload = JSON.parse(this.dec.decode(data));
    } catch {
      this.stats.malformed++;
      return;
    }
    const trade = subject.endsWith(".trade");
    if (!trade && !subject.endsWith(".order")) return;
    const body = isRec(payload) && payload.data !== undefined ? payload.data : payload;
    if (Array.isArray(body)) for (const r of body) this.record(r, trade);
    else this.record(body, trade);
  }

  private record(r: unknown, trade: boolean): void {
    if (!isRec(r)) {
      this.stats.malformed++;
      return;
    }
    const feed = this.o.feed;
    const orderId = typeof r.orderId === "string" ? r.orderId : "";
    const linkId = typeof r.orderLinkId === "string" ? r.orderLinkId : "";
    if (this.echoes.size > 0) this.echoSeen(orderId, linkId);
    if (!feed.knows(linkId, orderId)) {
      this.stats.foreign++;
      return;
    }
    // Remembered for an ack still to come (the stream may beat the create answer).
    this.seen?.add(orderId !== "" ? orderId : linkId);
    this.learn(r.sub_account_id);
    const ts = Number(trade ? r.execTime : r.updatedTime);
    if (ts > 0) this.stats.lastLagMs = Date.now() - ts;
    if (trade) {
      this.stats.trades++;
      if (feed.v5Execution(r, Source.Stream) === undefined) return;
      const h = this.held.get(orderId);
      if (h !== undefined && !this.ahead(h.rec)) {
        this.stats.releasedByTrade++;
        this.release(orderId);
      }
      return;
    }
    this.stats.orders++;
    const wait = this.o.execWaitMs ?? 250;
    if (wait > 0 && orderId !== "" && this.ahead(r)) {
      const prev = this.held.get(orderId);
      if (prev !== undefined) {
        prev.rec = r; // records are cumulative: the newest one says everything the older did
        return;
      }
      this.stats.held++;
      const timer = setTimeout(() => {
        this.stats.releasedByTimeout++;
        this.release(orderId);
      }, wait);
      this.held.set(orderId, { rec: r, timer });
      return;
    }
    this.o.feed.v5Order(r, Source.Stream);
  }

  /** A message named an order whose echo is awaited: no longer awaited. */
  private echoSeen(orderId: string, linkId: string): void {
    const id = orderId !== "" ? orderId : (this.echoLinks.get(linkId) ?? "");
    if (this.echoes.delete(id) && linkId !== "") this.echoLinks.delete(linkId);
    if (this.echoes.size === 0) this.echoLinks.clear();
  }

  /** Does the record report more filled than the executions the store has applied? */
  private ahead(r: Rec): boolean {
    const p = this.o.feed.v5Progress(r);
    return p !== undefined && p.cumLots > p.execLots;
  }

  private release(orderId: string): void {
    const h = this.held.get(orderId);
    if (h === undefined) return;
    clearTimeout(h.timer);
    this.held.delete(orderId);
    this.o.feed.v5Order(h.rec, Source.Stream);
  }

  private releaseAll(): void {
    for (const id of [...this.held.keys()]) this.release(id);
  }

  private learn(id: unknown): void {
    if (this.subAccount !== undefined) return;
    if (typeof id !== "string" && typeof id !== "number") return;
    const s = String(id);
    if (s === "" || /[\s.*>]/.test(s)) return; // not a usable subject token
    this.subAccount = s;
    this.transport.setSubjects(privateSubjects(s));
    this.o.onSubAccount?.(s);
  }
}

function isRec(v: unknown): v is Rec {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
