/** The gauges and counters that read other parts lazily (/metrics). */
import type { Bus } from "../bus/bus.js";
import type { Gateway } from "../gateway/gateway.js";
import type { Journal } from "../journal/writer.js";
import type { RateLimiter } from "../limits/index.js";
import type { RiskGate } from "../risk/riskGate.js";
import type { HftPrivateStream, OrderSync } from "../streams/index.js";
import type { RestStack } from "../venue/stack.js";
import type { VenueFeed, VenueSync } from "../venue/sync.js";
import type { Engine } from "./engine.js";
import type { EngineMetrics } from "./metrics.js";
import { StreamsFeed } from "./streamsFeed.js";

export function registerGauges(
  m: EngineMetrics,
  engine: Engine,
  rest: RestStack,
  limiter: RateLimiter | undefined,
  sync: VenueSync,
  journal: Journal | undefined,
): void {
  const ps = rest.presigner;
  m.counter("hftgate_presign_hits_total", "Pre-signed signatures used", () => ps?.stats().hits ?? 0);
  m.counter("hftgate_presign_misses_total", "Hot-path requests signed inline", () => ps?.stats().misses ?? 0);
  if (limiter) {
    for (const cls of [
      "spot.create",
      "spot.cancel",
      "hft.create",
      "hft.cancel",
      "hft.query",
      "spot.listOrders",
    ] as const) {
      m.gauge("hftgate_ratelimit_credit", "Requests the limiter would grant now", () => limiter.credit(cls), {
        class: cls,
      });
    }
  }
  const drops = engine.store.dropCounters();
  for (const reason of Object.keys(drops)) {
    m.counter(
      "hftgate_events_dropped_total",
      "Order events dropped by the transition table, by reason",
      () => engine.store.dropCounters()[reason as keyof typeof drops] ?? 0,
      { reason },
    );
  }
  m.gauge("hftgate_orders_live", "Orders not in a terminal state", () => engine.store.liveSet().size);
  m.gauge(
    "hftgate_orders_finished_kept",
    "Finished orders still held (Query answers for them); orders.keepFinishedMs and keepFinishedMax bound it",
    () => engine.store.finishedKept,
  );
  m.counter(
    "hftgate_orders_forgotten_total",
    "Finished orders forgotten past their keep",
    () => engine.store.stats.forgotten,
  );
  m.gauge(
    "hftgate_orders_unanswered",
    "Orders still waiting for their first answer",
    () => engine.unanswered,
  );
  m.counter(
    "hftgate_events_unknown_order_total",
    "Venue events for orders the store never created",
    () => engine.store.stats.unknownOrder,
  );
  m.counter("hftgate_venue_polls_total", "Poll rounds over the open-order lists", () => sync.stats.polls);
  m.counter(
    "hftgate_journal_records_total",
    "Records appended to the journal this run",
    () => journal?.stats.records ?? 0,
  );
  m.gauge(
    "hftgate_journal_failing",
    "1 while the journal cannot write (trading halted, frames held until a retried write succeeds)",
    () => (journal?.failure === undefined ? 0 : 1),
  );
  m.gauge(
    "hftgate_clock_offset_seconds",
    "Venue clock offset applied to epochs, in seconds",
    () => (rest.clock?.offsetMs ?? 0) / 1000,
  );
  m.gauge(
    "hftgate_clock_signing",
    "1 while signed requests may leave; 0 while the clock is checked after a venue 401 or known wrong",
    () => (rest.clock === undefined || rest.clock.canSign ? 1 : 0),
  );
  m.counter(
    "hftgate_clock_unauthorized_by_clock_total",
    "Venue 401s a re-sync put down to the clock (epoch outside the venue's window)",
    () => rest.clock?.unauthorizedStats.clock ?? 0,
  );
}

/** Which push feeds are live (connected and trusted) for /health. */
export function liveFeeds(feeds: readonly VenueFeed[]): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const f of feeds) {
    if (!(f instanceof StreamsFeed)) continue;
    if (f.sync.orderStream !== undefined) out.spotOrders = f.sync.spotTrusted;
    if (f.sync.hftStream !== undefined) out.hftPrivate = f.sync.hftTrusted;
  }
  return out;
}

/** The HFT private stream for /health (absent when it is not configured). */
export function hftStreamHealth(feeds: readonly VenueFeed[]): object | undefined {
  for (const f of feeds) {
    if (!(f instanceof StreamsFeed)) continue;
    const h = f.sync.hftStream;
    if (h === undefined) continue;
    const t = h.transport.stats;
    return {
      up: h.up,
      trusted: f.sync.hftTrusted,
      lagMs: h.stats.lastLagMs,
      lastMessageMsAgo: t.lastMessageMs === 0 ? -1 : Date.now() - t.lastMessageMs,
      messages: t.messages,
      reconnects: Math.max(0, t.connects - 1),
      authFailures: t.authFailures,
      silentTrips: h.stats.silentTrips,
    };
  }
  return undefined;
}

function registerHftStreamGauges(metrics: EngineMetrics, sync: OrderSync, h: HftPrivateStream): void {
  const t = h.transport.stats;
  metrics.gauge("hftgate_hft_stream_up", "HFT private stream (NATS) connected", () => (h.up ? 1 : 0));
  metrics.gauge(
    "hftgate_hft_stream_trusted",
    "HFT private stream trusted (HFT polling at the audit rate)",
    () => (sync.hftTrusted ? 1 : 0),
  );
  metrics.counter(
    "hftgate_hft_stream_messages_total",
    "HFT private stream messages received",
    () => t.messages,
  );
  metrics.counter("hftgate_hft_stream_reconnects_total", "HFT private stream reconnects", () =>
    Math.max(0, t.connects - 1),
  );
  metrics.counter(
    "hftgate_hft_stream_silent_trips_total",
    "HFT acks never seen on the private stream within echoTimeoutMs, each a reconnect",
    () => h.stats.silentTrips,
  );
  metrics.counter(
    "hftgate_hft_stream_echoes_ahead_total",
    "HFT acks whose order the private stream showed before the create answer",
    () => h.stats.echoesAhead,
  );
  metrics.gauge(
    "hftgate_hft_stream_last_message_age_seconds",
    "Time since the last HFT private stream message, in seconds (-1 before the first)",
    () => (t.lastMessageMs === 0 ? -1 : (Date.now() - t.lastMessageMs) / 1000),
  );
  metrics.gauge(
    "hftgate_hft_stream_lag_seconds",
    "Venue timestamp to receipt of the last HFT private message, in seconds",
    () => h.stats.lastLagMs / 1000,
  );
  metrics.counter(
    "hftgate_hft_stream_auth_failures_total",
    "HFT private stream connects refused by the server",
    () => t.authFailures,
  );
  metrics.counter(
    "hftgate_hft_stream_credential_refreshes_total",
    "Socket credential fetches",
    () => h.credentialStats.fetches,
  );
}

/** Push feed gauges: records dropped at the boundary, streams up. */
export function registerFeedGauges(metrics: EngineMetrics, feeds: readonly VenueFeed[]): void {
  for (const f of feeds) {
    if (!(f instanceof StreamsFeed)) continue;
    const st = f.sync.feed.stats;
    metrics.counter(
      "hftgate_stream_records_invalid_total",
      "Venue records dropped at the feed boundary",
      () => st.malformed,
      { reason: "malformed" },
    );
    metrics.counter(
      "hftgate_stream_records_invalid_total",
      "Venue records dropped at the feed boundary",
      () => st.unknownInstrument,
      { reason: "unknown_instrument" },
    );
    metrics.gauge("hftgate_stream_up", "Spot order stream connected", () => (f.sync.orderStream?.up ? 1 : 0));
    metrics.gauge(
      "hftgate_stream_trusted",
      "Spot order stream trusted (Spot audited at the audit rate, not polled)",
      () => (f.sync.spotTrusted ? 1 : 0),
    );
    const h = f.sync.hftStream;
    if (h !== undefined) registerHftStreamGauges(metrics, f.sync, h);
  }
}

export function registerRiskGauges(metrics: EngineMetrics, risk: RiskGate): void {
  for (const type of ["limit", "market"] as const) {
    metrics.counter(
      "hftgate_risk_unreferenced_orders_total",
      "Orders passed with no fresh reference price under the allow policy",
      () => (type === "limit" ? risk.stats.unreferencedLimit : risk.stats.unreferencedMarket),
      { type },
    );
  }
}

export function registerSessionGauges(metrics: EngineMetrics, gateway: () => Gateway | undefined): void {
  metrics.gauge(
    "hftgate_sessions",
    "Strategy sessions known to the gateway",
    () => gateway()?.sessions().length ?? 0,
  );
  metrics.gauge(
    "hftgate_sessions_connected",
    "Strategy sessions currently connected",
    () =>
      gateway()
        ?.sessions()
        .filter((s) => s.connected).length ?? 0,
  );
}

/** The NATS bus and its drop copy: connection, remote sessions, the drop copy's state, backlog and lag. */
export function registerBusGauges(metrics: EngineMetrics, bus: Bus): void {
  metrics.gauge("hftgate_bus_up", "NATS bus connection up", () => (bus.up ? 1 : 0));
  metrics.gauge(
    "hftgate_bus_error",
    "1 while /health reports bus.error: the bus cannot connect (refused, or NATS unreachable over 5 s) or the drop copy cannot reach its stream",
    () => (bus.health().error === undefined ? 0 : 1),
  );
  metrics.gauge(
    "hftgate_bus_remote_connections",
    "Remote strategy connections open over the bus",
    () => bus.remoteConnections,
  );
  const dc = bus.dropCopy;
  if (dc === undefined) return;
  metrics.gauge("hftgate_dropcopy_up", "1 while the drop copy publishes to its JetStream stream", () =>
    dc.state === "streaming" ? 1 : 0,
  );
  metrics.gauge(
    "hftgate_dropcopy_error",
    "1 while the drop copy cannot start: its stream cannot be reached or created, or the bus cannot connect (reason on /health)",
    () => (dc.state === "error" || bus.connectError !== undefined ? 1 : 0),
  );
  metrics.gauge(
    "hftgate_dropcopy_pending_events",
    "Drop-copy events not yet confirmed by the stream",
    () => dc.pending,
  );
  metrics.gauge(
    "hftgate_dropcopy_lag_seconds",
    "Age of the oldest drop-copy event not yet confirmed by the stream, in seconds (0 when none waits)",
    () => dc.lagMs() / 1000,
  );
  const st = dc.stats;
  metrics.counter(
    "hftgate_dropcopy_events_total",
    "Events the drop copy took from the gateway",
    () => st.events,
  );
  metrics.counter(
    "hftgate_dropcopy_published_total",
    "Drop-copy events confirmed by the stream",
    () => st.published,
  );
  metrics.counter(
    "hftgate_dropcopy_lost_total",
    "Drop-copy events not kept (bus.dropCopy.maxPending reached while NATS was away)",
    () => st.lost,
  );
  metrics.counter("hftgate_dropcopy_resyncs_total", "Drop-copy resyncs with the stream", () => st.resyncs);
  metrics.counter(
    "hftgate_dropcopy_failures_total",
    "Drop-copy publishes that failed (each followed by a resync)",
    () => st.failures,
  );
}
