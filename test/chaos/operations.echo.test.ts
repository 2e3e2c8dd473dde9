/**
 * Sustained HFT load on the quick start's own NATS path: `hftgate start` (a real process) with the
 * embedded simulator publishing through its built-in NATS endpoint (`sim.nats=builtin`, what a
 * machine without nats-server gets), one strategy keeping 50 HFT creates in flight, each cancelled
 * on its Ack, for a few thousand orders (bounded in time). Every order record reaches the stream
 * before its create answer there, so this is also the echo check under load (the last round rests
 * for two echo timeouts before its cancel: nothing but that first record ever names it). The venue's signed
 * listing is the truth. Expected: no order refused "reconciling", no silence declared and no stream
 * drop, every acked order at the venue once and cancelled, the endpoint still taking connections,
 * and a SIGTERM exit well inside `shutdown.timeoutMs`. Longer runs and figures: hftLoadSoak.ts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { runHftLoad } from "./harness/hftLoad.js";
import { record, report } from "./harness/results.js";

describe("operations: HFT load through the built-in NATS endpoint", () => {
  it("3,000 creates, 50 in flight, cancelled on ack: none refused, no silence, endpoint up, prompt SIGTERM exit", async () => {
    const r = await runHftLoad({ nats: "builtin", orders: 3_000, inFlight: 50, maxMs: 25_000 });
    record({
      scenario: "process: HFT load through the built-in NATS endpoint",
      orders: r.placed,
      faults: 0,
      lost: r.venueMissing,
      duplicated: r.venueDuplicated,
      mismatched: r.venueNotCancelled,
      note: `${r.acks} acked in ${r.runMs} ms, ${r.refusedReconciling} refused reconciling, ${r.silentTrips} silent trips, ${r.echoesAhead} echoes ahead, SIGTERM exit ${r.sigtermExitMs} ms`,
    });
    // Load whatever the machine: the run stops at 25 s (an idle 2-vCPU box places all 3,000 in a
    // few seconds; a crowded one far fewer), but never fewer than five rounds of 50.
    expect(r.acks).toBeGreaterThanOrEqual(250);
    expect(r.refusedReconciling).toBe(0);
    expect(r.rejects).toEqual({});
    expect(r.unanswered).toBe(0);
    expect(r.cancelsUnanswered).toBe(0);
    // The stream stayed up and trusted: its records came ahead of the answers and counted as echoes,
    // also for the last round, which rested two echo timeouts with nothing else said about it.
    expect(r.rested).toBeGreaterThan(0);
    expect(r.silentTrips).toBe(0);
    expect(r.streamReconnects).toBe(0);
    expect(r.streamDownLines).toBe(0);
    expect(r.echoesAhead).toBeGreaterThan(0);
    // The venue's account: every acked order once, and cancelled.
    expect(r.venueMissing).toBe(0);
    expect(r.venueDuplicated).toBe(0);
    expect(r.venueOrders).toBe(r.acks);
    expect(r.venueNotCancelled).toBe(0);
    // The endpoint still takes a new connection and delivers; nothing was ever refused.
    expect(r.natsAccepting).toBe(true);
    expect(r.connectionRefusedLines).toBe(0);
    // shutdown.timeoutMs is 3 s; the exit comes well before any peer's timeout could hold it.
    expect(r.sigtermExitMs).toBeLessThan(6_000);
  }, 120_000);
});

afterAll(() => report());
