/** The HFT surface (v5, one category): client id `orderLinkId`, executions carry their own ids. */
import type { LimitClass } from "../limits/index.js";
import {
  eventFromV5Execution,
  eventFromV5Order,
  type Grid,
  NormalizeError,
  type Order,
  type OrderEvent,
  type Source,
  type Status,
  statusFromV5,
} from "../orders/index.js";
import type { PreparedRequest, RestClient } from "../rest/client.js";
import type { OrderGrid } from "../rest/orderParams.js";
import type { V5Execution, V5List, V5OrderAck, V5OrderRecord } from "../rest/wire.js";
import { type Dec, stepsOf, tryParseDec } from "../util/decimal.js";
import type { AmendState, CreateAnswer, FillList, OpenList, SurfaceOp, VenueSurface } from "./surface.js";

const CLASSES: Record<SurfaceOp, LimitClass> = {
  create: "hft.create",
  cancel: "hft.cancel",
  query: "hft.query",
  list: "hft.query",
};
/** Pages of `/v5/order/realtime` read per listing at most. */
const MAX_PAGES = 5;

export class HftSurface implements VenueSurface<V5OrderRecord> {
  readonly kind = "hft" as const;
  readonly journalTag = "hft";
  readonly createEndpoint = "hft.createOrder" as const;
  readonly queryAfterAck = true;
  readonly fills: HftExecutions;
  /** [assumed, Bybit-v5 style] `POST /v5/order/amend` (path: venue.hftAmendPath). */
  readonly amend = "native" as const;

  constructor(
    private readonly client: RestClient,
    readonly category: string,
    /** [assumed] the id the amend body names the order by (venue.hftAmendBy). */
    private readonly amendBy: "orderId" | "orderLinkId" = "orderId",
  ) {
    this.fills = new HftExecutions(client, category);
  }

  classOf(op: SurfaceOp): LimitClass {
    return CLASSES[op];
  }

  prepareCreate(o: Order, priceText: string, qtyText: string, grid: OrderGrid): PreparedRequest {
    return this.client.prepareHftCreate(
      {
        category: this.category,
        symbol: o.symbol,
        side: o.side,
        orderType: o.type,
        qty: qtyText,
        price: o.type === "limit" ? priceText : undefined,
        positionIdx: o.positionIdx,
        timeInForce: o.tif,
        orderLinkId: o.clientId,
      },
      grid,
    );
  }

  prepareCancel(o: Order): PreparedRequest {
    return this.client.prepareHftCancel({ category: this.category, symbol: o.symbol, orderId: o.exchangeId });
  }

  prepareAmend(o: Order, priceText: string | undefined, qtyText: string | undefined): PreparedRequest {
    // [assumed] body `{category, symbol, orderId | orderLinkId, qty?, price?}`; qty is the new total.
    const body: Record<string, string> = { category: this.category, symbol: o.symbol };
    if (this.amendBy === "orderId") body.orderId = o.exchangeId;
    else body.orderLinkId = o.clientId;
    if (qtyText !== undefined) body.qty = qtyText;
    if (priceText !== undefined) body.price = priceText;
    return this.client.prepare("hft.amendOrder", [], JSON.stringify(body));
  }

  amendStateOf(r: V5OrderRecord, grid: Grid): AmendState {
    return { priceTicks: onGrid(r.price, grid.tick), qtyLots: onGrid(r.qty, grid.step) };
  }

  parseCreate(res: unknown): CreateAnswer<V5OrderRecord> {
    const id = (res as V5OrderAck | undefined)?.orderId;
    return { exchangeId: typeof id === "string" ? id : "", record: undefined };
  }

  parseCancel(): V5OrderRecord | undefined {
    return undefined; // the v5 cancel answer carries ids only
  }

  async queryByClientId(o: Order): Promise<V5OrderRecord | undefined> {
    const res = await this.client.realtime({ category: this.category, orderLinkId: o.clientId });
    return (res.list ?? []).find((r) => r.orderLinkId === o.clientId);
  }

  async listOpen(): Promise<OpenList<V5OrderRecord>> {
    const rows: V5OrderRecord[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await this.client.realtime({ category: this.category, cursor });
      for (const r of res.list ?? []) rows.push(r);
      cursor = res.nextPageCursor;
      if (!cursor) return { rows, complete: true };
    }
    return { rows, complete: false }; // more pages than we read: absent orders may not have closed
  }

  cancelRecord(r: V5OrderRecord): Promise<unknown> {
    return this.client.cancelHftOrder({ category: this.category, symbol: r.symbol, orderId: r.orderId });
  }

  clientIdOf(r: V5OrderRecord): string {
    return r.orderLinkId ?? "";
  }

  exchangeIdOf(r: V5OrderRecord): string {
    return r.orderId;
  }

  statusOf(r: V5OrderRecord): Status {
    return statusFromV5(r.orderStatus);
  }

  printOf(r: V5OrderRecord): string {
    return `${r.orderStatus}|${r.cumExecQty}|${r.updatedTime}`;
  }

  normalize(r: V5OrderRecord, grid: Grid, source: Source, tsNs: number, ev: OrderEvent): void {
    eventFromV5Order(r, grid, source, tsNs, ev);
  }
}

/** `/v5/execution/list`: one row per fill with its `execId` and maker flag (the store applies each once). */
export class HftExecutions implements FillList<V5Execution> {
  readonly journalTag = "hftx";

  constructor(
    private readonly client: RestClient,
    private readonly category: string,
  ) {}

  async list(sinceMs: number): Promise<OpenList<V5Execution>> {
    const rows: V5Execution[] = [];
    let cursor = "";
    for (let page = 0; page < MAX_PAGES; page++) {
      const q: [string, string][] = [
        ["category", this.category],
        ["startTime", String(sinceMs)],
      ];
      if (cursor !== "") q.push(["cursor", cursor]);
      const res = await this.client.call<V5List<V5Execution>>("hft.executions", q);
      for (const x of res.list ?? []) rows.push(x);
      cursor = res.nextPageCursor ?? "";
      if (cursor === "") return { rows, complete: true };
    }
    return { rows, complete: false };
  }

  clientIdOf(x: V5Execution): string {
    return x.orderLinkId ?? "";
  }

  exchangeIdOf(x: V5Execution): string {
    return x.orderId;
  }

  timeOf(x: V5Execution): number {
    const t = Number(x.execTime);
    return Number.isFinite(t) ? t : 0;
  }

  printOf(x: V5Execution): string {
    return x.execId;
  }

  normalize(x: V5Execution, grid: Grid, source: Source, tsNs: number, ev: OrderEvent): void {
    eventFromV5Execution(x, grid, source, tsNs, ev);
  }
}

/** A decimal string as a whole number of grid steps; NormalizeError when it is off the grid. */
function onGrid(text: string | undefined, step: Dec): number {
  const d = typeof text === "string" ? tryParseDec(text) : undefined;
  const n = d === undefined ? undefined : stepsOf(d, step);
  if (n === undefined) throw new NormalizeError(`not on the grid: ${String(text).slice(0, 32)}`);
  return Number(n);
}
