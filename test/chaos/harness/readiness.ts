/**
 * Readiness scenarios from the outside: steady order traffic on both surfaces through a strategy
 * (resting buys, each cancelled once acked), what each order was answered and when, the trading-state
 * frames every session receives, and `/health` sampled meanwhile. The figures per surface (orders
 * refused, time refused, the longest answer, when trading resumed after the venue recovered, time in
 * reducing) come from these records only, so the same code measures any build of the gateway.
 */
import { request } from "undici";
import { TradingStateValue } from "../../../src/protocol/schema.js";
import type { Strategy } from "./strategy.js";
import { sleep } from "./venue.js";

export type Side = "spot" | "hft";

/** Resting buys well below the venue's prices (no counterparty: nothing fills). */
export const RESTING = {
  spot: { priceTicks: 5_200_000, qtyLots: 100 },
  hft: { priceTicks: 310_000, qtyLots: 5 },
};

export interface Placed {
  surface: Side;
  clOrdNo: number;
  sentMs: number;
  /** Wall-clock ms of the first answer (Ack or Reject); 0 = none yet. */
  answerMs: number;
  acked: boolean;
  rejectCode: number;
  rejectText: string;
  retryable: boolean;
}

export interface SurfaceFigures {
  placed: number;
  acked: number;
  refused: number;
  unanswered: number;
  /** First to last refusal (ms); 0 when none. */
  refusedMs: number;
  /** The longest send → Ack (ms). */
  maxAckMs: number;
  /**
   * From the venue's recovery to the first order sent after it that, like every later order of the
   * surface, was acked within `fastMs` (ms); -1 when that never happened.
   */
  resumeMs: number;
}

/** Places one resting order per surface on a schedule and records every answer. */
export class Traffic {
  readonly orders: Placed[] = [];
  private readonly byNo = new Map<number, Placed>();
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly s: Strategy,
    private readonly ids: { spot: number; hft: number },
  ) {
    s.client.on("ack", (b) => {
      const p = this.byNo.get(b.clOrdNo);
      if (p === undefined || p.answerMs !== 0) return;
      p.answerMs = Date.now();
      p.acked = true;
      // Cancelled once acked: the open lists stay short, the balance stays free.
      s.cancel(b.clOrdNo);
    });
    s.client.on("reject", (b) => {
      const p = this.byNo.get(b.clOrdNo);
      if (p === undefined || p.answerMs !== 0) return;
      p.answerMs = Date.now();
      p.rejectCode = b.code;
      p.rejectText = b.text;
      p.retryable = b.retryable === 1;
    });
  }

  place(surface: Side): Placed {
    const px = RESTING[surface];
    const n = this.s.place(this.ids[surface], "buy", px.priceTicks, px.qtyLots);
    const p: Placed = {
      surface,
      clOrdNo: n,
      sentMs: Date.now(),
      answerMs: 0,
      acked: false,
      rejectCode: 0,
      rejectText: "",
      retryable: false,
    };
    this.orders.push(p);
    this.byNo.set(n, p);
    return p;
  }

  /** Every `tickMs`: an HFT order; every `spotEvery`-th tick a Spot order too. */
  start(tickMs: number, spotEvery: number): void {
    this.running = true;
    this.loop = (async () => {
      for (let i = 0; this.running; i++) {
        this.place("hft");
        if (i % spotEvery === 0) this.place("spot");
        await sleep(tickMs);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Resolves once every order placed has its first answer (or after `ms`). */
  async answered(ms: number): Promise<void> {
    const end = Date.now() + ms;
    while (this.orders.some((p) => p.answerMs === 0) && Date.now() < end) await sleep(20);
  }

  figures(surface: Side, recoveredMs: number, fastMs = 250): SurfaceFigures {
    const list = this.orders.filter((p) => p.surface === surface);
    const refused = list.filter((p) => p.answerMs !== 0 && !p.acked);
    let resumeMs = -1;
    for (let i = list.length - 1; i >= 0; i--) {
      const p = list[i]!;
      if (!p.acked || p.answerMs - p.sentMs > fastMs) break;
      if (p.sentMs >= recoveredMs) resumeMs = p.sentMs - recoveredMs;
    }
    return {
      placed: list.length,
      acked: list.filter((p) => p.acked).length,
      refused: refused.length,
      unanswered: list.filter((p) => p.answerMs === 0).length,
      refusedMs: refused.length === 0 ? 0 : refused.at(-1)!.sentMs - refused[0]!.sentMs,
      maxAckMs: Math.max(0, ...list.filter((p) => p.acked).map((p) => p.answerMs - p.sentMs)),
      resumeMs,
    };
  }
}

/** Trading-state frames as one session sees them. */
export class StateLog {
  readonly changes: Array<{ atMs: number; state: number; text: string }> = [];
  constructor(s: Strategy) {
    s.client.on("tradingState", (b) => {
      if (b.instrumentId === 0) this.changes.push({ atMs: Date.now(), state: b.state, text: b.text });
    });
  }

  /** Time spent in a state other than active, until `endMs`; `healed`: active again at the end. */
  notActive(endMs: number): { ms: number; healed: boolean; entered: number } {
    let ms = 0;
    let since = -1;
    let entered = 0;
    for (const c of this.changes) {
      if (c.state !== TradingStateValue.Active && since < 0) {
        since = c.atMs;
        entered++;
      } else if (c.state === TradingStateValue.Active && since >= 0) {
        ms += c.atMs - since;
        since = -1;
      }
    }
    if (since >= 0) ms += endMs - since;
    return { ms, healed: since < 0, entered };
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the /health JSON
export type Health = { httpStatus: number; body: any; atMs: number };

/** `/health`, sampled every `everyMs` until stopped. */
export class HealthLog {
  readonly samples: Health[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly httpUrl: string,
    everyMs = 100,
  ) {
    this.loop = (async () => {
      while (this.running) {
        try {
          this.samples.push(await health(this.httpUrl));
        } catch {
          // the gateway restarting or stopping: no sample
        }
        await sleep(everyMs);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

export async function health(httpUrl: string): Promise<Health> {
  const r = await request(`${httpUrl}/health`);
  return { httpStatus: r.statusCode, body: await r.body.json(), atMs: Date.now() };
}
