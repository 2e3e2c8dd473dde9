/**
 * A small in-test engine implementing GatewayEngine: acks every order with a synthetic exchange id and
 * keeps per-session order state. Enough to exercise the protocol and session behaviour; the real
 * engine (risk, REST, state machine) lives elsewhere.
 */
import type { Instrument } from "../../src/domain/types.js";
import type {
  CancelAllCmd,
  CancelCmd,
  DisconnectReason,
  GatewayEngine,
  NewOrderCmd,
  OrderUpdateBody,
  QueryCmd,
  SessionInfo,
  SessionSink,
} from "../../src/gateway/engineApi.js";
import { CancelAllScope, OrderStatus } from "../../src/protocol/schema.js";
import { BTCUSDT } from "../fixtures/instruments.js";

// The shared BTCUSDT definition under another linear symbol.
const inst = (id: number, symbol: string, active = true): Instrument => ({
  ...BTCUSDT,
  id,
  symbol,
  base: symbol.slice(0, 3),
  active,
});

export const INSTRUMENTS: readonly Instrument[] = [
  inst(1, "BTCUSDT"),
  inst(2, "ETHUSDT"),
  inst(3, "OLDUSDT", false),
];

interface Order {
  sessionId: number;
  cmd: NewOrderCmd;
  exchangeOrderId: string;
  status: number;
  cum: number;
}

export class TestEngine implements GatewayEngine {
  sink!: SessionSink;
  readonly orders = new Map<string, Order>(); // key sessionId:clOrdNo
  readonly calls: { kind: string; sessionId: number; detail?: unknown }[] = [];
  readonly disconnects: { sessionId: number; reason: DisconnectReason; cancelOrders: boolean }[] = [];
  readonly logons: { sessionId: number; resumed: boolean }[] = [];

  orderCalls(): number {
    return this.calls.filter((c) => c.kind !== "query").length;
  }
  instruments(): readonly Instrument[] {
    return INSTRUMENTS;
  }
  onLogon(s: SessionInfo, resumed: boolean): void {
    this.logons.push({ sessionId: s.sessionId, resumed });
  }
  private update(o: Order, recvNs = 0): void {
    this.sink.send(
      o.sessionId,
      "OrderUpdate",
      {
        clOrdNo: o.cmd.clOrdNo,
        requestId: 0,
        instrumentId: o.cmd.instrumentId,
        status: o.status,
        side: o.cmd.side,
        ordType: o.cmd.ordType,
        tif: o.cmd.tif,
        exchangeOrderId: o.exchangeOrderId,
        priceTicks: o.cmd.priceTicks,
        qtyLots: o.cmd.qtyLots,
        cumQtyLots: o.cum,
        leavesQtyLots: o.cmd.qtyLots - o.cum,
        avgPxMantissa: 0,
        avgPxExponent: 0,
        lastFillPriceTicks: 0,
        lastFillQtyLots: 0,
        reasonCode: 0,
      },
      recvNs,
    );
  }
  private snapshot(o: Order): OrderUpdateBody {
    return {
      clOrdNo: o.cmd.clOrdNo,
      requestId: 0,
      instrumentId: o.cmd.instrumentId,
      status: o.status,
      side: o.cmd.side,
      ordType: o.cmd.ordType,
      tif: o.cmd.tif,
      exchangeOrderId: o.exchangeOrderId,
      priceTicks: o.cmd.priceTicks,
      qtyLots: o.cmd.qtyLots,
      cumQtyLots: o.cum,
      leavesQtyLots: o.cmd.qtyLots - o.cum,
      avgPxMantissa: 0,
      avgPxExponent: 0,
      lastFillPriceTicks: 0,
      lastFillQtyLots: 0,
      reasonCode: 0,
    };
  }
  onNewOrder(s: SessionInfo, cmd: NewOrderCmd, recvNs: number): void {
    this.calls.push({ kind: "new", sessionId: s.sessionId, detail: cmd });
    const o: Order = {
      sessionId: s.sessionId,
      cmd,
      exchangeOrderId: `X-${s.sessionId}-${cmd.clOrdNo}`,
      status: OrderStatus.New,
      cum: 0,
    };
    this.orders.set(`${s.sessionId}:${cmd.clOrdNo}`, o);
    this.sink.cork(s.sessionId, () => {
      this.sink.send(
        s.sessionId,
        "Ack",
        { clOrdNo: cmd.clOrdNo, instrumentId: cmd.instrumentId, exchangeOrderId: o.exchangeOrderId },
        recvNs,
      );
      this.update(o, recvNs);
    });
  }
  private live(o: Order): boolean {
    return o.status === OrderStatus.New || o.status === OrderStatus.PartiallyFilled;
  }
  private cancelOrder(o: Order, recvNs = 0): void {
    o.status = OrderStatus.Cancelled;
    this.update(o, recvNs);
  }
  onCancel(s: SessionInfo, cmd: CancelCmd, recvNs: number): void {
    this.calls.push({ kind: "cancel", sessionId: s.sessionId, detail: cmd });
    const o =
      cmd.clOrdNo !== 0
        ? this.orders.get(`${s.sessionId}:${cmd.clOrdNo}`)
        : [...this.orders.values()].find(
            (x) => x.sessionId === s.sessionId && x.exchangeOrderId === cmd.exchangeOrderId,
          );
    if (!o || !this.live(o)) {
      this.sink.send(
        s.sessionId,
        "CancelReject",
        { clOrdNo: cmd.clOrdNo, reason: o ? 3 : 4, exchangeOrderId: cmd.exchangeOrderId, text: "" },
        recvNs,
      );
      return;
    }
    this.cancelOrder(o, recvNs);
  }
  onCancelAll(s: SessionInfo, cmd: CancelAllCmd, recvNs: number): void {
    this.calls.push({ kind: "cancelAll", sessionId: s.sessionId, detail: cmd });
    for (const o of this.orders.values()) {
      if (!this.live(o)) continue;
      if (cmd.scope !== CancelAllScope.Account && o.sessionId !== s.sessionId) continue;
      if (cmd.scope === CancelAllScope.SessionInstrument && o.cmd.instrumentId !== cmd.instrumentId) continue;
      this.cancelOrder(o, recvNs);
    }
  }
  onQuery(s: SessionInfo, cmd: QueryCmd): readonly OrderUpdateBody[] {
    this.calls.push({ kind: "query", sessionId: s.sessionId });
    const mine = [...this.orders.values()].filter((o) => o.sessionId === s.sessionId);
    const sel =
      cmd.scope === 1 ? mine.filter((o) => o.cmd.clOrdNo === cmd.clOrdNo) : mine.filter((o) => this.live(o));
    return sel.map((o) => this.snapshot(o));
  }
  onDisconnect(s: SessionInfo, reason: DisconnectReason, cancelOrders: boolean): void {
    this.disconnects.push({ sessionId: s.sessionId, reason, cancelOrders });
    if (!cancelOrders) return;
    for (const o of this.orders.values())
      if (o.sessionId === s.sessionId && this.live(o)) this.cancelOrder(o);
  }
  /** Pushes a fill for an order (as if from the exchange stream). */
  fill(sessionId: number, clOrdNo: number, qty: number, execId: string): void {
    const o = this.orders.get(`${sessionId}:${clOrdNo}`)!;
    o.cum += qty;
    o.status = o.cum >= o.cmd.qtyLots ? OrderStatus.Filled : OrderStatus.PartiallyFilled;
    this.sink.send(sessionId, "Fill", {
      clOrdNo,
      instrumentId: o.cmd.instrumentId,
      side: o.cmd.side,
      liquidity: 1,
      execId,
      priceTicks: o.cmd.priceTicks,
      qtyLots: qty,
      feeMantissa: -1,
      feeExponent: -4,
      feeAsset: "USDT",
      exchangeTimeMs: Date.now(),
    });
    this.update(o);
  }
}
