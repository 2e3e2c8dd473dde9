/**
 * The demo strategy: connects through GatewayClient, lists instruments, places a few limit orders on
 * Spot and HFT near the market (one that rests, one that crosses and fills, and on Spot one too small
 * to be accepted), cancels what is still live, waits for every order's final state and returns what
 * happened with per-order latencies. Printing is separate (report.ts) so tests can assert on data.
 */
import { GatewayClient, LogonRejectedError } from "../client/client.js";
import { monoNs } from "../protocol/clock.js";
import type { G2CHeader } from "../protocol/codec.js";
import {
  type Body,
  type InstrumentRecordMsg,
  OrderStatus,
  OrdType,
  Side,
  Surface,
  Tif,
} from "../protocol/schema.js";
import { formatDec, fromSteps, parseDec } from "../util/decimal.js";
import { fetchQuotes, gatewayQuotes, type Quote } from "./market.js";
import { DemoError, isLocalVenue, type VenueUrls } from "./target.js";

export interface DemoOptions {
  url: string;
  token: string;
  /** Venue public market data, used to price the orders (else the gateway's own market data). */
  venue?: VenueUrls | undefined;
  /**
   * What the gateway trades on, when known (its state file says "sim" or "exchange"). Without a
   * venue URL, orders are placed only on "sim" unless `live` is set.
   */
  venueKind?: string | undefined;
  /** Quotes by instrument id; overrides the venue (tests, or a strategy with its own prices). */
  quotes?: ReadonlyMap<number, Quote>;
  /** Required when the venue is not on this host: the demo then places real orders. */
  live?: boolean;
  /**
   * Without a quote for the HFT instrument, learn its price from one minimum-size market buy. Only
   * for the embedded simulator (the CLI sets it when the gateway's state file says venue "sim").
   */
  probe?: boolean;
  sessionName?: string;
  connectTimeoutMs?: number;
  /** Wait for every first answer (Ack / Reject / OutcomeUnknown). */
  answerWaitMs?: number;
  /** Wait for the crossing orders to fill before cancelling what is left. */
  fillWaitMs?: number;
  /** Wait for every order to reach a final state after the cancels. */
  finalWaitMs?: number;
  /** Progress lines (the CLI prints them; tests ignore them). */
  log?: (line: string) => void;
}

/** Why the demo placed an order. */
export type Intent = "rests" | "crosses" | "too small" | "price probe";

export interface PlannedOrder {
  intent: Intent;
  side: number;
  priceTicks: number;
  qtyLots: number;
}

export interface DemoFill {
  priceTicks: number;
  qtyLots: number;
  liquidity: number;
  /** Client monotonic ns when the Fill arrived. */
  atNs: number;
}

export interface DemoOrder {
  clOrdNo: number;
  inst: InstrumentRecordMsg;
  intent: Intent;
  side: number;
  priceTicks: number;
  qtyLots: number;
  answer: "" | "Ack" | "Reject" | "OutcomeUnknown";
  reject?: { code: number; text: string };
  exchangeOrderId: string;
  /** Last OrderStatus seen (0 = none yet). */
  status: number;
  fills: DemoFill[];
  cumQtyLots: number;
  cancelSentNs: number;
  cancelDoneNs: number;
  cancelReject: string;
  /** Latencies in µs (undefined when the step did not happen). */
  lat: { ackUs?: number; ackInGatewayUs?: number; firstFillUs?: number; cancelUs?: number };
}

export interface DemoResult {
  url: string;
  session: string;
  instruments: InstrumentRecordMsg[];
  traded: { inst: InstrumentRecordMsg; quote: Quote }[];
  skipped: string[];
  orders: DemoOrder[];
  allFinal: boolean;
  /** Median heartbeat echo through the gateway (no exchange involved), µs. */
  pingUs: number;
}

const FINAL: ReadonlySet<number> = new Set([
  OrderStatus.Filled,
  OrderStatus.Cancelled,
  OrderStatus.Rejected,
  OrderStatus.Expired,
]);

export function isFinal(o: DemoOrder): boolean {
  return FINAL.has(o.status);
}

const us = (ns: number) => Math.round(ns / 100) / 10;

/** Picks one active instrument per surface, preferring BTC markets (the deepest). */
export function chooseInstruments(insts: readonly InstrumentRecordMsg[]): InstrumentRecordMsg[] {
  const out: InstrumentRecordMsg[] = [];
  for (const surface of [Surface.Spot, Surface.Hft]) {
    const act = insts.filter((i) => i.surface === surface && i.active === 1);
    const pick = act.find((i) => i.symbol.startsWith("BTC")) ?? act[0];
    if (pick) out.push(pick);
  }
  return out;
}

/** Smallest whole-lot quantity at `price` whose notional is at least 1.5× the minimum (and ≥ minQty). */
function demoLots(inst: InstrumentRecordMsg, price: number): number {
  const step = Number(inst.qtyStep);
  const minLots = Math.max(1, Math.ceil(Number(inst.minQty) / step - 1e-9));
  const notional = Number(inst.minNotional);
  const byNotional = notional > 0 ? Math.ceil((notional * 1.5) / (price * step)) : 1;
  return Math.max(minLots, byNotional);
}

/** The demo's orders for one instrument: buy below the bid (rests), buy above the ask (crosses). */
export function planOrders(inst: InstrumentRecordMsg, q: Quote): PlannedOrder[] {
  const tick = Number(inst.tickSize);
  const bidTicks = Math.round(q.bid / tick);
  const askTicks = Math.round(q.ask / tick);
  // Far enough from the touch to stay passive while the market moves, close enough for any price band.
  const away = Math.max(2, Math.round(bidTicks * 0.005));
  const through = Math.max(2, Math.round(askTicks * 0.001));
  const rest = Math.max(1, bidTicks - away);
  const cross = askTicks + through;
  const plan: PlannedOrder[] = [
    { intent: "rests", side: Side.Buy, priceTicks: rest, qtyLots: demoLots(inst, rest * tick) },
    { intent: "crosses", side: Side.Buy, priceTicks: cross, qtyLots: demoLots(inst, cross * tick) },
  ];
  // On Spot, one lot is often below the minimum order value: show what a refusal looks like.
  if (inst.surface === Surface.Spot && Number(inst.minNotional) > rest * tick * Number(inst.qtyStep)) {
    plan.push({ intent: "too small", side: Side.Buy, priceTicks: rest, qtyLots: 1 });
  }
  return plan;
}

function connectError(url: string, err: unknown): DemoError {
  if (err instanceof LogonRejectedError)
    return new DemoError(`gateway at ${url} refused the logon: ${err.message}`);
  const code = (err as { code?: string }).code;
  const msg = err instanceof Error ? err.message : String(err);
  return new DemoError(`gateway not reachable at ${url}${code ? ` (${code})` : ""}: ${msg}`);
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DemoError(`${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the demo; throws DemoError when the gateway cannot be reached or nothing can be priced. */
export async function runDemo(o: DemoOptions): Promise<DemoResult> {
  const log = o.log ?? (() => {});
  const session = o.sessionName ?? `demo-${process.pid}`;
  const client = new GatewayClient({ url: o.url, token: o.token, sessionName: session, heartbeatMs: 1_000 });
  try {
    await withTimeout(client.connect(), o.connectTimeoutMs ?? 5_000, `logon at ${o.url}`);
  } catch (err) {
    await client.close();
    throw err instanceof DemoError ? err : connectError(o.url, err);
  }
  try {
    return await trade(client, o, session, log);
  } finally {
    await client.close();
  }
}

async function trade(
  client: GatewayClient,
  o: DemoOptions,
  session: string,
  log: (line: string) => void,
): Promise<DemoResult> {
  const instruments = await withTimeout(client.instruments(), 5_000, "instrument list");
  log(`connected as ${session}; ${instruments.length} instruments`);
  const chosen = chooseInstruments(instruments);
  if (chosen.length === 0) throw new DemoError("the gateway lists no active instrument");
  let quotes = o.quotes;
  if (quotes === undefined && o.venue !== undefined) {
    if (!isLocalVenue(o.venue) && !o.live) {
      throw new DemoError(
        "the venue is not on this host (a real exchange?): the demo would place real orders; pass --live to allow it",
      );
    }
    log("reading best bid/ask from the venue's public market data");
    quotes = await fetchQuotes(o.venue, chosen);
  }
  if (quotes === undefined) {
    // The venue's market data as the gateway receives it (Subscribe / TopOfBook): no venue URL needed.
    if (o.venueKind !== "sim" && !o.live) {
      throw new DemoError(
        "the gateway's venue is not known to be the simulator (a real exchange?): the demo would place real orders; pass --live to allow it",
      );
    }
    log("reading best bid/ask through the gateway's market data");
    quotes = await gatewayQuotes(client, chosen);
  }

  const orders = new Map<number, DemoOrder>();
  const list: DemoOrder[] = [];
  let wake: (() => void) | undefined;
  const changed = () => wake?.();
  const waitUntil = async (done: () => boolean, ms: number) => {
    const until = Date.now() + ms;
    while (!done() && Date.now() < until) {
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.max(1, until - Date.now()));
        wake = () => {
          clearTimeout(t);
          r();
        };
      });
      wake = undefined;
    }
    return done();
  };
  client.on("ack", (b: Body<"Ack">) => {
    const d = orders.get(b.clOrdNo);
    if (!d) return;
    d.exchangeOrderId = b.exchangeOrderId;
    if (d.status === 0) d.status = OrderStatus.New;
    changed();
  });
  client.on("reject", (b: Body<"Reject">) => {
    const d = orders.get(b.clOrdNo);
    if (!d) return;
    d.reject = { code: b.code, text: b.text };
    d.status = OrderStatus.Rejected;
    changed();
  });
  client.on("update", (b: Body<"OrderUpdate">) => {
    const d = orders.get(b.clOrdNo);
    if (!d || b.requestId !== 0) return;
    d.status = b.status;
    if (b.exchangeOrderId) d.exchangeOrderId = b.exchangeOrderId;
    if (b.cumQtyLots > d.cumQtyLots) d.cumQtyLots = b.cumQtyLots;
    if (d.cancelSentNs > 0 && d.cancelDoneNs === 0 && FINAL.has(b.status)) d.cancelDoneNs = monoNs();
    changed();
  });
  client.on("fill", (b: Body<"Fill">, _h: G2CHeader) => {
    const d = orders.get(b.clOrdNo);
    if (!d) return;
    d.fills.push({ priceTicks: b.priceTicks, qtyLots: b.qtyLots, liquidity: b.liquidity, atNs: monoNs() });
    changed();
  });
  client.on("cancelReject", (b: Body<"CancelReject">) => {
    const d = orders.get(b.clOrdNo);
    if (!d) return;
    d.cancelReject = b.text;
    changed();
  });

  // A few heartbeat echoes first: the gateway round trip without the exchange, for comparison.
  const pings: number[] = [];
  for (let i = 0; i < 20; i++) pings.push(await withTimeout(client.ping(), 2_000, "heartbeat echo"));
  pings.sort((a, b) => a - b);
  const pingUs = us(pings[pings.length >> 1]!);

  /** Places one order and waits for its first answer, so each latency is that order's own. */
  const place = async (inst: InstrumentRecordMsg, p: PlannedOrder, ordType: number, tif: number) => {
    const clOrdNo = client.placeOrder({ instrumentId: inst.instrumentId, ordType, tif, ...p });
    const d: DemoOrder = {
      clOrdNo,
      inst,
      ...p,
      answer: "",
      exchangeOrderId: "",
      status: 0,
      fills: [],
      cumQtyLots: 0,
      cancelSentNs: 0,
      cancelDoneNs: 0,
      cancelReject: "",
      lat: {},
    };
    orders.set(clOrdNo, d);
    list.push(d);
    await waitUntil(() => client.trace(clOrdNo)?.answer !== "", o.answerWaitMs ?? 5_000);
    log(
      `order ${clOrdNo} (${inst.symbol}, ${p.intent}): ${client.trace(clOrdNo)?.answer || "no answer yet"}`,
    );
    return d;
  };

  const traded: DemoResult["traded"] = [];
  const skipped: string[] = [];
  for (const inst of chosen) {
    let q = quotes?.get(inst.instrumentId);
    if (q === undefined && o.probe && inst.surface === Surface.Hft) {
      // No market data: one minimum-size market buy tells the price (simulator only; see DemoOptions.probe).
      const lots = Math.max(1, Math.ceil(Number(inst.minQty) / Number(inst.qtyStep) - 1e-9));
      const d = await place(
        inst,
        { intent: "price probe", side: Side.Buy, priceTicks: 0, qtyLots: lots },
        OrdType.Market,
        Tif.IOC,
      );
      await waitUntil(() => d.fills.length > 0 || isFinal(d), o.fillWaitMs ?? 3_000);
      const f = d.fills[0];
      if (f) {
        const px = f.priceTicks * Number(inst.tickSize);
        q = { bid: px, ask: px };
      }
    }
    if (q) traded.push({ inst, quote: q });
    else skipped.push(`${inst.symbol} (${inst.venue}): no market price (pass --venue URL)`);
  }
  if (traded.length === 0) {
    throw new DemoError(
      "no market price for any instrument: pass --venue URL (the venue's base URL) or set HFTGATE_VENUE_URL",
    );
  }

  for (const { inst, quote } of traded) {
    for (const p of planOrders(inst, quote)) await place(inst, p, OrdType.Limit, Tif.GTC);
  }
  const crossingDone = () =>
    list.every((d) => d.intent !== "crosses" || isFinal(d) || d.status === OrderStatus.Unknown);
  await waitUntil(crossingDone, o.fillWaitMs ?? 3_000);

  for (const d of list) {
    if (isFinal(d) || client.trace(d.clOrdNo)?.answer !== "Ack") continue;
    d.cancelSentNs = monoNs();
    client.cancel(d.clOrdNo);
  }
  log("cancelled the live orders; waiting for final states");
  const allFinal = await waitUntil(() => list.every(isFinal), o.finalWaitMs ?? 8_000);

  for (const d of list) {
    const t = client.trace(d.clOrdNo);
    if (t && t.answer !== "") {
      d.answer = t.answer;
      d.lat.ackUs = us(t.answerNs - t.sendNs);
      if (t.gwSendNs > 0 && t.gwRecvNs > 0) d.lat.ackInGatewayUs = us(t.gwSendNs - t.gwRecvNs);
      if (d.fills.length > 0) d.lat.firstFillUs = us(d.fills[0]!.atNs - t.sendNs);
    }
    if (d.cancelSentNs > 0 && d.cancelDoneNs > 0) d.lat.cancelUs = us(d.cancelDoneNs - d.cancelSentNs);
  }
  return { url: o.url, session, instruments, traded, skipped, orders: list, allFinal, pingUs };
}

/** Decimal text of `n` steps of `step` (ticks → price, lots → quantity). */
export function stepsText(n: number, step: string): string {
  return formatDec(fromSteps(n, parseDec(step)));
}
