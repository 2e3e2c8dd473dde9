/**
 * Readiness per surface (Spot, HFT, Futures): what happens to a new order of a surface now — sent at
 * once, or held while that surface reconciles, at most `streams.reconcileHoldMs`, then sent or refused
 * (`streams.reconcileHoldThen`) — what `/health` says of each surface and why, and which surfaces are
 * covered (a trusted stream or a working poll) for the risk gate's stream-loss trigger and heal rule.
 * One surface's stream or reconciliation never holds another surface's orders.
 */
import type { Logger } from "pino";
import type { Config } from "../config/load.js";
import type { Surface } from "../domain/types.js";
import type { OrderStore } from "../orders/index.js";
import type { RiskGate } from "../risk/riskGate.js";
import type { FeedSurfaceState, VenueFeed, VenueSync } from "../venue/sync.js";
import { type HealthStatus, healthStatus } from "./health.js";
import type { EngineMetrics } from "./metrics.js";

/** What the create path asks per order: send now, or hold the send (bounded) while the surface reconciles. */
export interface SendGate {
  /** True when an order of this surface is sent now (the order path: a field read). */
  open(surface: Surface): boolean;
  /** Runs `send` once the surface is ready, or when the hold runs out (`refuse` instead, by the knob). */
  hold(surface: Surface, send: () => void, refuse: (why: string) => void): void;
}

/** A gate that never holds (an engine without feeds: tests, tools). */
export const OPEN_GATE: SendGate = {
  open: () => true,
  hold: (_s, send) => send(),
};

/**
 * - `ready`: orders are sent at once; a trusted stream (or, for a surface without one, a working poll)
 *   covers the surface.
 * - `polling-only`: orders are sent at once; no trusted stream, polling covers the surface.
 * - `holding`: the surface reconciles; new orders wait for it (bounded), then are sent.
 * - `refusing`: the surface reconciles; new orders wait for it (bounded), then are refused.
 */
export type SurfaceMode = "ready" | "polling-only" | "holding" | "refusing";

/** One surface in `/health`. */
export interface SurfaceReport {
  state: SurfaceMode;
  reason: string;
  /** Milliseconds since `state` last changed. */
  forMs: number;
  stream: FeedSurfaceState["stream"];
  reconcile: FeedSurfaceState["reconcile"];
  poll: "working" | "failing";
  /** A trusted stream or a working poll (what the stream-loss trigger counts). */
  covered: boolean;
  /** Orders waiting now; held since start; the longest wait (ms); refused when a hold ran out. */
  held: number;
  heldTotal: number;
  maxHoldMs: number;
  refused: number;
}

type HoldKnobs = Pick<
  Config["streams"],
  | "holdNewOrdersDuringReconcile"
  | "reconcileHoldMs"
  | "reconcileHoldThen"
  | "reconcileRetryMs"
  | "pollIntervalMs"
>;

interface Held {
  readonly send: () => void;
  readonly refuse: (why: string) => void;
  readonly atMs: number;
}

interface Slot {
  readonly surface: Surface;
  /** New orders of the surface are held now. */
  blocked: boolean;
  mode: SurfaceMode;
  reason: string;
  sinceMs: number;
  covered: boolean;
  stream: FeedSurfaceState["stream"];
  reconcile: FeedSurfaceState["reconcile"];
  pollWorking: boolean;
  readonly queue: Held[];
  timer: NodeJS.Timeout | undefined;
  heldTotal: number;
  maxHoldMs: number;
  refused: number;
}

/** What the readiness reads once the venue sync and the feeds exist. */
export interface ReadinessSources {
  sync: VenueSync;
  feeds: readonly VenueFeed[];
  /** Open order outcomes (the heal rule waits for none). */
  store: OrderStore;
  metrics?: EngineMetrics;
}

const NOT_ATTACHED: FeedSurfaceState = { stream: "none", reconcile: "idle", error: "", sinceMs: 0 };

export class Readiness implements SendGate {
  private readonly slots: Partial<Record<Surface, Slot>> = {};
  private readonly knobs: HoldKnobs;
  private src: ReadinessSources | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    config: Pick<Config, "streams" | "venue">,
    private readonly risk: RiskGate,
    private readonly log: Logger,
  ) {
    this.knobs = config.streams;
    const now = Date.now();
    for (const surface of config.venue.surfaces as Surface[]) {
      this.slots[surface] = {
        surface,
        blocked: false,
        mode: "ready",
        reason: "starting",
        sinceMs: now,
        covered: true,
        stream: "none",
        reconcile: "idle",
        pollWorking: true,
        queue: [],
        timer: undefined,
        heldTotal: 0,
        maxHoldMs: 0,
        refused: 0,
      };
    }
  }

  /**
   * Starts reading the venue sync and the feeds (after they are built): every feed's change is seen
   * at once, the polls' health every 250 ms; the risk gate's heal rule reads the venue through here.
   */
  attach(src: ReadinessSources): void {
    this.src = src;
    for (const f of src.feeds) f.watch?.((surface) => this.refresh(surface));
    this.risk.watchVenue({
      unresolved: () => src.store.needingResolution().length,
      lastOkMs: () => src.sync.lastVenueOkMs,
      lastFailMs: () => src.sync.lastVenueFailMs,
    });
    if (src.metrics !== undefined) this.registerGauges(src.metrics);
    this.refreshAll();
    this.timer = setInterval(() => this.refreshAll(), 250);
    this.timer.unref();
  }

  /**
   * Shutdown: the surfaces are no longer read (streams closing are no readiness change worth a log
   * line). Orders still held keep their bounded timers: each is sent or refused when its hold ends.
   */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  open(surface: Surface): boolean {
    return this.slots[surface]?.blocked !== true;
  }

  hold(surface: Surface, send: () => void, refuse: (why: string) => void): void {
    const slot = this.slots[surface];
    if (slot === undefined || !slot.blocked) {
      send();
      return;
    }
    slot.queue.push({ send, refuse, atMs: Date.now() });
    slot.heldTotal++;
    if (slot.timer === undefined) this.arm(slot);
  }

  /** Every traded surface is `ready`. */
  get allReady(): boolean {
    for (const slot of Object.values(this.slots)) if (slot.mode !== "ready") return false;
    return true;
  }

  /**
   * The top-level `/health` status: `starting` until the start-up reconciliation is done,
   * `unavailable` while the venue has not answered for `max(10 s, 5 × streams.pollIntervalMs)`, else
   * `ok` or `degraded` (a surface not ready).
   */
  status(): HealthStatus {
    const sync = this.src?.sync;
    if (sync === undefined) return "starting";
    this.refreshAll();
    return healthStatus(
      sync.ready,
      sync.lastVenueOkMs === 0 ? -1 : Date.now() - sync.lastVenueOkMs,
      Math.max(10_000, 5 * this.knobs.pollIntervalMs),
      this.allReady,
    );
  }

  /** `/health`: per traded surface, what happens to its orders and why. */
  report(): Record<string, SurfaceReport> {
    this.refreshAll();
    const now = Date.now();
    const out: Record<string, SurfaceReport> = {};
    for (const slot of Object.values(this.slots)) {
      out[slot.surface] = {
        state: slot.mode,
        reason: slot.reason,
        forMs: now - slot.sinceMs,
        stream: slot.stream,
        reconcile: slot.reconcile,
        poll: slot.pollWorking ? "working" : "failing",
        covered: slot.covered,
        held: slot.queue.length,
        heldTotal: slot.heldTotal,
        maxHoldMs: slot.maxHoldMs,
        refused: slot.refused,
      };
    }
    return out;
  }

  private refreshAll(): void {
    for (const slot of Object.values(this.slots)) this.evaluate(slot);
  }

  private refresh(surface: Surface): void {
    const slot = this.slots[surface];
    if (slot !== undefined) this.evaluate(slot);
  }

  /** The feed's word on a surface: the first feed covering it; a feed without per-surface state by `ready`. */
  private feedState(surface: Surface): FeedSurfaceState {
    const src = this.src;
    if (src === undefined) return NOT_ATTACHED;
    for (const f of src.feeds) {
      if (f.surfaceState === undefined) {
        if (!f.ready) return { stream: "none", reconcile: "running", error: "", sinceMs: 0 };
        continue;
      }
      const st = f.surfaceState(surface);
      if (st !== undefined) return st;
    }
    return NOT_ATTACHED;
  }

  private evaluate(slot: Slot): void {
    if (this.stopped) return;
    const k = this.knobs;
    const f = this.feedState(slot.surface);
    const pollWorking = this.src?.sync.pollWorking(slot.surface) ?? true;
    const reconciling = f.reconcile !== "idle";
    const holds = k.holdNewOrdersDuringReconcile && k.reconcileHoldMs > 0;
    const covered = f.stream === "trusted" || pollWorking;
    const mode: SurfaceMode =
      reconciling && holds
        ? k.reconcileHoldThen === "refuse"
          ? "refusing"
          : "holding"
        : f.stream === "trusted" || (f.stream === "none" && pollWorking)
          ? "ready"
          : "polling-only";
    slot.stream = f.stream;
    slot.reconcile = f.reconcile;
    slot.pollWorking = pollWorking;
    if (covered !== slot.covered) {
      slot.covered = covered;
      this.risk.setCovered(slot.surface, covered);
    }
    const reason = reasonOf(mode, f, pollWorking, k);
    if (mode !== slot.mode) {
      const level = mode === "ready" ? "info" : "warn";
      this.log[level](
        { surface: slot.surface, from: slot.mode, to: mode, reason },
        "surface readiness changed",
      );
      slot.sinceMs = Date.now();
      slot.mode = mode;
    }
    slot.reason = reason;
    const blocked = reconciling && holds;
    if (blocked === slot.blocked) return;
    slot.blocked = blocked;
    // Ready again: every held order goes now, in arrival order (after the caller's turn).
    if (!blocked && slot.queue.length > 0) queueMicrotask(() => this.release(slot));
  }

  /**
   * Held orders that may go: all of them once the surface is ready; while it still reconciles, those
   * whose hold ran out (sent, or refused by the knob).
   */
  private release(slot: Slot): void {
    const now = Date.now();
    const limit = this.knobs.reconcileHoldMs;
    while (slot.queue.length > 0) {
      const h = slot.queue[0]!;
      if (slot.blocked && now - h.atMs < limit) break;
      slot.queue.shift();
      slot.maxHoldMs = Math.max(slot.maxHoldMs, now - h.atMs);
      if (slot.blocked && this.knobs.reconcileHoldThen === "refuse") {
        slot.refused++;
        h.refuse(`${slot.surface} reconciling with the venue; retry shortly`);
      } else h.send();
    }
    if (slot.timer !== undefined) clearTimeout(slot.timer);
    slot.timer = undefined;
    if (slot.queue.length > 0) this.arm(slot);
  }

  /** A timer for the oldest held order's deadline. */
  private arm(slot: Slot): void {
    const head = slot.queue[0]!;
    const wait = Math.max(0, head.atMs + this.knobs.reconcileHoldMs - Date.now());
    slot.timer = setTimeout(() => {
      slot.timer = undefined;
      this.evaluate(slot);
      this.release(slot);
    }, wait);
    slot.timer.unref();
  }

  private registerGauges(m: EngineMetrics): void {
    for (const slot of Object.values(this.slots)) {
      const surface = slot.surface;
      m.gauge(
        "hftgate_surface_ready",
        "Surface readiness: 1 ready, 0 polling-only, -1 holding or refusing new orders",
        () => (slot.mode === "ready" ? 1 : slot.mode === "polling-only" ? 0 : -1),
        { surface },
      );
      m.counter(
        "hftgate_surface_held_orders_total",
        "New orders held for a reconciliation of their surface",
        () => slot.heldTotal,
        { surface },
      );
      m.counter(
        "hftgate_surface_refused_orders_total",
        "New orders refused when their hold ran out",
        () => slot.refused,
        { surface },
      );
    }
  }
}

/** The `/health` reason of a surface's state, in words. */
function reasonOf(mode: SurfaceMode, f: FeedSurfaceState, pollWorking: boolean, k: HoldKnobs): string {
  const poll = pollWorking ? "polling covers it" : "the venue's order listing fails too";
  const rec =
    f.reconcile === "running"
      ? "reconciling with the venue"
      : `reconciliation failing (${f.error || "incomplete"}), retried every ${k.reconcileRetryMs} ms`;
  switch (mode) {
    case "ready":
      return f.stream === "trusted" ? "order stream trusted" : "polled (no push stream)";
    case "polling-only":
      if (f.reconcile !== "idle") return `${rec}; new orders are sent at once, ${poll}`;
      if (f.stream === "none") return "polled (no push stream); the venue's order listing fails";
      return `order stream ${f.stream === "down" ? "down" : "not reconciled yet"}: ${poll}`;
    case "holding":
    case "refusing":
      return `${rec}; new orders wait up to ${k.reconcileHoldMs} ms, then are ${mode === "holding" ? "sent" : "refused"}`;
  }
}
