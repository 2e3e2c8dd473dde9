/**
 * The strategy side of the bare-forwarder floor: NewOrder and Cancel frames on a `ws` client (the
 * transport GatewayClient uses), answers matched by clOrdNo, timed like the gateway's orders (one at a
 * time, or a window in flight). The answer's header timestamps split the total into the same legs.
 *
 * The same driver also drives the gateway itself (`openGateway`: a Logon first), so that the gateway
 * and the bare forwarder are compared with identical strategy-side code. On one vCPU every process's
 * CPU is in the round trip, and GatewayClient (full decode, order book, events) costs the strategy
 * more per frame than this driver; that cost belongs to the client library, not to the gateway.
 * A create is answered by its Ack, a cancel by its OrderUpdate(Cancelled). The driver logs on with
 * NoPendingUpdates, so the gateway, like the bare forwarders, sends a cancel its outcome only; with
 * HFTGATE_BENCH_PENDING_UPDATES=1 it logs on without it, and the PendingCancel is read and passed over.
 */
import type { RecordableHistogram } from "node:perf_hooks";
import WebSocket from "ws";
import { encodeC2G, readU53 } from "../../src/protocol/codec.js";
import { CodPolicy, OrderStatus, WS_PATH } from "../../src/protocol/schema.js";
import type { LegHistograms, OrderTemplate } from "./orderLoad.js";
import { type LatencySummary, newHistogram, recordNs, summarize } from "./stats.js";

const T_LOGON_ACK = 0x41;
const T_LOGON_REJECT = 0x42;
const T_ACK = 0x43;
const T_REJECT = 0x44;
const T_UPDATE = 0x45;
const T_CANCEL_REJECT = 0x47;
const T_OUTCOME_UNKNOWN = 0x48;
/** OrderUpdate.status: after clOrdNo (u64), requestId (u32) and instrumentId (u32). */
const STATUS_AT = 48;
/** clOrdNo right after the 32-byte gateway → client header in both Ack and OrderUpdate. */
const CLORD_AT = 32;
/** Ack.exchangeOrderId: after clOrdNo (u64) and instrumentId (u32). */
const ACK_ID_AT = 44;
const ID_LEN = 40;

function monoNs(): number {
  return Number(process.hrtime.bigint());
}

/** What the gateway needs before orders: its Logon. */
export interface GatewayLogon {
  token: string;
  sessionName: string;
  /** LogonOptions bits (NoPendingUpdates: the gateway sends a cancel's outcome only, as a bare forwarder does). */
  options: number;
}

export class BareDriver {
  answers = 0;
  private nextNo = 1;
  private readonly sentAt = new Map<number, number>();
  private onAnswer: ((no: number, frame: Buffer) => void) | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  private constructor(
    private readonly ws: WebSocket,
    private readonly tpl: OrderTemplate,
    /** The template of the orders a cancel block places and cancels (default `tpl`). */
    private readonly cancelTpl: OrderTemplate = tpl,
  ) {
    ws.on("message", (d: Buffer) => {
      const t = d[1];
      if (t === T_REJECT || t === T_CANCEL_REJECT || t === T_OUTCOME_UNKNOWN) {
        // A figure of refused orders would time the refusal path: the block fails instead.
        throw new Error(`order ${readU53(d, CLORD_AT)} answered with frame type 0x${t.toString(16)}`);
      }
      if (t !== T_ACK && t !== T_UPDATE) return;
      this.answers++;
      this.onAnswer?.(readU53(d, CLORD_AT), d);
    });
  }

  /** The bare forwarder at `port`. */
  static async open(port: number, tpl: OrderTemplate): Promise<BareDriver> {
    return new BareDriver(await connectWs(`ws://127.0.0.1:${port}${WS_PATH}`), tpl);
  }

  /** The gateway at `url`, logged on as its own session; cancels on `cancelTpl`'s instrument. */
  static async openGateway(
    url: string,
    logon: GatewayLogon,
    tpl: OrderTemplate,
    cancelTpl: OrderTemplate,
  ): Promise<BareDriver> {
    const ws = await connectWs(url);
    await new Promise<void>((ok, fail) => {
      const onFrame = (d: Buffer) => {
        if (d[1] !== T_LOGON_ACK && d[1] !== T_LOGON_REJECT) return;
        ws.off("message", onFrame);
        if (d[1] === T_LOGON_ACK) ok();
        else fail(new Error("the gateway refused the driver's logon"));
      };
      ws.on("message", onFrame);
      ws.send(
        encodeC2G("Logon", {
          token: logon.token,
          sessionName: logon.sessionName,
          heartbeatMs: HEARTBEAT_MS,
          codPolicy: CodPolicy.None,
          resumeFromSeq: 0,
          options: logon.options,
        }),
      );
    });
    const d = new BareDriver(ws, tpl, cancelTpl);
    // Idle between its blocks, the session must not be taken for gone.
    d.heartbeat = setInterval(() => ws.send(encodeC2G("Heartbeat", { echo: 0 })), HEARTBEAT_MS / 3);
    d.heartbeat.unref();
    return d;
  }

  /**
   * A strategy's two heartbeats, a plain one and one asking for an echo (the forwarder answers it or
   * passes it over; the driver reads no answer). The warm-up sends them: the periodic one comes every
   * 20 s, and a gateway's first heartbeat inside the timed blocks would deoptimize its compiled
   * dispatch there, with every order after it timed in slower code until it is compiled again.
   */
  heartbeats(): void {
    this.ws.send(encodeC2G("Heartbeat", { echo: 0 }));
    this.ws.send(encodeC2G("Heartbeat", { echo: 1 }));
  }

  close(): void {
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.ws.terminate();
  }

  private place(t: OrderTemplate = this.tpl): number {
    const no = this.nextNo++;
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

  /** Create (untimed) then Cancel → OrderUpdate(Cancelled) timed, `n` times. */
  async sequentialCancels(n: number, h?: RecordableHistogram): Promise<void> {
    for (let i = 0; i < n; i++) {
      const [no, ack] = await this.one(() => this.place(this.cancelTpl));
      this.sentAt.delete(no);
      const id = ack.subarray(ACK_ID_AT, ACK_ID_AT + ID_LEN);
      const t0 = monoNs();
      await this.one(() => {
        this.ws.send(encodeC2G("Cancel", { clOrdNo: no, exchangeOrderId: zstr(id) }));
        return no;
      }, true);
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

  /** Sends one request and waits for its answer: the Ack, or with `cancelled` the Cancelled update. */
  private one(send: () => number, cancelled = false): Promise<[number, Buffer]> {
    return new Promise((done) => {
      let want = -1;
      this.onAnswer = (no, f) => {
        if (no !== want) return;
        if (cancelled ? f[STATUS_AT] !== OrderStatus.Cancelled : f[1] !== T_ACK) return;
        this.onAnswer = undefined;
        done([no, Buffer.from(f)]);
      };
      want = send();
    });
  }
}

/** The driver's heartbeat interval asked of the gateway (its longest). */
const HEARTBEAT_MS = 60_000;

function connectWs(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  ws.binaryType = "nodebuffer";
  return new Promise((ok, fail) => {
    ws.once("open", () => ok(ws));
    ws.once("error", fail);
  });
}

function zstr(b: Buffer): string {
  const z = b.indexOf(0);
  return b.toString("latin1", 0, z < 0 ? b.length : z);
}
