/**
 * GET /admin/state: what an operator's view (`hftgate top`) shows of a running gateway, as JSON:
 * sessions, live orders per session (the orphans' too: venue orders the gateway adopted), recent
 * fills and rejects, per-stage latency, rate-limit credit, trading state and feed health (the /health
 * detail). It names other sessions' orders, so it answers
 * only to the admin token (`Authorization: Bearer <adminToken>`); it never carries a token or key.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { HttpReply } from "../gateway/engineApi.js";
import type { FrameTap, Gateway } from "../gateway/gateway.js";
import { LIMIT_CLASSES, type RateLimiter } from "../limits/index.js";
import { STATUS_NAMES, TERMINAL } from "../orders/index.js";
import { monoNs } from "../orders/order.js"; // the store's clock
import { decodeG2C } from "../protocol/codec.js";
import { LogonOptions } from "../protocol/schema.js";
import type { Engine } from "./engine.js";
import type { InstrumentBook } from "./instruments.js";
import type { EngineMetrics, Stage } from "./metrics.js";
import { ORPHAN_OWNER } from "./owners.js";

/** Recent fills and rejects kept for the view. */
const RECENT = 20;
/** Live orders listed (the count per session is always complete). */
const MAX_ORDERS = 200;

export interface AdminViewParts {
  engine: Engine;
  gateway: () => Gateway | undefined;
  instruments: InstrumentBook;
  metrics: EngineMetrics;
  limiter: RateLimiter | undefined;
  adminToken: string;
}

interface Recent {
  atMs: number;
  session: string;
  clOrdNo: number;
  text: string;
}

/** Stage label (as in /metrics) -> its histogram on EngineMetrics. */
const STAGE_FIELDS: readonly (readonly [
  Stage,
  "decode" | "risk" | "assembly" | "exchangeRtt" | "ackToStrategy" | "streamToStrategy",
])[] = [
  ["decode", "decode"],
  ["risk", "risk"],
  ["assembly", "assembly"],
  ["exchange_rtt", "exchangeRtt"],
  ["ack_to_strategy", "ackToStrategy"],
  ["stream_to_strategy", "streamToStrategy"],
];

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest();

export class AdminView {
  private readonly fills: Recent[] = [];
  private readonly rejects: Recent[] = [];
  private readonly digest: Buffer;

  constructor(private readonly p: AdminViewParts) {
    this.digest = sha(`Bearer ${p.adminToken}`);
  }

  /** Wraps the gateway's frame tap (if any) to keep the last fills and rejects; other frames pass untouched. */
  tap(next: FrameTap | undefined): FrameTap {
    return (session, name, frame) => {
      if (name === "Fill" || name === "Reject") this.see(session?.name ?? "", frame);
      next?.(session, name, frame);
    };
  }

  private see(session: string, frame: Uint8Array): void {
    const m = decodeG2C(frame);
    const atMs = Date.now();
    if (m.name === "Fill") {
      const b = m.body;
      const e = this.p.instruments.byId(b.instrumentId);
      const what = e
        ? `${e.inst.symbol} ${b.side === 1 ? "buy" : "sell"} ${e.qty.format(b.qtyLots)} @ ${e.price.format(b.priceTicks)}`
        : `instrument ${b.instrumentId}`;
      push(this.fills, { atMs, session, clOrdNo: b.clOrdNo, text: `${what}${liq(b.liquidity)}` });
    } else if (m.name === "Reject") {
      const b = m.body;
      push(this.rejects, { atMs, session, clOrdNo: b.clOrdNo, text: `${b.code} ${b.text}` });
    }
  }

  /** The route: 401 without the admin token, else the snapshot with `health` (the /health detail). */
  reply(authorization: string | undefined, health: Record<string, unknown>): HttpReply {
    const given = sha(authorization ?? "");
    if (!timingSafeEqual(given, this.digest)) {
      return { status: 401, contentType: "application/json", body: '{"error":"admin token required"}' };
    }
    return { contentType: "application/json", body: JSON.stringify(this.snapshot(health)) };
  }

  snapshot(health: Record<string, unknown>): Record<string, unknown> {
    const { engine, instruments, metrics, limiter } = this.p;
    const sessions = (this.p.gateway()?.sessions() ?? []).map((s) => ({
      id: s.sessionId,
      name: s.name,
      connected: s.connected,
      admin: s.admin,
      cancelOnDisconnect: s.codPolicy === 1,
      noPendingUpdates: (s.options & LogonOptions.NoPendingUpdates) !== 0,
      liveOrders: 0,
    }));
    const byOwner = new Map(sessions.map((s) => [engine.owners.ownerOf(s.name), s]));
    const orders: Record<string, unknown>[] = [];
    const now = Date.now();
    for (const o of engine.store.liveSet()) {
      if (TERMINAL[o.status]) continue;
      const s = byOwner.get(o.sessionId);
      if (s) s.liveOrders++;
      if (orders.length >= MAX_ORDERS) continue;
      const e = instruments.byId(o.instrumentId);
      orders.push({
        session: s?.name ?? engine.owners.ownerName(o.sessionId),
        clOrdNo: o.clientOrderNo,
        symbol: o.symbol,
        side: o.side,
        price: e ? e.price.format(o.priceTicks) : String(o.priceTicks),
        qty: e ? e.qty.format(o.qtyLots) : String(o.qtyLots),
        filled: e ? e.qty.format(o.filledLots) : String(o.filledLots),
        status: STATUS_NAMES[o.status],
        exchangeId: o.exchangeId,
        ageMs: o.receivedNs > 0 ? Math.round((monoNs() - o.receivedNs) / 1e6) : 0,
      });
    }
    const stages: Record<string, unknown> = {};
    for (const [st, field] of STAGE_FIELDS) {
      const h = metrics[field];
      stages[st] = { count: h.count, p50_us: h.quantileNs(0.5) / 1e3, p99_us: h.quantileNs(0.99) / 1e3 };
    }
    const credit: Record<string, number> = {};
    if (limiter) for (const c of LIMIT_CLASSES) credit[c] = limiter.credit(c);
    return {
      at: new Date(now).toISOString(),
      health,
      sessions,
      orphans: engine.store.liveOrders(ORPHAN_OWNER).length,
      orders,
      ordersShown: orders.length,
      fills: this.fills.slice().reverse(),
      rejects: this.rejects.slice().reverse(),
      stages,
      credit,
    };
  }
}

function push(ring: Recent[], r: Recent): void {
  ring.push(r);
  if (ring.length > RECENT) ring.shift();
}

function liq(l: number): string {
  return l === 1 ? " (maker)" : l === 2 ? " (taker)" : "";
}
