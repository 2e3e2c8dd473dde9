/**
 * Cancel-replace, for a venue without an amend (Spot): the order's cancel, and once the venue confirms
 * Cancelled (fills may still arrive while the cancel is raised) the replacement for what is left, as a
 * new order under the Amend's new client order number. The old order and the replacement are never
 * live together. A refused cancel, a final other than Cancelled, a strategy's Cancel, or a restart in
 * between ends the replace with AmendReject. The strategy sees the old order as PendingReplace, then
 * Cancelled with reason Replaced (wireMap.updateBody).
 */
import type { Config } from "../config/load.js";
import type { AmendCmd, NewOrderCmd, SessionInfo } from "../gateway/engineApi.js";
import type { Journal } from "../journal/writer.js";
import type { RateLimiter, Rejected } from "../limits/index.js";
import { Ev, type Order, type OrderStore, Status, TERMINAL } from "../orders/index.js";
import { AmendRejectReason, OrdType } from "../protocol/schema.js";
import type { VenueSurface } from "../venue/surface.js";
import type { CancelPath } from "./cancelPath.js";
import type { InstrumentBook } from "./instruments.js";
import type { Owners } from "./owners.js";
import type { RunState } from "./runState.js";
import { SIDE_TO_WIRE, TIF_TO_WIRE, updateBody } from "./wireMap.js";

export interface ReplacePathDeps {
  book: InstrumentBook;
  limiter: RateLimiter | undefined;
  journal: Journal | undefined;
  store: OrderStore;
  owners: Owners;
  cancels: CancelPath;
  run: RunState;
  options: { limits: Pick<Config["limits"], "cancelWaitMs"> };
  /** Places the replacement as the session's NewOrder (the create path). */
  placeReplacement: (session: SessionInfo, cmd: NewOrderCmd) => void;
  /** AmendReject to the order's owner. */
  tell: (o: Order, reason: number, text: string, newClOrdNo: number) => void;
}

/** A cancel-replace under way: who asked, and the Amend. */
interface Replace {
  session: SessionInfo;
  cmd: AmendCmd;
}

export class ReplacePath {
  private readonly replacing = new Map<string, Replace>();

  constructor(private readonly d: ReplacePathDeps) {}

  /** The order is PendingCancel marked with the replacement's number (store.requestAmend): cancel it. */
  start(o: Order, s: VenueSurface, session: SessionInfo, cmd: AmendCmd): void {
    this.replacing.set(o.clientId, { session, cmd: { ...cmd } });
    this.sendCancel(o, s);
  }

  private sendCancel(o: Order, s: VenueSurface): void {
    const d = this.d;
    const cls = s.classOf("cancel");
    const lim = d.limiter?.acquire(cls, "cancel", d.options.limits.cancelWaitMs);
    const refused = (r: Rejected) => {
      // Nothing was sent: the order is working again, the replace is over.
      this.endReplace(o, AmendRejectReason.Throttled, `throttled: retry in ${r.retryAfterMs} ms`);
      d.store.cancelOutcome(o.clientId, Ev.CancelRejected, undefined, `throttled: ${r.reason}`);
    };
    if (lim === undefined || lim.status === "granted") d.cancels.sendNow(o);
    else if (lim.status === "rejected") refused(lim);
    else
      lim.done.then((r) => {
        if (r.status === "granted") d.cancels.sendNow(o);
        else refused(r);
      });
  }

  /**
   * A change of an order being replaced, before the strategy is told: the cancel refused (working
   * again) ends the replace, so the strategy sees the order as it is, with AmendReject.
   */
  beforeUpdate(o: Order): void {
    if (o.extra.replacedBy === 0 || TERMINAL[o.status]) return;
    if (o.status === Status.New || o.status === Status.PartiallyFilled)
      this.endReplace(o, AmendRejectReason.VenueRejected, "the venue refused the cancel");
  }

  /**
   * After the strategy was told an order being replaced is final: Cancelled places the replacement for
   * what is left; any other final (filled, expired) is too late.
   */
  afterUpdate(o: Order): void {
    if (o.extra.replacedBy === 0 || !TERMINAL[o.status]) return;
    const r = this.replacing.get(o.clientId);
    const total = o.extra.amendQtyLots || o.qtyLots;
    const px = o.extra.amendPriceTicks || o.priceTicks;
    const left = total - o.filledLots;
    if (o.status !== Status.Cancelled || r === undefined || left <= 0) {
      this.endReplace(o, AmendRejectReason.TooLate, `order ${statusWord(o)} before the replacement`);
      return;
    }
    this.replacing.delete(o.clientId);
    this.d.journal?.command({
      session: this.d.owners.ownerName(o.sessionId),
      op: "amendDone",
      clientId: o.clientId,
      reason: `replaced=${o.extra.replacedBy}`,
    });
    this.d.store.endReplace(o);
    const cmd: NewOrderCmd = {
      clOrdNo: r.cmd.newClOrdNo,
      instrumentId: o.instrumentId,
      side: SIDE_TO_WIRE[o.side],
      ordType: OrdType.Limit,
      tif: TIF_TO_WIRE[o.tif],
      positionIdx: o.positionIdx,
      priceTicks: px,
      qtyLots: left,
      flags: 0,
    };
    // Outside the store's apply: the create path registers a new order.
    queueMicrotask(() => {
      if (!this.d.run.dead) this.d.placeReplacement(r.session, cmd);
    });
  }

  /**
   * A strategy's Cancel of an order being replaced: the replace is dropped (its cancel is already on
   * the way), the strategy gets AmendReject and the order's PendingCancel. True when handled here.
   */
  cancelDuringReplace(o: Order): boolean {
    if (o.extra.replacedBy === 0) return false;
    this.endReplace(o, AmendRejectReason.CancelPending, "cancelled before the replacement");
    this.d.owners.toOwner(o, "OrderUpdate", updateBody(o, this.d.book.byId(o.instrumentId)));
    return true;
  }

  /**
   * After a restart: a cancel-replace the journal shows begun and not concluded is abandoned (its
   * cancel is resolved as any cancel); the strategy gets AmendReject Restarted. Returns how many.
   */
  abandon(): number {
    let n = 0;
    for (const o of this.d.store.liveSet())
      if (o.extra.replacedBy > 0) {
        this.endReplace(o, AmendRejectReason.Restarted, "gateway restarted: replacement abandoned");
        n++;
      }
    return n;
  }

  private endReplace(o: Order, reason: number, text: string): void {
    const d = this.d;
    const newNo = o.extra.replacedBy;
    this.replacing.delete(o.clientId);
    d.journal?.command({
      session: d.owners.ownerName(o.sessionId),
      op: "amendDone",
      clientId: o.clientId,
      reason: `refused=${reason}`,
    });
    d.store.endReplace(o);
    d.tell(o, reason, text, newNo);
  }
}

function statusWord(o: Order): string {
  return o.status === Status.Cancelled
    ? "cancelled with nothing left"
    : o.status === Status.Filled
      ? "filled"
      : "ended";
}
