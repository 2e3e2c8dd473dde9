/**
 * The venue's own account of the strategy's account, read the way any client of the exchange would:
 * signed REST through the project's REST client with the account's keys — Spot open and closed order
 * lists, HFT `/v5/order/realtime` and `/v5/execution/list` (every page). Quantities become lots with
 * the instrument's step, so they compare with the wire's integers.
 */
import type { KeyPair } from "../../../src/auth/keys.js";
import type { SpotOrderRecord, V5Execution, V5OrderRecord } from "../../../src/rest/wire.js";
import { createRestStack } from "../../../src/venue/stack.js";
import type { Norm } from "./truth.js";

const SPOT: Record<string, Norm> = {
  OPEN: "New",
  PARTIALLY_EXECUTED: "PartiallyFilled",
  EXECUTED: "Filled",
  CANCELLATION_RAISED: "CancelRaised",
  CANCELLED: "Cancelled",
  EXPIRATION_RAISED: "ExpirationRaised",
  EXPIRED: "Expired",
  DISCARDED: "Rejected",
};
const V5: Record<string, Norm> = {
  New: "New",
  PartiallyFilled: "PartiallyFilled",
  Filled: "Filled",
  Cancelled: "Cancelled",
  PartiallyFilledCanceled: "Cancelled",
  Rejected: "Rejected",
};

export interface ListedOrder {
  surface: "spot" | "hft";
  id: string;
  clientId: string;
  status: Norm;
  filledLots: number;
}

export interface ListedExecution {
  execId: string;
  orderId: string;
  lots: number;
}

export interface VenueListing {
  orders: ListedOrder[];
  /** HFT executions (the Spot API publishes none per order). */
  executions: ListedExecution[];
}

/** Lot sizes used to turn the venue's decimal quantities into lots. */
export interface LotSteps {
  spot: number;
  hft: number;
}

const lots = (qty: number | string, step: number): number => Math.round(Number(qty) / step);

/** Spot lists are capped at 500 rows per call and not paged: a run must stay below that. */
const SPOT_CAP = 500;

export class VenueReader {
  private readonly stack;

  constructor(
    baseUrl: string,
    keys: KeyPair,
    private readonly steps: LotSteps,
    /** Pages read per listing at most (50 rows each); a long load run lists more. */
    private readonly maxPages = 1_000,
  ) {
    this.stack = createRestStack({
      keys,
      spotBaseUrl: baseUrl,
      hftBaseUrl: baseUrl,
      presign: false,
      clock: false,
      http: { connections: 2, prewarm: 0, headersTimeoutMs: 5_000, bodyTimeoutMs: 5_000 },
    });
  }

  async read(): Promise<VenueListing> {
    const c = this.stack.client;
    const orders: ListedOrder[] = [];
    for (const open of [true, false]) {
      const r = await c.listSpotOrders({ open, count: SPOT_CAP });
      if (r.orders.length >= SPOT_CAP) throw new Error("Spot listing reached its 500-row cap");
      for (const o of r.orders as SpotOrderRecord[]) {
        orders.push({
          surface: "spot",
          id: o.order_id,
          clientId: o.client_order_id ?? "",
          status: SPOT[o.status] ?? "Unknown",
          filledLots: lots(o.executed_qty, this.steps.spot),
        });
      }
    }
    for (const o of await this.pages<V5OrderRecord>((cursor) => c.realtime({ category: "linear", cursor }))) {
      orders.push({
        surface: "hft",
        id: o.orderId,
        clientId: o.orderLinkId,
        status: V5[o.orderStatus] ?? "Unknown",
        filledLots: lots(o.cumExecQty, this.steps.hft),
      });
    }
    const executions = (
      await this.pages<V5Execution>((cursor) => c.executions({ category: "linear", cursor }))
    ).map((e) => ({ execId: e.execId, orderId: e.orderId, lots: lots(e.execQty, this.steps.hft) }));
    return { orders, executions };
  }

  private async pages<T>(
    get: (cursor: string | undefined) => Promise<{ list: T[]; nextPageCursor: string }>,
  ): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < this.maxPages; i++) {
      const r = await get(cursor);
      out.push(...r.list);
      if (!r.nextPageCursor) return out;
      cursor = r.nextPageCursor;
    }
    throw new Error(`listing did not end within ${this.maxPages} pages`);
  }

  close(): Promise<void> {
    return this.stack.stop();
  }
}
