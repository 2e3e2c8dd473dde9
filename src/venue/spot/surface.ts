/**
 * The Spot surface (`/trade/api/v2`): client id `client_order_id`, records carry cumulative quantity.
 * Its requests: create.ts, cancel.ts (no amend: the engine cancels and replaces); its reads: reads.ts.
 */
import type { LimitClass } from "../../limits/index.js";
import {
  eventFromSpotOrder,
  type Grid,
  lotsOfNumber,
  type Order,
  type OrderEvent,
  type Source,
  type Status,
  sideOf,
  statusFromSpot,
  ticksOnGridNumber,
} from "../../orders/index.js";
import type { PreparedRequest, RestClient } from "../../rest/client.js";
import type { SpotOrderRecord } from "../../rest/wire.js";
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
import { prepareSpotCancel } from "./cancel.js";
import { prepareSpotCreate } from "./create.js";
import { getSpotOrder, listSpotOrders } from "./reads.js";

/** A Spot order record (answer, stream message, list row) into an OrderEvent; journal tag `spot`. */
export const SPOT_ORDERS: RecordNormalizer<SpotOrderRecord> = {
  journalTag: "spot",
  normalize: eventFromSpotOrder,
};

const CLASSES: Record<SurfaceOp, LimitClass> = {
  create: "spot.create",
  cancel: "spot.cancel",
  query: "spot.listOrders",
  list: "spot.listOrders",
};
/** The open list's page size: the venue caps it at 500 [assumed]. */
const PAGE = 500;

export class SpotSurface implements VenueSurface<SpotOrderRecord> {
  readonly kind = "spot" as const;
  readonly journalTag = SPOT_ORDERS.journalTag;
  readonly createEndpoint = "spot.createOrder" as const;
  readonly queryAfterAck = false;
  /** [docs] Spot v2 has no amend: the engine cancels and places a replacement. */
  readonly amend = "cancelReplace" as const;

  constructor(
    private readonly client: RestClient,
    private readonly expirySeconds: number,
  ) {}

  classOf(op: SurfaceOp): LimitClass {
    return CLASSES[op];
  }

  prepareCreate(
    o: Order,
    priceText: string,
    qtyText: string,
    grid: OrderGrid,
    venue: string,
  ): PreparedRequest {
    return prepareSpotCreate(
      this.client,
      {
        symbol: o.symbol,
        side: o.side,
        price: priceText,
        quantity: qtyText,
        exchange: venue,
        clientOrderId: o.clientId,
        expirySeconds: this.expirySeconds,
      },
      grid,
    );
  }

  prepareCancel(o: Order): PreparedRequest {
    return prepareSpotCancel(this.client, o.exchangeId);
  }

  parseCreate(res: unknown): CreateAnswer<SpotOrderRecord> {
    const rec = res as SpotOrderRecord | undefined;
    const id = typeof rec?.order_id === "string" ? rec.order_id : "";
    // The answer is the order record: worth applying when it already says more than "open, unfilled".
    const more = id !== "" && (rec!.status !== "OPEN" || (rec!.executed_qty ?? 0) > 0);
    return { exchangeId: id, record: more ? rec : undefined };
  }

  parseCancel(res: unknown): SpotOrderRecord | undefined {
    const rec = res as SpotOrderRecord | undefined;
    return rec?.status !== "CANCELLATION_RAISED" || (rec.executed_qty ?? 0) > 0 ? rec : undefined;
  }

  queryByClientId(o: Order): Promise<SpotOrderRecord | undefined> {
    return unlessNotFound(getSpotOrder(this.client, orderRef(o)));
  }

  async listOpen(): Promise<OpenList<SpotOrderRecord>> {
    const res = await listSpotOrders(this.client, { open: true, count: PAGE });
    const rows = res.orders ?? [];
    return { rows, complete: rows.length < PAGE };
  }

  async cancelRecord(r: SpotOrderRecord): Promise<unknown> {
    return this.client.send(prepareSpotCancel(this.client, r.order_id));
  }

  clientIdOf(r: SpotOrderRecord): string {
    return r.client_order_id ?? "";
  }

  exchangeIdOf(r: SpotOrderRecord): string {
    return r.order_id;
  }

  statusOf(r: SpotOrderRecord): Status {
    return statusFromSpot(r.status);
  }

  printOf(r: SpotOrderRecord): string {
    return `${r.status}|${r.executed_qty}|${r.updated_time}`;
  }

  normalize(r: SpotOrderRecord, grid: Grid, source: Source, tsNs: number, ev: OrderEvent): void {
    SPOT_ORDERS.normalize(r, grid, source, tsNs, ev);
  }

  placeOf(r: SpotOrderRecord): RecordPlace {
    return { symbol: r.symbol, venue: r.exchange ?? "" };
  }

  /** Spot v2 takes GTC limit orders only. */
  termsOf(r: SpotOrderRecord, grid: Grid): RecordTerms {
    return {
      side: sideOf(r.side),
      type: "limit",
      tif: "GTC",
      positionIdx: 0,
      priceTicks: ticksOnGridNumber(r.price, grid),
      qtyLots: lotsOfNumber(r.orig_qty, grid),
    };
  }
}
