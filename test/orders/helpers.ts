import {
  type Ev,
  type FillReport,
  type NewOrderRequest,
  newEvent,
  type Order,
  type OrderEvent,
  type OrderListener,
  OrderStore,
  type Source,
  type Status,
} from "../../src/orders/index.js";

export function req(n: number, qtyLots = 10, sessionId = 1): NewOrderRequest {
  return {
    sessionId,
    clientOrderNo: n,
    instrumentId: 7,
    symbol: "BTCUSDT",
    surface: "hft",
    side: "buy",
    type: "limit",
    tif: "GTC",
    priceTicks: 1000,
    qtyLots,
  };
}

/** Records everything the store pushes. */
export class Recorder implements OrderListener {
  updates: Array<{ clientId: string; prev: Status; status: Status; cause: Ev }> = [];
  fills: Array<FillReport & { clientId: string }> = [];
  released: string[] = [];
  onUpdate(o: Order, prev: Status, cause: Ev): void {
    this.updates.push({ clientId: o.clientId, prev, status: o.status, cause });
  }
  onFill(o: Order, f: FillReport): void {
    this.fills.push({ ...f, clientId: o.clientId });
  }
  onCancelReleased(o: Order): void {
    this.released.push(o.clientId);
  }
}

export function ev(kind: Ev, fields: Partial<OrderEvent> = {}, source?: Source): OrderEvent {
  const e = newEvent(kind);
  Object.assign(e, fields);
  if (source !== undefined) e.source = source;
  return e;
}

export function storeWithRecorder(): { store: OrderStore; rec: Recorder } {
  const rec = new Recorder();
  return {
    store: new OrderStore({ listener: rec, pendingNewDeadlineNs: 100, pendingCancelDeadlineNs: 100 }),
    rec,
  };
}
