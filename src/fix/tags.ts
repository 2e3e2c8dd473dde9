/**
 * The FIX 4.4 vocabulary the gateway speaks, as data: message types by direction, and the enum
 * mappings between FIX values and the binary protocol's (docs/fix.md's table is this file in prose).
 */
import {
  AmendRejectReason,
  CancelRejectReason,
  OrderStatus,
  OrdType,
  Side,
  Tif,
} from "../protocol/schema.js";

/** Application messages a trading session may send. */
export const ORDER_TYPES = new Set(["D", "F", "G", "q", "H"]);

export const SIDE_IN: Readonly<Record<string, number>> = { "1": Side.Buy, "2": Side.Sell };
export const SIDE_OUT: Readonly<Record<number, string>> = { [Side.Buy]: "1", [Side.Sell]: "2" };
export const ORDTYPE_IN: Readonly<Record<string, number>> = { "1": OrdType.Market, "2": OrdType.Limit };
export const ORDTYPE_OUT: Readonly<Record<number, string>> = { [OrdType.Market]: "1", [OrdType.Limit]: "2" };
/** TimeInForce(59): absent = GTC. */
export const TIF_IN: Readonly<Record<string, number>> = { "1": Tif.GTC, "3": Tif.IOC, "4": Tif.FOK };
export const TIF_OUT: Readonly<Record<number, string>> = { [Tif.GTC]: "1", [Tif.IOC]: "3", [Tif.FOK]: "4" };

/** OrdStatus(39) for the binary order status (OrderUpdate.status). */
export const STATUS_OUT: Readonly<Record<number, string>> = {
  [OrderStatus.PendingNew]: "A",
  [OrderStatus.New]: "0",
  [OrderStatus.PartiallyFilled]: "1",
  [OrderStatus.Filled]: "2",
  [OrderStatus.PendingCancel]: "6",
  [OrderStatus.Cancelled]: "4",
  [OrderStatus.Rejected]: "8",
  [OrderStatus.Expired]: "C",
  [OrderStatus.ExpirationRaised]: "6",
  [OrderStatus.Unknown]: "A",
  [OrderStatus.PendingReplace]: "E",
};

/** CxlRejReason(102) for a CancelReject / AmendReject reason. */
export const CXL_REASON: Readonly<Record<number, string>> = {
  [CancelRejectReason.ExpirationRaised]: "0",
  [CancelRejectReason.AlreadyPending]: "3",
  [CancelRejectReason.AlreadyTerminal]: "0",
  [CancelRejectReason.UnknownOrder]: "1",
  [CancelRejectReason.VenueRejected]: "99",
  [CancelRejectReason.Throttled]: "99",
  [CancelRejectReason.ClockSkew]: "99",
};
export const AMEND_REASON: Readonly<Record<number, string>> = {
  [AmendRejectReason.UnknownOrder]: "1",
  [AmendRejectReason.AlreadyTerminal]: "0",
  [AmendRejectReason.CancelPending]: "3",
  [AmendRejectReason.AmendPending]: "3",
  [AmendRejectReason.TooLate]: "0",
};

/** OrdRejReason(103) for a binary Reject code (others: 99 Other). */
export const REJ_REASON: Readonly<Record<number, string>> = {
  101: "1", // unknown instrument → unknown symbol
  108: "2", // inactive → exchange closed
  106: "13", // quantity → incorrect quantity
  200: "3", // risk limit → order exceeds limit
  203: "13",
  204: "13",
};

/** SessionRejectReason(373) values used. */
export const SRR = {
  InvalidTag: 0,
  RequiredTagMissing: 1,
  TagNotDefined: 2,
  ValueIncorrect: 5,
  IncorrectFormat: 6,
  SendingTimeAccuracy: 10,
  InvalidMsgType: 11,
  Other: 99,
} as const;
