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
  /** A cancel asked for while the create was unanswered; sent once the exchange id is known. */
  cancelHeld: boolean;
  /** The create has had its definite answer (acked or rejected); until then changes go to onCreateAnswer. */
  createAnswered: boolean;
  // Monotonic ns timestamps (0 = not yet).
  receivedNs: number;
  sentNs: number;
  /** The latest (re)send of the create: its answer may still come until the REST deadline passes. */
  lastSentNs: number;
  ackedNs: number;
  doneNs: number;
  cancelSentNs: number;
  /** Last time any event touched this order. */
  updatedNs: number;
  /** Status history as flat pairs [status, tsNs, status, tsNs, ...], bounded. */
  history: number[];
  /** Times the create was (re)sent. */
  sends: number;
  /** Venue `updatedTime` (ms) of the newest record applied, for latest-wins on snapshots. */
  venueUpdatedMs: number;
  /**
   * The order's own requests (create, cancel, amend) handed to the REST client and neither answered
   * nor failed yet. While above 0 the venue is not asked about the order: the answer is on its way, or
   * its timeout is (the HTTP timeouts bound it). Not journaled: a replayed order has none in this process.
   */
  requestsOut: number;
  /**
   * The fields most orders never change from their defaults (fills, executions, amends, resolution
   * attempts, a reject's reason): the shared NO_EXTRA until one is first set, then the order's own
   * (`ownExtra`). Read them here; change them through `ownExtra(o)`.
   */
  extra: Readonly<OrderExtra>;
}

/**
 * An order's rarely changed fields. Most orders are created, acked and cancelled without a fill or an
 * amend; keeping these apart makes every kept order ~17 fields (and V8's boxes for the double ones)
 * smaller, which is what the young-generation collector copies and every full collection walks.
 */
export interface OrderExtra {
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
  /** The first fill's time (monotonic ns); 0 before any. */
  firstFillNs: number;
  /** Set when filledLots exceeded qtyLots (reported once, counted). */
  overfilled: boolean;
  /** Reason text of a reject, when any. */
  rejectReason: string;
  /** Recent execution ids (bounded ring) for de-duplication. */
  execIds: Set<string>;
  execRing: string[];
  execRingPos: number;
  /** Times a resolution query was made. */
  resolveAttempts: number;
  /** The amend in flight (PendingReplace) or the replace running: target price / total qty, 0 = unchanged. */
  amendPriceTicks: number;
  amendQtyLots: number;
  /** When the amend (or the replace's cancel) was asked for, ns; 0 = none. */
  amendSentNs: number;
  /** Cancel-replace running (Spot): the replacement's client order number; 0 = none. */
  replacedBy: number;
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

function newExtra(): OrderExtra {
  return {
    execLots: 0,
    avgPxTicks: 0,
    fees: 0,
    lastFillPxTicks: 0,
    lastFillLots: 0,
    lastFillMs: 0,
    firstFillNs: 0,
    overfilled: false,
    rejectReason: "",
    execIds: NO_EXEC_IDS,
    execRing: NO_EXEC_RING,
    execRingPos: 0,
    resolveAttempts: 0,
    amendPriceTicks: 0,
    amendQtyLots: 0,
    amendSentNs: 0,
    replacedBy: 0,
  };
}

/** The defaults every order shares until it changes one (frozen: a write that bypassed ownExtra throws). */
export const NO_EXTRA: Readonly<OrderExtra> = Object.freeze(newExtra());

/** The order's own extra fields, made (from the defaults) at the first call: for writing them. */
export function ownExtra(o: Order): OrderExtra {
  if (o.extra === NO_EXTRA) o.extra = newExtra();
  return o.extra as OrderExtra;
}

/** The amend target is moot (answered, refused, or the order left PendingReplace): back to none. */
export function clearAmendTarget(o: Order): void {
  if (o.extra === NO_EXTRA) return;
  const x = o.extra as OrderExtra;
  x.amendPriceTicks = 0;
  x.amendQtyLots = 0;
}

export function newOrder(clientId: string, r: NewOrderRequest, nowNs: number): Order {
  return {
    clientId,
    exchangeId: "",
    sessionId: r.sessionId,
    clientOrderNo: r.clientOrderNo,
    instrumentId: r.instrumentId,
    symbol: r.symbol,
    surface: r.surface,
    side: r.side,
    type: r.type,
    tif: r.tif,
    positionIdx: r.positionIdx ?? 0,
    priceTicks: r.priceTicks,
    qtyLots: r.qtyLots,
    status: Status.PendingNew,
    filledLots: 0,
    leavesLots: r.qtyLots,
    cancelHeld: false,
    createAnswered: false,
    receivedNs: nowNs,
    sentNs: 0,
    lastSentNs: 0,
    ackedNs: 0,
    doneNs: 0,
    cancelSentNs: 0,
    updatedNs: nowNs,
    history: [Status.PendingNew, nowNs],
    sends: 0,
    venueUpdatedMs: 0,
    requestsOut: 0,
    extra: NO_EXTRA,
  };
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
