/**
 * The binary protocol as data: every message layout, enum and code lives in these tables. The codec
 * compiles them once; PROTOCOL.md documents them byte by byte and a test checks the two agree.
 */

export const PROTOCOL_VERSION = 1;
/** WebSocket path the gateway serves the protocol on. */
export const WS_PATH = "/v1/ws";
/** Client → gateway header: version u8, type u8, length u16, reserved u32. */
export const C2G_HEADER = 8;
/** Gateway → client header: version, type, length, sessionId u32, seq u64, recvNs u64, sendNs u64. */
export const G2C_HEADER = 32;
/** Largest client → gateway frame the gateway accepts (larger gets Error OVERSIZED). */
export const MAX_C2G_FRAME = 512;

/**
 * Field kinds. u64/i64 are 8 bytes on the wire, written as low u32 then high (u32 or i32), and the
 * value must stay within ±(2^53-1) so JavaScript numbers hold it exactly. charN is UTF-8, NUL-padded.
 */
export type FieldKind = "u8" | "i8" | "u16" | "u32" | "u64" | "i64" | `char[${number}]`;
export type FieldDef = readonly [name: string, kind: FieldKind];

export interface MessageDef {
  readonly name: string;
  readonly type: number;
  readonly dir: "c2g" | "g2c";
  /** Sequenced messages carry seq ≥ 1, are kept in the replay ring and replayed on resume. */
  readonly sequenced: boolean;
  readonly fields: readonly FieldDef[];
  /** Optional repeated fixed-size records after the fields; `count` names the u8/u16 count field. */
  readonly items?: { readonly name: string; readonly count: string; readonly fields: readonly FieldDef[] };
  /**
   * The last this-many fields were added to the message later: a frame without them (an older client's)
   * is read with them 0.
   */
  readonly addedFields?: number;
}

export function kindSize(kind: FieldKind): number {
  switch (kind) {
    case "u8":
    case "i8":
      return 1;
    case "u16":
      return 2;
    case "u32":
      return 4;
    case "u64":
    case "i64":
      return 8;
    default:
      return Number(kind.slice(5, -1));
  }
}

// ---- enums (values on the wire) ----
export const Side = { Buy: 1, Sell: 2 } as const;
export const OrdType = { Limit: 1, Market: 2 } as const;
export const Tif = { GTC: 1, IOC: 2, FOK: 3 } as const;
export const CodPolicy = { None: 0, CancelOnDisconnect: 1 } as const;
/**
 * Logon options bits. NoPendingUpdates: the session is not sent the OrderUpdate that acknowledges its
 * own Cancel or Amend (PendingCancel, PendingReplace); the outcome still comes.
 */
export const LogonOptions = { None: 0, NoPendingUpdates: 1 } as const;
export const CancelAllScope = { Session: 1, SessionInstrument: 2, Account: 3 } as const;
export const QueryScope = { One: 1, AllLive: 2 } as const;
export const OrderStatus = {
  PendingNew: 1,
  New: 2,
  PartiallyFilled: 3,
  Filled: 4,
  PendingCancel: 5,
  Cancelled: 6,
  Rejected: 7,
  Expired: 8,
  ExpirationRaised: 9,
  Unknown: 10,
  /** An Amend of this order is in flight (added in version 1 with Amend). */
  PendingReplace: 11,
} as const;
export const RejectSource = { Risk: 1, Throttle: 2, Venue: 3, Session: 4, Protocol: 5, Engine: 6 } as const;
export const CancelRejectReason = {
  ExpirationRaised: 1,
  AlreadyPending: 2,
  AlreadyTerminal: 3,
  UnknownOrder: 4,
  VenueRejected: 5,
  Throttled: 6,
  /** Not sent: the clock is being re-synced with the venue's; retry shortly. */
  ClockSkew: 7,
} as const;
/** 0 = the source did not say (see Fill in PROTOCOL.md). */
/** Why an Amend changed nothing (AmendReject.reason). */
export const AmendRejectReason = {
  UnknownOrder: 1,
  AlreadyTerminal: 2,
  CancelPending: 3,
  ExpirationRaised: 4,
  AmendPending: 5,
  NotWorking: 6,
  QtyNotAboveFilled: 7,
  NothingToAmend: 8,
  BadNewClOrdNo: 9,
  Risk: 10,
  Throttled: 11,
  VenueRejected: 12,
  TooLate: 13,
  NotApplied: 14,
  Restarted: 15,
  Unsupported: 16,
  /** Not sent: the clock is being re-synced with the venue's; retry shortly. */
  ClockSkew: 17,
  /** Not sent: the gateway is stopping (draining); amend again after its restart. */
  ShuttingDown: 18,
} as const;
/** Amend flags bits: which of priceTicks / qtyLots the Amend sets. */
export const AmendFlags = { Price: 1, Qty: 2 } as const;
export const Liquidity = { Unknown: 0, Maker: 1, Taker: 2 } as const;
export const TradingStateValue = { Active: 1, Reducing: 2, Halted: 3 } as const;
export const CreditBucket = { Account: 0, Create: 1, Cancel: 2, Query: 3 } as const;
export const UnknownOp = { NewOrder: 1, Cancel: 2 } as const;
export const Surface = { Spot: 1, Hft: 2, Futures: 3 } as const;
/** Market data (PROTOCOL.md §3 Market data): the state of one instrument's stream for a session. */
export const MdStatus = { Live: 1, Stale: 2, Unsubscribed: 3, SlowConsumer: 4 } as const;
/** Market data flags bits (TopOfBook, Trade, Candle). */
export const MdFlags = { Snapshot: 1, Built: 2, Incomplete: 4 } as const;
/** Taker side of a public trade; 0 = the venue did not say. */
export const Aggressor = { Unknown: 0, Buy: 1, Sell: 2 } as const;
/** NewOrder flags bits. */
export const OrderFlags = { ReduceOnly: 1, PostOnly: 2 } as const;

/** Enum constraints checked when decoding client → gateway messages. */
export const FIELD_ENUMS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  "NewOrder.side": Side,
  "NewOrder.ordType": OrdType,
  "NewOrder.tif": Tif,
  "NewOrder.positionIdx": { OneWay: 0, HedgeLong: 1, HedgeShort: 2 },
  "Logon.codPolicy": CodPolicy,
  "Logon.options": LogonOptions,
  "CancelAll.scope": CancelAllScope,
  "Query.scope": QueryScope,
  "SetTradingState.state": TradingStateValue,
  "Amend.flags": { Price: 1, Qty: 2, PriceAndQty: 3 },
};

/**
 * Reject / Error / LogonReject codes. `source` and `retryable` are the defaults the gateway uses;
 * engine-originated rejects pick the code and may override retryable.
 */
export const CODES = {
  Malformed: { code: 1, source: "Protocol", retryable: false, text: "frame does not match the layout" },
  BadLength: { code: 2, source: "Protocol", retryable: false, text: "header length differs from frame" },
  Oversized: { code: 3, source: "Protocol", retryable: false, text: "frame larger than the maximum" },
  UnknownType: { code: 4, source: "Protocol", retryable: false, text: "unknown message type" },
  UnsupportedVersion: { code: 5, source: "Protocol", retryable: false, text: "unsupported protocol version" },
  NotLoggedOn: { code: 6, source: "Protocol", retryable: false, text: "log on first" },
  AlreadyLoggedOn: { code: 7, source: "Protocol", retryable: false, text: "already logged on" },
  BadField: { code: 8, source: "Protocol", retryable: false, text: "field value out of range" },
  TextFrame: { code: 9, source: "Protocol", retryable: false, text: "text frames are not accepted" },
  ClOrdNoNotIncreasing: {
    code: 100,
    source: "Session",
    retryable: false,
    text: "client order number not increasing",
  },
  UnknownInstrument: { code: 101, source: "Session", retryable: false, text: "unknown instrument" },
  BadToken: { code: 102, source: "Session", retryable: false, text: "bad token" },
  SessionInUse: { code: 103, source: "Session", retryable: true, text: "session name already connected" },
  ResumeOutOfRange: { code: 104, source: "Session", retryable: false, text: "resume seq not in replay ring" },
  UnknownOrder: { code: 105, source: "Session", retryable: false, text: "unknown order" },
  BadQuantity: { code: 106, source: "Session", retryable: false, text: "quantity must be positive" },
  BadPrice: { code: 107, source: "Session", retryable: false, text: "limit order needs a positive price" },
  InstrumentInactive: { code: 108, source: "Session", retryable: false, text: "instrument not active" },
  MarketDataUnavailable: {
    code: 120,
    source: "Session",
    retryable: false,
    text: "no market data feed for this instrument",
  },
  TooManySubscriptions: {
    code: 121,
    source: "Session",
    retryable: false,
    text: "too many market data subscriptions",
  },
  NotAdmin: { code: 109, source: "Session", retryable: false, text: "admin session required" },
  Replaced: { code: 110, source: "Session", retryable: false, text: "cancelled to be replaced (Amend)" },
  RiskLimit: { code: 200, source: "Risk", retryable: false, text: "risk limit" },
  TradingHalted: { code: 201, source: "Risk", retryable: false, text: "trading halted" },
  ReducingOnly: { code: 202, source: "Risk", retryable: false, text: "trading state is reducing only" },
  QtyBelowMin: { code: 203, source: "Risk", retryable: false, text: "quantity below minimum" },
  QtyAboveMax: { code: 204, source: "Risk", retryable: false, text: "quantity above maximum" },
  NotionalBelowMin: { code: 205, source: "Risk", retryable: false, text: "notional below minimum" },
  RateLimited: { code: 300, source: "Throttle", retryable: true, text: "rate limit budget exhausted" },
  CircuitOpen: { code: 301, source: "Throttle", retryable: true, text: "venue 429 circuit open" },
  VenueRejected: { code: 400, source: "Venue", retryable: false, text: "rejected by the exchange" },
  InsufficientBalance: { code: 401, source: "Venue", retryable: false, text: "insufficient balance" },
  VenueUnavailable: { code: 402, source: "Venue", retryable: true, text: "exchange unavailable" },
  NotAllowlisted: {
    code: 403,
    source: "Venue",
    retryable: false,
    text: "product not enabled for this API key",
  },
  ClockSkew: {
    code: 404,
    source: "Venue",
    retryable: true,
    text: "clock outside the venue's epoch window; re-syncing",
  },
  Internal: { code: 500, source: "Engine", retryable: true, text: "internal error" },
  ShuttingDown: { code: 501, source: "Engine", retryable: true, text: "gateway shutting down" },
} as const satisfies Record<
  string,
  { code: number; source: keyof typeof RejectSource; retryable: boolean; text: string }
>;
export type CodeName = keyof typeof CODES;

const ID = "char[40]" as const;
const TEXT = "char[64]" as const;

/** Fixed-size instrument record inside InstrumentsResponse. Decimal strings are exact, ASCII. */
export const INSTRUMENT_RECORD: readonly FieldDef[] = [
  ["instrumentId", "u32"],
  ["surface", "u8"],
  ["active", "u8"],
  ["symbol", "char[24]"],
  ["venue", "char[16]"],
  ["tickSize", "char[24]"],
  ["qtyStep", "char[24]"],
  ["minQty", "char[24]"],
  ["maxQty", "char[24]"],
  ["minNotional", "char[24]"],
];
/** Records per InstrumentsResponse frame; longer lists span several frames (`more` = 1). */
export const INSTRUMENTS_PER_FRAME = 16;

export const MESSAGES = [
  // ---- client → gateway ----
  {
    name: "Logon",
    type: 0x01,
    dir: "c2g",
    sequenced: false,
    fields: [
      ["token", "char[64]"],
      ["sessionName", "char[32]"],
      ["heartbeatMs", "u32"],
      ["codPolicy", "u8"],
      ["resumeFromSeq", "u64"],
      ["options", "u8"],
    ],
    addedFields: 1,
  },
  {
    name: "NewOrder",
    type: 0x02,
    dir: "c2g",
    sequenced: false,
    fields: [
      ["clOrdNo", "u64"],
      ["instrumentId", "u32"],
      ["side", "u8"],
      ["ordType", "u8"],
      ["tif", "u8"],
      ["positionIdx", "u8"],
      ["priceTicks", "u64"],
      ["qtyLots", "u64"],
      ["flags", "u16"],
    ],
  },
  {
    name: "Cancel",
    type: 0x03,
    dir: "c2g",
    sequenced: false,
    fields: [
      ["clOrdNo", "u64"],
      ["exchangeOrderId", ID],
    ],
  },
  {
    name: "CancelAll",
    type: 0x04,
    dir: "c2g",
    sequenced: false,
    fields: [
      ["scope", "u8"],
      ["instrumentId", "u32"],
    ],
  },
  {
    name: "Query",
    type: 0x05,
    dir: "c2g",
    sequenced: false,
    fields: [
      ["requestId", "u32"],
      ["scope", "u8"],
      ["clOrdNo", "u64"],
    ],
  },
  { name: "InstrumentsRequest", type: 0x06, dir: "c2g", sequenced: false, fields: [["requestId", "u32"]] },
  { name: "Heartbeat", type: 0x07, dir: "c2g", sequenced: false, fields: [["echo", "u64"]] },
  { name: "Logout", type: 0x08, dir: "c2g", sequenced: false, fields: [] },
  // Admin only (sessions logged on with the admin token); added in version 1 without changing any layout.
  { name: "Kill", type: 0x09, dir: "c2g", sequenced: false, fields: [["reason", TEXT]] },
  {
    name: "SetTradingState",
    type: 0x0a,
    dir: "c2g",
    sequenced: false,
    fields: [
      ["state", "u8"],
      ["reason", TEXT],
    ],
  },
  // Added in version 1 without changing any layout (PROTOCOL.md §8).
  {
    name: "Amend",
    type: 0x0b,
    dir: "c2g",
    sequenced: false,
    fields: [
      ["clOrdNo", "u64"],
      ["newClOrdNo", "u64"],
      ["flags", "u8"],
      ["priceTicks", "u64"],
      ["qtyLots", "u64"],
    ],
  },
  // Market data (added in version 1 without changing any layout): unsequenced, per connection.
  {
    name: "Subscribe",
    type: 0x0c,
    dir: "c2g",
    sequenced: false,
    fields: [
      ["requestId", "u32"],
      ["instrumentId", "u32"],
    ],
  },
  {
    name: "Unsubscribe",
    type: 0x0d,
    dir: "c2g",
    sequenced: false,
    fields: [
      ["requestId", "u32"],
      ["instrumentId", "u32"],
    ],
  },
  // ---- gateway → client ----
  {
    name: "LogonAck",
    type: 0x41,
    dir: "g2c",
    sequenced: false,
    fields: [
      ["nextSeq", "u64"],
      ["replayFromSeq", "u64"],
      ["replayCount", "u32"],
      ["lastClOrdNo", "u64"],
      ["heartbeatMs", "u32"],
      ["wallClockMs", "u64"],
      ["tradingState", "u8"],
      ["resumed", "u8"],
    ],
  },
  {
    name: "LogonReject",
    type: 0x42,
    dir: "g2c",
    sequenced: false,
    fields: [
      ["code", "u16"],
      ["text", TEXT],
    ],
  },
  {
    name: "Ack",
    type: 0x43,
    dir: "g2c",
    sequenced: true,
    fields: [
      ["clOrdNo", "u64"],
      ["instrumentId", "u32"],
      ["exchangeOrderId", ID],
    ],
  },
  {
    name: "Reject",
    type: 0x44,
    dir: "g2c",
    sequenced: true,
    fields: [
      ["clOrdNo", "u64"],
      ["code", "u16"],
      ["source", "u8"],
      ["retryable", "u8"],
      ["text", TEXT],
    ],
  },
  {
    name: "OrderUpdate",
    type: 0x45,
    dir: "g2c",
    sequenced: true,
    fields: [
      ["clOrdNo", "u64"],
      ["requestId", "u32"],
      ["instrumentId", "u32"],
      ["status", "u8"],
      ["side", "u8"],
      ["ordType", "u8"],
      ["tif", "u8"],
      ["exchangeOrderId", ID],
      ["priceTicks", "u64"],
      ["qtyLots", "u64"],
      ["cumQtyLots", "u64"],
      ["leavesQtyLots", "u64"],
      ["avgPxMantissa", "u64"],
      ["avgPxExponent", "i8"],
      ["lastFillPriceTicks", "u64"],
      ["lastFillQtyLots", "u64"],
      ["reasonCode", "u16"],
    ],
  },
  {
    name: "Fill",
    type: 0x46,
    dir: "g2c",
    sequenced: true,
    fields: [
      ["clOrdNo", "u64"],
      ["instrumentId", "u32"],
      ["side", "u8"],
      ["liquidity", "u8"],
      ["execId", ID],
      ["priceTicks", "u64"],
      ["qtyLots", "u64"],
      ["feeMantissa", "i64"],
      ["feeExponent", "i8"],
      ["feeAsset", "char[12]"],
      ["exchangeTimeMs", "u64"],
    ],
  },
  {
    name: "CancelReject",
    type: 0x47,
    dir: "g2c",
    sequenced: true,
    fields: [
      ["clOrdNo", "u64"],
      ["reason", "u8"],
      ["exchangeOrderId", ID],
      ["text", TEXT],
    ],
  },
  {
    name: "OutcomeUnknown",
    type: 0x48,
    dir: "g2c",
    sequenced: true,
    fields: [
      ["clOrdNo", "u64"],
      ["instrumentId", "u32"],
      ["op", "u8"],
      ["text", TEXT],
    ],
  },
  {
    name: "BalanceUpdate",
    type: 0x49,
    dir: "g2c",
    sequenced: true,
    fields: [
      ["asset", "char[12]"],
      ["freeMantissa", "i64"],
      ["lockedMantissa", "i64"],
      ["exponent", "i8"],
    ],
  },
  {
    name: "PositionUpdate",
    type: 0x4a,
    dir: "g2c",
    sequenced: true,
    fields: [
      ["instrumentId", "u32"],
      ["positionIdx", "u8"],
      ["sizeLots", "i64"],
      ["entryPxMantissa", "u64"],
      ["entryPxExponent", "i8"],
      ["realisedPnlMantissa", "i64"],
      ["pnlExponent", "i8"],
    ],
  },
  {
    name: "TradingState",
    type: 0x4b,
    dir: "g2c",
    sequenced: true,
    fields: [
      ["state", "u8"],
      ["instrumentId", "u32"],
      ["text", TEXT],
    ],
  },
  {
    name: "Credit",
    type: 0x4c,
    dir: "g2c",
    sequenced: true,
    fields: [
      ["bucket", "u8"],
      ["remaining", "u32"],
      ["capacity", "u32"],
      ["resetInMs", "u32"],
    ],
  },
  { name: "HeartbeatOut", type: 0x4d, dir: "g2c", sequenced: false, fields: [["echo", "u64"]] },
  {
    name: "Error",
    type: 0x4e,
    dir: "g2c",
    sequenced: true,
    fields: [
      ["code", "u16"],
      ["offendingType", "u8"],
      ["text", TEXT],
    ],
  },
  {
    name: "InstrumentsResponse",
    type: 0x4f,
    dir: "g2c",
    sequenced: true,
    fields: [
      ["requestId", "u32"],
      ["more", "u8"],
      ["count", "u8"],
    ],
    items: { name: "instruments", count: "count", fields: INSTRUMENT_RECORD },
  },
  {
    name: "QueryEnd",
    type: 0x50,
    dir: "g2c",
    sequenced: true,
    fields: [
      ["requestId", "u32"],
      ["count", "u32"],
    ],
  },
  {
    name: "AmendReject",
    type: 0x51,
    dir: "g2c",
    sequenced: true,
    fields: [
      ["clOrdNo", "u64"],
      ["newClOrdNo", "u64"],
      ["reason", "u8"],
      ["exchangeOrderId", ID],
      ["text", TEXT],
    ],
  },
  // Market data (gateway → client): unsequenced (seq 0); `mdSeq` is the instrument's own sequence.
  {
    name: "TopOfBook",
    type: 0x53,
    dir: "g2c",
    sequenced: false,
    fields: [
      ["instrumentId", "u32"],
      ["mdSeq", "u64"],
      ["flags", "u8"],
      ["bidPriceTicks", "u64"],
      ["bidQtyLots", "u64"],
      ["askPriceTicks", "u64"],
      ["askQtyLots", "u64"],
      ["venueTimeMs", "u64"],
    ],
  },
  {
    name: "Trade",
    type: 0x54,
    dir: "g2c",
    sequenced: false,
    fields: [
      ["instrumentId", "u32"],
      ["mdSeq", "u64"],
      ["flags", "u8"],
      ["priceTicks", "u64"],
      ["qtyLots", "u64"],
      ["aggressor", "u8"],
      ["venueTimeMs", "u64"],
    ],
  },
  {
    name: "Candle",
    type: 0x55,
    dir: "g2c",
    sequenced: false,
    fields: [
      ["instrumentId", "u32"],
      ["mdSeq", "u64"],
      ["flags", "u8"],
      ["startMs", "u64"],
      ["openTicks", "u64"],
      ["highTicks", "u64"],
      ["lowTicks", "u64"],
      ["closeTicks", "u64"],
      ["volumeLots", "u64"],
      ["trades", "u32"],
    ],
  },
  {
    name: "MarketDataStatus",
    type: 0x56,
    dir: "g2c",
    sequenced: false,
    fields: [
      ["requestId", "u32"],
      ["instrumentId", "u32"],
      ["mdSeq", "u64"],
      ["status", "u8"],
    ],
  },
  {
    name: "SubscribeReject",
    type: 0x57,
    dir: "g2c",
    sequenced: false,
    fields: [
      ["requestId", "u32"],
      ["instrumentId", "u32"],
      ["code", "u16"],
      ["text", TEXT],
    ],
  },
] as const satisfies readonly MessageDef[];

export type MessageName = (typeof MESSAGES)[number]["name"];
type DefOf<N extends MessageName> = Extract<(typeof MESSAGES)[number], { name: N }>;
type FieldsObj<F extends readonly (readonly [string, FieldKind])[]> = {
  [K in F[number] as K[0]]: K[1] extends `char[${number}]` ? string : number;
};
export interface InstrumentRecordMsg {
  instrumentId: number;
  surface: number;
  active: number;
  symbol: string;
  venue: string;
  tickSize: string;
  qtyStep: string;
  minQty: string;
  maxQty: string;
  minNotional: string;
}
/** The body of message N as a plain object (strings for charN fields, numbers otherwise). */
export type Body<N extends MessageName> = FieldsObj<DefOf<N>["fields"]> &
  (N extends "InstrumentsResponse" ? { instruments: InstrumentRecordMsg[] } : unknown);

export type C2GName = Extract<(typeof MESSAGES)[number], { dir: "c2g" }>["name"];
export type G2CName = Extract<(typeof MESSAGES)[number], { dir: "g2c" }>["name"];

export const MESSAGE_BY_NAME: Readonly<Record<MessageName, MessageDef>> = Object.fromEntries(
  MESSAGES.map((m) => [m.name, m]),
) as unknown as Record<MessageName, MessageDef>;
