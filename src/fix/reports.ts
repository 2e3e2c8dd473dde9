/**
 * The gateway's sequenced frames as FIX: Ack / Reject / OutcomeUnknown / OrderUpdate / Fill as
 * ExecutionReports, CancelReject and AmendReject as OrderCancelReject, query answers as 150=I. Frames
 * with no FIX meaning (balances, positions, credits, trading state) are not sent. docs/fix.md's table.
 */
import { decodeG2C } from "../protocol/codec.js";
import { type Body, OrderStatus, OrdType } from "../protocol/schema.js";
import type { FixEncoder, FixMessage } from "./codec.js";
import { clean, fixTime } from "./codec.js";
import type { FixContext, FixPeer } from "./context.js";
import { fromMantExp, fromUnits } from "./decimal.js";
import type { FixOrder } from "./store.js";
import { AMEND_REASON, CXL_REASON, ORDTYPE_OUT, REJ_REASON, SIDE_OUT, STATUS_OUT, TIF_OUT } from "./tags.js";

interface StatusReq {
  readonly order: FixOrder;
  readonly reqId: string | undefined;
  answered: boolean;
}

export class Reports {
  private readonly pending = new Map<number, StatusReq>();
  private execNo = 0;

  constructor(
    private readonly s: FixPeer,
    private readonly ctx: FixContext,
  ) {}

  /** One sequenced gateway frame (seq = its binary seq). */
  frame(f: Buffer, seq: number): void {
    const d = decodeG2C(f);
    if (d.name === undefined) return;
    const st = this.s.store!;
    switch (d.name) {
      case "Ack": {
        const o = st.orders.get(d.body.clOrdNo);
        if (o === undefined) return;
        o.venueId = d.body.exchangeOrderId;
        const replaced = o.root !== o.no && o.origClOrdID !== "";
        o.status = "0";
        this.er(o, replaced ? "5" : "0", "0", seq).sent(seq);
        return;
      }
      case "Reject": {
        const o = st.orders.get(d.body.clOrdNo);
        if (o === undefined) return;
        o.status = "8";
        this.er(o, "8", "8", seq)
          .e.f(103, REJ_REASON[d.body.code] ?? "99")
          .f(58, clean(d.body.text));
        this.sentFrom(seq);
        return;
      }
      case "OutcomeUnknown": {
        const o = st.orders.get(d.body.clOrdNo);
        if (o === undefined || d.body.op !== 1) return;
        o.status = "A";
        this.er(o, "A", "A", seq).e.f(58, clean(d.body.text));
        this.sentFrom(seq);
        return;
      }
      case "Fill":
        this.fill(d.body, seq);
        return;
      case "OrderUpdate":
        this.update(d.body, seq);
        return;
      case "QueryEnd": {
        const r = this.pending.get(d.body.requestId);
        if (r === undefined) return;
        this.pending.delete(d.body.requestId);
        if (!r.answered) this.statusReport(r.order, r.reqId, seq);
        return;
      }
      case "CancelReject": {
        const o = st.orders.get(d.body.clOrdNo);
        if (o === undefined) return;
        const id = o.cancelClOrdID || "NONE";
        o.cancelClOrdID = "";
        this.cancelReject(o, id, "1", CXL_REASON[d.body.reason] ?? "99", d.body.text, seq);
        return;
      }
      case "AmendReject": {
        const o = st.orders.get(d.body.clOrdNo);
        if (o === undefined) return;
        const id = o.replaceClOrdID || "NONE";
        o.replaceClOrdID = "";
        this.cancelReject(o, id, "2", AMEND_REASON[d.body.reason] ?? "99", d.body.text, seq);
        return;
      }
      default:
        return;
    }
  }

  private fill(b: Body<"Fill">, seq: number): void {
    const o = this.s.store!.orders.get(b.clOrdNo);
    if (o === undefined) return;
    const g = this.ctx.grids(o.instId);
    if (g === undefined) return;
    o.cumLots += b.qtyLots;
    o.pxQty += b.priceTicks * b.qtyLots;
    const leaves = Math.max(0, o.qtyLots - o.cumLots);
    o.status = leaves === 0 ? "2" : "1";
    const e = this.head(o, o.clOrdID, "", b.execId, "F", o.status);
    this.tail(e, o, leaves);
    e.f(31, fromUnits(b.priceTicks, g.px)).f(32, fromUnits(b.qtyLots, g.qty));
    if (b.feeAsset !== "") {
      e.f(12, fromMantExp(Math.abs(b.feeMantissa), b.feeExponent))
        .f(13, "3")
        .f(479, clean(b.feeAsset));
    }
    if (b.liquidity !== 0) e.f(851, b.liquidity === 1 ? "1" : "2");
    e.f(60, fixTime(b.exchangeTimeMs || Date.now()));
    this.s.sendApp("8", e, seq);
  }

  private update(b: Body<"OrderUpdate">, seq: number): void {
    const st = this.s.store!;
    const o = st.orders.get(b.clOrdNo);
    if (o === undefined) return;
    if (b.requestId !== 0) {
      const r = this.pending.get(b.requestId);
      if (r === undefined) return;
      r.answered = true;
      this.adopt(o, b);
      this.statusReport(o, r.reqId, seq);
      return;
    }
    const status = b.status;
    if (status === OrderStatus.PendingReplace) {
      if (o.status === "E") return;
      o.status = "E";
      const id = o.replaceClOrdID || o.clOrdID;
      const e = this.head(o, id, o.clOrdID, this.execId(seq), "E", "E");
      this.tail(e, o, Math.max(0, o.qtyLots - o.cumLots));
      e.f(60, fixTime(Date.now()));
      this.s.sendApp("8", e, seq);
      return;
    }
    if (o.replaceClOrdID !== "" && o.status === "E" && isWorking(status) && o.root === o.no) {
      // In place (HFT): the amend took effect, the order now answers to the new ClOrdID.
      const old = o.clOrdID;
      o.clOrdID = o.replaceClOrdID;
      o.replaceClOrdID = "";
      o.priceTicks = b.priceTicks;
      o.qtyLots = b.qtyLots;
      o.status = STATUS_OUT[status]!;
      const e = this.head(o, o.clOrdID, old, this.execId(seq), "5", o.status);
      this.tail(e, o, b.leavesQtyLots);
      e.f(60, fixTime(Date.now()));
      this.s.sendApp("8", e, seq);
      return;
    }
    if (status === OrderStatus.Cancelled && b.reasonCode === 110) {
      o.status = "4";
      return; // Spot cancel-replace: the replacement's 150=5 tells it
    }
    let execType = "";
    if (status === OrderStatus.PendingCancel && o.status !== "6") execType = "6";
    else if (status === OrderStatus.Cancelled && o.status !== "4") execType = "4";
    else if (status === OrderStatus.Expired && o.status !== "C") execType = "C";
    else if (status === OrderStatus.Rejected && o.status !== "8") execType = "8";
    else if (status === OrderStatus.New && o.status === "E") {
      o.status = "0"; // an amend that changed nothing (AmendReject told it)
      return;
    }
    if (execType === "") return;
    o.status = execType;
    const viaCancel = o.cancelClOrdID !== "";
    const e = this.head(
      o,
      viaCancel ? o.cancelClOrdID : o.clOrdID,
      viaCancel ? o.clOrdID : "",
      this.execId(seq),
      execType,
      execType,
    );
    this.tail(e, o, execType === "6" ? Math.max(0, o.qtyLots - o.cumLots) : 0);
    e.f(60, fixTime(Date.now()));
    this.s.sendApp("8", e, seq);
  }

  /** An OrderStatusRequest's answer: 150=I with the order as it stands. */
  private statusReport(o: FixOrder, reqId: string | undefined, seq: number): void {
    const e = this.head(o, o.clOrdID, "", this.execId(seq), "I", o.status);
    this.tail(e, o, isTerminal(o.status) ? 0 : Math.max(0, o.qtyLots - o.cumLots));
    if (reqId !== undefined) e.f(790, clean(reqId));
    e.f(60, fixTime(Date.now()));
    this.s.sendApp("8", e, seq);
  }

  private adopt(o: FixOrder, b: Body<"OrderUpdate">): void {
    o.status = STATUS_OUT[b.status] ?? o.status;
    if (b.exchangeOrderId !== "") o.venueId = b.exchangeOrderId;
    if (b.cumQtyLots > o.cumLots) {
      o.pxQty = o.cumLots === 0 ? 0 : o.pxQty;
      o.cumLots = b.cumQtyLots;
    }
  }

  pendingStatus(requestId: number, o: FixOrder, reqId: string | undefined): void {
    this.pending.set(requestId, { order: o, reqId, answered: false });
  }

  statusUnknown(clOrdID: string, reqId: string | undefined): void {
    const e = this.s.enc.begin();
    e.f(37, "NONE").f(11, clean(clOrdID)).f(17, this.execId(0)).f(150, "I").f(39, "8");
    e.f(55, "NA").f(54, "1").f(151, 0).f(14, 0).f(6, 0).f(58, "unknown order");
    if (reqId !== undefined) e.f(790, clean(reqId));
    this.s.sendApp("8", e, 0);
  }

  /** An ER 150=8 for a NewOrderSingle refused before anything was sent (103 = OrdRejReason). */
  localReject(m: FixMessage, clOrdID: string, reason: string, text: string): void {
    const e = this.s.enc.begin();
    e.f(37, "NONE").f(11, clOrdID).f(17, this.execId(0)).f(150, "8").f(39, "8");
    e.f(55, clean(m.str(55) ?? "NA")).f(54, clean(m.str(54) ?? "1"));
    const q = m.str(38);
    if (q !== undefined) e.f(38, clean(q));
    e.f(151, 0).f(14, 0).f(6, 0).f(103, reason).f(58, text).f(60, fixTime(Date.now()));
    this.s.sendApp("8", e, 0);
  }

  cancelRejectLocal(clOrdID: string, orig: string, resp: string, reason: string, text: string): void {
    const e = this.s.enc.begin();
    e.f(37, "NONE").f(11, clOrdID).f(41, clean(orig)).f(39, "8").f(434, resp).f(102, reason).f(58, text);
    this.s.sendApp("9", e, 0);
  }

  private cancelReject(
    o: FixOrder,
    id: string,
    resp: string,
    reason: string,
    text: string,
    seq: number,
  ): void {
    const e = this.s.enc.begin();
    e.f(37, this.orderId(o))
      .f(11, id)
      .f(41, o.clOrdID)
      .f(39, o.status === "E" ? "0" : o.status);
    e.opt(198, o.venueId).f(434, resp).f(102, reason).f(58, clean(text));
    this.s.sendApp("9", e, seq);
  }

  private orderId(o: FixOrder): string {
    return `${this.s.compId}-${o.root}`;
  }

  private execId(seq: number): string {
    return seq > 0
      ? `${this.s.gatewaySessionId}.${seq}`
      : `${this.s.gatewaySessionId}.L${Date.now()}.${++this.execNo}`;
  }

  /** 37, 11, 41, 17, 150, 39, 198, instrument and order fields. */
  private head(
    o: FixOrder,
    clOrdID: string,
    orig: string,
    execId: string,
    execType: string,
    status: string,
  ): FixEncoder {
    const e = this.s.enc.begin();
    e.f(37, this.orderId(o)).f(11, clOrdID).opt(41, orig).f(17, execId).f(150, execType).f(39, status);
    e.opt(198, o.venueId);
    const inst = this.ctx.instrumentById(o.instId);
    const g = this.ctx.grids(o.instId);
    e.f(55, inst?.symbol ?? "NA");
    if (inst?.surface === "spot") e.f(207, inst.venue);
    e.f(54, SIDE_OUT[o.side] ?? "1").f(40, ORDTYPE_OUT[o.ordType] ?? "2");
    if (g !== undefined) {
      if (o.ordType === OrdType.Limit) e.f(44, fromUnits(o.priceTicks, g.px));
      e.f(38, fromUnits(o.qtyLots, g.qty));
    }
    e.f(59, TIF_OUT[o.tif] ?? "1");
    return e;
  }

  /** 151, 14, 6. */
  private tail(e: FixEncoder, o: FixOrder, leavesLots: number): void {
    const g = this.ctx.grids(o.instId);
    if (g === undefined) {
      e.f(151, 0).f(14, 0).f(6, 0);
      return;
    }
    e.f(151, fromUnits(leavesLots, g.qty)).f(14, fromUnits(o.cumLots, g.qty));
    const avg = o.cumLots === 0 ? 0 : (o.pxQty / o.cumLots) * g.pxStep;
    e.f(6, o.cumLots === 0 ? "0" : trimAvg(avg));
  }

  private er(o: FixOrder, execType: string, status: string, seq: number) {
    const e = this.head(
      o,
      o.clOrdID,
      o.root !== o.no ? o.origClOrdID : "",
      this.execId(seq),
      execType,
      status,
    );
    this.tail(e, o, isTerminal(status) ? 0 : Math.max(0, o.qtyLots - o.cumLots));
    e.f(60, fixTime(Date.now()));
    const s = this.s;
    return {
      e,
      sent: (binSeq: number) => s.sendApp("8", e, binSeq),
    };
  }
  private sentFrom(seq: number): void {
    this.s.sendApp("8", this.s.enc, seq);
  }
}

function isWorking(status: number): boolean {
  return status === OrderStatus.New || status === OrderStatus.PartiallyFilled;
}
function isTerminal(s: string): boolean {
  return s === "2" || s === "4" || s === "8" || s === "C";
}
/** AvgPx: up to 12 significant digits, no exponent, no trailing zeros. */
function trimAvg(v: number): string {
  let s = v.toPrecision(12);
  if (s.includes("e")) s = v.toFixed(12);
  if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\.$/, "");
  return s;
}
