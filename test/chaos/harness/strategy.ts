/**
 * A strategy as the chaos scenarios drive it: a GatewayClient plus a ledger of what it was told per
 * client order number. Its view of the gateway's truth comes from the public protocol only (Query by
 * clOrdNo), so it works the same against an in-process engine and a child process.
 */
import { GatewayClient } from "../../../src/client/index.js";
import { type Body, OrderStatus, OrdType, Side, Tif } from "../../../src/protocol/schema.js";
import { type GatewayView, LIVE, normFromWire } from "./truth.js";

export interface Told {
  acks: number;
  rejects: Body<"Reject">[];
  unknowns: number;
  updates: number;
  fills: number;
  fillLots: number;
  execIds: Set<string>;
  /** Cumulative qty and status of the last unsolicited OrderUpdate (0 / 0 when none). */
  lastCum: number;
  lastStatus: number;
  /** Exchange order id from the Ack ("" when none). */
  exchangeId: string;
  /** Lots per execution id, each execution once. */
  execLots: Map<string, number>;
}

export class Strategy {
  readonly client: GatewayClient;
  readonly told = new Map<number, Told>();
  readonly placed: number[] = [];
  /** Instrument and limit price of each order placed (an amend changes the price). */
  readonly instOf = new Map<number, number>();
  readonly pxOf = new Map<number, number>();
  /** AmendRejects received; numbers of the replacements asked for (cancel-replace). */
  amendRejects = 0;
  readonly replacements: number[] = [];
  readonly errors: Body<"Error">[] = [];
  duplicateFills = 0;
  /** `#clOrdNo execId` of every repeated Fill. */
  readonly duplicateFillIds: string[] = [];
  /** Sequence gaps the client saw ([expected, got]). */
  readonly gaps: Array<[number, number]> = [];
  /** Reconnects that could not resume (the gateway no longer held the missed messages). */
  resumeLost = 0;
  /** Orders the last views() found forgotten by the gateway and read as what this strategy was told. */
  forgottenRead = 0;
  /** OrderUpdates PendingCancel / PendingReplace received (a NoPendingUpdates session hears few or none). */
  pendingUpdates = 0;
  /** LogonAcks received (the first logon included). */
  logons = 0;
  /** Fills per liquidity code (0 unknown, 1 maker, 2 taker). */
  readonly fillLiquidity = new Map<number, number>();
  /** OrderUpdates whose cumulative quantity ran ahead of the Fills told before them (`#clOrdNo cum>fills`). */
  readonly updatesAhead: string[] = [];

  constructor(
    url: string,
    token: string,
    readonly name: string,
    opts: { autoReconnect?: boolean; codPolicy?: number; heartbeatMs?: number; logonOptions?: number } = {},
  ) {
    this.client = new GatewayClient({
      url,
      token,
      sessionName: name,
      heartbeatMs: opts.heartbeatMs ?? 1_000,
      autoReconnect: opts.autoReconnect ?? false,
      reconnectDelayMs: 100,
      codPolicy: opts.codPolicy ?? 0,
      logonOptions: opts.logonOptions ?? 0,
    });
    const c = this.client;
    c.on("ack", (b) => {
      const t = this.entry(b.clOrdNo);
      t.acks++;
      if (b.exchangeOrderId !== "") t.exchangeId = b.exchangeOrderId;
    });
    c.on("reject", (b) => {
      this.entry(b.clOrdNo).rejects.push(b);
    });
    c.on("unknown", (b) => {
      this.entry(b.clOrdNo).unknowns++;
    });
    c.on("update", (b) => {
      if (b.requestId !== 0) return;
      const t = this.entry(b.clOrdNo);
      t.updates++;
      if (b.status === OrderStatus.PendingCancel || b.status === OrderStatus.PendingReplace)
        this.pendingUpdates++;
      if (b.cumQtyLots > t.fillLots) this.updatesAhead.push(`#${b.clOrdNo} ${b.cumQtyLots}>${t.fillLots}`);
      t.lastCum = b.cumQtyLots;
      t.lastStatus = b.status;
      if (b.exchangeOrderId !== "") t.exchangeId = b.exchangeOrderId;
    });
    c.on("fill", (b) => {
      const t = this.entry(b.clOrdNo);
      if (t.execIds.has(b.execId)) {
        this.duplicateFills++;
        this.duplicateFillIds.push(`#${b.clOrdNo} ${b.execId}`);
      }
      t.execIds.add(b.execId);
      t.execLots.set(b.execId, b.qtyLots);
      t.fills++;
      t.fillLots += b.qtyLots;
      this.fillLiquidity.set(b.liquidity, (this.fillLiquidity.get(b.liquidity) ?? 0) + 1);
    });
    c.on("amendReject", () => {
      this.amendRejects++;
    });
    c.on("protocolError", (b) => {
      this.errors.push(b);
    });
    c.on("gap", (expected, got) => {
      this.gaps.push([expected, got]);
    });
    c.on("resumeLost", () => {
      this.resumeLost++;
    });
    c.on("logon", () => {
      this.logons++;
    });
  }

  entry(clOrdNo: number): Told {
    let t = this.told.get(clOrdNo);
    if (t === undefined) {
      t = {
        acks: 0,
        rejects: [],
        unknowns: 0,
        updates: 0,
        fills: 0,
        fillLots: 0,
        execIds: new Set(),
        lastCum: 0,
        lastStatus: 0,
        exchangeId: "",
        execLots: new Map(),
      };
      this.told.set(clOrdNo, t);
    }
    return t;
  }

  async connect(): Promise<this> {
    await this.client.connect();
    return this;
  }

  /** A limit order (GTC unless `tif` says IOC/FOK), or a market order when `priceTicks` is 0. */
  place(
    instrumentId: number,
    side: "buy" | "sell",
    priceTicks: number,
    qtyLots: number,
    tif: "GTC" | "IOC" | "FOK" = "GTC",
  ): number {
    const n = this.client.placeOrder({
      instrumentId,
      side: side === "buy" ? Side.Buy : Side.Sell,
      ordType: priceTicks === 0 ? OrdType.Market : OrdType.Limit,
      tif: Tif[tif],
      priceTicks,
      qtyLots,
    });
    this.placed.push(n);
    this.entry(n);
    this.instOf.set(n, instrumentId);
    this.pxOf.set(n, priceTicks);
    return n;
  }

  /**
   * Amends an order's price (PROTOCOL.md §3 Amend): in place, or as a cancel-replace whose new number
   * is then one of this strategy's orders (its view is checked like any other).
   */
  amend(clOrdNo: number, priceTicks: number, replace: boolean): number {
    const n = this.client.amend(clOrdNo, { priceTicks }, replace);
    if (n !== 0) {
      this.replacements.push(n);
      this.placed.push(n);
      this.entry(n);
      this.instOf.set(n, this.instOf.get(clOrdNo) ?? 0);
    }
    this.pxOf.set(n || clOrdNo, priceTicks);
    return n;
  }

  cancel(clOrdNo: number): void {
    this.client.cancel(clOrdNo);
  }

  /** Orders with no first answer (Ack, Reject, OutcomeUnknown) yet. */
  unanswered(): number[] {
    return this.placed.filter((n) => {
      const t = this.told.get(n)!;
      return t.acks === 0 && t.rejects.length === 0 && t.unknowns === 0;
    });
  }

  /**
   * The gateway's belief about every order this strategy placed (one Query per order). An order with
   * no row was never created at the gateway: fine when the strategy was told Reject or got no answer
   * at all (e.g. the gateway died before reading the frame) — it counts as Rejected, and the venue-side
   * check still catches it if the venue has it. A row missing for an order that was acknowledged is
   * an order the gateway forgot: Unknown (lost), unless `finishedMayBeForgotten` (a run with a short
   * `orders.keepFinishedMs`) and the strategy was told the order finished.
   */
  async views(opts: { finishedMayBeForgotten?: boolean } = {}): Promise<GatewayView[]> {
    const out: GatewayView[] = [];
    this.forgottenRead = 0;
    for (const n of this.placed) {
      const rows = await this.client.query(n);
      const r = rows[0];
      const key = `${this.name}#${n}`;
      if (r === undefined) {
        const told = this.told.get(n)!;
        const final = told.updates > 0 ? normFromWire(told.lastStatus) : undefined;
        if (opts.finishedMayBeForgotten && final !== undefined && !LIVE.has(final)) {
          // The gateway forgot it after it finished (orders.keepFinishedMs): what it last told the
          // strategy stands for it, and is checked against the venue like a Query answer.
          out.push({ key, exchangeId: told.exchangeId, status: final, filledLots: told.lastCum });
          this.forgottenRead++;
          continue;
        }
        const answered = told.acks > 0 || told.unknowns > 0;
        out.push({ key, exchangeId: "", status: answered ? "Unknown" : "Rejected", filledLots: 0 });
        continue;
      }
      out.push({
        key,
        exchangeId: r.exchangeOrderId,
        status: normFromWire(r.status),
        filledLots: r.cumQtyLots,
        priceTicks: r.priceTicks,
        qtyLots: r.qtyLots,
      });
    }
    return out;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
