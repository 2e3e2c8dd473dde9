/**
 * The exchange core: books, accounts, order lifecycles (Spot two-phase cancel and expiry, HFT
 * GTC/IOC/FOK/Market), fills with fees, balances and positions, and the seeded synthetic market.
 * HTTP handlers validate input and call in here with typed values; listeners get every change.
 */
import type { SpotStatus, V5OrderStatus } from "../src/rest/wire.js";
import { type Execution, SimAccount, type SimPosition } from "./account.js";
import { Book, type PublicTrade } from "./book.js";
import type { SimOptions } from "./config.js";
import { bookKey, INSTRUMENTS, priceStr, type SimInstrument } from "./instruments.js";
import { isFuturesOpen, isSpotTerminal, isV5Open, type SimOrder, type SimTif } from "./order.js";
import { Rng, uuidFrom } from "./rng.js";
import type { SimClock } from "./simClock.js";

export interface ExchangeListener {
  spotOrder(account: SimAccount, order: SimOrder): void;
  spotBalance(account: SimAccount): void;
  trade(book: Book, trade: PublicTrade): void;
  /** After each synthetic step (book snapshots are pushed then). */
  marketStep(): void;
}

/** The HFT private streams (NATS): every order change and every execution of an account's HFT orders. */
export interface HftStreamListener {
  order(account: SimAccount, order: SimOrder): void;
  execution(account: SimAccount, execution: Execution): void;
}

export type Result<T> = { ok: true; value: T } | { ok: false; status: number; code: number; message: string };

export function fail<T>(status: number, message: string, code = 0): Result<T> {
  return { ok: false, status, code, message };
}

export interface SpotCreate {
  exchange: string;
  symbol: string;
  buy: boolean;
  priceTicks: number;
  lots: number;
  clientId: string;
  expirySec: number;
}

export interface HftCreate {
  symbol: string;
  buy: boolean;
  market: boolean;
  priceTicks: number;
  lots: number;
  tif: SimTif;
  positionIdx: 0 | 1 | 2;
  clientId: string;
}

export interface FuturesCreate {
  symbol: string;
  buy: boolean;
  market: boolean;
  priceTicks: number;
  lots: number;
  tif: SimTif;
  reduceOnly: boolean;
  clientId: string;
}

export interface CreateCounters {
  spot: number;
  hft: number;
  futures: number;
  dedupedSpot: number;
  dedupedHft: number;
  dedupedFutures: number;
}

const SYNTHETIC_ID = "synthetic";
/** Per-account order history bound: past it, the oldest terminal orders are forgotten (long benchmark runs). */
const MAX_ORDERS = 200_000;

export class Exchange {
  readonly opts: SimOptions;
  readonly clock: SimClock;
  readonly books = new Map<string, Book>();
  private readonly bookByInst = new Map<SimInstrument, Book>();
  readonly spotBooks: Book[] = [];
  /** HFT linear books (the public NATS subjects carry these only: a market names no category). */
  readonly hftBooks: Book[] = [];
  readonly optionBooks: Book[] = [];
  readonly futuresBooks: Book[] = [];
  readonly accounts = new Map<string, SimAccount>();
  readonly created: CreateCounters = {
    spot: 0,
    hft: 0,
    futures: 0,
    dedupedSpot: 0,
    dedupedHft: 0,
    dedupedFutures: 0,
  };
  listener: ExchangeListener | undefined;
  hftListener: HftStreamListener | undefined;
  /** Socket credentials expire after at most this long (ms; 0 = the lifetime asked). A fault knob. */
  socketTtlCapMs = 0;
  /** Installs an issued socket credential in the NATS server (when the sim controls its users). */
  socketGrant:
    | ((a: SimAccount, apiKey: string, signature: string, expires: number) => Promise<void>)
    | undefined;
  private readonly rng: Rng;
  /**
   * The synthetic process of books added after Spot and HFT linear (Futures, HFT options) draws from
   * its own stream, so a seed gives the earlier books the same market it always did.
   */
  private readonly laterRng: Rng;
  private readonly idRng: Rng;
  private seq = 0;
  private execSeq = 0;
  private stepping = false;

  constructor(opts: SimOptions, clock: SimClock) {
    this.opts = opts;
    this.clock = clock;
    this.rng = new Rng(opts.seed);
    this.laterRng = new Rng(opts.seed * 104_729 + 3);
    this.idRng = new Rng(opts.seed * 7919 + 17);
    for (const inst of INSTRUMENTS) {
      const b = new Book(inst);
      this.books.set(bookKey(inst.surface, inst.venue, inst.symbol), b);
      this.bookByInst.set(inst, b);
      (inst.surface === "spot"
        ? this.spotBooks
        : inst.surface === "futures"
          ? this.futuresBooks
          : inst.venue === "linear"
            ? this.hftBooks
            : this.optionBooks
      ).push(b);
    }
    for (const k of opts.apiKeys) this.registerAccount(k);
    if (opts.market.synthetic) {
      for (const b of this.books.values()) this.replenish(b);
      if (opts.market.tickMs > 0) this.clock.schedule(opts.market.tickMs, this.scheduledStep);
    }
  }

  registerAccount(apiKeyHex: string): SimAccount {
    const key = apiKeyHex.toLowerCase();
    let a = this.accounts.get(key);
    if (a === undefined) {
      a = new SimAccount(key, this.opts.spot.balances, this.opts.hft.startingMargin);
      this.accounts.set(key, a);
    }
    return a;
  }

  book(surface: SimInstrument["surface"], venue: string, symbol: string): Book | undefined {
    return this.books.get(bookKey(surface, venue, symbol));
  }

  /** An HFT book by symbol in any category (option symbols never collide with linear ones). */
  hftBook(symbol: string): Book | undefined {
    return this.book("hft", "linear", symbol) ?? this.book("hft", "option", symbol);
  }

  /** The book an order rests in (orders name their instrument, not their book: no import cycle). */
  private bookOf(o: SimOrder): Book {
    return this.bookByInst.get(o.inst)!;
  }

  /** The account that owns a (non-synthetic) order. */
  private ownerOf(o: SimOrder): SimAccount {
    return this.accounts.get(o.owner!)!;
  }

  // ---------------------------------------------------------------- Spot

  spotCreate(acct: SimAccount, req: SpotCreate): Result<SimOrder> {
    if (req.clientId !== "") {
      const dup = acct.spotByClient.get(req.clientId);
      if (dup !== undefined) {
        this.created.dedupedSpot++;
        return { ok: true, value: dup };
      }
    }
    const book = this.book("spot", req.exchange, req.symbol);
    if (book === undefined)
      return fail(this.opts.spot.validationStatus, `symbol ${req.symbol} is not traded on ${req.exchange}`);
    const inst = book.inst;
    const fee = Math.max(this.opts.spot.fees.maker, this.opts.spot.fees.taker);
    const notional = req.priceTicks * inst.tick * req.lots * inst.step;
    let reservePerLot = 0;
    if (req.buy) {
      reservePerLot = req.priceTicks * inst.tick * inst.step * (1 + fee);
      const bal = acct.balance(inst.quote);
      if (bal.available + 1e-9 < reservePerLot * req.lots) {
        return fail(this.opts.spot.validationStatus, `Amount is more than available balance (${inst.quote})`);
      }
      bal.available -= reservePerLot * req.lots;
      bal.blocked += reservePerLot * req.lots;
    } else {
      const bal = acct.balance(inst.base);
      const need = req.lots * inst.step;
      if (bal.available + 1e-12 < need) {
        return fail(this.opts.spot.validationStatus, `Amount is more than available balance (${inst.base})`);
      }
      bal.available -= need;
      bal.blocked += need;
    }
    void notional;
    const now = this.clock.now();
    const o = this.newOrder(
      acct,
      book,
      req.buy,
      false,
      "GTC",
      req.priceTicks,
      req.lots,
      req.clientId,
      0,
      now,
    );
    o.reservePerLot = reservePerLot;
    acct.spotOrders.set(o.id, o);
    if (o.clientId !== "") acct.spotByClient.set(o.clientId, o);
    acct.spotList.push(o);
    if (acct.spotList.length > MAX_ORDERS) this.prune(acct, MAX_ORDERS / 2);
    this.created.spot++;
    this.emitSpot(o);
    this.match(o);
    if (o.leavesLots > 0) {
      book.insert(o);
      this.clock.schedule(req.expirySec * 1000, () => this.spotExpire(o));
    } else {
      this.closeOrder(o);
    }
    this.emitBalance(acct);
    return { ok: true, value: o };
  }

  spotCancel(acct: SimAccount, orderId: string): Result<SimOrder> {
    const o = acct.spotOrders.get(orderId);
    if (o === undefined) return fail(404, `Order not found: order_id ${orderId}`);
    switch (o.spotStatus) {
      case "OPEN":
      case "PARTIALLY_EXECUTED":
        o.spotStatus = "CANCELLATION_RAISED";
        o.updatedAt = this.clock.now();
        this.emitSpot(o);
        this.clock.schedule(this.opts.spot.cancelConfirmMs, () => this.spotConfirm(o, "CANCELLED"));
        return { ok: true, value: o };
      case "CANCELLATION_RAISED":
        // [assumed] a repeated cancel while pending is idempotent: same record, nothing scheduled twice.
        return { ok: true, value: o };
      case "EXPIRATION_RAISED":
        return fail(400, "order cannot be cancelled: expiration already raised (EXPIRATION_RAISED)");
      default:
        return fail(400, `order cannot be cancelled: it is already ${o.spotStatus}`);
    }
  }

  private spotExpire(o: SimOrder): void {
    if (o.spotStatus !== "OPEN" && o.spotStatus !== "PARTIALLY_EXECUTED") return;
    o.spotStatus = "EXPIRATION_RAISED";
    o.updatedAt = this.clock.now();
    this.emitSpot(o);
    this.clock.schedule(this.opts.spot.expiryConfirmMs, () => this.spotConfirm(o, "EXPIRED"));
  }

  /** Second phase of cancel/expiry; an order that filled completely in the gap stays EXECUTED. */
  private spotConfirm(o: SimOrder, to: SpotStatus): void {
    if (isSpotTerminal(o.spotStatus)) return;
    this.bookOf(o).remove(o);
    o.spotStatus = to;
    o.updatedAt = this.clock.now();
    this.releaseSpot(o);
    this.closeOrder(o);
    this.emitSpot(o);
    this.emitBalance(this.ownerOf(o));
  }

  private releaseSpot(o: SimOrder): void {
    const acct = this.ownerOf(o);
    const inst = o.inst;
    if (o.buy) {
      const b = acct.balance(inst.quote);
      const amt = o.reservePerLot * o.leavesLots;
      b.blocked -= amt;
      b.available += amt;
    } else {
      const b = acct.balance(inst.base);
      const amt = o.leavesLots * inst.step;
      b.blocked -= amt;
      b.available += amt;
    }
  }

  // ---------------------------------------------------------------- HFT

  hftCreate(acct: SimAccount, req: HftCreate): Result<SimOrder> {
    if (req.clientId !== "") {
      const dup = acct.hftByLink.get(req.clientId);
      if (dup !== undefined) {
        this.created.dedupedHft++;
        return { ok: true, value: dup };
      }
    }
    const book = this.hftBook(req.symbol);
    if (book === undefined) return fail(200, `symbol invalid: ${req.symbol}`, 10001);
    const inst = book.inst;
    if (acct.positionMode === 0 && req.positionIdx !== 0) {
      return fail(200, "position idx not match position mode (one-way mode requires positionIdx 0)", 10001);
    }
    if (acct.positionMode === 3 && req.positionIdx === 0) {
      return fail(
        200,
        "position idx not match position mode (hedge mode requires positionIdx 1 or 2)",
        10001,
      );
    }
    const lev = this.leverageOf(acct, inst.symbol, req.buy);
    const refTicks = req.market
      ? req.buy
        ? (book.bestAsk() ?? book.lastTicks)
        : (book.bestBid() ?? book.lastTicks)
      : req.priceTicks;
    const reservePerLot = (refTicks * inst.tick * inst.step) / lev;
    const avail = acct.availableMargin((s) => this.hftBook(s)!.inst.step);
    if (reservePerLot * req.lots > avail + 1e-9)
      return fail(200, "ab not enough for new order (insufficient margin)", 110007);
    const now = this.clock.now();
    const o = this.newOrder(
      acct,
      book,
      req.buy,
      req.market,
      req.tif,
      req.market ? 0 : req.priceTicks,
      req.lots,
      req.clientId,
      req.positionIdx,
      now,
    );
    o.reservePerLot = reservePerLot;
    acct.orderMargin += reservePerLot * o.leavesLots;
    acct.hftOrders.set(o.id, o);
    if (o.clientId !== "") acct.hftByLink.set(o.clientId, o);
    acct.hftList.push(o);
    if (acct.hftList.length > MAX_ORDERS) this.prune(acct, MAX_ORDERS / 2);
    this.created.hft++;
    const limit = req.market ? (req.buy ? Number.MAX_SAFE_INTEGER : 0) : req.priceTicks;
    if (req.tif === "FOK" && book.availableTo(req.buy, limit, o.leavesLots) < o.leavesLots) {
      this.hftFinish(o, "Cancelled");
      this.hftListener?.order(acct, o);
      return { ok: true, value: o };
    }
    this.match(o);
    if (o.leavesLots === 0) this.closeOrder(o);
    else if (req.market || req.tif !== "GTC")
      this.hftFinish(o, o.execLots > 0 ? "PartiallyFilledCanceled" : "Cancelled");
    else book.insert(o);
    this.hftListener?.order(acct, o);
    return { ok: true, value: o };
  }

  hftCancel(acct: SimAccount, symbol: string, orderId: string, linkId: string): Result<SimOrder> {
    const o = orderId !== "" ? acct.hftOrders.get(orderId) : acct.hftByLink.get(linkId);
    if (
      o === undefined ||
      o.inst.symbol !== symbol ||
      (orderId !== "" && linkId !== "" && o.clientId !== linkId)
    ) {
      return fail(200, "order not exists or too late to cancel", 110001);
    }
    if (!isV5Open(o.v5Status)) return fail(200, "order not exists or too late to cancel", 110001);
    this.hftFinish(o, "Cancelled");
    this.hftListener?.order(acct, o);
    return { ok: true, value: o };
  }

  /**
   * [assumed, Bybit-style] amend of a resting Limit order: `lots` is the new total quantity (must stay
   * above what is filled), `priceTicks` the new price. The order is re-queued (loses time priority)
   * and may cross and trade at once.
   */
  hftAmend(
    acct: SimAccount,
    symbol: string,
    orderId: string,
    linkId: string,
    lots: number | undefined,
    priceTicks: number | undefined,
  ): Result<SimOrder> {
    const o = orderId !== "" ? acct.hftOrders.get(orderId) : acct.hftByLink.get(linkId);
    if (o === undefined || o.inst.symbol !== symbol || !isV5Open(o.v5Status) || o.market) {
      return fail(200, "order not exists or too late to amend", 110001);
    }
    const newLots = lots ?? o.origLots;
    if (newLots <= o.execLots)
      return fail(200, "qty invalid: must be greater than the filled quantity", 10001);
    const newTicks = priceTicks ?? o.priceTicks;
    const inst = o.inst;
    const newReserve = (newTicks * inst.tick * inst.step) / this.leverageOf(acct, inst.symbol, o.buy);
    const oldTotal = o.reservePerLot * o.leavesLots;
    const newTotal = newReserve * (newLots - o.execLots);
    const avail = acct.availableMargin((s) => this.hftBook(s)!.inst.step);
    if (newTotal - oldTotal > avail + 1e-9)
      return fail(200, "ab not enough for new order (insufficient margin)", 110007);
    this.bookOf(o).remove(o);
    acct.orderMargin += newTotal - oldTotal;
    o.reservePerLot = newReserve;
    o.priceTicks = newTicks;
    o.origLots = newLots;
    o.leavesLots = newLots - o.execLots;
    o.updatedAt = this.clock.now();
    this.match(o);
    if (o.leavesLots === 0) this.closeOrder(o);
    else this.bookOf(o).insert(o);
    this.hftListener?.order(acct, o);
    return { ok: true, value: o };
  }

  private hftFinish(o: SimOrder, status: V5OrderStatus): void {
    this.bookOf(o).remove(o);
    this.ownerOf(o).orderMargin -= o.reservePerLot * o.leavesLots;
    o.v5Status = status;
    o.updatedAt = this.clock.now();
    this.closeOrder(o);
  }

  leverageOf(acct: SimAccount, symbol: string, buy: boolean): number {
    const l = acct.leverage.get(symbol);
    if (l === undefined) return this.opts.hft.defaultLeverage;
    return buy ? l.buy : l.sell;
  }

  hftHasOpen(acct: SimAccount): boolean {
    for (const o of acct.hftOrders.values()) if (isV5Open(o.v5Status)) return true;
    for (const p of acct.positions.values()) if (p.lots !== 0) return true;
    return false;
  }

  // ---------------------------------------------------------------- Futures v2

  /**
   * A Futures order (§5, §7.2): RAISED while it works (also after a partial fill [assumed]), EXECUTED
   * when filled, PARTIALLY_EXECUTED when it stops working with a fill (IOC/FOK/market remainder,
   * cancel), CANCELLED without one. [assumed] no margin model: Futures orders are not checked against
   * a balance and keep no positions in the simulator.
   */
  futuresCreate(acct: SimAccount, req: FuturesCreate): Result<SimOrder> {
    if (req.clientId !== "") {
      const dup = acct.futByClient.get(req.clientId);
      if (dup !== undefined) {
        this.created.dedupedFutures++;
        return { ok: true, value: dup };
      }
    }
    const book = this.book("futures", "EXCHANGE_2", req.symbol);
    if (book === undefined) return fail(400, `symbol ${req.symbol} is not traded on EXCHANGE_2`);
    const o = this.newOrder(
      acct,
      book,
      req.buy,
      req.market,
      req.tif,
      req.market ? 0 : req.priceTicks,
      req.lots,
      req.clientId,
      0,
      this.clock.now(),
    );
    o.reduceOnly = req.reduceOnly;
    acct.futOrders.set(o.id, o);
    if (o.clientId !== "") acct.futByClient.set(o.clientId, o);
    acct.futList.push(o);
    if (acct.futList.length > MAX_ORDERS) this.prune(acct, MAX_ORDERS / 2);
    this.created.futures++;
    const limit = req.market ? (req.buy ? Number.MAX_SAFE_INTEGER : 0) : req.priceTicks;
    if (req.tif === "FOK" && book.availableTo(req.buy, limit, o.leavesLots) < o.leavesLots) {
      this.futuresFinish(o);
      return { ok: true, value: o };
    }
    this.match(o);
    if (o.leavesLots === 0) this.closeOrder(o);
    else if (req.market || req.tif !== "GTC") this.futuresFinish(o);
    else book.insert(o);
    return { ok: true, value: o };
  }

  /** Two-phase like Spot's: CANCELLATION_RAISED now, CANCELLED (or PARTIALLY_EXECUTED) later. */
  futuresCancel(acct: SimAccount, orderId: string): Result<SimOrder> {
    const o = acct.futOrders.get(orderId);
    if (o === undefined) return fail(404, `Order not found: order_id ${orderId}`);
    if (o.futStatus === "CANCELLATION_RAISED") return { ok: true, value: o };
    if (o.futStatus !== "RAISED") return fail(400, `order cannot be cancelled: it is already ${o.futStatus}`);
    o.futStatus = "CANCELLATION_RAISED";
    o.updatedAt = this.clock.now();
    this.clock.schedule(this.opts.futures.cancelConfirmMs, () => {
      if (o.futStatus === "CANCELLATION_RAISED") this.futuresFinish(o);
    });
    return { ok: true, value: o };
  }

  /** The order stops working: out of the book, terminal by what it filled. */
  private futuresFinish(o: SimOrder): void {
    this.bookOf(o).remove(o);
    o.futStatus = o.execLots > 0 ? "PARTIALLY_EXECUTED" : "CANCELLED";
    o.updatedAt = this.clock.now();
    this.closeOrder(o);
  }

  // ---------------------------------------------------------------- matching

  private newOrder(
    acct: SimAccount | null,
    book: Book,
    buy: boolean,
    market: boolean,
    tif: SimTif,
    priceTicks: number,
    lots: number,
    clientId: string,
    positionIdx: 0 | 1 | 2,
    now: number,
  ): SimOrder {
    return {
      id: acct === null ? SYNTHETIC_ID : uuidFrom(this.idRng),
      clientId,
      inst: book.inst,
      owner: acct === null ? null : acct.apiKey,
      buy,
      market,
      tif,
      priceTicks,
      origLots: lots,
      leavesLots: lots,
      execLots: 0,
      cumValue: 0,
      cumFee: 0,
      spotStatus: "OPEN",
      v5Status: "New",
      futStatus: "RAISED",
      reduceOnly: false,
      createdAt: now,
      updatedAt: now,
      seq: ++this.seq,
      inBook: false,
      closedAt: 0,
      positionIdx,
      lastPriceOnCreated: priceStr(book.inst, book.lastTicks),
      reservePerLot: 0,
    };
  }

  /** Matches a taker against the opposite side at maker prices, up to its limit. */
  private match(taker: SimOrder): void {
    const book = this.bookOf(taker);
    const opp = book.side(!taker.buy);
    const limit = taker.market ? (taker.buy ? Number.MAX_SAFE_INTEGER : 0) : taker.priceTicks;
    const before = taker.execLots;
    while (taker.leavesLots > 0 && opp.length > 0) {
      const maker = opp[0]!;
      if (taker.buy ? maker.priceTicks > limit : maker.priceTicks < limit) break;
      const lots = Math.min(taker.leavesLots, maker.leavesLots);
      const now = this.clock.now();
      const trade = book.recordTrade(now, maker.priceTicks, lots, taker.buy);
      if (maker.leavesLots === lots) {
        opp.shift();
        maker.inBook = false;
      }
      this.fill(maker, lots, maker.priceTicks, true, now);
      this.fill(taker, lots, maker.priceTicks, false, now);
      if (maker.owner !== null && maker.leavesLots === 0) this.closeOrder(maker);
      this.listener?.trade(book, trade);
    }
    if (taker.owner !== null && taker.inst.surface === "spot" && taker.execLots !== before)
      this.emitSpot(taker);
  }

  private fill(o: SimOrder, lots: number, priceTicks: number, isMaker: boolean, now: number): void {
    const inst = o.inst;
    const price = priceTicks * inst.tick;
    const qty = lots * inst.step;
    const value = price * qty;
    o.leavesLots -= lots;
    o.execLots += lots;
    o.cumValue += value;
    o.updatedAt = now;
    if (o.owner === null) return;
    const acct = this.ownerOf(o);
    if (inst.surface === "spot") {
      const rate = isMaker ? this.opts.spot.fees.maker : this.opts.spot.fees.taker;
      const fee = value * rate;
      o.cumFee += fee;
      const base = acct.balance(inst.base);
      const quote = acct.balance(inst.quote);
      if (o.buy) {
        const reserved = o.reservePerLot * lots;
        quote.blocked -= reserved;
        quote.available += reserved - value - fee;
        base.available += qty;
      } else {
        base.blocked -= qty;
        quote.available += value - fee;
        if (inst.quote === "INR") acct.tdsTotal += value * this.opts.spot.tdsRate;
      }
      if (o.leavesLots === 0) o.spotStatus = "EXECUTED";
      else if (o.spotStatus === "OPEN") o.spotStatus = "PARTIALLY_EXECUTED";
      // Fills during CANCELLATION_RAISED / EXPIRATION_RAISED keep the pending status until confirmed.
      if (isMaker) {
        this.emitSpot(o);
        this.emitBalance(acct);
      }
      return;
    }
    if (inst.surface === "futures") {
      o.cumFee += value * (isMaker ? this.opts.futures.fees.maker : this.opts.futures.fees.taker);
      // A fill during CANCELLATION_RAISED keeps the pending status until the cancel completes.
      if (o.leavesLots === 0) o.futStatus = "EXECUTED";
      return;
    }
    const rate = isMaker ? this.opts.hft.fees.maker : this.opts.hft.fees.taker;
    const fee = value * rate;
    o.cumFee += fee;
    acct.orderMargin -= o.reservePerLot * lots;
    acct.margin -= fee;
    this.applyPosition(acct, o, lots, price, now);
    o.v5Status = o.leavesLots === 0 ? "Filled" : "PartiallyFilled";
    const ex: Execution = {
      seq: ++this.execSeq,
      execId: uuidFrom(this.idRng),
      order: o,
      priceTicks,
      lots,
      value,
      fee,
      time: now,
      isMaker,
      leavesLots: o.leavesLots,
    };
    acct.executions.push(ex);
    const hl = this.hftListener;
    if (hl !== undefined) {
      // The execution first, then (for a resting order, whose change no request of its owner
      // reports) the order record; a taker's record follows its create or amend.
      hl.execution(acct, ex);
      if (isMaker) hl.order(acct, o);
    }
  }

  /** Signed-size position update; works for one-way (idx 0) and both hedge legs. */
  private applyPosition(acct: SimAccount, o: SimOrder, lots: number, price: number, now: number): void {
    const key = `${o.inst.symbol}:${o.positionIdx}`;
    let p = acct.positions.get(key);
    if (p === undefined) {
      p = {
        symbol: o.inst.symbol,
        positionIdx: o.positionIdx,
        lots: 0,
        avgPrice: 0,
        realised: 0,
        leverage: this.leverageOf(acct, o.inst.symbol, o.buy),
        updatedAt: now,
      };
      acct.positions.set(key, p);
    }
    const signed = o.buy ? lots : -lots;
    if (p.lots === 0 || Math.sign(p.lots) === Math.sign(signed)) {
      const total = Math.abs(p.lots) + lots;
      p.avgPrice = (Math.abs(p.lots) * p.avgPrice + lots * price) / total;
      if (p.lots === 0) p.leverage = this.leverageOf(acct, o.inst.symbol, o.buy);
      p.lots += signed;
    } else {
      const closing = Math.min(lots, Math.abs(p.lots));
      const pnl = closing * o.inst.step * (price - p.avgPrice) * Math.sign(p.lots);
      p.realised += pnl;
      acct.margin += pnl;
      const after = p.lots + signed;
      if (after !== 0 && Math.sign(after) !== Math.sign(p.lots)) p.avgPrice = price;
      if (after === 0) p.avgPrice = 0;
      p.lots = after;
    }
    p.updatedAt = now;
  }

  private closeOrder(o: SimOrder): void {
    if (o.closedAt === 0) o.closedAt = this.clock.now();
  }

  private emitSpot(o: SimOrder): void {
    const l = this.listener;
    if (l !== undefined && o.owner !== null) l.spotOrder(this.ownerOf(o), o);
  }

  private emitBalance(a: SimAccount): void {
    this.listener?.spotBalance(a);
  }

  // ---------------------------------------------------------------- synthetic market

  private readonly scheduledStep = (): void => {
    this.step();
    this.clock.schedule(this.opts.market.tickMs, this.scheduledStep);
  };

  /** One step of the synthetic process on every book: move the mid, re-quote, maybe aggress. */
  step(): void {
    if (this.stepping) return;
    this.stepping = true;
    const m = this.opts.market;
    for (const b of this.books.values()) {
      const floor = m.halfSpreadTicks + m.levels * m.levelSpacingTicks + 1;
      const rng = this.rngOf(b);
      b.midTicks = Math.max(floor, b.midTicks + rng.int(-m.midStepTicks, m.midStepTicks));
      this.replenish(b);
      if (rng.next() < m.aggressorProbability) {
        const buy = rng.next() < 0.5;
        const lots = rng.int(1, 4) * b.baseLots;
        const o = this.newOrder(null, b, buy, true, "IOC", 0, lots, "", 0, this.clock.now());
        this.match(o);
      }
    }
    this.stepping = false;
    this.listener?.marketStep();
  }

  private rngOf(b: Book): Rng {
    const i = b.inst;
    return i.surface === "futures" || (i.surface === "hft" && i.venue !== "linear")
      ? this.laterRng
      : this.rng;
  }

  /** Replaces the synthetic quotes around the mid; quotes that cross user orders trade with them. */
  private replenish(b: Book): void {
    const m = this.opts.market;
    b.clearSynthetic();
    const now = this.clock.now();
    for (let i = 0; i < m.levels; i++) {
      const off = m.halfSpreadTicks + i * m.levelSpacingTicks;
      for (const buy of [false, true]) {
        const lots = this.rngOf(b).int(1, 10) * b.baseLots;
        const o = this.newOrder(
          null,
          b,
          buy,
          false,
          "GTC",
          buy ? b.midTicks - off : b.midTicks + off,
          lots,
          "",
          0,
          now,
        );
        this.match(o);
        if (o.leavesLots > 0) b.insert(o);
      }
    }
  }

  /** Prunes terminal orders beyond `keep` per account list (memory bound for long benchmark runs). */
  prune(acct: SimAccount, keep: number): void {
    for (const [list, byId, byClient, kind] of [
      [acct.spotList, acct.spotOrders, acct.spotByClient, "spot"],
      [acct.hftList, acct.hftOrders, acct.hftByLink, "hft"],
      [acct.futList, acct.futOrders, acct.futByClient, "futures"],
    ] as const) {
      if (list.length <= keep) continue;
      let w = 0;
      const excess = list.length - keep;
      let dropped = 0;
      for (let r = 0; r < list.length; r++) {
        const o = list[r]!;
        const terminal =
          kind === "spot"
            ? isSpotTerminal(o.spotStatus)
            : kind === "hft"
              ? !isV5Open(o.v5Status)
              : !isFuturesOpen(o.futStatus);
        if (dropped < excess && terminal) {
          byId.delete(o.id);
          if (o.clientId !== "" && byClient.get(o.clientId) === o) byClient.delete(o.clientId);
          dropped++;
        } else list[w++] = o;
      }
      list.length = w;
    }
    if (acct.executions.length > keep) acct.executions.splice(0, acct.executions.length - keep);
  }
}

export type { SimPosition };
