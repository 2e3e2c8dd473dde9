/** A funded account (one API key): Spot balances, Spot and HFT orders, HFT margin and positions. */
import type { SimOrder } from "./order.js";

export interface SimBalance {
  available: number;
  blocked: number;
}

export interface Execution {
  seq: number;
  execId: string;
  order: SimOrder;
  priceTicks: number;
  lots: number;
  value: number;
  fee: number;
  time: number;
  isMaker: boolean;
  leavesLots: number;
}

export interface SimPosition {
  symbol: string;
  positionIdx: 0 | 1 | 2;
  /** Signed size in lots: positive long, negative short. */
  lots: number;
  avgPrice: number;
  realised: number;
  leverage: number;
  updatedAt: number;
}

export class SimAccount {
  readonly apiKey: string;
  readonly spot = new Map<string, SimBalance>();
  readonly spotOrders = new Map<string, SimOrder>();
  readonly spotByClient = new Map<string, SimOrder>();
  readonly spotList: SimOrder[] = [];
  readonly hftOrders = new Map<string, SimOrder>();
  readonly hftByLink = new Map<string, SimOrder>();
  readonly hftList: SimOrder[] = [];
  readonly futOrders = new Map<string, SimOrder>();
  readonly futByClient = new Map<string, SimOrder>();
  readonly futList: SimOrder[] = [];
  readonly executions: Execution[] = [];
  /** HFT USDT wallet balance (realised PnL and fees included). */
  margin: number;
  /** Margin reserved by open HFT orders. */
  orderMargin = 0;
  /** 0 one-way, 3 hedge. */
  positionMode: 0 | 3 = 0;
  readonly leverage = new Map<string, { buy: number; sell: number }>();
  readonly positions = new Map<string, SimPosition>();
  tdsTotal = 0;
  readonly transferIds = new Set<string>();
  /** Wallet balance outside the HFT account, for transfers (USDT). */
  hftFunded: boolean;

  constructor(apiKey: string, balances: Record<string, number>, margin: number) {
    this.apiKey = apiKey;
    for (const [cur, amount] of Object.entries(balances))
      this.spot.set(cur, { available: amount, blocked: 0 });
    this.margin = margin;
    this.hftFunded = margin > 0;
  }

  balance(cur: string): SimBalance {
    let b = this.spot.get(cur);
    if (b === undefined) {
      b = { available: 0, blocked: 0 };
      this.spot.set(cur, b);
    }
    return b;
  }

  /** HFT margin free for new orders. */
  availableMargin(stepOf: (symbol: string) => number): number {
    let pm = 0;
    for (const p of this.positions.values())
      pm += (Math.abs(p.lots) * stepOf(p.symbol) * p.avgPrice) / p.leverage;
    return this.margin - this.orderMargin - pm;
  }
}
