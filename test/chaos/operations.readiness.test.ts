/**
 * Operational truth, readiness: `hftgate sim` and `hftgate start` as real processes, a strategy over a
 * real socket placing Spot and HFT orders throughout, faults through the simulator's admin API, and at
 * the end the venue's signed listings = the gateway's Query answers = what the strategy was told.
 *
 * - One Spot stream reconnect whose reconciliation fails (the Spot order listing answers 503 for a
 *   while): HFT orders are acked throughout, Spot orders are held at most `streams.reconcileHoldMs`
 *   and sent, nothing is refused, Spot trades unheld again within 2 s of the venue's recovery, /health
 *   says why and never "starting", and the account stays active.
 * - Lost HFT create answers trip the unknown-outcomes trigger: reducing, then active by itself once
 *   every outcome is resolved and the venue answered normally for `risk.triggers.healAfterMs`.
 *
 * For figures, HFTGATE_READINESS_OUTAGE_MS (default 5,000) sets the listing outage and
 * HFTGATE_READINESS_TAIL_MS (default 3,000) the traffic after the recovery.
 */
import { afterAll, describe, expect, it } from "vitest";
import { figureLine, runReadiness } from "./harness/readiness.js";
import { record, report } from "./harness/results.js";

const OUTAGE_MS = Number(process.env.HFTGATE_READINESS_OUTAGE_MS ?? 5_000);
const TAIL_MS = Number(process.env.HFTGATE_READINESS_TAIL_MS ?? 3_000);
const HOLD_MS = 1_000;

describe("readiness per surface and triggers that heal, against real processes", () => {
  it("the Spot listing answers 503 after a Spot stream reconnect: HFT acked throughout, Spot held ≤ 1 s, Spot resumes within 2 s of the recovery", async () => {
    const r = await runReadiness("Spot listing 503 after a Spot stream reconnect", {
      seed: 11,
      outageMs: OUTAGE_MS,
      tailMs: TAIL_MS,
    });
    record({
      scenario: `readiness: Spot listing 503 for ${OUTAGE_MS} ms after a stream reconnect`,
      orders: r.spot.placed + r.hft.placed,
      faults: 1,
      lost: r.findings,
      duplicated: 0,
      mismatched: 0,
      note: figureLine(r),
    });
    expect(r.details).toEqual([]);
    expect(r.venueOrders).toBe(r.spot.acked + r.hft.acked);
    // HFT: every order acked, none refused, none held.
    expect(r.hft).toMatchObject({ refused: 0, unanswered: 0 });
    expect(r.hft.acked).toBe(r.hft.placed);
    expect(r.hft.acked).toBeGreaterThan(40);
    // Spot: every order acked; the hold is the only wait (its bound plus the create's own round trip).
    expect(r.spot).toMatchObject({ refused: 0, unanswered: 0 });
    expect(r.spot.acked).toBe(r.spot.placed);
    expect(r.spot.maxAckMs).toBeLessThan(HOLD_MS + 1_000);
    expect(r.spot.resumeMs).toBeGreaterThanOrEqual(0);
    expect(r.spot.resumeMs).toBeLessThan(2_000);
    // /health explained the Spot state all along and never went back to "starting".
    expect(r.starting).toBe(0);
    expect(r.faultSamples).toBeGreaterThan(0);
    expect(r.explained).toBeGreaterThanOrEqual(r.faultSamples - 3);
    // A stream that was back after a moment is no stream loss: no reducing.
    expect(r.states).toEqual([]);
    expect(r.reducing.ms).toBe(0);
  }, 90_000);

  it("lost HFT create answers trip unknownOutcomes: reducing, then active by itself after healAfterMs", async () => {
    const healAfterMs = 2_000;
    const r = await runReadiness("5 HFT create answers lost", {
      seed: 12,
      outageMs: 1_500,
      tailMs: 4_000,
      lostCreates: 5,
      config: (base) => ({
        ...base,
        risk: { ...base.risk, triggers: { healAfterMs } },
      }),
    });
    record({
      scenario: "readiness: 5 HFT create answers lost (unknownOutcomes trigger)",
      orders: r.spot.placed + r.hft.placed,
      faults: 5,
      lost: r.findings,
      duplicated: 0,
      mismatched: 0,
      note: figureLine(r),
    });
    expect(r.details).toEqual([]);
    expect(r.venueOrders).toBe(r.spot.acked + r.hft.acked);
    expect(r.reducing.entered).toBe(1);
    expect(r.reducing.healed).toBe(true);
    expect(r.states[0]).toMatch(/^2: 5 unknown outcomes within 60000 ms/);
    expect(r.states.at(-1)).toMatch(/^1: healed/);
    // Reducing lasted the resolution of the lost answers plus the heal time, not until an admin came.
    expect(r.reducing.ms).toBeGreaterThanOrEqual(healAfterMs);
    expect(r.reducing.ms).toBeLessThan(healAfterMs + 4_000);
    // The buys refused meanwhile were refused locally (Reject 202) and never reached the venue.
    expect(r.hft.refused + r.spot.refused).toBeGreaterThan(0);
    expect(r.hft.unanswered + r.spot.unanswered).toBe(0);
    expect(r.starting).toBe(0);
  }, 90_000);
});

afterAll(() => report());
