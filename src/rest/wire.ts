/**
 * JSON shapes on the exchange wire, shared by the REST client (which parses them) and the simulator
 * (which produces them). Where docs/venue-api.md leaves a shape unknown, the choice made here is the
 * project's assumption and is marked `[assumed]`.
 */

// ---------- Spot v2: `{ "data": ... }` bodies, JSON numbers, `{ "message": ... }` errors ----------

export type SpotStatus =
  | "OPEN"
  | "PARTIALLY_EXECUTED"
  | "EXECUTED"
  | "CANCELLED"
  | "EXPIRED"
  | "DISCARDED"
  | "CANCELLATION_RAISED"
  | "EXPIRATION_RAISED";

/** The Spot order record (create, cancel, get order, list orders, FETCH_ORDER_UPDATES payload). */
export interface SpotOrderRecord {
  order_id: string;
  /** [assumed] key name: the docs say the id is echoed; `client_order_id` mirrors the request field. */
  client_order_id: string | null;
  symbol: string;
  price: number;
  average_price: number;
  orig_qty: number;
  executed_qty: number;
  status: SpotStatus;
  /** Upper case on the way out (`BUY`/`SELL`). */
  side: "BUY" | "SELL";
  /** [assumed] present, upper case. */
  type: "LIMIT";
  exchange: string;
  order_source: string;
  created_time: number;
  updated_time: number;
}

export interface SpotCreateOrderBody {
  side: "buy" | "sell";
  symbol: string;
  type: "limit";
  price: number;
  quantity: number;
  exchange: string;
  client_order_id?: string;
  expiry_period?: number;
}

export interface SpotCancelOrderBody {
  order_id: string;
}

/** GET /trade/api/v2/orders → `{ data: { orders: [...] } }` [assumed wrapper key, as third-party code reads]. */
export interface SpotOrderList {
  orders: SpotOrderRecord[];
}

/** GET /trade/api/v2/tradeInfo → `{ data: { <exchange>: { <SYMBOL>: SpotTradeInfo } } }`. */
export interface SpotTradeInfo {
  quote: { min: string; max: string };
  precision: { base: number; quote: number; limit: number };
  /** [assumed] the "active status" the changelog promises. */
  active?: boolean;
}

export interface SpotPortfolioRow {
  currency: string;
  name: string;
  main_balance: number | string;
  blocked_balance_order: number | string;
  buy_average_price: number;
  invested_value: number;
  invested_value_excluding_fee: number;
  current_value: number;
  sell_rate: number;
  buy_rate: number;
  is_average_price_available: boolean;
  is_delisted_coin: boolean;
}

/** FETCH_BALANCE_UPDATES payload [assumed]: the portfolio rows, newest snapshot, with a timestamp. */
export interface SpotBalanceUpdate {
  balances: SpotPortfolioRow[];
  timestamp: number;
}

export interface SpotErrorBody {
  message: string;
}

// ---------- Futures v2: `{ "data": ... }` bodies, numbers as strings, `{ "message": ... }` errors ----------

/** docs/venue-api.md §7.2. PARTIALLY_EXECUTED is terminal (the remainder no longer works). */
export type FuturesStatus =
  | "RAISED"
  | "EXECUTED"
  | "PARTIALLY_EXECUTED"
  | "CANCELLED"
  | "CANCELLATION_RAISED";

/**
 * [assumed] the Futures order record (create, cancel, get order, open orders): the docs name only
 * `order_id`; the other keys mirror the place-order request fields, every number a decimal string,
 * times in ms as strings.
 */
export interface FuturesOrderRecord {
  order_id: string;
  client_order_id: string | null;
  symbol: string;
  side: "BUY" | "SELL";
  order_type: "LIMIT" | "MARKET";
  status: FuturesStatus;
  /** "0" for market orders. */
  price: string;
  /** "0" until the first fill. */
  avg_price: string;
  quantity: string;
  executed_quantity: string;
  time_in_force: "GTC" | "IOC" | "FOK";
  reduce_only: boolean;
  exchange: "EXCHANGE_2";
  created_at: string;
  updated_at: string;
}

/** [assumed] GET /trade/api/v2/futures/open_orders → `{ data: { orders: [...] } }` (as Spot's list). */
export interface FuturesOrderList {
  orders: FuturesOrderRecord[];
}

/** [assumed] one row of GET /trade/api/v2/futures/instrument_info `data` (a list), numbers as strings. */
export interface FuturesInstrument {
  symbol: string;
  base_asset: string;
  quote_asset: string;
  tick_size: string;
  quantity_step: string;
  min_quantity: string;
  max_quantity: string;
  min_notional: string;
  max_leverage: string;
  status: "TRADING" | "HALTED";
}

// ---------- HFT v5: the envelope ----------

export interface V5Envelope<T> {
  retCode: number;
  retMsg: string;
  result: T;
  retExtInfo: Record<string, unknown>;
  time: number;
}

export type V5OrderStatus =
  | "New"
  | "PartiallyFilled"
  | "Filled"
  | "Cancelled"
  /** [assumed, Bybit-style] IOC/FOK remainder cancelled after a partial fill. */
  | "PartiallyFilledCanceled"
  /** [assumed, Bybit-style] rejected by the matching engine after acceptance. */
  | "Rejected";

export interface V5CreateOrderBody {
  category: string;
  symbol: string;
  side: "Buy" | "Sell";
  orderType: "Limit" | "Market";
  qty: string;
  price?: string;
  positionIdx: 0 | 1 | 2;
  timeInForce?: "GTC" | "IOC" | "FOK";
  orderLinkId?: string;
}

/** [assumed, Bybit-style] POST /v5/order/cancel body; one of orderId / orderLinkId. */
export interface V5CancelOrderBody {
  category: string;
  symbol: string;
  orderId?: string;
  orderLinkId?: string;
}

export interface V5OrderAck {
  orderId: string;
  orderLinkId: string;
}

/** One row of GET /v5/order/realtime `result.list`. */
export interface V5OrderRecord {
  symbol: string;
  orderId: string;
  orderLinkId: string;
  orderType: "Limit" | "Market";
  orderStatus: V5OrderStatus;
  side: "Buy" | "Sell";
  qty: string;
  price: string;
  timeInForce: "GTC" | "IOC" | "FOK";
  leavesQty: string;
  cumExecQty: string;
  cumExecValue: string;
  cumExecFee: string;
  avgPrice: string;
  lastPriceOnCreated: string;
  positionIdx: 0 | 1 | 2;
  createdTime: string;
  updatedTime: string;
  rejectReason: string;
  /** Set by the gateway's open-list reading (the category it asked for), not by the venue. */
  category?: string;
}

/** `result` of list endpoints; `nextPageCursor` is "" on the last page [assumed]. */
export interface V5List<T> {
  category: string;
  list: T[];
  nextPageCursor: string;
}

/** [assumed, Bybit-v5 model] one row of GET /v5/execution/list. */
export interface V5Execution {
  symbol: string;
  orderId: string;
  orderLinkId: string;
  side: "Buy" | "Sell";
  orderPrice: string;
  orderQty: string;
  execId: string;
  execPrice: string;
  execQty: string;
  execValue: string;
  execFee: string;
  execTime: string;
  isMaker: boolean;
  leavesQty: string;
}

/** [assumed, Bybit-v5 model] one row of GET /v5/market/instruments-info. */
export interface V5Instrument {
  symbol: string;
  status: "Trading" | "Closed";
  baseCoin: string;
  quoteCoin: string;
  lotSizeFilter: { qtyStep: string; minOrderQty: string; maxOrderQty: string; minNotionalValue: string };
  priceFilter: { tickSize: string; minPrice: string; maxPrice: string };
  leverageFilter: { minLeverage: string; maxLeverage: string; leverageStep: string };
}

/** [assumed, Bybit-v5 model] one row of GET /v5/position/list. */
export interface V5Position {
  symbol: string;
  positionIdx: 0 | 1 | 2;
  side: "Buy" | "Sell" | "";
  size: string;
  avgPrice: string;
  positionValue: string;
  leverage: string;
  unrealisedPnl: string;
  cumRealisedPnl: string;
  updatedTime: string;
}
