/**
 * Drop-copy FIX sessions: every ExecutionReport and OrderCancelReject of the account, whichever session
 * and transport it belongs to, sequenced and stored per drop-copy session like any FIX message (a
 * drop-copy client that was away gets them by ResendRequest). FIX sessions' reports are copied as sent
 * (Account(1) = the session); other sessions' are built from the gateway's frames (the drop-copy tap).
 */
import type { SessionInfo } from "../gateway/engineApi.js";
import { decodeG2C } from "../protocol/codec.js";
import { type G2CName, OrderStatus } from "../protocol/schema.js";
import { FixEncoder, fixTime, headerOf } from "./codec.js";
import type { DropCopyAttach, FixContext, FixPeer } from "./context.js";
import { fromUnits } from "./decimal.js";
import { SIDE_OUT, STATUS_OUT } from "./tags.js";

export class DropCopyHub implements DropCopyAttach {
  private readonly enc = new FixEncoder();
  private readonly live = new Map<string, FixPeer>();
  /** Side and instrument of other transports' orders, by "<session> <clOrdNo>" (from their frames). */
  private readonly orders = new Map<string, { side: number; instId: number }>();

  constructor(
    private readonly ctx: FixContext,
    private readonly orderOf?: (
      sessionId: number,
      clOrdNo: number,
    ) => { side: number; instrumentId: number } | undefined,
  ) {}

  attach(s: FixPeer): void {
    this.live.set(s.compId, s);
  }
  detach(s: FixPeer): void {
    if (this.live.get(s.compId) === s) this.live.delete(s.compId);
  }

  /** A FIX trading session sent an 8 or 9: the same body to every drop-copy session. */
  copy(fromCompId: string, type: string, body: Buffer): void {
    if (this.ctx.dropCopy.size === 0) return;
    for (const dc of this.ctx.dropCopy) {
      this.enc.begin().f(1, fromCompId).raw(body);
      this.emit(dc, type);
    }
  }

  /** The gateway's drop-copy tap: reports of sessions that are not FIX sessions. */
  tap(session: SessionInfo | undefined, name: G2CName, frame: Uint8Array): void {
    if (session === undefined || this.ctx.dropCopy.size === 0 || this.ctx.keys.has(session.name)) return;
    if (name !== "Ack" && name !== "Reject" && name !== "Fill" && name !== "OrderUpdate") return;
    const d = decodeG2C(frame);
    if (d.name === undefined) return;
    const key = (no: number) => `${session.name} ${no}`;
    let execType = "";
    let status = "";
    let no = 0;
    const fields: (string | number)[] = [];
    switch (d.name) {
      case "Ack":
        no = d.body.clOrdNo;
        execType = "0";
        status = "0";
        fields.push(198, d.body.exchangeOrderId);
        break;
      case "Reject":
        no = d.body.clOrdNo;
        execType = "8";
        status = "8";
        fields.push(58, d.body.text.replace(/[\x00-\x1f]/g, " "));
        break;
      case "Fill": {
        no = d.body.clOrdNo;
        this.orders.set(key(no), { side: d.body.side, instId: d.body.instrumentId });
        const g = this.ctx.grids(d.body.instrumentId);
        execType = "F";
        status = "1";
        fields.push(17, d.body.execId);
        if (g) fields.push(31, fromUnits(d.body.priceTicks, g.px), 32, fromUnits(d.body.qtyLots, g.qty));
        fields.push(60, fixTime(d.body.exchangeTimeMs || Date.now()));
        break;
      }
      case "OrderUpdate": {
        const b = d.body;
        no = b.clOrdNo;
        this.orders.set(key(no), { side: b.side, instId: b.instrumentId });
        if (b.requestId !== 0) return;
        const s = b.status;
        if (s !== OrderStatus.Cancelled && s !== OrderStatus.Expired && s !== OrderStatus.Filled) return;
        status = STATUS_OUT[s]!;
        execType = s === OrderStatus.Filled ? "F" : status;
        if (s === OrderStatus.Filled) return; // the Fill told it
        const g = this.ctx.grids(b.instrumentId);
        if (g) fields.push(14, fromUnits(b.cumQtyLots, g.qty), 151, 0);
        break;
      }
    }
    const o = this.orders.get(key(no)) ?? this.known(session.sessionId, no, key(no));
    const inst = o === undefined ? undefined : this.ctx.instrumentById(o.instId);
    for (const dc of this.ctx.dropCopy) {
      const e = this.enc.begin().f(1, session.name).f(37, `${session.name}-${no}`).f(11, String(no));
      if (!fields.includes(17))
        e.f(17, `${session.sessionId}.${frame[8]! + frame[9]! * 256 + frame[10]! * 65536}`);
      e.f(150, execType)
        .f(39, status)
        .f(55, inst?.symbol ?? "NA")
        .f(54, SIDE_OUT[o?.side ?? 1] ?? "1");
      for (let i = 0; i < fields.length; i += 2) e.f(fields[i] as number, fields[i + 1]!);
      if (!fields.includes(14)) e.f(151, 0).f(14, 0);
      e.f(6, 0);
      this.emit(dc, "8");
    }
  }

  private known(sessionId: number, no: number, k: string): { side: number; instId: number } | undefined {
    const x = this.orderOf?.(sessionId, no);
    if (x === undefined) return undefined;
    const o = { side: x.side, instId: x.instrumentId };
    this.orders.set(k, o);
    return o;
  }

  private emit(dc: string, type: string): void {
    const st = this.ctx.store(dc);
    const seq = st.nextOut;
    const msg = this.enc.finish(type, headerOf(this.ctx.compId, dc), seq, fixTime(Date.now()));
    st.sent(seq, 0, msg);
    this.live.get(dc)?.write(msg);
  }
}
