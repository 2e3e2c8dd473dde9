/** The gauges that read other parts lazily (/metrics). */
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
  m.gauge("hftgate_presign_hits", "Pre-signed signatures used (counter)", () => ps?.stats().hits ?? 0);
  m.gauge(
    "hftgate_presign_misses",
    "Hot-path requests signed inline (counter)",
    () => ps?.stats().misses ?? 0,
  );
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
    m.gauge(
      "hftgate_events_dropped",
      "Order events dropped by the transition table, by reason (counter)",
      () => engine.store.dropCounters()[reason as keyof typeof drops] ?? 0,
      { reason },
    );
  }
  m.gauge("hftgate_orders_live", "Orders not in a terminal state", () => engine.store.liveSet().size);
  m.gauge(
    "hftgate_orders_unanswered",
    "Orders still waiting for their first answer",
    () => engine.unanswered,
  );
  m.gauge(
    "hftgate_events_unknown_order",
    "Venue events for orders the store never created",
    () => engine.store.stats.unknownOrder,
  );
  m.gauge("hftgate_venue_polls", "Poll rounds over the open-order lists", () => sync.stats.polls);
  m.gauge(
    "hftgate_journal_records",
    "Records appended to the journal this run",
    () => journal?.stats.records ?? 0,
  );
  m.gauge(
    "hftgate_journal_failing",
    "1 while the journal cannot write (trading halted, frames held until a retried write succeeds)",
    () => (journal?.failure === undefined ? 0 : 1),
  );
  m.gauge("hftgate_clock_offset_ms", "Venue clock offset applied to epochs", () => rest.clock?.offsetMs ?? 0);
  m.gauge(
    "hftgate_clock_signing",
    "1 while signed requests may leave; 0 while the clock is checked after a venue 401 or known wrong",
    () => (rest.clock === undefined || rest.clock.canSign ? 1 : 0),
  );
  m.gauge(
    "hftgate_clock_unauthorized_by_clock",
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

function registerHftStreamGauges(metrics: EngineMetrics, sync: OrderSync, h: HftPrivateStream): void {
  const t = h.transport.stats;
  metrics.gauge("hftgate_hft_stream_up", "HFT private stream (NATS) connected", () => (h.up ? 1 : 0));
  metrics.gauge(
    "hftgate_hft_stream_trusted",
    "HFT private stream trusted (HFT polling at the audit rate)",
    () => (sync.hftTrusted ? 1 : 0),
  );
  metrics.gauge(
    "hftgate_hft_stream_messages",
    "HFT private stream messages received (counter)",
    () => t.messages,
  );
  metrics.gauge("hftgate_hft_stream_reconnects", "HFT private stream reconnects (counter)", () =>
    Math.max(0, t.connects - 1),
  );
  metrics.gauge(
    "hftgate_hft_stream_silent_trips",
    "HFT acks never seen on the private stream within echoTimeoutMs, each a reconnect (counter)",
    () => h.stats.silentTrips,
  );
  metrics.gauge(
    "hftgate_hft_stream_echoes_ahead",
    "HFT acks whose order the private stream showed before the create answer (counter)",
    () => h.stats.echoesAhead,
  );
  metrics.gauge(
    "hftgate_hft_stream_lag_ms",
    "Venue timestamp to receipt of the last HFT private message (ms)",
    () => h.stats.lastLagMs,
  );
  metrics.gauge(
    "hftgate_hft_stream_auth_failures",
    "HFT private stream connects refused by the server (counter)",
    () => t.authFailures,
  );
  metrics.gauge(
    "hftgate_hft_stream_credential_refreshes",
    "Socket credential fetches (counter)",
    () => h.credentialStats.fetches,
  );
}

/** Push feed gauges: records dropped at the boundary, streams up. */
export function registerFeedGauges(metrics: EngineMetrics, feeds: readonly VenueFeed[]): void {
  for (const f of feeds) {
    if (!(f instanceof StreamsFeed)) continue;
    const st = f.sync.feed.stats;
    metrics.gauge(
      "hftgate_stream_records_invalid",
      "Venue records dropped at the feed boundary (counter)",
      () => st.malformed,
      { reason: "malformed" },
    );
    metrics.gauge(
      "hftgate_stream_records_invalid",
      "Venue records dropped at the feed boundary (counter)",
      () => st.unknownInstrument,
      { reason: "unknown_instrument" },
    );
    metrics.gauge("hftgate_stream_up", "Spot order stream connected", () => (f.sync.orderStream?.up ? 1 : 0));
    const h = f.sync.hftStream;
    if (h !== undefined) registerHftStreamGauges(metrics, f.sync, h);
  }
}

export function registerRiskGauges(metrics: EngineMetrics, risk: RiskGate): void {
  for (const type of ["limit", "market"] as const) {
    metrics.gauge(
      "hftgate_risk_unreferenced_orders",
      "Orders passed with no fresh reference price under the allow policy (counter)",
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
