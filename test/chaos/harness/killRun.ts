/**
 * One seeded kill run, the way a new user would try the gateway: `hftgate sim` as an external venue,
 * `hftgate start` against it as a child process (its own process group, SIGKILLed mid-burst), a
 * strategy (GatewayClient) sending bursts of Spot and HFT orders — resting, crossing, IOC, cancels
 * right behind their creates, cancels of older orders — and a second account trading straight at the
 * venue while the gateway is down. After every restart, once things settle, the venue's signed
 * listings, the gateway's Query answers and what the strategy was told are compared (crashTruth.ts).
 * Variants: a graceful stop (SIGTERM, the drain) instead of the kill, and a venue whose Spot
 * open-orders listing answers 503 while the restarted gateway reconciles and the burst goes on.
 *
 * No test framework here: the vitest scenarios and the soak script (test/chaos/soak.ts) share it.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { FaultRule } from "../../../sim/index.js";
import type { KeyPair } from "../../../src/auth/keys.js";
import { readJournal } from "../../../src/journal/index.js";
import { LogonOptions } from "../../../src/protocol/schema.js";
import {
  type CrashFindings,
  compareCrashTruth,
  emptyFindings,
  FINDING_KINDS,
  findingCount,
  findingLines,
  mergeFindings,
} from "./crashTruth.js";
import { VenueReader } from "./listings.js";
import { instrumentIds, type ProcessRig, startProcessRig } from "./processRig.js";
import { SimProcess } from "./simProcess.js";
import type { Strategy } from "./strategy.js";
import type { GatewayView } from "./truth.js";
import { newKeys, signedCall, sleep, until } from "./venue.js";

export interface KillScenario {
  name: string;
  /** Kills in the run (each followed by a restart and a truth check). */
  kills: number;
  /** Journal fsync policy; undefined = the configuration's default. */
  fsync?: "none" | "interval" | "every";
  /** A second account trades against the resting orders while the gateway is down. */
  counterparty: boolean;
  /** A burst past the gateway's own HFT create limit right before the kill (local Reject 300). */
  throttle: boolean;
  /** Create and cancel answers delayed, hung or reset at the kill (beyond the plain slow answers). */
  lostAnswers: boolean;
  /** Orders per burst (default 24). */
  burst?: number;
  /** How the gateway is stopped mid-burst: SIGKILL (default) or SIGTERM (the drain must answer everything, exit 0). */
  signal?: "SIGKILL" | "SIGTERM";
  /**
   * Milliseconds the venue's Spot open-orders listing answers 503 from the restart on (the restart's
   * reconciliation fails, a Spot stream reconnect in the window fails again) while a burst goes on.
   */
  reconcile503Ms?: number;
  /**
   * `orders.keepFinishedMs` of the gateway: finished orders forgotten within about a second, across the
   * kills and restarts. The truth check then reads a forgotten order as what the strategy was told.
   */
  keepFinishedMs?: number;
  /** The strategy's Logon options (NoPendingUpdates: it hears its cancels' outcomes only). */
  logonOptions?: number;
}

/** The soak's scenarios, by name (kill, SIGTERM drain, failing Spot reconciliation). */
export const KILL_SCENARIOS: readonly KillScenario[] = [
  { name: "inflight", kills: 1, fsync: "every", counterparty: false, throttle: false, lostAnswers: false },
  { name: "counterparty", kills: 1, fsync: "every", counterparty: true, throttle: false, lostAnswers: false },
  { name: "throttle", kills: 1, fsync: "every", counterparty: false, throttle: true, lostAnswers: false },
  { name: "lost-answers", kills: 1, fsync: "every", counterparty: true, throttle: false, lostAnswers: true },
  { name: "kill3", kills: 3, fsync: "every", counterparty: true, throttle: true, lostAnswers: true },
  {
    name: "kill3-forget",
    kills: 3,
    fsync: "every",
    counterparty: true,
    throttle: true,
    lostAnswers: true,
    keepFinishedMs: 0,
  },
  {
    name: "kill3-quiet",
    kills: 3,
    fsync: "every",
    counterparty: true,
    throttle: true,
    lostAnswers: true,
    logonOptions: LogonOptions.NoPendingUpdates,
  },
  { name: "kill3-default-fsync", kills: 3, counterparty: true, throttle: true, lostAnswers: true },
  { name: "term", kills: 1, counterparty: false, throttle: false, lostAnswers: false, signal: "SIGTERM" },
  { name: "term3", kills: 3, counterparty: true, throttle: false, lostAnswers: true, signal: "SIGTERM" },
  {
    name: "reconcile-503",
    kills: 2,
    counterparty: true,
    throttle: false,
    lostAnswers: false,
    reconcile503Ms: 4_000,
  },
  {
    name: "reconcile-503-quiet",
    kills: 2,
    counterparty: true,
    throttle: false,
    lostAnswers: false,
    reconcile503Ms: 4_000,
    logonOptions: LogonOptions.NoPendingUpdates,
  },
];

export interface KillReport {
  scenario: string;
  seed: number;
  orders: number;
  kills: number;
  venueOrders: number;
  /** Distinct executions the strategy received. */
  fills: number;
  /** Truth checks made (one after each restart, one at the end). */
  checks: number;
  lost: number;
  duplicated: number;
  fillMismatches: number;
  stateMismatches: number;
  rejectedAtVenue: number;
  /** Sequence gaps and duplicates the strategy saw across restarts. */
  seqGaps: number;
  seqDuplicates: number;
  /** Restarts after which the strategy could not resume (told to rebuild from Query). */
  resumeLost: number;
  /** Finished orders the gateway had forgotten at the final check (scenarios with keepFinishedMs). */
  forgotten: number;
  /** OrderUpdates PendingCancel / PendingReplace the strategy heard. */
  pendingUpdates: number;
  /**
   * Of them, heard by a strategy logged on with NoPendingUpdates: a fault (the simulator raises no
   * cancel on its own in these scenarios, so every PendingCancel would be the ack of the strategy's own).
   */
  quietHeard: number;
  /** HFT Fills with a gateway-made execId (informational, see crashTruth.ts). */
  synthesizedExecIds: number;
  /** `lateCreate` faults that fired: creates held by the venue, landed after a "not found" or their deadline. */
  lateCreates: { held: number; landed: number };
  /** Rejects the strategy got, by `code/source` (e.g. `300/2` = our own rate limiter). */
  rejects: Record<string, number>;
  /** Local Reject 300s the strategy got (throttle scenarios). */
  throttled: number;
  /** SIGTERM scenarios, one per stop: exit code (or signal), close code the strategy saw, ms to exit. */
  stops: Array<{ exit: number | string; close: number; ms: number; inFlight: number }>;
  /** Orders sent before a SIGTERM that got no answer (Ack, Reject, OutcomeUnknown) before the close. */
  unansweredAtClose: number;
  /** Requests the venue's faults answered, by `<kind> <endpoint>` (reconcile-503: its 503s really sent). */
  faultHits: Record<string, number>;
  /** Faults the scenario is about (`<kind> <endpoint>`): one that answered no request fails the run. */
  faultsExpected: string[];
  details: string[];
  /** Kept journal dir (HFTGATE_KEEP_RUNS=1 and findings), for `hftgate replay`. */
  keptDir?: string;
  ms: number;
}

/** Small deterministic generator (mulberry32): the seed decides the order mix and the kill timing. */
export function rng(seed: number): () => number {
  let a = seed >>> 0 || 1;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SPOT_CREATE = "POST /trade/api/v2/order";
const SPOT_CANCEL = "DELETE /trade/api/v2/order";
const HFT_CREATE = "POST /v5/order/create";
const HFT_CANCEL = "POST /v5/order/cancel";
const SPOT_OPEN_ORDERS = "GET /trade/api/v2/orders";

/** Prices (ticks): resting buys below the counterparty's asks, crossing buys above them. */
const PX = {
  spot: { rest: 5_295_000, restSpan: 5_000, cross: 5_312_000, ask: 5_310_000, hit: 5_296_000 },
  hft: { rest: 319_000, restSpan: 1_000, cross: 321_500, ask: 321_000, hit: 319_500 },
};

async function counterOrder(
  baseUrl: string,
  keys: KeyPair,
  surface: "spot" | "hft",
  side: "buy" | "sell",
  priceTicks: number,
  qty: string,
): Promise<void> {
  const r =
    surface === "spot"
      ? await signedCall(baseUrl, keys, "POST", "/trade/api/v2/order", {
          side,
          symbol: "BTC/INR",
          type: "limit",
          price: priceTicks,
          quantity: Number(qty),
          exchange: "coinswitchx",
        })
      : await signedCall(baseUrl, keys, "POST", "/v5/order/create", {
          category: "linear",
          symbol: "ETHUSDT",
          side: side === "buy" ? "Buy" : "Sell",
          orderType: "Limit",
          qty,
          price: (priceTicks / 100).toFixed(2),
          positionIdx: 0,
          timeInForce: "GTC",
        });
  const ok = surface === "spot" ? r.status === 200 : r.status === 200 && r.json?.retCode === 0;
  if (!ok) throw new Error(`counterparty ${surface} order refused: ${r.status} ${JSON.stringify(r.json)}`);
}

/** Client id -> client order number, from every journal file's new-order commands. */
export function journalClOrdNos(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".hgj") || f.endsWith(".ndjson"));
  } catch {
    return out;
  }
  for (const f of files.sort()) {
    for (const r of readJournal(join(dir, f)).records) {
      if (r.k !== "cmd" || r.op !== "new" || !r.clientId) continue;
      const m = /(?:^|;)no=(\d+)/.exec(r.reason ?? "");
      if (m) out.set(r.clientId, Number(m[1]));
    }
  }
  return out;
}

const debug = (msg: string): void => {
  if (process.env.HFTGATE_KILL_DEBUG === "1")
    process.stderr.write(`[kill ${new Date().toISOString()}] ${msg}\n`);
};

/**
 * Rejects after `ms`: a Query sent just before a connection drops is never answered. The bound is
 * generous: one Query per order, one after the other, on a loaded 2-core machine takes seconds.
 */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

async function gatewayViews(s: Strategy, forgets: boolean): Promise<Map<number, GatewayView>> {
  const out = new Map<number, GatewayView>();
  const list = await within(s.views({ finishedMayBeForgotten: forgets }), 20_000, "gateway queries");
  for (let i = 0; i < list.length; i++) out.set(s.placed[i]!, list[i]!);
  return out;
}

/**
 * Waits (up to `ms`) for the three accounts to agree and returns the last comparison. Nothing is
 * forced: convergence must come from the gateway's own streams, polls and reconciliations.
 */
export async function settleAndCompare(
  s: Strategy,
  reader: VenueReader,
  journalDir: string,
  ms: number,
  /** The gateway forgets finished orders during the run (KillScenario.keepFinishedMs). */
  forgets = false,
): Promise<CrashFindings> {
  const end = Date.now() + ms;
  for (;;) {
    let f: CrashFindings;
    try {
      await until(() => s.client.connected, 8_000, "strategy connected");
      const views = await gatewayViews(s, forgets);
      const venue = await reader.read();
      f = compareCrashTruth({ strategy: s, views, venue, clOrdNoOf: journalClOrdNos(journalDir) });
    } catch (e) {
      debug(`compare failed: ${String(e)}`);
      if (Date.now() > end) {
        // Never settled enough to compare (no logon, Queries unanswered): a failure of the run.
        const f = emptyFindings();
        f.lost.set(`check:${Date.now()}`, `no comparison within ${ms} ms: ${String(e)}`);
        return f;
      }
      await sleep(100);
      continue;
    }
    debug(`compare: ${findingCount(f)} findings`);
    if (findingCount(f) === 0 || Date.now() > end) return f;
    await sleep(150);
  }
}

/** Runs one scenario with one seed; throws only when the rig itself fails. */
export async function runKill(sc: KillScenario, seed: number, settleMs = 10_000): Promise<KillReport> {
  const t0 = Date.now();
  const r = rng(seed);
  const keys = newKeys();
  const other = newKeys();
  const sim = await SimProcess.start({ seed, apiKeys: [keys.apiKey, other.apiKey] });
  let rig: ProcessRig | undefined;
  let reader: VenueReader | undefined;
  const found = emptyFindings();
  let keep = false;
  try {
    rig = await startProcessRig(
      { baseUrl: sim.baseUrl, keys },
      {
        prefix: `kill-${sc.name}-${seed}`,
        config: (base) => ({
          ...base,
          journal:
            sc.fsync === undefined
              ? { enabled: true, dir: base.journal!.dir }
              : { ...base.journal, fsync: sc.fsync },
          // Enough room for every order of a run: only our own rate limiter may refuse.
          risk: { maxOpenOrdersPerInstrument: 5_000, maxOpenOrdersPerSession: 5_000 },
          log: { level: "info", pretty: "false" },
          ...(sc.keepFinishedMs === undefined
            ? {}
            : { orders: { ...base.orders, keepFinishedMs: sc.keepFinishedMs } }),
        }),
      },
    );
    const journalDir = join(rig.dir, "journal");
    const forgets = sc.keepFinishedMs !== undefined;
    const s = await rig.strategy(`truth-${seed}`, { autoReconnect: true, logonOptions: sc.logonOptions });
    const ids = await instrumentIds(s);
    reader = new VenueReader(sim.baseUrl, keys, { spot: ids.spotStep, hft: ids.hftStep });
    const inst = (surface: "spot" | "hft") => (surface === "spot" ? ids.spot : ids.hft);
    const qty = (surface: "spot" | "hft") => (surface === "spot" ? 100 : 5);
    const resting: number[] = [];
    let throttled = 0;
    s.client.on("reject", (b) => {
      if (b.code === 300) throttled++;
    });
    let checks = 0;
    const stops: KillReport["stops"] = [];
    let unansweredAtClose = 0;

    const burst = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const surface = r() < 0.5 ? "spot" : "hft";
        const p = PX[surface];
        const k = r();
        if (k < 0.4) {
          resting.push(s.place(inst(surface), "buy", p.rest + Math.floor(r() * p.restSpan), qty(surface)));
        } else if (k < 0.55) {
          s.place(inst(surface), "buy", p.cross, qty(surface));
        } else if (k < 0.7) {
          s.place(inst(surface), "buy", r() < 0.5 ? p.cross : p.rest, qty(surface), "IOC");
        } else {
          // A cancel right behind its create.
          s.cancel(s.place(inst(surface), "buy", p.rest + Math.floor(r() * p.restSpan), qty(surface)));
        }
        if (resting.length > 4 && r() < 0.2)
          s.cancel(resting.splice(Math.floor(r() * resting.length), 1)[0]!);
        if (r() < 0.15) await sleep(Math.floor(r() * 40));
      }
    };

    for (let k = 0; k < sc.kills; k++) {
      await until(() => s.client.connected, 8_000, "connected");
      // Liquidity the crossing orders and IOCs take.
      await counterOrder(sim.baseUrl, other, "spot", "sell", PX.spot.ask, "0.003");
      await counterOrder(sim.baseUrl, other, "hft", "sell", PX.hft.ask, "0.15");
      // Slow answers for part of each burst: creates and cancels are in flight at the kill. Whether the
      // venue still handles a slow request whose caller died is drawn per rule (a venue queue that
      // keeps working, or one that drops it).
      const faults: FaultRule[] = [];
      const slow = (ep: string, count: number): FaultRule => ({
        kind: "latency",
        endpoint: ep,
        ms: 100,
        jitterMs: 150,
        probability: 0.5,
        count,
        abandoned: r() < 0.5 ? "handle" : "drop",
      });
      for (const ep of [SPOT_CREATE, HFT_CREATE]) faults.push(slow(ep, 2));
      for (const ep of [SPOT_CANCEL, HFT_CANCEL]) faults.push(slow(ep, 1));
      if (sc.signal === "SIGTERM") {
        // The drain must have something to wait for: the last creates and cancels of the burst are slow.
        for (const ep of [SPOT_CREATE, HFT_CREATE, SPOT_CANCEL, HFT_CANCEL])
          faults.push({
            kind: "latency",
            endpoint: ep,
            ms: 200,
            jitterMs: 300,
            count: 6,
            abandoned: "handle",
          });
      }
      if (sc.lostAnswers) {
        for (const ep of [SPOT_CREATE, HFT_CREATE]) {
          faults.push({ kind: "timeout", endpoint: ep, probability: 0.3, count: 2 });
          faults.push({ kind: "reset", endpoint: ep, probability: 0.3, count: 2 });
          faults.push({ kind: "error5xx", endpoint: ep, probability: 0.3, count: 1, status: 502 });
          // A create held until a query by its client id has answered "not found", then it lands
          // (or after 1.5 s on the venue's clock if nobody asks).
          faults.push({
            kind: "lateCreate",
            endpoint: ep,
            probability: 0.3,
            count: 1,
            queries: 1,
            ms: 1_500,
          });
        }
        for (const ep of [SPOT_CANCEL, HFT_CANCEL])
          faults.push({ kind: "reset", endpoint: ep, probability: 0.4, count: 1 });
      }
      debug(`cycle ${k + 1}`);
      await sim.addFaults(faults);
      // Half the burst is answered before the kill (resting orders for the counterparty, cancels of
      // acknowledged orders); the other half is in flight when the process dies.
      const n = sc.burst ?? 24;
      await burst(n >> 1);
      await sleep(150 + Math.floor(r() * 250));
      await burst(n - (n >> 1));
      if (sc.throttle) {
        // Past the HFT create bucket (45 per window after the cancel reserve): the last ones are refused
        // by our own limiter, and the kill follows right behind the refusals.
        const before = throttled;
        for (let i = 0; i < 50; i++)
          resting.push(s.place(ids.hft, "buy", PX.hft.rest + Math.floor(r() * PX.hft.restSpan), 5));
        await until(() => throttled > before, 3_000, "local throttle rejects").catch(() => {});
      } else if (sc.signal !== "SIGTERM") {
        await sleep(Math.floor(r() * 60));
      }
      debug(`kill ${k + 1}: ${s.placed.length} placed, ${s.unanswered().length} unanswered`);
      const logons = s.logons;
      if (sc.signal === "SIGTERM") {
        // The strategy's view at the close: every order sent before the signal must have an answer.
        const sent = s.placed.length;
        const inFlight = s.unanswered().length;
        const closed = new Promise<{ code: number; unanswered: number }>((resolve) =>
          s.client.once("close", (code: number) =>
            resolve({ code, unanswered: s.unanswered().filter((x) => s.placed.indexOf(x) < sent).length }),
          ),
        );
        const exit = await rig.gp.sendSignal("SIGTERM");
        const at = await within(closed, 5_000, "strategy connection closed").catch(() => ({
          code: -1,
          unanswered: s.unanswered().length,
        }));
        stops.push({ exit: exit.code ?? exit.signal ?? "?", close: at.code, ms: exit.ms, inFlight });
        unansweredAtClose += at.unanswered;
        debug(
          `stopped: exit ${exit.code ?? exit.signal} in ${exit.ms} ms, close ${at.code}, unanswered ${at.unanswered}`,
        );
      } else {
        await rig.gp.kill();
      }
      // The gateway is down; the faults meant for it must not refuse the counterparty.
      await sim.clearFaults();
      if (sc.counterparty) {
        await sleep(100);
        await counterOrder(
          sim.baseUrl,
          other,
          "spot",
          "sell",
          PX.spot.hit,
          (0.001 * (1 + Math.floor(r() * 4))).toFixed(3),
        );
        await counterOrder(
          sim.baseUrl,
          other,
          "hft",
          "sell",
          PX.hft.hit,
          (0.05 * (1 + Math.floor(r() * 4))).toFixed(2),
        );
      }
      const outageUntil = sc.reconcile503Ms === undefined ? 0 : Date.now() + sc.reconcile503Ms;
      if (sc.reconcile503Ms !== undefined)
        await sim.addFaults([{ kind: "error5xx", endpoint: SPOT_OPEN_ORDERS, status: 503 }]);
      debug("restart");
      await rig.gp.start();
      // Logged on again (a socket that is merely open may still be refused a resume and reconnect).
      await until(() => s.logons > logons && s.client.connected, 8_000, "strategy logged on again");
      if (sc.reconcile503Ms !== undefined) {
        // Trading goes on while the listing fails; a Spot stream reconnect in the window fails its
        // reconciliation too. The listing answers normally again before the truth check.
        await counterOrder(sim.baseUrl, other, "spot", "sell", PX.spot.ask, "0.002");
        await counterOrder(sim.baseUrl, other, "hft", "sell", PX.hft.ask, "0.1");
        await burst(12);
        await sim.admin("POST", "/streams/disconnect", {});
        await burst(12);
        const left = outageUntil - Date.now();
        if (left > 0) await sleep(left);
        await sim.clearFaults();
      }
      checks++;
      mergeFindings(found, await settleAndCompare(s, reader, journalDir, settleMs, forgets));
    }
    // Trading resumes after the last restart: new orders, cancels of orders from before the crashes.
    await counterOrder(sim.baseUrl, other, "spot", "sell", PX.spot.ask, "0.002");
    await counterOrder(sim.baseUrl, other, "hft", "sell", PX.hft.ask, "0.1");
    await burst(12);
    for (const n of resting.splice(0, 10)) s.cancel(n);
    checks++;
    mergeFindings(found, await settleAndCompare(s, reader, journalDir, settleMs, forgets));
    const venue = await reader.read();
    const st = await sim.admin("GET", "/state");
    const late = st.lateCreates ?? { held: 0, landed: 0 };
    let fills = 0;
    const rejects: Record<string, number> = {};
    for (const t of s.told.values()) {
      fills += t.execLots.size;
      for (const j of t.rejects)
        rejects[`${j.code}/${j.source}`] = (rejects[`${j.code}/${j.source}`] ?? 0) + 1;
    }
    keep = process.env.HFTGATE_KEEP_RUNS === "1" && findingCount(found) > 0;
    return {
      scenario: sc.name,
      seed,
      orders: s.placed.length,
      kills: sc.kills,
      venueOrders: venue.orders.length,
      fills,
      checks,
      lost: found.lost.size,
      duplicated: found.duplicated.size,
      fillMismatches: found.fillMismatches.size,
      stateMismatches: found.stateMismatches.size,
      rejectedAtVenue: found.rejectedAtVenue.size,
      seqGaps: s.gaps.length,
      seqDuplicates: s.client.duplicates,
      resumeLost: s.resumeLost,
      forgotten: s.forgottenRead,
      pendingUpdates: s.pendingUpdates,
      quietHeard: sc.logonOptions === undefined ? 0 : s.pendingUpdates,
      synthesizedExecIds: found.synthesizedExecIds.size,
      rejects,
      lateCreates: { held: late.held, landed: late.landed },
      throttled,
      stops,
      unansweredAtClose,
      faultHits: st.faultHits ?? {},
      faultsExpected: sc.reconcile503Ms === undefined ? [] : [`error5xx ${SPOT_OPEN_ORDERS}`],
      details: findingLines(found),
      ...(keep ? { keptDir: rig.dir } : {}),
      ms: Date.now() - t0,
    };
  } finally {
    await reader?.close();
    await rig?.close(keep);
    await sim.stop();
  }
}

/** A graceful stop that went wrong: an exit other than 0 or a close other than 1001 ("going away"). */
export const badStops = (r: KillReport): number =>
  r.stops.filter((x) => x.exit !== 0 || x.close !== 1001).length;

/**
 * Problems that fail a run: every finding, plus any sequence gap, duplicate or lost resume across the
 * restarts, for SIGTERM a bad stop or an order left unanswered at the close, and a scenario fault
 * that never answered a request.
 */
export const problems = (r: KillReport): number =>
  FINDING_KINDS.reduce((a, k) => a + r[k], 0) +
  r.seqGaps +
  r.seqDuplicates +
  r.resumeLost +
  badStops(r) +
  r.unansweredAtClose +
  r.quietHeard +
  unfired(r).length;

/** The scenario's own faults that answered no request (the run did not test what it says). */
export const unfired = (r: KillReport): string[] =>
  r.faultsExpected.filter((k) => !((r.faultHits[k] ?? 0) > 0));
