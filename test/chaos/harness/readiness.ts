/**
 * Readiness scenarios from the outside: steady order traffic on both surfaces through a strategy
 * (resting buys, each cancelled once acked), what each order was answered and when, the trading-state
 * frames every session receives, and `/health` sampled meanwhile. The figures per surface (orders
 * refused, time refused, the longest answer, when trading resumed after the venue recovered, time in
 * reducing) come from these records only, so the same code measures any build of the gateway.
 */
import { join } from "node:path";
import { request } from "undici";
import { TradingStateValue } from "../../../src/protocol/schema.js";
import { findingCount, findingLines } from "./crashTruth.js";
import { settleAndCompare } from "./killRun.js";
import { VenueReader } from "./listings.js";
import { instrumentIds, type ProcessRig, startProcessRig } from "./processRig.js";
import { SimProcess } from "./simProcess.js";
import type { Strategy } from "./strategy.js";
import { newKeys, sleep } from "./venue.js";

export type Side = "spot" | "hft";

/** Resting buys well below the venue's prices (no counterparty: nothing fills). */
export const RESTING = {
  spot: { priceTicks: 5_200_000, qtyLots: 100 },
  hft: { priceTicks: 310_000, qtyLots: 5 },
};

export interface Placed {
  surface: Side;
  clOrdNo: number;
  sentMs: number;
  /** Wall-clock ms of the first answer (Ack or Reject); 0 = none yet. */
  answerMs: number;
  acked: boolean;
  rejectCode: number;
  rejectText: string;
  retryable: boolean;
}

export interface SurfaceFigures {
  placed: number;
  acked: number;
  refused: number;
  unanswered: number;
  /** First to last refusal (ms); 0 when none. */
  refusedMs: number;
  /** The last refused order was sent this long after the venue's recovery (ms); -1 when none was. */
  refusedAfterRecoveryMs: number;
  /** Refusals by Reject code (402 VenueUnavailable, 202 ReducingOnly...). */
  codes: Record<string, number>;
  /** The longest send → Ack (ms). */
  maxAckMs: number;
  /**
   * From the venue's recovery to the first order sent after it that, like every later order of the
   * surface, was acked within `fastMs` (ms); -1 when that never happened.
   */
  resumeMs: number;
}

/** Places one resting order per surface on a schedule and records every answer. */
export class Traffic {
  readonly orders: Placed[] = [];
  private readonly byNo = new Map<number, Placed>();
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly s: Strategy,
    private readonly ids: { spot: number; hft: number },
  ) {
    s.client.on("ack", (b) => {
      const p = this.byNo.get(b.clOrdNo);
      if (p === undefined || p.answerMs !== 0) return;
      p.answerMs = Date.now();
      p.acked = true;
      // Cancelled once acked: the open lists stay short, the balance stays free.
      s.cancel(b.clOrdNo);
    });
    s.client.on("reject", (b) => {
      const p = this.byNo.get(b.clOrdNo);
      if (p === undefined || p.answerMs !== 0) return;
      p.answerMs = Date.now();
      p.rejectCode = b.code;
      p.rejectText = b.text;
      p.retryable = b.retryable === 1;
    });
  }

  place(surface: Side): Placed {
    const px = RESTING[surface];
    const n = this.s.place(this.ids[surface], "buy", px.priceTicks, px.qtyLots);
    const p: Placed = {
      surface,
      clOrdNo: n,
      sentMs: Date.now(),
      answerMs: 0,
      acked: false,
      rejectCode: 0,
      rejectText: "",
      retryable: false,
    };
    this.orders.push(p);
    this.byNo.set(n, p);
    return p;
  }

  /** Every `tickMs`: an HFT order; every `spotEvery`-th tick a Spot order too. */
  start(tickMs: number, spotEvery: number): void {
    this.running = true;
    this.loop = (async () => {
      for (let i = 0; this.running; i++) {
        this.place("hft");
        if (i % spotEvery === 0) this.place("spot");
        await sleep(tickMs);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Resolves once every order placed has its first answer (or after `ms`). */
  async answered(ms: number): Promise<void> {
    const end = Date.now() + ms;
    while (this.orders.some((p) => p.answerMs === 0) && Date.now() < end) await sleep(20);
  }

  figures(surface: Side, recoveredMs: number, fastMs = 250): SurfaceFigures {
    const list = this.orders.filter((p) => p.surface === surface);
    const refused = list.filter((p) => p.answerMs !== 0 && !p.acked);
    let resumeMs = -1;
    for (let i = list.length - 1; i >= 0; i--) {
      const p = list[i]!;
      if (!p.acked || p.answerMs - p.sentMs > fastMs) break;
      if (p.sentMs >= recoveredMs) resumeMs = p.sentMs - recoveredMs;
    }
    const codes: Record<string, number> = {};
    for (const p of refused) codes[p.rejectCode] = (codes[p.rejectCode] ?? 0) + 1;
    return {
      codes,
      placed: list.length,
      acked: list.filter((p) => p.acked).length,
      refused: refused.length,
      unanswered: list.filter((p) => p.answerMs === 0).length,
      refusedMs: refused.length === 0 ? 0 : refused.at(-1)!.sentMs - refused[0]!.sentMs,
      refusedAfterRecoveryMs:
        refused.length === 0 || refused.at(-1)!.sentMs < recoveredMs
          ? -1
          : refused.at(-1)!.sentMs - recoveredMs,
      maxAckMs: Math.max(0, ...list.filter((p) => p.acked).map((p) => p.answerMs - p.sentMs)),
      resumeMs,
    };
  }
}

/** Trading-state frames as one session sees them. */
export class StateLog {
  readonly changes: Array<{ atMs: number; state: number; text: string }> = [];
  constructor(s: Strategy) {
    s.client.on("tradingState", (b) => {
      if (b.instrumentId === 0) this.changes.push({ atMs: Date.now(), state: b.state, text: b.text });
    });
  }

  /** Time spent in a state other than active, until `endMs`; `healed`: active again at the end. */
  notActive(endMs: number): { ms: number; healed: boolean; entered: number } {
    let ms = 0;
    let since = -1;
    let entered = 0;
    for (const c of this.changes) {
      if (c.state !== TradingStateValue.Active && since < 0) {
        since = c.atMs;
        entered++;
      } else if (c.state === TradingStateValue.Active && since >= 0) {
        ms += c.atMs - since;
        since = -1;
      }
    }
    if (since >= 0) ms += endMs - since;
    return { ms, healed: since < 0, entered };
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the /health JSON
export type Health = { httpStatus: number; body: any; atMs: number };

/** `/health`, sampled every `everyMs` until stopped. */
export class HealthLog {
  readonly samples: Health[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly httpUrl: string,
    everyMs = 100,
  ) {
    this.loop = (async () => {
      while (this.running) {
        try {
          this.samples.push(await health(this.httpUrl));
        } catch {
          // the gateway restarting or stopping: no sample
        }
        await sleep(everyMs);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

export async function health(httpUrl: string): Promise<Health> {
  const r = await request(`${httpUrl}/health`);
  return { httpStatus: r.statusCode, body: await r.body.json(), atMs: Date.now() };
}

// ---------------------------------------------------------------- the process scenarios

export interface ReadinessReport {
  scenario: string;
  spot: SurfaceFigures;
  hft: SurfaceFigures;
  /** Time the account spent not active (from the TradingState frames) and whether it came back by itself. */
  reducing: { ms: number; healed: boolean; entered: number };
  /** `/health` samples that said "starting" after the gateway was up. */
  starting: number;
  /** /health samples during the fault whose Spot entry said why (holding / refusing / polling-only). */
  explained: number;
  faultSamples: number;
  /** The trading-state frames (texts), in order. */
  states: string[];
  /** Crash-truth findings against the venue's signed listings (lost, duplicated, mismatched...). */
  findings: number;
  details: string[];
  venueOrders: number;
  ms: number;
}

export interface ReadinessRunOptions {
  seed: number;
  /** How long the Spot order listing answers 503 after the Spot streams are dropped (ms). */
  outageMs: number;
  /** Traffic after the recovery (ms). */
  tailMs: number;
  /** HFT create answers lost (connection reset after the venue handled them) instead of a listing outage. */
  lostCreates?: number;
  /** Changes to the gateway's configuration file (sections replaced whole). */
  config?: (base: Record<string, Record<string, unknown>>) => Record<string, unknown>;
}

/**
 * Cause 1 (`outageMs` > 0): the Spot listing answers 503 right after a Spot stream reconnect. Cause 9
 * (`lostCreates`): HFT create answers lost in a row trip the unknown-outcomes trigger. Steady traffic
 * on both surfaces throughout; the figures, then the venue's signed listings against the gateway's
 * Query answers and what the strategy was told.
 */
export async function runReadiness(name: string, o: ReadinessRunOptions): Promise<ReadinessReport> {
  const t0 = Date.now();
  const keys = newKeys();
  const sim = await SimProcess.start({ seed: o.seed, apiKeys: [keys.apiKey] });
  let rig: ProcessRig | undefined;
  let reader: VenueReader | undefined;
  try {
    rig = await startProcessRig(
      { baseUrl: sim.baseUrl, keys },
      {
        prefix: `readiness-${o.seed}`,
        config: (base) => {
          const cfg = {
            ...base,
            risk: { maxOpenOrdersPerInstrument: 5_000, maxOpenOrdersPerSession: 5_000 },
            log: { level: "info", pretty: "false" },
          };
          return o.config ? o.config(cfg) : cfg;
        },
      },
    );
    const s = await rig.strategy(`readiness-${o.seed}`, { autoReconnect: true });
    const ids = await instrumentIds(s);
    reader = new VenueReader(sim.baseUrl, keys, { spot: ids.spotStep, hft: ids.hftStep });
    const traffic = new Traffic(s, ids);
    const states = new StateLog(s);
    const httpUrl = rig.gp.httpUrl;
    for (let i = 0; ; i++) {
      const h = await health(httpUrl).catch(() => undefined);
      if (h?.body.status === "ok") break;
      if (i > 100) throw new Error(`gateway never ok: ${JSON.stringify(h?.body)}`);
      await sleep(100);
    }
    const hl = new HealthLog(httpUrl, 100);
    traffic.start(125, 2);
    await sleep(1_000);
    const faultFrom = Date.now();
    if (o.lostCreates !== undefined) {
      await sim.addFaults([{ kind: "reset", endpoint: "POST /v5/order/create", count: o.lostCreates }]);
    } else {
      await sim.addFaults([{ kind: "error5xx", endpoint: "GET /trade/api/v2/orders", status: 503 }]);
      await sim.admin("POST", "/streams/disconnect", {});
    }
    await sleep(o.outageMs);
    await sim.clearFaults();
    const recovered = Date.now();
    await sleep(o.tailMs);
    await traffic.stop();
    await traffic.answered(10_000);
    const end = Date.now();
    await hl.stop();
    const during = hl.samples.filter((x) => x.atMs >= faultFrom && x.atMs < recovered);
    const explained = during.filter((x) => {
      const sp = x.body.surfaces?.spot;
      return sp !== undefined && sp.state !== "ready" && typeof sp.reason === "string" && sp.reason !== "";
    }).length;
    const findings = await settleAndCompare(s, reader, join(rig.dir, "journal"), 15_000);
    const venue = await reader.read();
    return {
      scenario: name,
      spot: traffic.figures("spot", recovered),
      hft: traffic.figures("hft", recovered),
      reducing: states.notActive(end),
      starting: hl.samples.filter((x) => x.body.status === "starting").length,
      explained,
      faultSamples: during.length,
      states: states.changes.map((c) => `${c.state}: ${c.text}`),
      findings: findingCount(findings),
      details: findingLines(findings),
      // An order cancelled between the open and the closed Spot listing is in both: counted once.
      venueOrders: new Set(venue.orders.map((x) => x.id)).size,
      ms: Date.now() - t0,
    };
  } finally {
    await reader?.close();
    await rig?.close();
    await sim.stop();
  }
}

/** One line per surface for the suite's notes and the figures in docs/reliability.md. */
export function figureLine(r: ReadinessReport): string {
  const f = (x: SurfaceFigures) =>
    `${x.refused}/${x.placed} refused ${JSON.stringify(x.codes)} over ${x.refusedMs} ms (last ${x.refusedAfterRecoveryMs} ms after recovery), longest ack ${x.maxAckMs} ms, resumed ${x.resumeMs} ms after recovery`;
  return `spot ${f(r.spot)}; hft ${f(r.hft)}; not active ${r.reducing.ms} ms (${r.reducing.healed ? "healed" : "still not active"}); /health "starting" ${r.starting}x`;
}
