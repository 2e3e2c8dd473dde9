/**
 * Best bid/ask for the instruments the demo trades, from the venue's public market data (a strategy
 * reads prices from the market, not from the order gateway): HFT `/v5/market/tickers`, Spot order-book
 * snapshots over the public Socket.IO stream. Prices are floats: they only place demo orders near
 * the market, and the tick grid is applied afterwards.
 */
import type { GatewayClient } from "../client/client.js";
import type { Body, InstrumentRecordMsg } from "../protocol/schema.js";
import { Surface } from "../protocol/schema.js";
import { MarketData } from "../streams/marketData.js";
import type { VenueUrls } from "./target.js";

export interface Quote {
  bid: number;
  ask: number;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";

async function hftQuote(
  base: string,
  inst: InstrumentRecordMsg,
  timeoutMs: number,
): Promise<Quote | undefined> {
  const q = `category=${encodeURIComponent(inst.venue)}&symbol=${encodeURIComponent(inst.symbol)}`;
  const res = await fetch(`${base}/v5/market/tickers?${q}`, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) return undefined;
  const body = (await res.json()) as unknown;
  const list = isObj(body) && isObj(body.result) ? body.result.list : undefined;
  const row = Array.isArray(list) ? (list[0] as unknown) : undefined;
  if (!isObj(row)) return undefined;
  const bid = Number(row.bid1Price);
  const ask = Number(row.ask1Price);
  return bid > 0 && ask > 0 ? { bid, ask } : undefined;
}

/** One Socket.IO subscription per exchange; resolves when every pair has a two-sided book or at the timeout. */
async function spotQuotes(
  streamUrl: string,
  insts: readonly InstrumentRecordMsg[],
  timeoutMs: number,
): Promise<Map<number, Quote>> {
  const out = new Map<number, Quote>();
  if (insts.length === 0) return out;
  const pairs: Record<string, string[]> = {};
  for (const i of insts) {
    const list = pairs[i.venue] ?? [];
    list.push(i.symbol.replace("/", ","));
    pairs[i.venue] = list;
  }
  const md = new MarketData({
    baseUrl: streamUrl,
    pairs,
    feeds: { book: true, trades: false, candles: false },
    backoff: { minMs: 100, maxMs: 500 },
  });
  md.start();
  try {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      for (const i of insts) {
        const t = md.book.get(i.venue, i.symbol.replace("/", ","));
        if (t && t.bid > 0 && t.ask > 0) out.set(i.instrumentId, { bid: t.bid, ask: t.ask });
      }
      if (out.size === insts.length) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    md.stop();
  }
  return out;
}

/** Quotes by instrument id; instruments without a two-sided market within `timeoutMs` are absent. */
export async function fetchQuotes(
  venue: VenueUrls,
  insts: readonly InstrumentRecordMsg[],
  timeoutMs = 3_000,
): Promise<Map<number, Quote>> {
  const spot = insts.filter((i) => i.surface === Surface.Spot);
  const hft = insts.filter((i) => i.surface === Surface.Hft);
  const [s, h] = await Promise.all([
    spotQuotes(venue.streamUrl, spot, timeoutMs),
    Promise.all(hft.map((i) => hftQuote(venue.hftBaseUrl, i, timeoutMs).catch(() => undefined))),
  ]);
  hft.forEach((i, k) => {
    const q = h[k];
    if (q) s.set(i.instrumentId, q);
  });
  return s;
}

/**
 * Quotes through the gateway itself (Subscribe → TopOfBook): the venue's market data as the gateway
 * receives it, whatever the venue is. Unsubscribes afterwards; instruments without a two-sided book
 * within `timeoutMs` are absent.
 */
export async function gatewayQuotes(
  client: GatewayClient,
  insts: readonly InstrumentRecordMsg[],
  timeoutMs = 3_000,
): Promise<Map<number, Quote>> {
  const out = new Map<number, Quote>();
  const want = new Map(insts.map((i) => [i.instrumentId, Number(i.tickSize)]));
  let wake: (() => void) | undefined;
  const onBook = (b: Body<"TopOfBook">) => {
    const tick = want.get(b.instrumentId);
    if (tick === undefined || b.bidPriceTicks <= 0 || b.askPriceTicks <= 0) return;
    out.set(b.instrumentId, { bid: b.bidPriceTicks * tick, ask: b.askPriceTicks * tick });
    wake?.();
  };
  client.on("topOfBook", onBook);
  try {
    const subs = insts.map((i) => client.subscribe(i.instrumentId).catch(() => undefined));
    const until = Date.now() + timeoutMs;
    await Promise.race([Promise.all(subs), new Promise((r) => setTimeout(r, timeoutMs))]);
    while (out.size < insts.length && Date.now() < until) {
      await new Promise<void>((r) => {
        const t = setTimeout(r, until - Date.now());
        wake = () => {
          clearTimeout(t);
          r();
        };
      });
      wake = undefined;
    }
  } finally {
    client.off("topOfBook", onBook);
    for (const i of insts) void client.unsubscribe(i.instrumentId).catch(() => undefined);
  }
  return out;
}
