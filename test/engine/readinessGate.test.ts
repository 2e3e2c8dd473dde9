/**
 * The readiness gate on its own (src/engine/readiness.ts): a feed and a venue sync driven by hand, the
 * real risk gate, real timers with short bounds. Held orders go in arrival order once their surface is
 * ready, each waits at most the bound, one surface never holds another, and /health's status follows.
 */
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import type { Surface } from "../../src/domain/types.js";
import { healthReply, healthStatus } from "../../src/engine/health.js";
import { Readiness } from "../../src/engine/readiness.js";
import { OrderStore } from "../../src/orders/index.js";
import { RiskGate } from "../../src/risk/riskGate.js";
import type { FeedSurfaceState, VenueFeed, VenueSync } from "../../src/venue/sync.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class FakeFeed implements VenueFeed {
  readonly name = "fake";
  readonly state: Partial<Record<Surface, FeedSurfaceState>> = {
    spot: { stream: "trusted", reconcile: "idle", error: "", sinceMs: 0 },
    hft: { stream: "none", reconcile: "idle", error: "", sinceMs: 0 },
  };
  private fn: ((s: Surface) => void) | undefined;
  async start() {}
  async stop() {}
  async reconcile() {}
  get ready() {
    return true;
  }
  surfaceState(s: Surface) {
    return this.state[s];
  }
  watch(fn: (s: Surface) => void) {
    this.fn = fn;
  }
  set(s: Surface, st: Partial<FeedSurfaceState>) {
    this.state[s] = { ...this.state[s]!, ...st };
    this.fn?.(s);
  }
}

let r: Readiness | undefined;
afterEach(() => r?.stop());

function mk(knobs: Record<string, unknown> = {}) {
  const cfg = loadConfig({ env: {}, overrides: { "streams.reconcileHoldMs": 200, ...knobs } });
  const risk = new RiskGate();
  const feed = new FakeFeed();
  const poll: Record<string, boolean> = { spot: true, hft: true };
  const sync = {
    ready: true,
    lastVenueOkMs: Date.now(),
    lastVenueFailMs: 0,
    pollWorking: (s: Surface) => poll[s] ?? false,
  };
  r = new Readiness(cfg, risk, pino({ level: "silent" }));
  r.attach({ sync: sync as unknown as VenueSync, feeds: [feed], store: new OrderStore() });
  return { r, risk, feed, poll, sync };
}

describe("readiness gate", () => {
  it("holds only the reconciling surface; released in arrival order once it is ready", async () => {
    const { r, feed } = mk();
    feed.set("spot", { stream: "up", reconcile: "running" });
    expect(r.open("spot")).toBe(false);
    expect(r.open("hft")).toBe(true);
    const sent: string[] = [];
    for (const id of ["a", "b", "c"])
      r.hold(
        "spot",
        () => sent.push(id),
        () => sent.push(`refused ${id}`),
      );
    r.hold(
      "hft",
      () => sent.push("h"),
      () => sent.push("refused h"),
    );
    expect(sent).toEqual(["h"]);
    expect(r.report().spot).toMatchObject({ state: "holding", held: 3 });
    feed.set("spot", { stream: "trusted", reconcile: "idle" });
    await Promise.resolve();
    expect(sent).toEqual(["h", "a", "b", "c"]);
    expect(r.report().spot).toMatchObject({ state: "ready", held: 0, heldTotal: 3, refused: 0 });
  });

  it("each held order waits at most reconcileHoldMs, then is sent (default) or refused naming the surface", async () => {
    for (const then of ["send", "refuse"] as const) {
      const { r, feed } = mk({ "streams.reconcileHoldThen": then });
      feed.set("spot", { stream: "up", reconcile: "failing", error: "RestError: 503" });
      const out: Array<{ what: string; ms: number }> = [];
      const t0 = Date.now();
      r.hold(
        "spot",
        () => out.push({ what: "sent", ms: Date.now() - t0 }),
        (why) => out.push({ what: why, ms: Date.now() - t0 }),
      );
      await sleep(100);
      r.hold(
        "spot",
        () => out.push({ what: "sent", ms: Date.now() - t0 }),
        (why) => out.push({ what: why, ms: Date.now() - t0 }),
      );
      await sleep(350);
      const what = then === "send" ? "sent" : "spot reconciling with the venue; retry shortly";
      expect(out.map((o) => o.what)).toEqual([what, what]);
      expect(out[0]!.ms).toBeGreaterThanOrEqual(195);
      expect(out[1]!.ms).toBeGreaterThanOrEqual(295);
      const rep = r.report().spot!;
      expect(rep.state).toBe(then === "send" ? "holding" : "refusing");
      expect(rep.reason).toMatch(
        /^reconciliation failing \(RestError: 503\), retried every 500 ms; new orders wait up to 200 ms/,
      );
      expect(rep.refused).toBe(then === "send" ? 0 : 2);
      r.stop();
    }
  });

  it("hold off: a reconciling surface's orders are sent at once (polling-only); cover goes to the risk gate", () => {
    const { r, feed, poll, risk } = mk({ "streams.holdNewOrdersDuringReconcile": false });
    feed.set("spot", { stream: "up", reconcile: "failing" });
    expect(r.open("spot")).toBe(true);
    expect(r.report().spot).toMatchObject({ state: "polling-only", covered: true });
    expect(risk.uncovered).toBe(0);
    poll.spot = false;
    expect(r.report().spot).toMatchObject({ state: "polling-only", covered: false, poll: "failing" });
    expect(risk.uncovered).toBe(1);
    feed.set("spot", { stream: "trusted", reconcile: "idle" });
    expect(r.report().spot).toMatchObject({ state: "ready", covered: true });
    expect(risk.uncovered).toBe(0);
  });

  it("the top-level status: ok, degraded while a surface is not ready, never starting once running", () => {
    const { r, feed, sync } = mk();
    expect(r.status()).toBe("ok");
    feed.set("hft", { reconcile: "running" });
    expect(r.status()).toBe("degraded");
    expect(healthReply(r.status(), {}).status).toBe(200);
    sync.lastVenueOkMs = Date.now() - 60_000;
    expect(r.status()).toBe("unavailable");
    expect(healthReply(r.status(), {}).status).toBe(503);
    expect(healthStatus(false, 0, 10_000, true)).toBe("starting");
  });
});
