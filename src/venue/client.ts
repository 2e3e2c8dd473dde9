/**
 * The REST client with the venues' verbs: the venue-neutral `RestClient` (prepare, sign, send) plus
 * one method per order request and read of Spot v2, HFT v5 and Futures v2, each one line into its
 * venue's folder, and the instruments' grids, so an order can be validated without passing its grid.
 * It is what `createRestStack` builds and `hftgate/rest` exports; the gateway's own order paths use
 * the venue folders directly (src/venue/{spot,hft,futures}/).
 */
import type { Surface } from "../domain/types.js";
import type { EndpointId } from "../rest/catalogue.js";
import { type PreparedRequest, RestClient, type RestClientOptions } from "../rest/client.js";
import { InvalidRequestError } from "../rest/errors.js";
import type {
  FuturesInstrument,
  FuturesOrderList,
  FuturesOrderRecord,
  SpotOrderList,
  SpotOrderRecord,
  SpotPortfolioRow,
  SpotTradeInfo,
  V5Execution,
  V5Instrument,
  V5List,
  V5OrderAck,
  V5OrderRecord,
  V5Position,
} from "../rest/wire.js";
import { FAST_REQUESTS } from "./fastRequests.js";
import { prepareFuturesCancel } from "./futures/cancel.js";
import { type FuturesCreateParams, prepareFuturesCreate } from "./futures/create.js";
import { futuresInstrumentInfo, getFuturesOrder, listFuturesOpen } from "./futures/reads.js";
import { type HftCancelParams, prepareHftCancel } from "./hft/cancel.js";
import { type HftCreateParams, prepareHftCreate } from "./hft/create.js";
import {
  type HftExecutionFilter,
  type HftOrderFilter,
  hftExecutions,
  hftInstrumentsInfo,
  hftPositions,
  hftRealtime,
  hftTime,
} from "./hft/reads.js";
import { HFT_RATE_LIMIT_CODES } from "./hft/retCodes.js";
import type { OrderGrid } from "./orderFields.js";
import { prepareSpotCancel } from "./spot/cancel.js";
import { prepareSpotCreate, type SpotCreateParams } from "./spot/create.js";
import {
  getSpotOrder,
  listSpotOrders,
  type SpotOrderFilter,
  spotPortfolio,
  spotTime,
  spotTradeInfo,
} from "./spot/reads.js";

export class VenueClient extends RestClient {
  private readonly grids = new Map<string, OrderGrid>();

  /**
   * The venue-neutral client with the venues' order requests on the fast path and their own envelope
   * codes (HFT's rate limit), unless `opts` says otherwise.
   */
  constructor(opts: RestClientOptions) {
    super({ fast: FAST_REQUESTS, rateLimitCodes: HFT_RATE_LIMIT_CODES, ...opts });
  }

  /** Registers an instrument's grid so order helpers can validate price and quantity. */
  setGrid(surface: Surface, symbol: string, grid: OrderGrid): void {
    this.grids.set(`${surface}:${symbol}`, grid);
  }

  private gridOf(surface: Surface, symbol: string, id: EndpointId, given: OrderGrid | undefined): OrderGrid {
    const g = given ?? this.grids.get(`${surface}:${symbol}`);
    if (g === undefined) {
      throw new InvalidRequestError(
        `symbol: unknown instrument ${JSON.stringify(String(symbol).slice(0, 40))}`,
        id,
        "symbol",
      );
    }
    return g;
  }

  // ---------- Spot v2 ----------

  prepareSpotCreate(p: SpotCreateParams, grid?: OrderGrid): PreparedRequest {
    return prepareSpotCreate(this, p, this.gridOf("spot", p.symbol, "spot.createOrder", grid));
  }

  prepareSpotCancel(orderId: string): PreparedRequest {
    return prepareSpotCancel(this, orderId);
  }

  async createSpotOrder(p: SpotCreateParams, grid?: OrderGrid): Promise<SpotOrderRecord> {
    return this.send(this.prepareSpotCreate(p, grid));
  }

  /** [assumed] response `{data: <order record>}` (not established by the docs). */
  async cancelSpotOrder(orderId: string): Promise<SpotOrderRecord> {
    return this.send(this.prepareSpotCancel(orderId));
  }

  getSpotOrder(by: { orderId: string } | { clientOrderId: string }): Promise<SpotOrderRecord> {
    return getSpotOrder(this, by);
  }

  listSpotOrders(f: SpotOrderFilter): Promise<SpotOrderList> {
    return listSpotOrders(this, f);
  }

  portfolio(): Promise<SpotPortfolioRow[]> {
    return spotPortfolio(this);
  }

  tradeInfo(
    f: { exchange?: string; symbol?: string } = {},
  ): Promise<Record<string, Record<string, SpotTradeInfo>>> {
    return spotTradeInfo(this, f);
  }

  /** Unauthenticated server time in ms (the clock sync's source). */
  spotTime(): Promise<number> {
    return spotTime(this);
  }

  // ---------- Futures v2 (exchange EXCHANGE_2 on every request) ----------

  prepareFuturesCreate(p: FuturesCreateParams, grid?: OrderGrid): PreparedRequest {
    return prepareFuturesCreate(this, p, this.gridOf("futures", p.symbol, "futures.createOrder", grid));
  }

  prepareFuturesCancel(orderId: string): PreparedRequest {
    return prepareFuturesCancel(this, orderId);
  }

  /** [assumed] the answer is the order record, like Spot's. */
  async createFuturesOrder(p: FuturesCreateParams, grid?: OrderGrid): Promise<FuturesOrderRecord> {
    return this.send(this.prepareFuturesCreate(p, grid));
  }

  async cancelFuturesOrder(orderId: string): Promise<FuturesOrderRecord> {
    return this.send(this.prepareFuturesCancel(orderId));
  }

  /** One order by venue id or client id (the docs' reconciliation query). */
  getFuturesOrder(by: { orderId: string } | { clientOrderId: string }): Promise<FuturesOrderRecord> {
    return getFuturesOrder(this, by);
  }

  listFuturesOpen(f: { symbol?: string; limit?: number } = {}): Promise<FuturesOrderList> {
    return listFuturesOpen(this, f);
  }

  futuresInstruments(): Promise<FuturesInstrument[]> {
    return futuresInstrumentInfo(this);
  }

  // ---------- HFT v5 ----------

  prepareHftCreate(p: HftCreateParams, grid?: OrderGrid): PreparedRequest {
    return prepareHftCreate(this, p, this.gridOf("hft", p.symbol, "hft.createOrder", grid));
  }

  prepareHftCancel(p: HftCancelParams): PreparedRequest {
    return prepareHftCancel(this, p);
  }

  async createHftOrder(p: HftCreateParams, grid?: OrderGrid): Promise<V5OrderAck> {
    return this.send(this.prepareHftCreate(p, grid));
  }

  /** [assumed] POST /v5/order/cancel (path configurable through the catalogue). */
  async cancelHftOrder(p: HftCancelParams): Promise<V5OrderAck> {
    return this.send(this.prepareHftCancel(p));
  }

  realtime(f: HftOrderFilter): Promise<V5List<V5OrderRecord>> {
    return hftRealtime(this, f);
  }

  executions(f: HftExecutionFilter): Promise<V5List<V5Execution>> {
    return hftExecutions(this, f);
  }

  instruments(f: { category: string; symbol?: string }): Promise<V5List<V5Instrument>> {
    return hftInstrumentsInfo(this, f);
  }

  positions(f: { category: string; symbol?: string }): Promise<V5List<V5Position>> {
    return hftPositions(this, f);
  }

  /** Server time in ms from GET /v5/market/time. */
  hftTime(): Promise<number> {
    return hftTime(this);
  }
}
