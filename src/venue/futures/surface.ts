/**
 * The Futures v2 surface (`/trade/api/v2/futures`, exchange `EXCHANGE_2`): client id
 * `client_order_id`, records carry cumulative quantity as strings. The venue has no private stream
 * (§5), so polling its open list is this surface's order-state source, on its own cadence because
 * the open-orders bucket is 20 reads per minute. Its requests: create.ts, cancel.ts; its reads: reads.ts.
 */
import type { LimitClass } from "../../limits/index.js";
import {
  eventFromFuturesOrder,
  type Grid,
  lotsOf,
  type Order,
  type OrderEvent,
  type Source,
  type Status,
  sideOf,
  statusFromFutures,
  ticksOnGrid,
  tifOf,
} from "../../orders/index.js";
import type { PreparedRequest, RestClient } from "../../rest/client.js";
import type { FuturesOrderRecord } from "../../rest/wire.js";
import type { OrderGrid } from "../orderFields.js";
import {
  type CreateAnswer,
  type OpenList,
  orderRef,
  type RecordNormalizer,
  type RecordPlace,
  type RecordTerms,
  type SurfaceOp,
  unlessNotFound,
  type VenueSurface,
} from "../surface.js";
import { prepareFuturesCancel } from "./cancel.js";
import { prepareFuturesCreate } from "./create.js";
import { getFuturesOrder, listFuturesOpen } from "./reads.js";

/** A Futures order record (answer, list row, query) into an OrderEvent; journal tag `futures`. */
export const FUTURES_ORDERS: RecordNormalizer<FuturesOrderRecord> = {
  journalTag: "futures",
  normalize: eventFromFuturesOrder,
};

const CLASSES: Record<SurfaceOp, LimitClass> = {
  create: "futures.create",
  cancel: "futures.cancel",
  query: "futures.query",
  list: "futures.list",
};
/** [assumed] the open list's page size (the docs publish none). */
const PAGE = 100;

export class FuturesSurface implements VenueSurface<FuturesOrderRecord> {
  readonly kind = "futures" as const;
  readonly journalTag = FUTURES_ORDERS.journalTag;
  readonly createEndpoint = "futures.createOrder" as const;
  readonly queryAfterAck = false;

  constructor(
    private readonly client: RestClient,
    /** How often the open list is read (ms): 20 reads per 60 s at the venue [assumed 3 s]. */
    readonly pollEveryMs: number,
  ) {}

  classOf(op: SurfaceOp): LimitClass {
    return CLASSES[op];
  }

  prepareCreate(o: Order, priceText: string, qtyText: string, grid: OrderGrid): PreparedRequest {
    return prepareFuturesCreate(
      this.client,
      {
        symbol: o.symbol,
        side: o.side,
        orderType: o.type,
        quantity: qtyText,
        price: o.type === "limit" ? priceText : undefined,
        timeInForce: o.tif,
        clientOrderId: o.clientId,
      },
      grid,
    );
  }

  prepareCancel(o: Order): PreparedRequest {
    return prepareFuturesCancel(this.client, o.exchangeId);
  }

  parseCreate(res: unknown): CreateAnswer<FuturesOrderRecord> {
    const rec = res as FuturesOrderRecord | undefined;
    const id = typeof rec?.order_id === "string" ? rec.order_id : "";
    // The answer is the order record [assumed]: worth applying when it says more than "working, unfilled".
    const more = id !== "" && (rec!.status !== "RAISED" || Number(rec!.executed_quantity) > 0);
    return { exchangeId: id, record: more ? rec : undefined };
  }

  parseCancel(res: unknown): FuturesOrderRecord | undefined {
    const rec = res as FuturesOrderRecord | undefined;
    if (typeof rec?.status !== "string") return undefined;
    return rec.status !== "CANCELLATION_RAISED" || Number(rec.executed_quantity) > 0 ? rec : undefined;
  }

  queryByClientId(o: Order): Promise<FuturesOrderRecord | undefined> {
    return unlessNotFound(getFuturesOrder(this.client, orderRef(o)));
  }

  async listOpen(): Promise<OpenList<FuturesOrderRecord>> {
    const res = await listFuturesOpen(this.client, { limit: PAGE });
    const rows = res?.orders ?? [];
    return { rows, complete: rows.length < PAGE };
  }

  async cancelRecord(r: FuturesOrderRecord): Promise<unknown> {
    return this.client.send(prepareFuturesCancel(this.client, r.order_id));
  }

  clientIdOf(r: FuturesOrderRecord): string {
    return r.client_order_id ?? "";
  }

  exchangeIdOf(r: FuturesOrderRecord): string {
    return r.order_id;
  }

  statusOf(r: FuturesOrderRecord): Status {
    return statusFromFutures(r.status, Number(r.executed_quantity) > 0);
  }

  printOf(r: FuturesOrderRecord): string {
    return `${r.status}|${r.executed_quantity}|${r.updated_at}`;
  }

  normalize(r: FuturesOrderRecord, grid: Grid, source: Source, tsNs: number, ev: OrderEvent): void {
    FUTURES_ORDERS.normalize(r, grid, source, tsNs, ev);
  }

  placeOf(r: FuturesOrderRecord): RecordPlace {
    return { symbol: String(r.symbol).toUpperCase(), venue: r.exchange ?? "" };
  }

  termsOf(r: FuturesOrderRecord, grid: Grid): RecordTerms {
    const market = r.order_type === "MARKET";
    return {
      side: sideOf(r.side),
      type: market ? "market" : "limit",
      tif: tifOf(r.time_in_force),
      positionIdx: 0,
      priceTicks: market ? 0 : ticksOnGrid(String(r.price), grid),
      qtyLots: lotsOf(String(r.quantity), grid),
    };
  }
}
