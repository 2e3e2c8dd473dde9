/**
 * The bare forwarder's "work" variant (diagnosis, HFTGATE_BENCH_BARE_WORK=1): the bare forwarder's
 * wire (uWebSockets.js in, one template request on a persistent socket, the answer scanned, the frame
 * sent) with the gateway's own per-order components called straight from it, none of the layers
 * between them: the protocol codec decodes the frame and encodes the answer, the risk gate checks and
 * books the order, the order store creates it (client id minted), marks it sent and applies the
 * answer, the journal (mapped, as the gateway's default) takes the command, request, response and
 * outbound-frame records with the same flush points, the venue module builds the create's body, and the
 * answer goes into a resume ring. What separates it from the gateway is what the gateway adds around
 * the same components: dispatch, engine, create path, venue request, REST client, fast path and
 * reader, notifier, owners, outbound and transport. So the gateway's ratio to it says how much of its
 * cost is that path, and its ratio to bareSync how much is the components' own work.
 *
 * A variant named `work-A+B` leaves components A and B out, to price each on the bare wire (several
 * variants in one run: HFTGATE_BENCH_BARE_WORK=work,work-journal,…): `codec` (the frame read as
 * bareSync reads it, the answer's frame pre-encoded and patched), `risk`, `store` (a client id minted,
 * no order kept), `journal` (no records, no flushes), `body` (a fixed body, as bareSync's), `ring`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Instrument } from "../../src/domain/types.js";
import { CreateRecords } from "../../src/engine/createRecords.js";
import { StepFormatter } from "../../src/engine/instruments.js";
import { recordAnswer } from "../../src/engine/venueRequest.js";
import { SIDE_TO_WIRE, TIF_TO_WIRE, TYPE_TO_WIRE } from "../../src/engine/wireMap.js";
import { ReplayRing } from "../../src/gateway/ring.js";
import { windowAddon } from "../../src/journal/mappedWindow.js";
import { Journal } from "../../src/journal/writer.js";
import { ClientIdMinter, Ev, OrderStore } from "../../src/orders/index.js";
import { COMPILED, decodeC2G, encodeG2C, readU53, writeInt53 } from "../../src/protocol/codec.js";
import { OrderStatus } from "../../src/protocol/schema.js";
import { RiskGate } from "../../src/risk/riskGate.js";
import { hftCreateBody } from "../../src/venue/hft/create.js";
import { makeGrid } from "../../src/venue/orderFields.js";

const SESSION = 1;
const SESSION_NAME = "bare-work";
/** The wire's side (1 Buy, 2 Sell; the codec refuses anything else) as the store spells it. */
const SIDES = ["buy", "buy", "sell"] as const;

/** One order's request as the wire needs it, and the create's body (empty for a cancel). */
export interface WorkRequest {
  clientId: string;
  clOrdNo: number;
  instrumentId: number;
  side: "buy" | "sell";
  priceTicks: number;
  qtyLots: number;
  exchangeId: string;
  body: string;
}

/** The components a variant leaves out ("work-journal+store" → journal, store), checked by name. */
export function workSkips(variant: string): Set<string> {
  const skip = new Set(variant.startsWith("work-") ? variant.slice(5).split("+") : []);
  for (const k of skip)
    if (!COMPONENTS.includes(k)) throw new Error(`bare work variant ${variant}: no component ${k}`);
  return skip;
}
const COMPONENTS = ["codec", "risk", "store", "journal", "body", "ring"];
const FIXED_BODY =
  '{"category":"linear","symbol":"BTCUSDT","side":"Buy","orderType":"Limit","qty":"0.005","price":"1000.0","positionIdx":0,"timeInForce":"GTC","orderLinkId":"';
/** NewOrder's field offsets, from the codec's table. */
const NO_AT = Object.fromEntries(COMPILED.NewOrder.ops.map((o) => [o.name, o.off])) as Record<string, number>;
const H0 = { sessionId: SESSION, seq: 0, recvNs: 0, sendNs: 0 };
const ACK = Buffer.from(encodeG2C("Ack", H0, { clOrdNo: 0, instrumentId: 1, exchangeOrderId: "" }));
const ACK_CLORD = COMPILED.Ack.ops.find((o) => o.name === "clOrdNo")!.off;
const ACK_ID = COMPILED.Ack.ops.find((o) => o.name === "exchangeOrderId")!.off;

export class GatewayWork {
  private readonly doCodec: boolean;
  private readonly doRisk: boolean;
  private readonly doStore: boolean;
  private readonly doJournal: boolean;
  private readonly doBody: boolean;
  private readonly doRing: boolean;
  private readonly dir = mkdtempSync(join(tmpdir(), "hftgate-bare-work-"));
  readonly journal = Journal.open({
    dir: this.dir,
    fsync: { intervalMs: 100 },
    writeMode: windowAddon() === undefined ? "sync" : "map",
  });
  private readonly store = new OrderStore();
  private readonly risk = new RiskGate({
    maxOpenOrdersPerSession: 1_000_000,
    maxOpenOrdersPerInstrument: 1_000_000,
    priceBandBps: 0,
  });
  /** The gateway's default resume ring per session (`gateway.resumeRing`). */
  private readonly ring = new ReplayRing(4096);
  private readonly price = new StepFormatter("0.1");
  private readonly qty = new StepFormatter("0.001");
  private readonly grid = makeGrid("0.1", "0.001");
  private readonly known = new Set<number>();
  private readonly minter = new ClientIdMinter();
  /** Without the store: the cancel's order by its number. */
  private readonly byNo = new Map<number, WorkRequest>();
  private seq = 0;
  /** The create path's own records (the risk intent, the store request, the journal command). */
  private readonly rec = new CreateRecords();
  private readonly reqRec = { clientId: "", op: "create", method: "POST", path: "/v5/order/create" };
  private readonly header = { sessionId: SESSION, seq: 0, recvNs: 0, sendNs: 0 };

  constructor(skip: Set<string>) {
    this.doCodec = !skip.has("codec");
    this.doRisk = !skip.has("risk");
    this.doStore = !skip.has("store");
    this.doJournal = !skip.has("journal");
    this.doBody = !skip.has("body");
    this.doRing = !skip.has("ring");
  }

  /** The instrument of the bench's order template, booked in the risk gate on first sight. */
  private instrument(id: number): void {
    if (this.known.has(id)) return;
    const inst: Instrument = {
      id,
      surface: "hft",
      symbol: "BTCUSDT",
      venue: "linear",
      base: "BTC",
      quote: "USDT",
      tickSize: "0.1",
      qtyStep: "0.001",
      minQty: "0.001",
      maxQty: "0",
      minNotional: "0",
      active: true,
    };
    this.risk.addInstrument(inst);
    this.known.add(id);
  }

  /** A NewOrder frame: decoded, checked, created, journaled; its body built. Undefined: refused. */
  create(frame: ArrayBuffer, recvNs: number): WorkRequest | undefined {
    let c: { clOrdNo: number; instrumentId: number; side: number; priceTicks: number; qtyLots: number };
    if (this.doCodec) {
      const m = decodeC2G(frame);
      if (m.name !== "NewOrder") return undefined;
      c = m.body;
    } else {
      const b = Buffer.from(frame);
      c = {
        clOrdNo: readU53(b, NO_AT.clOrdNo),
        instrumentId: b.readUInt32LE(NO_AT.instrumentId),
        side: b[NO_AT.side]!,
        priceTicks: readU53(b, NO_AT.priceTicks),
        qtyLots: readU53(b, NO_AT.qtyLots),
      };
    }
    this.instrument(c.instrumentId);
    const side = SIDES[c.side]!;
    const intent = this.rec.intent;
    intent.sessionId = SESSION;
    intent.instrumentId = c.instrumentId;
    intent.side = side;
    intent.priceTicks = c.priceTicks;
    intent.qtyLots = c.qtyLots;
    if (this.doRisk && this.risk.check(intent) !== null) return undefined;
    const r = this.rec.newOrder;
    r.sessionId = SESSION;
    r.clientOrderNo = c.clOrdNo;
    r.instrumentId = c.instrumentId;
    r.symbol = "BTCUSDT";
    r.side = side;
    r.priceTicks = c.priceTicks;
    r.qtyLots = c.qtyLots;
    const clientId = this.doStore ? this.store.create(r, recvNs).clientId : this.minter.next();
    if (this.doRisk) this.risk.onOpen(clientId, intent);
    const priceText = this.price.format(c.priceTicks);
    const qtyText = this.qty.format(c.qtyLots);
    if (this.doJournal) {
      // Filled as the create path fills it (src/engine/createPath.ts).
      const cmd = this.rec.command;
      cmd.session = SESSION_NAME;
      cmd.clientId = clientId;
      cmd.symbol = "BTCUSDT";
      cmd.side = side;
      cmd.type = "limit";
      cmd.price = priceText;
      cmd.qty = qtyText;
      cmd.tif = "GTC";
      cmd.reason = `no=${c.clOrdNo};inst=${c.instrumentId};pos=0`;
      this.journal.command(cmd);
    }
    const body = this.doBody
      ? hftCreateBody(
          {
            category: "linear",
            symbol: "BTCUSDT",
            side,
            orderType: "limit",
            qty: qtyText,
            price: priceText,
            positionIdx: 0,
            timeInForce: "GTC",
            orderLinkId: clientId,
          },
          this.grid,
        )
      : `${FIXED_BODY}${clientId}"}`;
    const w: WorkRequest = {
      clientId,
      clOrdNo: c.clOrdNo,
      instrumentId: c.instrumentId,
      side,
      priceTicks: c.priceTicks,
      qtyLots: c.qtyLots,
      exchangeId: "",
      body,
    };
    if (!this.doStore) this.byNo.set(c.clOrdNo, w);
    this.sent(clientId, "create", "POST", "/v5/order/create");
    return w;
  }

  /** A Cancel frame for an order of this session: the cancel guard, journaled. Undefined: refused. */
  cancel(frame: ArrayBuffer): WorkRequest | undefined {
    const no = this.doCodec
      ? (decodeC2G(frame) as { name: string; body: { clOrdNo: number } }).body.clOrdNo
      : readU53(Buffer.from(frame), 8);
    let w: WorkRequest | undefined;
    if (this.doStore) {
      const o = this.store.bySessionOrder(SESSION, no);
      if (o === undefined || this.store.requestCancel(o.clientId).kind !== "send") return undefined;
      w = {
        clientId: o.clientId,
        clOrdNo: no,
        instrumentId: o.instrumentId,
        side: o.side,
        priceTicks: o.priceTicks,
        qtyLots: o.qtyLots,
        exchangeId: o.exchangeId,
        body: "",
      };
    } else {
      w = this.byNo.get(no);
      if (w === undefined) return undefined;
      this.byNo.delete(no);
    }
    // As the cancel path journals it (src/engine/cancelPath.ts).
    if (this.doJournal) this.journal.command({ session: SESSION_NAME, op: "cancel", clientId: w.clientId });
    this.sent(w.clientId, "cancel", "DELETE", "/trade/api/v2/order");
    return w;
  }

  /** The request's record, then journal before the socket (mapped: nothing left to write). */
  private sent(clientId: string, op: string, method: string, path: string): void {
    if (this.doJournal) {
      const q = this.reqRec;
      q.clientId = clientId;
      q.op = op;
      q.method = method;
      q.path = path;
      this.journal.request(q);
      this.journal.flushSync();
    }
    if (this.doStore && op === "create") this.store.markSent(clientId);
  }

  /** A create's 200: journaled as received, applied, the Ack encoded, journaled and kept for resume. */
  created(w: WorkRequest, answer: Buffer, exchangeId: string, recvNs: number, rttNs: number): Buffer {
    recordAnswer(
      undefined,
      this.doJournal ? this.journal : undefined,
      w,
      "create",
      "hft.create",
      undefined,
      rttNs,
      answer,
    );
    if (this.doStore) this.store.ackCreate(w.clientId, exchangeId);
    w.exchangeId = exchangeId;
    const h = this.frameHeader(recvNs);
    if (this.doCodec)
      return this.out(
        encodeG2C("Ack", h, {
          clOrdNo: w.clOrdNo,
          instrumentId: w.instrumentId,
          exchangeOrderId: exchangeId,
        }),
      );
    ACK.fill(0, ACK_ID, ACK_ID + 40);
    ACK.write(exchangeId, ACK_ID, 40, "latin1");
    writeInt53(ACK, ACK_CLORD, w.clOrdNo, false);
    writeInt53(ACK, 8, h.seq, false);
    writeInt53(ACK, 16, recvNs, false);
    return this.out(ACK);
  }

  /** A cancel's 200 (the order's record, CANCELLED): journaled, applied, the OrderUpdate likewise. */
  cancelled(w: WorkRequest, answer: Buffer, recvNs: number, rttNs: number): Buffer {
    recordAnswer(
      undefined,
      this.doJournal ? this.journal : undefined,
      w,
      "cancel",
      // The bare wire's cancel is Spot's DELETE (procs/bare.ts), as its request record says.
      "spot.cancel",
      undefined,
      rttNs,
      answer,
    );
    if (this.doStore) this.store.cancelOutcome(w.clientId, Ev.CancelAcked);
    if (this.doRisk) this.risk.onClosed(w.clientId);
    return this.out(
      encodeG2C("OrderUpdate", this.frameHeader(recvNs), {
        clOrdNo: w.clOrdNo,
        requestId: 0,
        instrumentId: w.instrumentId,
        status: OrderStatus.Cancelled,
        side: SIDE_TO_WIRE[w.side],
        ordType: TYPE_TO_WIRE.limit,
        tif: TIF_TO_WIRE.GTC,
        exchangeOrderId: w.exchangeId,
        priceTicks: w.priceTicks,
        qtyLots: w.qtyLots,
        cumQtyLots: 0,
        leavesQtyLots: 0,
        avgPxMantissa: 0,
        avgPxExponent: 0,
        lastFillPriceTicks: 0,
        lastFillQtyLots: 0,
        reasonCode: 0,
      }),
    );
  }

  private frameHeader(recvNs: number): { sessionId: number; seq: number; recvNs: number; sendNs: number } {
    const h = this.header;
    h.seq = ++this.seq;
    h.recvNs = recvNs;
    return h;
  }

  /** A sequenced frame: journaled and kept in the resume ring before it is sent (flushed first). */
  private out(frame: Buffer): Buffer {
    if (this.doJournal) this.journal.out(SESSION_NAME, frame);
    if (this.doRing) this.ring.push(this.seq, frame);
    if (this.doJournal) this.journal.flushSync();
    return frame;
  }

  close(): void {
    void this.journal.close().finally(() => rmSync(this.dir, { recursive: true, force: true }));
  }
}
