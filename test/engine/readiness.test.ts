/**
 * Readiness per surface, end to end in one process: the engine (the `hftgate start` path) against the
 * simulator as an external venue, strategies over real sockets, faults through the simulator's fault
 * API. A Spot stream reconnect whose reconciliation fails (the Spot order listing answering 503) holds
 * only Spot orders, each at most `streams.reconcileHoldMs`; HFT orders are acked throughout; Spot is
 * ready again within 2 s of the venue's recovery. Stream loss counts only time without a trusted stream
 * and without a working poll; venue-health trigger states heal by themselves. The venue's own listings
 * are the truth for what was acked and what was refused.
 */
import { afterEach, describe, expect, it } from "vitest";
import { TradingStateValue } from "../../src/protocol/schema.js";
import { type EngineRig, startEngineRig } from "../chaos/harness/engineRig.js";
import { VenueReader } from "../chaos/harness/listings.js";
import { instrumentIds } from "../chaos/harness/processRig.js";
import { CuttableProxy } from "../chaos/harness/proxy.js";
import { HealthLog, health, StateLog, Traffic } from "../chaos/harness/readiness.js";
import type { Strategy } from "../chaos/harness/strategy.js";
import { type ChaosVenue, sleep, startVenue, until } from "../chaos/harness/venue.js";

const SPOT_LIST = "GET /trade/api/v2/orders";

let v: ChaosVenue | undefined;
let rig: EngineRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  await v?.sim.stop();
  v = undefined;
});

interface Started {
  rig: EngineRig;
  s: Strategy;
  ids: Awaited<ReturnType<typeof instrumentIds>>;
  traffic: Traffic;
  states: StateLog;
}

async function start(
  overrides: Record<string, unknown> = {},
  risk = {},
  venue?: ChaosVenue,
): Promise<Started> {
  v = venue ?? (await startVenue());
  rig = await startEngineRig(v, { "risk.triggers.healAfterMs": 1_000, ...overrides }, { risk });
  const s = await rig.strategy("readiness");
  const ids = await instrumentIds(s);
  const r = rig;
  // Ready as the operator sees it: every surface, the Spot stream trusted.
  await until(() => r.h.ready() && r.h.feeds.every((f) => f.ready), 5_000, "gateway ready");
  await until(
    () => (r.h.feeds[0]?.surfaceState?.("spot")?.stream ?? "") === "trusted",
    5_000,
    "Spot trusted",
  );
  return { rig: r, s, ids, traffic: new Traffic(s, ids), states: new StateLog(s) };
}

/** The Spot order listing answers 503 from now on, and the Spot streams drop (they reconnect at once). */
function spotOutage(venue: ChaosVenue): void {
  venue.sim.faults.add({ kind: "error5xx", endpoint: SPOT_LIST, status: 503 });
  expect(venue.sim.faults.disconnectStreams()).toBeGreaterThan(0);
}

/** Every order the strategy was acked is at the venue; no refused order is. */
async function venueAgrees(st: Started, venue: ChaosVenue): Promise<void> {
  const reader = new VenueReader(venue.sim.baseUrl, venue.keys, {
    spot: st.ids.spotStep,
    hft: st.ids.hftStep,
  });
  try {
    const listed = await reader.read();
    const ids = new Set(listed.orders.map((o) => o.id));
    const acked = [...st.s.told.values()].filter((t) => t.acks > 0);
    expect(acked.length).toBe(st.traffic.orders.filter((p) => p.acked).length);
    for (const t of acked) expect(ids.has(t.exchangeId)).toBe(true);
    // The venue holds exactly the orders acked: nothing refused reached it, nothing is unknown.
    // (An order cancelled between the open and the closed listing is in both: counted once.)
    const told = new Set(acked.map((t) => t.exchangeId));
    for (const id of ids) expect(told.has(id)).toBe(true);
    expect(ids.size).toBe(acked.length);
  } finally {
    await reader.close();
  }
}

describe("readiness per surface", () => {
  it("a failing Spot reconciliation holds only Spot orders, at most reconcileHoldMs; HFT is acked throughout; Spot is ready within 2 s of the recovery", async () => {
    const st = await start();
    const hl = new HealthLog(st.rig.h.httpUrl, 50);
    st.traffic.start(100, 2);
    await sleep(300);
    spotOutage(v!);
    await until(
      () => hl.samples.at(-1)?.body.surfaces.spot.reconcile === "failing",
      5_000,
      "Spot reconciliation failing",
    );
    const during = await health(st.rig.h.httpUrl);
    await sleep(1_500);
    v!.sim.faults.clear();
    const recovered = Date.now();
    await until(() => hl.samples.at(-1)?.body.surfaces.spot.state === "ready", 4_000, "Spot ready again");
    const readyAfterMs = hl.samples.at(-1)!.atMs - recovered;
    await sleep(600);
    await st.traffic.stop();
    await st.traffic.answered(5_000);
    await hl.stop();

    // While Spot reconciles: 200 "degraded", Spot holding with the reason, HFT ready.
    expect(during.httpStatus).toBe(200);
    expect(during.body.status).toBe("degraded");
    expect(during.body.surfaces.spot).toMatchObject({
      state: "holding",
      reconcile: "failing",
      covered: false,
    });
    expect(during.body.surfaces.spot.reason).toMatch(
      /reconciliation failing \(.*503.*\), retried every 500 ms/,
    );
    expect(during.body.surfaces.hft).toMatchObject({ state: "ready", reconcile: "idle", covered: true });
    // Never "starting" while running; the existing fields are all there.
    expect(hl.samples.every((x) => x.body.status !== "starting")).toBe(true);
    for (const k of ["venue", "uptimeMs", "reconciled", "lastVenueOkMsAgo", "tradingState", "feeds"])
      expect(during.body).toHaveProperty(k);

    const spot = st.traffic.figures("spot", recovered);
    const hft = st.traffic.figures("hft", recovered);
    // Nothing refused, nothing unanswered, on either surface.
    expect(hft).toMatchObject({ refused: 0, unanswered: 0 });
    expect(spot).toMatchObject({ refused: 0, unanswered: 0 });
    expect(hft.acked).toBeGreaterThan(20);
    expect(spot.acked).toBeGreaterThan(10);
    // HFT orders were never held; Spot orders waited at most the bound (its timer is the only wait).
    const end = await health(st.rig.h.httpUrl);
    expect(end.body.surfaces.hft.heldTotal).toBe(0);
    expect(end.body.surfaces.spot.heldTotal).toBeGreaterThan(0);
    expect(end.body.surfaces.spot.maxHoldMs).toBeLessThanOrEqual(1_000 + 150);
    expect(end.body.status).toBe("ok");
    // Trading on Spot resumed within 2 s of the venue answering normally.
    expect(readyAfterMs).toBeLessThan(2_000);
    expect(spot.resumeMs).toBeGreaterThanOrEqual(0);
    expect(spot.resumeMs).toBeLessThan(2_000);
    // No trading-state change from a 2 s outage.
    expect(st.states.changes).toEqual([]);
    expect(st.rig.h.risk.state).toBe("active");
    await venueAgrees(st, v!);
  }, 40_000);

  it("reconcileHoldThen refuse: a Spot order whose hold runs out gets a retryable 402 naming the surface and never reaches the venue", async () => {
    const st = await start({ "streams.reconcileHoldThen": "refuse", "streams.reconcileHoldMs": 300 });
    spotOutage(v!);
    await until(
      () => st.rig.h.feeds[0]?.surfaceState?.("spot")?.reconcile === "failing",
      5_000,
      "Spot reconciliation failing",
    );
    const creates = v!.sim.counters.requests("POST /trade/api/v2/order");
    const spot = [st.traffic.place("spot"), st.traffic.place("spot")];
    const hft = st.traffic.place("hft");
    await st.traffic.answered(3_000);
    expect(hft.acked).toBe(true);
    for (const p of spot) {
      expect(p).toMatchObject({ acked: false, rejectCode: 402, retryable: true });
      expect(p.rejectText).toBe("spot reconciling with the venue; retry shortly");
      expect(p.answerMs - p.sentMs).toBeGreaterThanOrEqual(290);
    }
    expect(v!.sim.counters.requests("POST /trade/api/v2/order")).toBe(creates);
    const h = await health(st.rig.h.httpUrl);
    expect(h.body.surfaces.spot).toMatchObject({ state: "refusing", refused: 2 });
    v!.sim.faults.clear();
    await until(
      () => st.rig.h.feeds[0]?.surfaceState?.("spot")?.reconcile === "idle",
      2_000,
      "Spot reconciled",
    );
    const after = st.traffic.place("spot");
    await st.traffic.answered(3_000);
    expect(after.acked).toBe(true);
    await venueAgrees(st, v!);
  }, 30_000);
});

describe("stream loss counts only time with neither a trusted stream nor a working poll", () => {
  const risk = {
    triggers: {
      venueRejects: { count: 20, windowMs: 10_000, action: "halted" as const },
      unknownOutcomes: { count: 5, windowMs: 60_000, action: "reducing" as const },
      streamLoss: { afterMs: 1_000, action: "reducing" as const },
      healAfterMs: 1_000,
    },
  };

  it("the Spot stream cut for 2.5 s (past the 1 s limit) while the venue answers: the poll covers Spot, no reducing", async () => {
    v = await startVenue();
    const proxy = await new CuttableProxy(Number(new URL(v.sim.baseUrl).port)).start();
    try {
      const st = await start({ "venue.streamUrl": proxy.url }, risk, v);
      const hl = new HealthLog(st.rig.h.httpUrl, 50);
      proxy.cut(2_500);
      await until(
        () => st.rig.h.feeds[0]?.surfaceState?.("spot")?.stream === "down",
        2_000,
        "Spot stream down",
      );
      await sleep(2_500);
      await until(
        () => st.rig.h.feeds[0]?.surfaceState?.("spot")?.stream === "trusted",
        5_000,
        "trusted again",
      );
      await hl.stop();
      expect(st.states.changes).toEqual([]);
      expect(st.rig.h.risk.state).toBe("active");
      // Polling-only while the stream was down, covered throughout.
      const spot = hl.samples.map((x) => x.body.surfaces.spot);
      expect(spot.some((x) => x.state === "polling-only" && x.stream === "down")).toBe(true);
      expect(spot.every((x) => x.covered === true)).toBe(true);
    } finally {
      await proxy.stop();
    }
  }, 30_000);

  it("Spot with neither a trusted stream nor a working poll past the limit: reducing, then active by itself after the recovery", async () => {
    const st = await start({}, risk);
    spotOutage(v!);
    await until(() => st.states.changes.length > 0, 5_000, "reducing");
    expect(st.states.changes[0]).toMatchObject({ state: TradingStateValue.Reducing });
    expect(st.states.changes[0]!.text).toMatch(/^spot: neither a trusted order stream nor a working poll/);
    // Reducing: a buy that grows the position is refused (202), HFT included.
    const refused = st.traffic.place("hft");
    await st.traffic.answered(2_000);
    expect(refused.rejectCode).toBe(202);
    v!.sim.faults.clear();
    const recovered = Date.now();
    await until(() => st.states.changes.at(-1)?.state === TradingStateValue.Active, 6_000, "healed");
    const healedAfter = Date.now() - recovered;
    // Healed after the Spot cover came back (within the retry) plus healAfterMs of normal answers.
    expect(healedAfter).toBeGreaterThanOrEqual(1_000);
    expect(healedAfter).toBeLessThan(4_000);
    expect(st.states.changes.length).toBe(2);
    expect(st.states.changes[1]!.text).toMatch(/^healed/);
    const ok = st.traffic.place("hft");
    await st.traffic.answered(2_000);
    expect(ok.acked).toBe(true);
  }, 30_000);
});

describe("the unknown-outcomes trigger heals", () => {
  it("reducing after 5 lost create answers; active by itself once all 5 are resolved and the venue answered for healAfterMs", async () => {
    const st = await start();
    v!.sim.faults.add({ kind: "reset", endpoint: "POST /v5/order/create", count: 5 });
    const lost = [0, 1, 2, 3, 4].map(() => st.traffic.place("hft"));
    await until(() => st.states.changes.length > 0, 5_000, "reducing");
    expect(st.states.changes[0]).toMatchObject({ state: TradingStateValue.Reducing });
    expect(st.states.changes[0]!.text).toMatch(/5 unknown outcomes within 60000 ms/);
    // Each lost answer is resolved by client id (the venue handled the create before the reset).
    await until(() => lost.every((p) => p.acked), 5_000, "resolved by client id");
    await until(() => st.states.changes.at(-1)?.state === TradingStateValue.Active, 5_000, "healed");
    const t = st.states.notActive(Date.now());
    expect(t.entered).toBe(1);
    expect(t.healed).toBe(true);
    expect(t.ms).toBeGreaterThanOrEqual(1_000);
    expect(st.states.changes.at(-1)!.text).toMatch(/^healed/);
    // An admin-set state is another matter: it stays.
    st.rig.h.risk.setState("reducing", "operator");
    await sleep(2_500);
    expect(st.rig.h.risk.state).toBe("reducing");
    await venueAgrees(st, v!);
  }, 30_000);
});
