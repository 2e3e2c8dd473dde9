/**
 * The order record shared by both surfaces. Quantities are integer lots (multiples of the instrument's
 * `qtyStep`) and prices integer ticks (multiples of `tickSize`), held in JS numbers: the binary protocol
 * carries exactly these integers, sums and comparisons are exact (safe integers) and allocation-free,
 * and the decimal strings of the wire are converted once at the boundary (normalize.ts). The average
 * price is a float in ticks (a weighted mean need not be on the grid).
 */
import { randomBytes } from "node:crypto";
import type { OrderType, PositionIdx, Side, Surface, TimeInForce } from "../domain/types.js";
import { Status } from "./status.js";

/**
 * The store's timestamps are the wire's (protocol/clock.ts: the host's monotonic ns), so a time taken
 * once per turn by the gateway or the engine can be passed in rather than read again.
 */
export { monoNs } from "../protocol/clock.js";

export interface Order {
  /** Gateway-minted client id; sent as `orderLinkId` (HFT) / `client_order_id` (Spot). */
  readonly clientId: string;
  /** Exchange order id; "" until known. */
  exchangeId: string;
  readonly sessionId: number;
  /** The session's own order number (strictly increasing per session on the binary protocol). */
  readonly clientOrderNo: number;
  readonly instrumentId: number;
  readonly symbol: string;
  readonly surface: Surface;
  readonly side: Side;
  readonly type: OrderType;
  readonly tif: TimeInForce;
  readonly positionIdx: PositionIdx;
  /** Limit price in ticks (0 for market orders); an accepted in-place amend changes it. */
  priceTicks: number;
  /** Ordered quantity in lots (total, filled included); an accepted in-place amend changes it. */
  qtyLots: number;
  status: Status;
  /** Cumulative filled lots: never decreases. */
  filledLots: number;
  /** qtyLots - filledLots, never below 0. */
  leavesLots: number;
  /** Lots reported by real executions (with ids); the record's cumulative qty may run ahead of it. */
  execLots: number;
  /** Volume-weighted average fill price in ticks (float); 0 before the first fill. */
  avgPxTicks: number;
  /** Fees in quote currency (informational; the venue's cumulative figure when it sends one). */
  fees: number;
  /** The latest fill: price in ticks (float when synthesized from an average), lots, venue time (ms); 0 before any. */
  lastFillPxTicks: number;
  lastFillLots: number;
  lastFillMs: number;
  /** Set when filledLots exceeded qtyLots (reported once, counted). */
  overfilled: boolean;
  /** A cancel asked for while the create was unanswered; sent once the exchange id is known. */
  cancelHeld: boolean;
  /** The create has had its definite answer (acked or rejected); until then changes go to onCreateAnswer. */
  createAnswered: boolean;
  /** Reason text of a reject, when any. */
  rejectReason: string;
  // Monotonic ns timestamps (0 = not yet).
  receivedNs: number;
  sentNs: number;
  /** The latest (re)send of the create: its answer may still come until the REST deadline passes. */
  lastSentNs: number;
  ackedNs: number;
  firstFillNs: number;
  doneNs: number;
  cancelSentNs: number;
  /** Last time any event touched this order. */
  updatedNs: number;
  /** Status history as flat pairs [status, tsNs, status, tsNs, ...], bounded. */
  history: number[];
  /** Recent execution ids (bounded ring) for de-duplication. */
  execIds: Set<string>;
  execRing: string[];
  execRingPos: number;
  /** Times the create was (re)sent; times a resolution query was made. */
  sends: number;
  resolveAttempts: number;
  /** Venue `updatedTime` (ms) of the newest record applied, for latest-wins on snapshots. */
  venueUpdatedMs: number;
  /** The amend in flight (PendingReplace) or the replace running: target price / total qty, 0 = unchanged. */
  amendPriceTicks: number;
  amendQtyLots: number;
  /** When the amend (or the replace's cancel) was asked for, ns; 0 = none. */
  amendSentNs: number;
  /** Cancel-replace running (Spot): the replacement's client order number; 0 = none. */
  replacedBy: number;
  /**
   * The order's own requests (create, cancel, amend) handed to the REST client and neither answered
   * nor failed yet. While above 0 the venue is not asked about the order: the answer is on its way, or
   * its timeout is (the HTTP timeouts bound it). Not journaled: a replayed order has none in this process.
   */
  requestsOut: number;
}

/** What the engine passes to `OrderStore.create` (already validated by risk / the codec). */
export interface NewOrderRequest {
  sessionId: number;
  clientOrderNo: number;
  instrumentId: number;
  symbol: string;
  surface: Surface;
  side: Side;
  type: OrderType;
  tif: TimeInForce;
  positionIdx?: PositionIdx;
  priceTicks: number;
  qtyLots: number;
}

/** Shared empty execution-id set of orders without executions; the store swaps in a real set at the first id. */
export const NO_EXEC_IDS: Set<string> = new Set();
/** Its ring, shared the same way (frozen: a push into it throws instead of leaking ids between orders). */
const NO_EXEC_RING: string[] = Object.freeze([]) as unknown as string[];

/**
 * The fields most orders never change from their defaults: fills, executions, amends, resolution
 * attempts, a reject's reason. An order keeps them in one object of its own from the first change on;
 * until then it shares NO_EXTRAS. A kept order is then ~17 fields and their boxed numbers smaller
 * (V8 boxes every double field of an object, zero or not), which is what the collector walks.
 */
class OrderExtras {
  execLots: number = 0;
  avgPxTicks: number = 0;
  fees: number = 0;
  lastFillPxTicks: number = 0;
  lastFillLots: number = 0;
  lastFillMs: number = 0;
  overfilled: boolean = false;
  rejectReason: string = "";
  firstFillNs: number = 0;
  execIds: Set<string> = NO_EXEC_IDS;
  execRing: string[] = NO_EXEC_RING;
  execRingPos: number = 0;
  resolveAttempts: number = 0;
  amendPriceTicks: number = 0;
  amendQtyLots: number = 0;
  amendSentNs: number = 0;
  replacedBy: number = 0;
}
/** Frozen: a write that bypassed the record's setters would throw rather than reach every order. */
const NO_EXTRAS: OrderExtras = Object.freeze(new OrderExtras());

/**
 * The order record: the fields every order uses, and the rarely used ones behind accessors (OrderExtras).
 * Fields set from the request are `declare`d and assigned in the constructor, so that a double stays a
 * double field (one box, written in place) rather than a field first defined as undefined.
 */
class OrderRecord implements Order {
  exchangeId = "";
  declare readonly sessionId: number;
  declare readonly clientOrderNo: number;
  declare readonly instrumentId: number;
  declare readonly symbol: string;
  declare readonly surface: Surface;
  declare readonly side: Side;
  declare readonly type: OrderType;
  declare readonly tif: TimeInForce;
  declare readonly positionIdx: PositionIdx;
  declare priceTicks: number;
  declare qtyLots: number;
  status: Status = Status.PendingNew;
  filledLots = 0;
  declare leavesLots: number;
  cancelHeld = false;
  createAnswered = false;
  declare receivedNs: number;
  sentNs = 0;
  lastSentNs = 0;
  ackedNs = 0;
  doneNs = 0;
  cancelSentNs = 0;
  declare updatedNs: number;
  declare history: number[];
  sends = 0;
  venueUpdatedMs = 0;
  requestsOut = 0;
  private x: OrderExtras = NO_EXTRAS;

  constructor(
    readonly clientId: string,
    r: NewOrderRequest,
    nowNs: number,
  ) {
    this.sessionId = r.sessionId;
    this.clientOrderNo = r.clientOrderNo;
    this.instrumentId = r.instrumentId;
    this.symbol = r.symbol;
    this.surface = r.surface;
    this.side = r.side;
    this.type = r.type;
    this.tif = r.tif;
    this.positionIdx = r.positionIdx ?? 0;
    this.priceTicks = r.priceTicks;
    this.qtyLots = r.qtyLots;
    this.leavesLots = r.qtyLots;
    this.receivedNs = nowNs;
    this.updatedNs = nowNs;
    this.history = [Status.PendingNew, nowNs];
  }

  /** The order's own extras, made at the first write of a value other than the default. */
  private own(): OrderExtras {
    if (this.x === NO_EXTRAS) this.x = new OrderExtras();
    return this.x;
  }

  get execLots(): number {
    return this.x.execLots;
  }
  set execLots(v: number) {
    if (v !== 0 || this.x !== NO_EXTRAS) this.own().execLots = v;
  }
  get avgPxTicks(): number {
    return this.x.avgPxTicks;
  }
  set avgPxTicks(v: number) {
    if (v !== 0 || this.x !== NO_EXTRAS) this.own().avgPxTicks = v;
  }
  get fees(): number {
    return this.x.fees;
  }
  set fees(v: number) {
    if (v !== 0 || this.x !== NO_EXTRAS) this.own().fees = v;
  }
  get lastFillPxTicks(): number {
    return this.x.lastFillPxTicks;
  }
  set lastFillPxTicks(v: number) {
    if (v !== 0 || this.x !== NO_EXTRAS) this.own().lastFillPxTicks = v;
  }
  get lastFillLots(): number {
    return this.x.lastFillLots;
  }
  set lastFillLots(v: number) {
    if (v !== 0 || this.x !== NO_EXTRAS) this.own().lastFillLots = v;
  }
  get lastFillMs(): number {
    return this.x.lastFillMs;
  }
  set lastFillMs(v: number) {
    if (v !== 0 || this.x !== NO_EXTRAS) this.own().lastFillMs = v;
  }
  get overfilled(): boolean {
    return this.x.overfilled;
  }
  set overfilled(v: boolean) {
    if (v !== false || this.x !== NO_EXTRAS) this.own().overfilled = v;
  }
  get rejectReason(): string {
    return this.x.rejectReason;
  }
  set rejectReason(v: string) {
    if (v !== "" || this.x !== NO_EXTRAS) this.own().rejectReason = v;
  }
  get firstFillNs(): number {
    return this.x.firstFillNs;
  }
  set firstFillNs(v: number) {
    if (v !== 0 || this.x !== NO_EXTRAS) this.own().firstFillNs = v;
  }
  get execIds(): Set<string> {
    return this.x.execIds;
  }
  set execIds(v: Set<string>) {
    if (v !== NO_EXEC_IDS || this.x !== NO_EXTRAS) this.own().execIds = v;
  }
  get execRing(): string[] {
    return this.x.execRing;
  }
  set execRing(v: string[]) {
    if (v !== NO_EXEC_RING || this.x !== NO_EXTRAS) this.own().execRing = v;
  }
  get execRingPos(): number {
    return this.x.execRingPos;
  }
  set execRingPos(v: number) {
    if (v !== 0 || this.x !== NO_EXTRAS) this.own().execRingPos = v;
  }
  get resolveAttempts(): number {
    return this.x.resolveAttempts;
  }
  set resolveAttempts(v: number) {
    if (v !== 0 || this.x !== NO_EXTRAS) this.own().resolveAttempts = v;
  }
  get amendPriceTicks(): number {
    return this.x.amendPriceTicks;
  }
  set amendPriceTicks(v: number) {
    if (v !== 0 || this.x !== NO_EXTRAS) this.own().amendPriceTicks = v;
  }
  get amendQtyLots(): number {
    return this.x.amendQtyLots;
  }
  set amendQtyLots(v: number) {
    if (v !== 0 || this.x !== NO_EXTRAS) this.own().amendQtyLots = v;
  }
  get amendSentNs(): number {
    return this.x.amendSentNs;
  }
  set amendSentNs(v: number) {
    if (v !== 0 || this.x !== NO_EXTRAS) this.own().amendSentNs = v;
  }
  get replacedBy(): number {
    return this.x.replacedBy;
  }
  set replacedBy(v: number) {
    if (v !== 0 || this.x !== NO_EXTRAS) this.own().replacedBy = v;
  }
}

export function newOrder(clientId: string, r: NewOrderRequest, nowNs: number): Order {
  return new OrderRecord(clientId, r, nowNs);
}

/**
 * Mints client ids: `<run prefix><base36 sequence>`. The prefix is the start time in base36 plus random
 * characters, so ids are unique across restarts without persisted state; the journal may pass the
 * prefix and the last sequence back in to continue a run. At most 36 characters (exchange limit).
 */
export class ClientIdMinter {
  readonly prefix: string;
  private seq: number;

  constructor(prefix?: string, startSeq = 0) {
    this.prefix = prefix ?? ClientIdMinter.runPrefix();
    if (!/^[0-9A-Za-z_-]{1,24}$/.test(this.prefix)) {
      throw new RangeError("client id prefix must be 1-24 characters of [0-9A-Za-z_-]");
    }
    this.seq = startSeq;
  }

  static runPrefix(): string {
    return `h${Date.now().toString(36)}${randomBytes(3).toString("hex")}-`;
  }

  next(): string {
    this.seq += 1;
    return this.prefix + this.seq.toString(36);
  }

  get sequence(): number {
    return this.seq;
  }
}
