/**
 * What an applied event does to an order besides picking its table cell: the status a computed cell
 * (`=`, `working`, `settle`, `fill`; see transitions.ts) resolves to for this order, and the fields
 * each event kind sets (send and ack times, reject reason, an amend's new price and quantity).
 */
import type { OrderEvent } from "./event.js";
import { clearAmendTarget, type Order, ownExtra } from "./order.js";
import { Ev, Status } from "./status.js";
import { SETTLE, STAY, WORKING } from "./transitions.js";

/** The status a compiled cell code means for this order (`code` is a status or a computed target). */
export function targetStatus(o: Order, code: number): Status {
  if (code >= 0) return code as Status;
  if (code === STAY) return o.status;
  if (code === WORKING) return o.filledLots > 0 ? Status.PartiallyFilled : Status.New;
  if (code === SETTLE) {
    if (o.leavesLots <= 0 && o.filledLots > 0) return Status.Filled;
    return o.filledLots > 0 ? Status.PartiallyFilled : Status.New;
  }
  const s = o.status;
  // FILL. An amend in flight that raises the quantity keeps the order working: its answer decides.
  if (s === Status.PendingReplace && o.extra.amendQtyLots > o.filledLots) return s;
  if (o.leavesLots <= 0) return Status.Filled;
  return s === Status.New || s === Status.PendingNew || s === Status.Unknown || s === Status.Rejected
    ? Status.PartiallyFilled
    : s;
}

/** The fields an applied (not dropped) event sets on the order, by kind. */
export function sideEffects(o: Order, ev: OrderEvent): void {
  switch (ev.kind) {
    case Ev.Submitted:
      o.sends += 1;
      if (o.sentNs === 0) o.sentNs = ev.tsNs;
      o.lastSentNs = ev.tsNs;
      break;
    case Ev.CreateAcked:
      if (o.ackedNs === 0) o.ackedNs = ev.tsNs;
      break;
    case Ev.CreateRejected:
    case Ev.VenueRejected:
      if (ev.reason !== "") ownExtra(o).rejectReason = ev.reason;
      break;
    case Ev.VenueNew:
    case Ev.VenuePartiallyFilled:
      if (o.ackedNs === 0) o.ackedNs = ev.tsNs;
      break;
    case Ev.AmendAcked:
      // The venue holds the target now: the new leaves follow from it (settle decides the status).
      if (o.extra.amendPriceTicks > 0) o.priceTicks = o.extra.amendPriceTicks;
      if (o.extra.amendQtyLots > 0) o.qtyLots = o.extra.amendQtyLots;
      clearAmendTarget(o);
      o.leavesLots = o.filledLots >= o.qtyLots ? 0 : o.qtyLots - o.filledLots;
      break;
    case Ev.AmendRejected:
      clearAmendTarget(o);
      break;
  }
}
