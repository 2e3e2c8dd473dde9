/**
 * The HFT surface (v5): client id `orderLinkId`, executions carry their own ids. Several categories
 * (`linear`, `option`) are traded at once: each order's category is its instrument's venue, sent on
 * every request about it; the open list is read per category. Its requests: create.ts, cancel.ts,
 * amend.ts (in place); its reads: reads.ts.
 */
import type { LimitClass } from "../../limits/index.js";
import {
  eventFromV5Execution,
  eventFromV5Order,
  type Grid,
  lotsOf,
  NormalizeError,
  type Order,
  type OrderEvent,
  type Source,
  type Status,
  sideOf,
  statusFromV5,
  ticksOnGrid,
  tifOf,
} from "../../orders/index.js";
import type { PreparedRequest, RestClient } from "../../rest/client.js";
import type { V5Execution, V5List, V5OrderAck, V5OrderRecord } from "../../rest/wire.js";
import { type Dec, stepsOf, tryParseDec } from "../../util/decimal.js";
import type { OrderGrid } from "../orderFields.js";
import {
  type AmendState,
  type CreateAnswer,
  type FillList,
  isOrphan,
  type OpenList,
  type RecordNormalizer,
  type RecordPlace,
  type RecordTerms,
  type SurfaceOp,
  type VenueSurface,
} from "../surface.js";
import { prepareHftAmend } from "./amend.js";
import { prepareHftCancel } from "./cancel.js";
import { prepareHftCreate } from "./create.js";
import { isNotAllowlisted } from "./fields.js";
import { hftRealtime } from "./reads.js";

/** A v5 order record (realtime row, private stream message) into an OrderEvent; journal tag `hft`. */
export const V5_ORDERS: RecordNormalizer<V5OrderRecord> = {
  journalTag: "hft",
  normalize: eventFromV5Order,
};

/** A v5 execution (one fill with its id) into a Fill event; journal tag `hftx`. */
export const V5_EXECUTIONS: RecordNormalizer<V5Execution> = {
  journalTag: "hftx",
  normalize: eventFromV5Execution,
};

const CLASSES: Record<SurfaceOp, LimitClass> = {
  create: "hft.create",
  cancel: "hft.cancel",
  query: "hft.query",
  list: "hft.query",
};
/** Pages of `/v5/order/realtime` a poll round reads at most (a full listing: `venue.hftListMaxPages`). */
const MAX_PAGES = 5;

export class HftSurface implements VenueSurface<V5OrderRecord> {
  readonly kind = "hft" as const;
  readonly journalTag = V5_ORDERS.journalTag;
  readonly createEndpoint = "hft.createOrder" as const;
  readonly queryAfterAck = true;
  readonly fills: HftExecutions;
  /** [assumed, Bybit-v5 style] `POST /v5/order/amend` (path: venue.hftAmendPath). */
  readonly amend = "native" as const;

  /** Categories the venue refused for this key (options allowlist): not listed again. */
  private readonly refused = new Set<string>();

  constructor(
    private readonly client: RestClient,
    readonly categories: readonly string[],
    /** The category of an order (its instrument's venue). */
    private readonly categoryOf: (o: Order) => string,
    /** [assumed] the id the amend body names the order by (venue.hftAmendBy). */
    private readonly amendBy: "orderId" | "orderLinkId" = "orderId",
    /** Pages a full listing follows at most (venue.hftListMaxPages). */
    private readonly fullPages = 2_000,
  ) {
    this.fills = new HftExecutions(client, categories);
  }

  classOf(op: SurfaceOp): LimitClass {
    return CLASSES[op];
  }

  prepareCreate(o: Order, priceText: string, qtyText: string, grid: OrderGrid): PreparedRequest {
    return prepareHftCreate(
      this.client,
      {
        category: this.categoryOf(o),
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
    return prepareHftCancel(this.client, {
      category: this.categoryOf(o),
      symbol: o.symbol,
      orderId: o.exchangeId,
    });
  }

  prepareAmend(o: Order, priceText: string | undefined, qtyText: string | undefined): PreparedRequest {
    return prepareHftAmend(this.client, {
      category: this.categoryOf(o),
      symbol: o.symbol,
      by: this.amendBy,
      orderId: o.exchangeId,
      orderLinkId: o.clientId,
      qty: qtyText,
      price: priceText,
    });
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
    const category = this.categoryOf(o);
    if (isOrphan(o)) {
      const byId = await hftRealtime(this.client, { category, orderId: o.exchangeId });
      return (byId.list ?? []).find((r) => r.orderId === o.exchangeId);
    }
    const res = await hftRealtime(this.client, { category, orderLinkId: o.clientId });
    return (res.list ?? []).find((r) => r.orderLinkId === o.clientId);
  }

  async listOpen(full = false): Promise<OpenList<V5OrderRecord>> {
    const rows: V5OrderRecord[] = [];
    let complete = true;
    const pages = full ? this.fullPages : MAX_PAGES;
    for (const category of this.categories) {
      if (this.refused.has(category)) continue;
      let cursor: string | undefined;
      let page = 0;
      for (; page < pages; page++) {
        let res: V5List<V5OrderRecord>;
        try {
          res = await hftRealtime(this.client, { category, cursor });
        } catch (err) {
          // Not on the allowlist: the key can hold no orders of this category, so nothing is missed.
          if (isNotAllowlisted(err)) {
            this.refused.add(category);
            break;
          }
          throw err;
        }
        for (const r of res.list ?? []) {
          r.category = category;
          rows.push(r);
        }
        cursor = res.nextPageCursor;
        if (!cursor) break;
      }
      // More pages than we read: absent orders may not have closed.
      if (page === pages) complete = false;
    }
    return { rows, complete };
  }

  async cancelRecord(r: V5OrderRecord): Promise<unknown> {
    return this.client.send(
      prepareHftCancel(this.client, {
        category: r.category ?? this.categories[0] ?? "linear",
        symbol: r.symbol,
        orderId: r.orderId,
      }),
    );
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
    V5_ORDERS.normalize(r, grid, source, tsNs, ev);
  }

  /** The category is the one the open list was read for (`listOpen` sets it on each row). */
  placeOf(r: V5OrderRecord): RecordPlace {
    return { symbol: r.symbol, venue: r.category ?? this.categories[0] ?? "linear" };
  }

  termsOf(r: V5OrderRecord, grid: Grid): RecordTerms {
    const market = r.orderType === "Market";
    const pos = r.positionIdx === 1 || r.positionIdx === 2 ? r.positionIdx : 0;
    return {
      side: sideOf(r.side),
      type: market ? "market" : "limit",
      tif: tifOf(r.timeInForce),
      positionIdx: pos,
      priceTicks: market ? 0 : ticksOnGrid(String(r.price), grid),
      qtyLots: lotsOf(String(r.qty), grid),
    };
  }
}

/** `/v5/execution/list`: one row per fill with its `execId` and maker flag (the store applies each once). */
export class HftExecutions implements FillList<V5Execution> {
  readonly journalTag = V5_EXECUTIONS.journalTag;

  constructor(
    private readonly client: RestClient,
    /** Read per category (a refused one is left out by the caller's list). */
    private readonly categories: readonly string[],
  ) {}

  async list(sinceMs: number): Promise<OpenList<V5Execution>> {
    const rows: V5Execution[] = [];
    let complete = true;
    for (const category of this.categories) {
      let cursor = "";
      let page = 0;
      for (; page < MAX_PAGES; page++) {
        const q: [string, string][] = [
          ["category", category],
          ["startTime", String(sinceMs)],
        ];
        if (cursor !== "") q.push(["cursor", cursor]);
        const res = await this.client.call<V5List<V5Execution>>("hft.executions", q);
        for (const x of res.list ?? []) rows.push(x);
        cursor = res.nextPageCursor ?? "";
        if (cursor === "") break;
      }
      if (page === MAX_PAGES) complete = false;
    }
    return { rows, complete };
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
    V5_EXECUTIONS.normalize(x, grid, source, tsNs, ev);
  }
}

/** A decimal string as a whole number of grid steps; NormalizeError when it is off the grid. */
function onGrid(text: string | undefined, step: Dec): number {
  const d = typeof text === "string" ? tryParseDec(text) : undefined;
  const n = d === undefined ? undefined : stepsOf(d, step);
  if (n === undefined) throw new NormalizeError(`not on the grid: ${String(text).slice(0, 32)}`);
  return Number(n);
}
