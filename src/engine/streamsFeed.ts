/**
 * The push feed of src/streams (Spot Socket.IO order/balance streams, the HFT NATS private stream, the
 * reconciler) plugged into the engine through the `VenueFeed` seam, beside the venue sync that owns the
 * one resolver and the one poller (told here which surfaces a trusted stream covers). The feed applies records to the
 * engine's store directly, so its updates reach strategies through the same store listener as REST
 * outcomes; every record is journaled through the feed's tap before it is applied. Each surface's
 * stream and reconciliation state is read by the engine's readiness (src/engine/readiness.ts).
 */
import type { Surface } from "../domain/types.js";
import type { Journal } from "../journal/writer.js";
import type { RateLimiter } from "../limits/index.js";
import { monoNs, Source } from "../orders/index.js";
import { OrderSync, SocketCredentials } from "../streams/index.js";
import { registerSecret } from "../telemetry/logger.js";
import type { FeedSurfaceState, VenueFeed, VenueSync } from "../venue/sync.js";
import type { FeedContext } from "./feedContext.js";

const SOURCE_NAME: Record<number, string> = {
  [Source.Rest]: "rest",
  [Source.Stream]: "stream",
  [Source.Poll]: "poll",
  [Source.Query]: "query",
};
/** Journal `evt.source` prefixes: the surfaces' `journalTag`s, by which the order replay reads them back. */
const KIND_PREFIX: Record<string, string> = { spotOrder: "spot", v5Order: "hft", v5Execution: "hftx" };

export interface StreamsFeedDeps {
  ctx: FeedContext;
  limiter: RateLimiter | undefined;
  journal: Journal | undefined;
  venueSync: VenueSync;
}

export class StreamsFeed implements VenueFeed {
  readonly name = "streams";
  readonly sync: OrderSync;

  constructor(d: StreamsFeedDeps) {
    const { ctx, journal, venueSync } = d;
    const cfg = ctx.config;
    const surfaces = cfg.venue.surfaces;
    const engine = ctx.engine;
    this.sync = new OrderSync({
      store: engine.store,
      rest: ctx.rest.client,
      limiter: d.limiter,
      instruments: ctx.instruments.all(),
      apiKey: ctx.keys.apiKey,
      streamBaseUrl: ctx.streamBaseUrl,
      spot: surfaces.includes("spot"),
      hftCategories: surfaces.includes("hft") ? cfg.venue.hftCategories : [],
      hftMaxPages: cfg.venue.hftListMaxPages,
      staleMs: cfg.streams.staleMs,
      holdUntilReconciled: cfg.streams.holdNewOrdersDuringReconcile,
      reconcileRetryMs: cfg.streams.reconcileRetryMs,
      // One owner of ambiguous orders and one poller: the venue sync (never a second one here).
      venue: venueSync,
      hftStream: this.hftStreamOptions(d),
      listener: {
        onStreamUp: (name, reconnect) => {
          if (reconnect) ctx.metrics.reconnects.inc();
          ctx.log.info({ stream: name, reconnect }, "venue stream up");
        },
        onStreamDown: (name, reason) => {
          if (this.stopping) ctx.log.info({ stream: name, reason }, "venue stream closed");
          else ctx.log.warn({ stream: name, reason }, "venue stream down");
        },
        onSurface: (surface) => {
          for (const fn of this.watchers) fn(surface);
        },
        onHftTrusted: (trusted) => {
          engine.run.hftPushTrusted = trusted;
          ctx.log.info(
            { stream: "hft.private", trusted },
            trusted
              ? "HFT private stream trusted: HFT polling drops to the audit interval"
              : "HFT private stream not trusted: HFT polling resumed",
          );
        },
        onReconcileDone: (rep) => {
          // A listing cut at the page bound: never reconciled until the bound is raised (or orders go).
          const cut = rep.errors.filter((e) => e.includes("venue.hftListMaxPages"));
          if (cut.length > 0)
            ctx.log.error(
              { errors: cut },
              "reconciliation incomplete: HFT listing longer than venue.hftListMaxPages",
            );
          if (!rep.complete || rep.escalated.length > 0 || rep.missing.length > 0) {
            ctx.log.warn(
              {
                complete: rep.complete,
                escalated: rep.escalated.length,
                missing: rep.missing.length,
                errors: rep.errors.slice(0, 3),
              },
              "reconciliation report",
            );
          }
        },
      },
      onBalance: (book) => engine.onBalances(book.all()),
      tap: (kind, source, clientId, raw) => {
        engine.noteVenueEvent(monoNs());
        // A request answered after the feed stopped: the journal closes right after, never write to it.
        if (this.stopped) return;
        journal?.event({
          source: `${KIND_PREFIX[kind] ?? kind}-${SOURCE_NAME[source] ?? source}`,
          clientId,
          body: JSON.stringify(raw),
        });
      },
    });
    const hft = this.sync.hftStream;
    if (hft !== undefined) engine.run.hftEchoExpected = (id, clientId) => hft.expectEcho(id, clientId);
  }

  async start(): Promise<void> {
    await this.sync.start();
  }

  /** The HFT private stream over NATS, when a URL is known and the HFT surface is traded. */
  private hftStreamOptions(d: StreamsFeedDeps) {
    const { ctx } = d;
    const n = ctx.config.streams.hftNats;
    if (ctx.hftNatsUrl === undefined || !ctx.config.venue.surfaces.includes("hft")) return undefined;
    return {
      url: ctx.hftNatsUrl,
      authMode: n.auth,
      subAccountId: n.subAccountId,
      execWaitMs: n.execWaitMs,
      echoTimeoutMs: n.echoTimeoutMs,
      staleMs: ctx.config.streams.staleMs,
      credentials: new SocketCredentials({
        rest: ctx.rest.client,
        ttlS: n.credentialTtlS,
        registerSecret,
        onRefresh: (ok: boolean, err?: unknown) => {
          // The REST error names the endpoint and status only; the credential is never in it.
          if (!ok)
            ctx.log.warn(
              { err: err instanceof Error ? err.message : String(err) },
              "socket credential refresh failed",
            );
        },
      }),
      onError: (e: Error) =>
        ctx.log.warn({ stream: "hft.private", err: e.message }, "HFT private stream problem"),
      onSubAccount: (id: string) =>
        ctx.log.info({ subAccountId: id }, "HFT sub-account id learned from the stream"),
    };
  }
  private stopping = false;
  async stop(): Promise<void> {
    this.stopping = true;
    await this.sync.stop();
    this.stopped = true;
  }
  private stopped = false;
  async reconcile(): Promise<void> {
    await this.sync.reconcile();
  }
  get ready(): boolean {
    return this.sync.ready;
  }
  /** Spot and HFT as the streams see them (Futures has no stream: undefined). */
  surfaceState(surface: Surface): FeedSurfaceState | undefined {
    return surface === "futures" ? undefined : this.sync.surfaceState(surface);
  }
  /** Told of every change of a surface's stream, trust or reconciliation. */
  private readonly watchers: ((surface: Surface) => void)[] = [];
  watch(fn: (surface: Surface) => void): void {
    this.watchers.push(fn);
  }
}
