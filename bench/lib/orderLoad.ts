/**
 * Order load through the gateway with the TypeScript client: one order at a time (latency) or a
 * window of orders in flight (throughput). Latency is the client's own trace: NewOrder written →
 * first answer (Ack, Reject or OutcomeUnknown) decoded; the gateway's header timestamps split it into
 * strategy→gateway, inside the gateway (incl. the exchange round trip) and gateway→strategy.
 */
import type { RecordableHistogram } from "node:perf_hooks";
import type { GatewayClient } from "../../src/client/client.js";
import { monoNs } from "../../src/protocol/clock.js";
import type { G2CHeader } from "../../src/protocol/codec.js";
import { type Body, OrderStatus } from "../../src/protocol/schema.js";
import { type LatencySummary, newHistogram, recordNs, summarize } from "./stats.js";

export interface OrderTemplate {
  instrumentId: number;
  side: number;
  priceTicks: number;
  qtyLots: number;
}

export interface Answers {
  acks: number;
  rejects: number;
  unknowns: number;
  /** First reject text seen (why, when something went wrong). */
  firstReject: string;
  /** Orders reported Cancelled, and cancels refused (CancelReject). */
  cancelled: number;
  cancelRejects: number;
}

/** Histograms of one sequential measurement: total, and the three legs. */
export class LegHistograms {
  readonly total = newHistogram();
  readonly toGateway = newHistogram();
  readonly inGateway = newHistogram();
  readonly fromGateway = newHistogram();

  summary(): Record<string, LatencySummary> {
    return {
      total: summarize(this.total),
      strategy_to_gateway: summarize(this.toGateway),
      inside_gateway: summarize(this.inGateway),
      gateway_to_strategy: summarize(this.fromGateway),
    };
  }
}

type Answer = Body<"Ack"> | Body<"Reject"> | Body<"OutcomeUnknown">;

export class OrderDriver {
  readonly answers: Answers = {
    acks: 0,
    rejects: 0,
    unknowns: 0,
    firstReject: "",
    cancelled: 0,
    cancelRejects: 0,
  };
  private onAnswer: ((clOrdNo: number) => void) | undefined;
  /** Called with the clOrdNo of an order reported Cancelled, or whose cancel was refused. */
  private onCancelDone: ((clOrdNo: number) => void) | undefined;

  constructor(
    private readonly client: GatewayClient,
    private readonly tpl: OrderTemplate,
  ) {
    client.on("ack", (b: Answer, h: G2CHeader) => this.answered(b, h, 0));
    client.on("reject", (b: Body<"Reject">, h: G2CHeader) => this.answered(b, h, 1));
    client.on("unknown", (b: Answer, h: G2CHeader) => this.answered(b, h, 2));
    client.on("update", (b: Body<"OrderUpdate">) => {
      if (b.status !== OrderStatus.Cancelled) return;
      this.answers.cancelled++;
      this.onCancelDone?.(b.clOrdNo);
    });
    client.on("cancelReject", (b: Body<"CancelReject">) => {
      this.answers.cancelRejects++;
      if (this.answers.firstReject === "") this.answers.firstReject = `cancel: ${b.text}`;
      this.onCancelDone?.(b.clOrdNo);
    });
  }

  private answered(b: Answer, _h: G2CHeader, kind: number): void {
    if (kind === 0) this.answers.acks++;
    else if (kind === 1) {
      this.answers.rejects++;
      if (this.answers.firstReject === "") this.answers.firstReject = (b as Body<"Reject">).text;
    } else this.answers.unknowns++;
    this.onAnswer?.(b.clOrdNo);
  }

  /** Places one order and resolves with its clOrdNo once it is answered (Ack, Reject or OutcomeUnknown). */
  private placeOne(tpl: OrderTemplate): Promise<number> {
    return new Promise<number>((done) => {
      this.onAnswer = done;
      this.place(tpl);
    });
  }

  private place(t: OrderTemplate = this.tpl): number {
    return this.client.placeOrder({
      instrumentId: t.instrumentId,
      side: t.side,
      priceTicks: t.priceTicks,
      qtyLots: t.qtyLots,
    });
  }

  /** `n` orders one after another; each waits for its answer. Records into `h` when given. */
  async sequential(n: number, h?: LegHistograms, tpl: OrderTemplate = this.tpl): Promise<void> {
    for (let i = 0; i < n; i++) {
      const no = await this.placeOne(tpl);
      if (h) {
        const t = this.client.trace(no)!;
        recordNs(h.total, t.answerNs - t.sendNs);
        recordNs(h.toGateway, t.gwRecvNs - t.sendNs);
        recordNs(h.inGateway, t.gwSendNs - t.gwRecvNs);
        recordNs(h.fromGateway, t.answerNs - t.gwSendNs);
      }
    }
    this.onAnswer = undefined;
  }

  /**
   * `n` orders with up to `window` unanswered at any time; a new order goes out as each answer
   * arrives. Returns answers per second and the per-order latency under that load.
   */
  async windowed(
    n: number,
    window: number,
    tpl: OrderTemplate = this.tpl,
    acked?: number[],
  ): Promise<{ per_s: number; latency: LatencySummary }> {
    const h: RecordableHistogram = newHistogram();
    let sent = 0;
    let answered = 0;
    const t0 = process.hrtime.bigint();
    await new Promise<void>((done) => {
      this.onAnswer = (no) => {
        const t = this.client.trace(no);
        if (t) {
          recordNs(h, t.answerNs - t.sendNs);
          if (acked !== undefined && t.answer === "Ack") acked.push(no);
        }
        if (++answered === n) return done();
        if (sent < n) {
          sent++;
          this.place(tpl);
        }
      };
      const first = Math.min(window, n);
      for (; sent < first; ) {
        sent++;
        this.place(tpl);
      }
    });
    this.onAnswer = undefined;
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    return { per_s: Math.round(n / secs), latency: summarize(h) };
  }

  /**
   * Cancels measured like creates: places an order with `tpl` (untimed, waits for its Ack), then
   * times Cancel written → OrderUpdate Cancelled (or CancelReject) decoded, `n` times.
   */
  async sequentialCancels(n: number, tpl: OrderTemplate, h?: RecordableHistogram): Promise<void> {
    for (let i = 0; i < n; i++) {
      // Placed and awaited without a histogram of its own: one per order (native memory, freed by the
      // GC later) made the strategy's collector part of the timed cancels.
      const no = await this.placeOne(tpl);
      this.onAnswer = undefined;
      if (this.client.trace(no)?.answer !== "Ack")
        throw new Error(`order to cancel was not acked (${this.answers.firstReject})`);
      const t0 = monoNs();
      await new Promise<void>((done) => {
        this.onCancelDone = (c) => {
          if (c === no) done();
        };
        this.client.cancel(no);
      });
      if (h) recordNs(h, monoNs() - t0);
    }
    this.onCancelDone = undefined;
  }

  /** Cancels `live` orders with up to `window` unanswered; cancels answered per second. */
  async windowedCancels(
    live: readonly number[],
    window: number,
  ): Promise<{ per_s: number; latency: LatencySummary }> {
    const h = newHistogram();
    const sentAt = new Map<number, number>();
    const n = live.length;
    let next = 0;
    let answered = 0;
    const send = () => {
      const no = live[next++]!;
      sentAt.set(no, monoNs());
      this.client.cancel(no);
    };
    const t0 = process.hrtime.bigint();
    await new Promise<void>((done) => {
      this.onCancelDone = (no) => {
        const s = sentAt.get(no);
        if (s === undefined) return;
        sentAt.delete(no);
        recordNs(h, monoNs() - s);
        if (++answered === n) return done();
        if (next < n) send();
      };
      const first = Math.min(window, n);
      while (next < first) send();
    });
    this.onCancelDone = undefined;
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    return { per_s: Math.round(n / secs), latency: summarize(h) };
  }
}
