/**
 * Background order traffic for the latency-under-load measurement: `rate` commands per second through
 * one GatewayClient session, paced on a 1 ms timer (at most a few commands per tick, as a quoting
 * strategy sends them). Every `spotEvery`-th command is a Spot command (a create, or a cancel of the
 * oldest acked Spot order once more than `resting` rest), for a venue whose order stream the gateway
 * consumes (each create and cancel comes back as stream records); the others are HFT creates.
 */
import type { GatewayClient } from "../../src/client/client.js";
import { OrderStatus } from "../../src/protocol/schema.js";
import type { OrderTemplate } from "./orderLoad.js";

export interface BackgroundCounts {
  commands: number;
  creates: number;
  cancels: number;
  acks: number;
  rejects: number;
  unknowns: number;
  /** Commands not sent because too many creates were unanswered. */
  skipped: number;
  cancelled: number;
  cancelRejects: number;
  first_reject: string;
  /** Set when the session's connection closed during the load (code and reason). */
  closed: string;
  seconds: number;
  commands_per_s: number;
}

export class BackgroundLoad {
  private timer: NodeJS.Timeout | undefined;
  private readonly live: number[] = [];
  private readonly spotNos = new Set<number>();
  private head = 0;
  private t0 = 0;
  private readonly c = {
    commands: 0,
    creates: 0,
    cancels: 0,
    acks: 0,
    rejects: 0,
    unknowns: 0,
    skipped: 0,
    cancelled: 0,
    cancelRejects: 0,
    first_reject: "",
    closed: "",
  };

  constructor(
    private readonly client: GatewayClient,
    private readonly hftTpl: OrderTemplate,
    private readonly spotTpl: OrderTemplate,
    private readonly rate: number,
    private readonly spotEvery = 10,
    private readonly resting = 20,
    private readonly maxOutstanding = 64,
  ) {
    client.on("ack", (b) => {
      this.c.acks++;
      if (this.spotNos.delete(b.clOrdNo)) this.live.push(b.clOrdNo);
    });
    client.on("reject", (b) => {
      this.c.rejects++;
      if (this.c.first_reject === "") this.c.first_reject = b.text;
    });
    client.on("unknown", (b) => {
      this.c.unknowns++;
      if (this.c.first_reject === "") this.c.first_reject = `unknown: ${b.text}`;
    });
    client.on("update", (b) => {
      if (b.status === OrderStatus.Cancelled) this.c.cancelled++;
    });
    client.on("close", (code, reason) => {
      this.c.closed = `${code} ${reason}`;
      this.stopTimer();
    });
    client.on("cancelReject", (b) => {
      this.c.cancelRejects++;
      if (this.c.first_reject === "") this.c.first_reject = `cancel: ${b.text}`;
    });
  }

  start(): void {
    this.t0 = performance.now();
    const maxPerTick = Math.max(1, Math.ceil(this.rate / 250));
    this.timer = setInterval(() => {
      const due = Math.floor(((performance.now() - this.t0) * this.rate) / 1000) - this.c.commands;
      for (let k = 0; k < due && k < maxPerTick; k++) {
        // A gateway that falls behind is not buried: past `maxOutstanding` unanswered creates the
        // command is skipped (counted), so the figures say what rate it actually carried.
        if (this.c.creates - this.c.acks - this.c.rejects - this.c.unknowns > this.maxOutstanding) {
          this.c.commands++;
          this.c.skipped++;
          continue;
        }
        this.one();
      }
    }, 1);
  }

  private one(): void {
    this.c.commands++;
    if (this.c.commands % this.spotEvery !== 0) {
      this.c.creates++;
      this.place(this.hftTpl);
      return;
    }
    if (this.live.length - this.head > this.resting) {
      this.c.cancels++;
      this.client.cancel(this.live[this.head++]!);
      if (this.head > 4096) {
        this.live.splice(0, this.head);
        this.head = 0;
      }
      return;
    }
    this.c.creates++;
    this.spotNos.add(this.place(this.spotTpl));
  }

  private place(t: OrderTemplate): number {
    return this.client.placeOrder({
      instrumentId: t.instrumentId,
      side: t.side,
      priceTicks: t.priceTicks,
      qtyLots: t.qtyLots,
    });
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  stop(): BackgroundCounts {
    this.stopTimer();
    const seconds = (performance.now() - this.t0) / 1000;
    return {
      ...this.c,
      seconds: Math.round(seconds * 100) / 100,
      commands_per_s: Math.round((this.c.commands - this.c.skipped) / seconds),
    };
  }
}
