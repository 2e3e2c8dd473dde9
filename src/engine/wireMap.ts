/**
 * Mapping between the engine's vocabulary (order store statuses, risk codes, cancel-guard codes) and
 * the binary protocol's enums and code table, as data. Builders fill reused message bodies: the
 * gateway encodes a body synchronously inside `send`, so one scratch object per message type is safe.
 */
import { ClockError } from "../clock/clockSync.js";
import type { OrderType, Side, TimeInForce } from "../domain/types.js";
import type { CancelRejectCode } from "../orders/guards.js";
import type { Order } from "../orders/order.js";
import { Status, TERMINAL } from "../orders/status.js";
import {
  type Body,
  CancelRejectReason,
  CODES,
  type CodeName,
  OrderStatus,
  OrdType,
  RejectSource,
  Tif,
  Side as WSide,
} from "../protocol/schema.js";
import { ValidationError } from "../rest/errors.js";
import type { RiskRejectCode } from "../risk/codes.js";
import { RISK_REJECTS } from "../risk/codes.js";
import { tryParseDec } from "../util/decimal.js";
import type { InstrumentEntry } from "./instruments.js";

/** Store status → protocol OrderStatus. CancellationRaised is a pending cancel to a strategy. */
export const WIRE_STATUS: readonly number[] = (() => {
  const t: number[] = [];
  t[Status.PendingNew] = OrderStatus.PendingNew;
  t[Status.Unknown] = OrderStatus.Unknown;
  t[Status.New] = OrderStatus.New;
  t[Status.PartiallyFilled] = OrderStatus.PartiallyFilled;
  t[Status.PendingCancel] = OrderStatus.PendingCancel;
  t[Status.CancellationRaised] = OrderStatus.PendingCancel;
  t[Status.ExpirationRaised] = OrderStatus.ExpirationRaised;
  t[Status.Filled] = OrderStatus.Filled;
  t[Status.Cancelled] = OrderStatus.Cancelled;
  t[Status.Expired] = OrderStatus.Expired;
  t[Status.Rejected] = OrderStatus.Rejected;
  t[Status.PendingReplace] = OrderStatus.PendingReplace;
  return t;
})();

export const SIDE_FROM_WIRE: Readonly<Record<number, Side>> = { [WSide.Buy]: "buy", [WSide.Sell]: "sell" };
export const SIDE_TO_WIRE: Readonly<Record<Side, number>> = { buy: WSide.Buy, sell: WSide.Sell };
export const TYPE_FROM_WIRE: Readonly<Record<number, OrderType>> = {
  [OrdType.Limit]: "limit",
  [OrdType.Market]: "market",
};
export const TYPE_TO_WIRE: Readonly<Record<OrderType, number>> = {
  limit: OrdType.Limit,
  market: OrdType.Market,
};
export const TIF_FROM_WIRE: Readonly<Record<number, TimeInForce>> = {
  [Tif.GTC]: "GTC",
  [Tif.IOC]: "IOC",
  [Tif.FOK]: "FOK",
};
export const TIF_TO_WIRE: Readonly<Record<TimeInForce, number>> = {
  GTC: Tif.GTC,
  IOC: Tif.IOC,
  FOK: Tif.FOK,
};

/** Risk reject code → protocol code name (the text sent is the risk gate's own). */
export const RISK_TO_CODE: Readonly<Record<RiskRejectCode, CodeName>> = {
  UNKNOWN_INSTRUMENT: "UnknownInstrument",
  INSTRUMENT_INACTIVE: "InstrumentInactive",
  BAD_PRICE: "BadPrice",
  BAD_QTY: "BadQuantity",
  QTY_BELOW_MIN: "QtyBelowMin",
  QTY_ABOVE_MAX: "QtyAboveMax",
  NOTIONAL_BELOW_MIN: "NotionalBelowMin",
  NOTIONAL_ABOVE_MAX: "RiskLimit",
  OPEN_ORDERS_INSTRUMENT: "RiskLimit",
  OPEN_ORDERS_SESSION: "RiskLimit",
  POSITION_INSTRUMENT: "RiskLimit",
  POSITION_SESSION: "RiskLimit",
  PRICE_BAND: "RiskLimit",
  NO_REFERENCE_PRICE: "RiskLimit",
  DUPLICATE_ORDER: "RiskLimit",
  TRADING_HALTED: "TradingHalted",
  REDUCE_ONLY: "ReducingOnly",
};

export const CANCEL_REASON: Readonly<Record<CancelRejectCode, number>> = {
  CANCEL_ALREADY_PENDING: CancelRejectReason.AlreadyPending,
  EXPIRATION_RAISED: CancelRejectReason.ExpirationRaised,
  ALREADY_TERMINAL: CancelRejectReason.AlreadyTerminal,
  UNKNOWN_ORDER: CancelRejectReason.UnknownOrder,
};

/** What a strategy is told when the venue's 401 is put down to the clock (the refused request). */
export const CLOCK_401_TEXT = "venue answered 401: epoch outside its window; re-syncing";

/** The text a failed request is reported with: the venue's own message when it gave one. */
export function failureText(err: unknown): string {
  return err instanceof ValidationError
    ? err.exchangeMessage || err.message
    : String((err as Error)?.message);
}

/**
 * The text a refused request is told with: the clock's when the clock explains the refusal (a 401 put
 * down to it, or the clock guard's own refusal before sending), else failureText's.
 */
export function refusedText(err: unknown, clockExplains: boolean): string {
  if (clockExplains) return CLOCK_401_TEXT;
  return err instanceof ClockError ? CODES.ClockSkew.text : failureText(err);
}

export function riskText(code: RiskRejectCode): string {
  return RISK_REJECTS[code];
}

/** Trading state names ↔ wire values. */
export const STATE_TO_WIRE = { active: 1, reducing: 2, halted: 3 } as const;
export const STATE_FROM_WIRE: Readonly<Record<number, "active" | "reducing" | "halted">> = {
  1: "active",
  2: "reducing",
  3: "halted",
};

// ---- reused bodies ----

const REJECT: Body<"Reject"> = { clOrdNo: 0, code: 0, source: 0, retryable: 0, text: "" };
export function rejectBody(
  clOrdNo: number,
  code: CodeName,
  text?: string,
  retryable?: boolean,
): Body<"Reject"> {
  const c = CODES[code];
  REJECT.clOrdNo = clOrdNo;
  REJECT.code = c.code;
  REJECT.source = RejectSource[c.source];
  REJECT.retryable = (retryable ?? c.retryable) ? 1 : 0;
  REJECT.text = text ?? c.text;
  return REJECT;
}

const ACK: Body<"Ack"> = { clOrdNo: 0, instrumentId: 0, exchangeOrderId: "" };
export function ackBody(o: Order): Body<"Ack"> {
  ACK.clOrdNo = o.clientOrderNo;
  ACK.instrumentId = o.instrumentId;
  ACK.exchangeOrderId = o.exchangeId;
  return ACK;
}

const UNKNOWN: Body<"OutcomeUnknown"> = { clOrdNo: 0, instrumentId: 0, op: 0, text: "" };
export function unknownBody(o: Order, op: number, text: string): Body<"OutcomeUnknown"> {
  UNKNOWN.clOrdNo = o.clientOrderNo;
  UNKNOWN.instrumentId = o.instrumentId;
  UNKNOWN.op = op;
  UNKNOWN.text = text;
  return UNKNOWN;
}

const CXL_REJECT: Body<"CancelReject"> = { clOrdNo: 0, reason: 0, exchangeOrderId: "", text: "" };
export function cancelRejectBody(
  clOrdNo: number,
  reason: number,
  exchangeOrderId: string,
  text: string,
): Body<"CancelReject"> {
  CXL_REJECT.clOrdNo = clOrdNo;
  CXL_REJECT.reason = reason;
  CXL_REJECT.exchangeOrderId = exchangeOrderId;
  CXL_REJECT.text = text;
  return CXL_REJECT;
}

const AMEND_REJECT: Body<"AmendReject"> = {
  clOrdNo: 0,
  newClOrdNo: 0,
  reason: 0,
  exchangeOrderId: "",
  text: "",
};
export function amendRejectBody(
  clOrdNo: number,
  newClOrdNo: number,
  reason: number,
  exchangeOrderId: string,
  text: string,
): Body<"AmendReject"> {
  AMEND_REJECT.clOrdNo = clOrdNo;
  AMEND_REJECT.newClOrdNo = newClOrdNo;
  AMEND_REJECT.reason = reason;
  AMEND_REJECT.exchangeOrderId = exchangeOrderId;
  AMEND_REJECT.text = text;
  return AMEND_REJECT;
}

/** Decimal places used for average prices: the tick's scale plus four. */
const AVG_EXTRA = 4;

/**
 * Fills `out` with the order's state (a fresh object when `out` is omitted: queries keep them). A final
 * order has nothing open (leaves 0 even when cancelled with quantity unfilled); the last-fill fields are
 * the order's latest fill so far (0 before the first).
 */
export function updateBody(
  o: Order,
  e: InstrumentEntry | undefined,
  out: Body<"OrderUpdate"> = {} as Body<"OrderUpdate">,
): Body<"OrderUpdate"> {
  out.clOrdNo = o.clientOrderNo;
  out.requestId = 0;
  out.instrumentId = o.instrumentId;
  // A cancel-replace shows as PendingReplace until the old order is final (then Cancelled: Replaced).
  const replacing = o.extra.replacedBy > 0;
  out.status = replacing && !TERMINAL[o.status] ? OrderStatus.PendingReplace : WIRE_STATUS[o.status]!;
  out.side = SIDE_TO_WIRE[o.side];
  out.ordType = TYPE_TO_WIRE[o.type];
  out.tif = TIF_TO_WIRE[o.tif];
  out.exchangeOrderId = o.exchangeId;
  out.priceTicks = o.priceTicks;
  out.qtyLots = o.qtyLots;
  out.cumQtyLots = o.filledLots;
  out.leavesQtyLots = TERMINAL[o.status] ? 0 : o.leavesLots;
  if (o.extra.avgPxTicks > 0 && e !== undefined) {
    const scale = e.price.scale + AVG_EXTRA;
    out.avgPxMantissa = Math.round(o.extra.avgPxTicks * e.price.mantissa * 10 ** AVG_EXTRA);
    out.avgPxExponent = -scale;
  } else {
    out.avgPxMantissa = 0;
    out.avgPxExponent = 0;
  }
  out.lastFillPriceTicks = Math.round(o.extra.lastFillPxTicks);
  out.lastFillQtyLots = o.extra.lastFillLots;
  out.reasonCode =
    o.status === Status.Rejected
      ? CODES.VenueRejected.code
      : replacing && o.status === Status.Cancelled
        ? CODES.Replaced.code
        : 0;
  return out;
}

const FILL: Body<"Fill"> = {
  clOrdNo: 0,
  instrumentId: 0,
  side: 0,
  liquidity: 0,
  execId: "",
  priceTicks: 0,
  qtyLots: 0,
  feeMantissa: 0,
  feeExponent: 0,
  feeAsset: "",
  exchangeTimeMs: 0,
};
/** Fee precision on the wire: 10^-8 of the fee asset. */
const FEE_EXP = -8;
export function fillBody(
  o: Order,
  asset: string,
  execId: string,
  pxTicks: number,
  lots: number,
  fee: number,
  /** The venue's execution time (FillReport.venueMs); 0 = unknown. */
  exchangeTimeMs: number,
  liquidity = 0,
): Body<"Fill"> {
  FILL.clOrdNo = o.clientOrderNo;
  FILL.instrumentId = o.instrumentId;
  FILL.side = SIDE_TO_WIRE[o.side];
  // Known only from HFT execution records (isMaker); 0 = the source did not say.
  FILL.liquidity = liquidity;
  // The wire field holds 40 bytes; synthesized ids (exchange UUID + ":" + lots) can be longer.
  FILL.execId = execId.length <= 40 ? execId : `${o.clientId}:${o.filledLots}`.slice(0, 40);
  FILL.priceTicks = Math.round(pxTicks);
  FILL.qtyLots = lots;
  FILL.feeMantissa = fee > 0 ? Math.round(fee * 10 ** -FEE_EXP) : 0;
  FILL.feeExponent = FEE_EXP;
  FILL.feeAsset = asset;
  FILL.exchangeTimeMs = Math.max(exchangeTimeMs, 0);
  return FILL;
}

/**
 * A balance as (free, locked) mantissas over one shared exponent; at most 8 decimals (rounded down
 * beyond), fewer if a mantissa would pass 2^53. undefined when the text is not a decimal.
 */
export function balanceBody(asset: string, free: string, locked: string): Body<"BalanceUpdate"> | undefined {
  const a = tryParseDec(free);
  const b = tryParseDec(locked);
  if (a === undefined || b === undefined) return undefined;
  let scale = Math.min(8, Math.max(a.s, b.s, 0));
  for (; scale >= 0; scale--) {
    const ma = rescale(a.m, a.s, scale);
    const mb = rescale(b.m, b.s, scale);
    const lim = BigInt(Number.MAX_SAFE_INTEGER);
    if (ma <= lim && ma >= -lim && mb <= lim && mb >= -lim) {
      return {
        asset: asset.slice(0, 12),
        freeMantissa: Number(ma),
        lockedMantissa: Number(mb),
        exponent: -scale,
      };
    }
  }
  return undefined;
}

function rescale(m: bigint, from: number, to: number): bigint {
  return to >= from ? m * 10n ** BigInt(to - from) : m / 10n ** BigInt(from - to);
}
