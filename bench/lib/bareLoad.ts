/**
 * The strategy side of the bare-forwarder floor: NewOrder and Cancel frames on a `ws` client (the
 * transport GatewayClient uses), answers matched by clOrdNo, timed like the gateway's orders (one at a
 * time, or a window in flight). The answer's header timestamps split the total into the same legs.
 */
import type { RecordableHistogram } from "node:perf_hooks";
import WebSocket from "ws";
import { encodeC2G, readU53 } from "../../src/protocol/codec.js";
import { WS_PATH } from "../../src/protocol/schema.js";
import type { LegHistograms, OrderTemplate } from "./orderLoad.js";
import { type LatencySummary, newHistogram, recordNs, summarize } from "./stats.js";

const T_ACK = 0x43;
const T_UPDATE = 0x45;
/** clOrdNo right after the 32-byte gateway → client header in both Ack and OrderUpdate. */
const CLORD_AT = 32;
/** Ack.exchangeOrderId: after clOrdNo (u64) and instrumentId (u32). */
const ACK_ID_AT = 44;
const ID_LEN = 40;

function monoNs(): number {
  return Number(process.hrtime.bigint());
}

export class BareDriver {
  answers = 0;
  private nextNo = 1;
  private readonly sentAt = new Map<number, number>();
  private onAnswer: ((no: number, frame: Buffer) => void) | undefined;

  private constructor(
    private readonly ws: WebSocket,
    private readonly tpl: OrderTemplate,
  ) {
    ws.on("message", (d: Buffer) => {
      if (d[1] !== T_ACK && d[1] !== T_UPDATE) return;
      this.answers++;
      this.onAnswer?.(readU53(d, CLORD_AT), d);
    });
  }

  static async open(port: number, tpl: OrderTemplate): Promise<BareDriver> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${WS_PATH}`, { perMessageDeflate: false });
    ws.binaryType = "nodebuffer";
    await new Promise<void>((r, j) => {
      ws.once("open", () => r());
      ws.once("error", j);
    });
    return new BareDriver(ws, tpl);
  }

  close(): void {
    this.ws.terminate();
  }

  private place(): number {
    const no = this.nextNo++;
    const t = this.tpl;
    this.sentAt.set(no, monoNs());
    this.ws.send(
      encodeC2G("NewOrder", {
        clOrdNo: no,
        instrumentId: t.instrumentId,
        side: t.side,
        ordType: 1,
        tif: 1,
        positionIdx: 0,
        priceTicks: t.priceTicks,
        qtyLots: t.qtyLots,
        flags: 0,
      }),
    );
    return no;
  }

  /** `n` orders one after another, legs recorded into `h` when given. */
  async sequential(n: number, h?: LegHistograms): Promise<void> {
    for (let i = 0; i < n; i++) {
      const [no, f] = await this.one(() => this.place());
      const at = monoNs();
      const sent = this.sentAt.get(no)!;
      this.sentAt.delete(no);
      if (h) {
        const recv = readU53(f, 16);
        const out = readU53(f, 24);
        recordNs(h.total, at - sent);
        recordNs(h.toGateway, recv - sent);
        recordNs(h.inGateway, out - recv);
        recordNs(h.fromGateway, at - out);
      }
    }
  }

  /** Create (untimed) then Cancel → OrderUpdate timed, `n` times. */
  async sequentialCancels(n: number, h?: RecordableHistogram): Promise<void> {
    for (let i = 0; i < n; i++) {
      const [no, ack] = await this.one(() => this.place());
      this.sentAt.delete(no);
      const id = ack.subarray(ACK_ID_AT, ACK_ID_AT + ID_LEN);
      const t0 = monoNs();
      await this.one(() => {
        this.ws.send(encodeC2G("Cancel", { clOrdNo: no, exchangeOrderId: zstr(id) }));
        return no;
      });
      if (h) recordNs(h, monoNs() - t0);
    }
  }

  /** `n` orders, `window` unanswered at any time: answers per second and latency under that load. */
  async windowed(
    n: number,
    window: number,
  ): Promise<{ per_s: number; latency: LatencySummary; acks: number }> {
    const h = newHistogram();
    let sent = 0;
    let answered = 0;
    const a0 = this.answers;
    const t0 = process.hrtime.bigint();
    await new Promise<void>((done) => {
      this.onAnswer = (no) => {
        const s = this.sentAt.get(no);
        if (s !== undefined) {
          this.sentAt.delete(no);
          recordNs(h, monoNs() - s);
        }
        if (++answered === n) return done();
        if (sent < n) {
          sent++;
          this.place();
        }
      };
      for (const first = Math.min(window, n); sent < first; ) {
        sent++;
        this.place();
      }
    });
    this.onAnswer = undefined;
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    return { per_s: Math.round(n / secs), latency: summarize(h), acks: this.answers - a0 };
  }

  private one(send: () => number): Promise<[number, Buffer]> {
    return new Promise((done) => {
      let want = -1;
      this.onAnswer = (no, f) => {
        if (no !== want) return;
        this.onAnswer = undefined;
        done([no, Buffer.from(f)]);
      };
      want = send();
    });
  }
}

function zstr(b: Buffer): string {
  const z = b.indexOf(0);
  return b.toString("latin1", 0, z < 0 ? b.length : z);
}
