/**
 * Command dispatch: each received frame decoded and checked (session, clOrdNo numbering, known active
 * instrument, quantity, price, admin rights) before it reaches the engine; answers of its own otherwise.
 */
import type { Instrument } from "../domain/types.js";
import { monoNs } from "../protocol/clock.js";
import { type C2GMessage, decodeC2G } from "../protocol/codec.js";
import {
  AmendRejectReason,
  type Body,
  CancelAllScope,
  CancelRejectReason,
  INSTRUMENTS_PER_FRAME,
  type InstrumentRecordMsg,
  OrdType,
  QueryScope,
  Surface as WireSurface,
} from "../protocol/schema.js";
import type { GatewayEngine } from "./engineApi.js";
import { CLOSE, type Link, type Session } from "./link.js";
import type { LogonDesk } from "./logon.js";
import type { GatewayLogger, GatewayStats } from "./options.js";
import type { Outbound } from "./outbound.js";

/** Surface enum values on the wire (PROTOCOL.md §5). */
const SURFACE_WIRE: Readonly<Record<Instrument["surface"], number>> = {
  spot: WireSurface.Spot,
  hft: WireSurface.Hft,
  futures: WireSurface.Futures,
};

function toRecord(i: Instrument): InstrumentRecordMsg {
  return {
    instrumentId: i.id,
    surface: SURFACE_WIRE[i.surface],
    active: i.active ? 1 : 0,
    symbol: i.symbol,
    venue: i.venue,
    tickSize: i.tickSize,
    qtyStep: i.qtyStep,
    minQty: i.minQty,
    maxQty: i.maxQty,
    minNotional: i.minNotional,
  };
}

export class CommandDispatch {
  private instArr: readonly Instrument[] | undefined;
  private instById = new Map<number, Instrument>();

  constructor(
    private readonly engine: GatewayEngine,
    private readonly out: Outbound,
    private readonly logon: LogonDesk,
    private readonly log: GatewayLogger,
    private readonly stats: GatewayStats,
  ) {}

  onFrame(l: Link, data: Buffer, isBinary: boolean): void {
    const recvNs = monoNs();
    l.lastRecvMs = Date.now();
    this.stats.framesIn++;
    if (l.closed) return;
    if (!isBinary) {
      this.out.sendError(l, "TextFrame", 0, recvNs);
      return;
    }
    const m = decodeC2G(data);
    if (m.name === undefined) {
      this.out.sendError(l, m.error, m.type, recvNs);
      return;
    }
    const s = l.session;
    if (m.name === "Logon") {
      this.logon.onLogon(l, m.body, recvNs);
      return;
    }
    if (!s) {
      this.out.sendError(l, "NotLoggedOn", m.type, recvNs);
      return;
    }
    // The frames a command produces go out after it, with the venue request (if any) already sent.
    this.out.holdFrames();
    // The one guard at the engine boundary: an engine bug must not take the gateway (or other sessions) down.
    try {
      this.dispatch(l, s, m, recvNs);
    } catch (err) {
      this.engineFault(l, s, m, err, recvNs);
    }
    this.out.releaseFrames();
  }

  private engineFault(l: Link, s: Session, m: C2GMessage, err: unknown, recvNs: number): void {
    this.log.warn(
      { sessionId: s.sessionId, type: m.name, err: String(err) },
      "engine threw while handling a command",
    );
    if (m.name === "NewOrder") this.out.reject(s, m.body.clOrdNo, "Internal", recvNs);
    else this.out.sendError(l, "Internal", m.type, recvNs);
  }

  private dispatch(l: Link, s: Session, m: C2GMessage, recvNs: number): void {
    switch (m.name) {
      case "NewOrder":
        this.onNewOrder(s, m.body, recvNs);
        return;
      case "Cancel": {
        const b = m.body;
        if (b.clOrdNo > s.lastClOrdNo || (b.clOrdNo === 0 && b.exchangeOrderId === "")) {
          this.out.sendSeq(
            s,
            "CancelReject",
            {
              clOrdNo: b.clOrdNo,
              reason: CancelRejectReason.UnknownOrder,
              exchangeOrderId: b.exchangeOrderId,
              text: "unknown order",
            },
            recvNs,
          );
          return;
        }
        this.engine.onCancel(s, b, recvNs);
        return;
      }
      case "Amend":
        this.onAmend(l, s, m.body, m.type, recvNs);
        return;
      case "CancelAll": {
        const b = m.body;
        if (b.scope === CancelAllScope.SessionInstrument && !this.instrument(b.instrumentId)) {
          this.out.sendError(l, "UnknownInstrument", m.type, recvNs);
          return;
        }
        this.engine.onCancelAll(s, b, recvNs);
        return;
      }
      case "Query":
        this.onQuery(s, m.body, recvNs);
        return;
      case "InstrumentsRequest":
        this.onInstruments(s, m.body.requestId, recvNs);
        return;
      case "Kill":
      case "SetTradingState":
        this.onAdmin(l, s, m, recvNs);
        return;
      case "Subscribe":
        if (this.instrument(m.body.instrumentId) === undefined)
          this.out.md.unknownInstrument(l, m.body.requestId, m.body.instrumentId, recvNs);
        else this.out.md.subscribe(l, m.body.requestId, m.body.instrumentId, recvNs);
        return;
      case "Unsubscribe":
        if (this.instrument(m.body.instrumentId) === undefined)
          this.out.md.unknownInstrument(l, m.body.requestId, m.body.instrumentId, recvNs);
        else this.out.md.unsubscribe(l, m.body.requestId, m.body.instrumentId, recvNs);
        return;
      case "Heartbeat":
        if (m.body.echo !== 0) this.out.heartbeat(l, m.body.echo, recvNs);
        return;
      case "Logout":
        this.out.drop(l, "logout", CLOSE.Normal, "logout");
        return;
    }
  }

  private onNewOrder(s: Session, b: Body<"NewOrder">, recvNs: number): void {
    if (b.clOrdNo <= s.lastClOrdNo || b.clOrdNo === 0) {
      this.out.reject(s, b.clOrdNo, "ClOrdNoNotIncreasing", recvNs);
      return;
    }
    s.lastClOrdNo = b.clOrdNo;
    const inst = this.instrument(b.instrumentId);
    if (!inst) {
      this.out.reject(s, b.clOrdNo, "UnknownInstrument", recvNs);
      return;
    }
    if (!inst.active) {
      this.out.reject(s, b.clOrdNo, "InstrumentInactive", recvNs);
      return;
    }
    if (b.qtyLots === 0) {
      this.out.reject(s, b.clOrdNo, "BadQuantity", recvNs);
      return;
    }
    if (b.ordType === OrdType.Limit && b.priceTicks === 0) {
      this.out.reject(s, b.clOrdNo, "BadPrice", recvNs);
      return;
    }
    this.engine.onNewOrder(s, b, recvNs);
  }

  /**
   * Amend: the numbers are checked here as for NewOrder / Cancel (an order number the session never used
   * is unknown; a replacement number must increase and is used up); the engine decides the rest.
   */
  private onAmend(l: Link, s: Session, b: Body<"Amend">, type: number, recvNs: number): void {
    const e = this.engine;
    if (!e.onAmend) {
      this.out.sendError(l, "UnknownType", type, recvNs);
      return;
    }
    let reason = 0;
    if (b.clOrdNo === 0 || b.clOrdNo > s.lastClOrdNo) reason = AmendRejectReason.UnknownOrder;
    else if (b.newClOrdNo !== 0 && b.newClOrdNo <= s.lastClOrdNo) reason = AmendRejectReason.BadNewClOrdNo;
    if (reason !== 0) {
      const text = reason === AmendRejectReason.UnknownOrder ? "unknown order" : "newClOrdNo not increasing";
      this.out.sendSeq(s, "AmendReject", { ...b, reason, exchangeOrderId: "", text }, recvNs);
      return;
    }
    if (b.newClOrdNo !== 0) s.lastClOrdNo = b.newClOrdNo;
    e.onAmend(s, b, recvNs);
  }

  /** Admin commands: refused (nothing reaches the engine) unless the session logged on as admin. */
  private onAdmin(
    l: Link,
    s: Session,
    m: Extract<C2GMessage, { name: "Kill" | "SetTradingState" }>,
    recvNs: number,
  ): void {
    if (!s.admin) {
      this.out.sendError(l, "NotAdmin", m.type, recvNs);
      return;
    }
    const e = this.engine;
    if (m.name === "Kill" && e.onKill) e.onKill(s, m.body, recvNs);
    else if (m.name === "SetTradingState" && e.onSetTradingState) e.onSetTradingState(s, m.body, recvNs);
    else this.out.sendError(l, "UnknownType", m.type, recvNs);
  }

  private onQuery(s: Session, b: Body<"Query">, recvNs: number): void {
    const rows = b.scope === QueryScope.One && b.clOrdNo > s.lastClOrdNo ? [] : this.engine.onQuery(s, b);
    const cork = () => {
      for (const r of rows) this.out.sendSeq(s, "OrderUpdate", { ...r, requestId: b.requestId }, recvNs);
      this.out.sendSeq(s, "QueryEnd", { requestId: b.requestId, count: rows.length }, recvNs);
    };
    if (rows.length > 0) this.out.cork(s.sessionId, cork);
    else this.out.sendSeq(s, "QueryEnd", { requestId: b.requestId, count: 0 }, recvNs);
  }

  private onInstruments(s: Session, requestId: number, recvNs: number): void {
    const all = this.engine.instruments();
    let i = 0;
    do {
      const page = all.slice(i, i + INSTRUMENTS_PER_FRAME).map(toRecord);
      i += INSTRUMENTS_PER_FRAME;
      const more = i < all.length ? 1 : 0;
      this.out.sendSeq(
        s,
        "InstrumentsResponse",
        { requestId, more, count: page.length, instruments: page },
        recvNs,
      );
    } while (i < all.length);
  }

  private instrument(id: number): Instrument | undefined {
    const arr = this.engine.instruments();
    if (arr !== this.instArr) {
      this.instArr = arr;
      this.instById = new Map(arr.map((x) => [x.id, x]));
    }
    return this.instById.get(id);
  }
}
