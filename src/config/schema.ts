/**
 * Every configuration knob, as data: its path, type, default and meaning. `config/default.json` is
 * generated from this table (a test keeps them equal) and every leaf can be overridden by an
 * environment variable derived from its path (`gateway.port` -> `HFTGATE_GATEWAY_PORT`).
 */

export type KnobType =
  | { kind: "int"; min: number; max: number }
  | { kind: "number"; min: number; max: number }
  | { kind: "bool" }
  | { kind: "string"; pattern?: RegExp; nullable?: boolean; secret?: boolean }
  | { kind: "enum"; values: readonly string[] }
  | { kind: "list"; values?: readonly string[] };

export interface Knob {
  readonly path: string;
  readonly type: KnobType;
  readonly def: unknown;
  readonly doc: string;
  /** Extra environment variable names that also set this knob (short forms users expect). */
  readonly aliases?: readonly string[];
}

// The helpers keep their literal types: the Config type is derived from this table (see ConfigOf).
const int = (min: number, max: number) => ({ kind: "int", min, max }) as const;
const bool = { kind: "bool" } as const;
function str(): { readonly kind: "string"; readonly nullable: false; readonly secret: false };
function str<N extends boolean, S extends boolean = false>(
  nullable: N,
  secret?: S,
): { readonly kind: "string"; readonly nullable: N; readonly secret: S };
function str(nullable = false, secret = false) {
  return { kind: "string", nullable, secret } as const;
}
const oneOf = <const V extends readonly string[]>(...values: V) => ({ kind: "enum", values }) as const;
const MS_DAY = 86_400_000;

const TABLE = [
  // venue
  {
    path: "venue.kind",
    type: oneOf("sim", "exchange"),
    def: "sim",
    doc: "`sim` starts the embedded simulator as the venue; `exchange` trades for real",
  },
  {
    path: "venue.spotBaseUrl",
    type: str(),
    def: "https://coinswitch.co",
    doc: "Spot v2 REST host (ignored for sim)",
  },
  {
    path: "venue.hftBaseUrl",
    type: str(),
    def: "https://dma.coinswitch.co",
    doc: "HFT v5 REST host (ignored for sim)",
  },
  {
    path: "venue.streamUrl",
    type: str(),
    def: "https://ws.coinswitch.co",
    doc: "Socket.IO host for Spot order/balance streams (ignored for sim)",
  },
  {
    path: "venue.surfaces",
    type: { kind: "list", values: ["spot", "hft", "futures"] },
    def: ["spot", "hft"],
    doc: "surfaces to trade (Spot v2, HFT v5, Futures v2); `futures` is opt-in: its paths beyond place / get order are [assumed]",
  },
  {
    path: "venue.hftCancelPath",
    type: str(),
    def: "/v5/order/cancel",
    doc: "[assumed] HFT cancel path (not in the published index)",
  },
  // amend
  {
    path: "venue.hftAmendPath",
    type: str(),
    def: "/v5/order/amend",
    doc: "[assumed] HFT amend path (not in the published index; Bybit-v5 style)",
  },
  {
    path: "venue.hftAmendBy",
    type: oneOf("orderId", "orderLinkId"),
    def: "orderId",
    doc: "[assumed] which id the HFT amend body names the order by (the other is left out)",
  },
  {
    path: "venue.hftListMaxPages",
    type: int(1, 1_000_000),
    def: 2_000,
    doc: "most pages of an HFT listing (`/v5/order/realtime` open orders, `/v5/execution/list`) a reconciliation or an orphan check follows to the end of its cursor; reaching it with pages left leaves that reconciliation incomplete (logged as an error, the surface not reconciled). A poll round reads at most 5 pages",
  },
  {
    path: "venue.spotExchanges",
    type: { kind: "list", values: ["coinswitchx", "c2c1", "c2c2"] },
    def: ["coinswitchx", "c2c1"],
    doc: "Spot exchanges whose instruments are loaded",
  },
  {
    path: "venue.hftCategories",
    type: { kind: "list", values: ["linear", "option"] },
    def: ["linear"],
    doc: "HFT categories loaded and traded at once (each order uses its instrument's); `option` needs the key on the venue's options allowlist, and an options order from a key without it is rejected with code 403 NotAllowlisted",
  },
  // futures
  {
    path: "venue.futuresPollMs",
    type: int(500, 600_000),
    def: 3_000,
    doc: "[assumed] Futures v2 has no private stream: its open list is polled this often (the venue allows 20 reads per 60 s)",
  },
  {
    path: "venue.futuresCancelPath",
    type: str(),
    def: "/trade/api/v2/futures/order",
    doc: "[assumed] Futures cancel path (DELETE with {exchange, order_id}; not in the published reference)",
  },
  // keys
  {
    path: "keys.apiKey",
    type: str(true),
    def: null,
    doc: "API key (hex Ed25519 public key); optional, checked against the secret",
    aliases: ["HFTGATE_API_KEY"],
  },
  {
    path: "keys.secretKey",
    type: str(true, true),
    def: null,
    doc: "secret key (hex 32-byte seed); prefer the environment variable",
    aliases: ["HFTGATE_SECRET_KEY"],
  },
  // simulator
  { path: "sim.port", type: int(0, 65535), def: 0, doc: "simulator HTTP port when embedded (0 = ephemeral)" },
  { path: "sim.seed", type: int(0, 2 ** 31 - 1), def: 42, doc: "simulator RNG seed" },
  {
    path: "sim.adminPort",
    type: int(-1, 65535),
    def: -1,
    doc: "simulator fault-injection admin port on loopback (-1 = off)",
  },
  {
    path: "sim.nats",
    type: oneOf("auto", "builtin", "server", "off"),
    def: "auto",
    doc: "NATS server of the simulator's HFT private streams, on loopback: auto = a nats-server when the binary is installed, else the simulator's built-in endpoint; builtin = always the built-in endpoint; server = nats-server or refuse to start; off = none (HFT is covered by polling)",
  },
  {
    path: "sim.syntheticMarket",
    type: bool,
    def: true,
    doc: "run the simulator's synthetic liquidity process",
  },
  // gateway (command API)
  {
    path: "gateway.host",
    type: str(),
    def: "127.0.0.1",
    doc: "command API bind address (non-loopback logs a warning)",
  },
  { path: "gateway.port", type: int(0, 65535), def: 7700, doc: "command API port" },
  {
    path: "gateway.token",
    type: str(true, true),
    def: null,
    doc: "logon token; generated and printed at start when null",
    aliases: ["HFTGATE_TOKEN"],
  },
  {
    path: "gateway.adminToken",
    type: str(true, true),
    def: null,
    doc: "token for privileged sessions (kill switch, trading state); generated when null",
    aliases: ["HFTGATE_ADMIN_TOKEN"],
  },
  {
    path: "gateway.transport",
    type: oneOf("auto", "uws", "ws"),
    def: "auto",
    doc: "`auto` uses native uWebSockets.js and falls back to `ws`",
  },
  {
    path: "gateway.maxBufferedBytes",
    type: int(4096, 1 << 30),
    def: 1 << 20,
    doc: "per-session send buffer; a slower consumer is disconnected",
  },
  {
    path: "gateway.badTokenDelayMs",
    type: int(0, 60_000),
    def: 500,
    doc: "delay before closing a session with a bad token",
  },
  {
    path: "gateway.resumeRing",
    type: int(0, 1_000_000),
    def: 4096,
    doc: "messages kept per session for resume after reconnect (and, with the journal, after a restart)",
  },
  {
    path: "gateway.sessionRetentionMs",
    type: int(1000, 30 * MS_DAY),
    def: MS_DAY,
    doc: "a disconnected named session stays resumable this long (across restarts too), then is released [assumed: one day]",
  },
  {
    path: "gateway.maxRetainedSessions",
    type: int(0, 100_000),
    def: 256,
    doc: "disconnected named sessions kept for resume; beyond this the longest idle one is released [assumed]",
  },
  // signing
  {
    path: "signing.signer",
    type: oneOf("native", "pure-js"),
    def: "native",
    doc: "Ed25519 implementation for inline signing",
  },
  {
    path: "signing.epochPolicy",
    type: oneOf("clock", "unique"),
    def: "clock",
    doc: "`clock`: same-ms requests share an epoch; `unique`: strictly increasing epochs",
  },
  {
    path: "signing.epochStepMs",
    type: int(1, 1_000),
    def: 50,
    doc: "`clock` policy: the epoch is the corrected clock floored to this many ms (0-49 ms behind it at 50), so the pre-signer signs 1/step of the epochs; the venue allows seconds of drift [assumed: it checks the window and the signature, not that epochs differ]; 1 = the exact ms",
  },
  {
    path: "signing.uniqueMaxAheadMs",
    type: int(0, 5_000),
    def: 50,
    doc: "how far `unique` epochs may run ahead of the clock",
  },
  { path: "signing.presign", type: bool, def: true, doc: "pre-sign hot-path requests in a worker pool" },
  {
    path: "signing.presignHorizonMs",
    type: int(10, 10_000),
    def: 600,
    doc: "how far ahead signatures are prepared; keep it well above the refill interval (two refills of slack at the defaults)",
  },
  {
    path: "signing.presignRefillMs",
    type: int(1, 10_000),
    def: 200,
    doc: "pre-signer refill interval; each refill is one task for the worker whatever it signs, so a longer one costs the event loop less (at a 50 ms epoch step a refill signs 4 epochs per prefix)",
  },
  { path: "signing.presignWorkers", type: int(1, 16), def: 1, doc: "pre-signer worker threads" },
  {
    path: "signing.presignNice",
    type: int(-1, 19),
    def: -1,
    doc: "nice value of the pre-signer threads (Linux); -1 leaves their priority unchanged. A high value starves the signer on a busy shared vCPU (every request then signs inline): measured before changing it",
  },
  {
    path: "signing.presignIdleMs",
    type: int(0, MS_DAY),
    def: 60_000,
    doc: "a signed prefix (create or cancel, per surface) unused this long is no longer signed ahead (each costs one signature per ms); its next request signs inline once and resumes it; 0 = always signed ahead",
  },
  // clock
  { path: "clock.samples", type: int(1, 50), def: 5, doc: "time samples per sync (min round trip wins)" },
  { path: "clock.resyncMs", type: int(1_000, MS_DAY), def: 60_000, doc: "resync interval" },
  { path: "clock.warnMs", type: int(0, MS_DAY), def: 5_000, doc: "offset that logs a warning" },
  {
    path: "clock.refuseMs",
    type: int(0, MS_DAY),
    def: 60_000,
    doc: "offset beyond which signed requests are refused",
  },
  {
    path: "clock.windowMs",
    type: int(0, MS_DAY),
    def: 5_000,
    doc: "the venue's epoch tolerance: a 401 is put down to the clock when the re-sync it triggers shows the refused request's epoch was further than this from the venue's time",
  },
  {
    path: "clock.recheckMs",
    type: int(10, 60_000),
    def: 250,
    doc: "while signed requests are refused (a 401 being checked, or the clock known wrong): first re-sync after this long, doubling each round",
  },
  {
    path: "clock.recheckMaxMs",
    type: int(10, 60_000),
    def: 1_000,
    doc: "while signed requests are refused: the longest wait between re-syncs (trading resumes at the first plausible offset)",
  },
  // http
  { path: "http.connections", type: int(1, 256), def: 4, doc: "keep-alive connections per host" },
  { path: "http.connectTimeoutMs", type: int(1, 60_000), def: 1_000, doc: "connect timeout" },
  {
    path: "http.caFile",
    type: str(),
    def: "",
    doc: "PEM file of further certificate authorities trusted for the venue's TLS connections (undici's and the fast path's), beside Node's own: a TLS-inspecting proxy's, or a test venue's; empty = Node's own only",
  },
  {
    path: "http.headersTimeoutMs",
    type: int(1, 60_000),
    def: 2_000,
    doc: "response headers timeout; past it the outcome is unknown",
  },
  { path: "http.bodyTimeoutMs", type: int(1, 60_000), def: 2_000, doc: "response body timeout" },
  {
    path: "http.keepWarmMs",
    type: int(0, 600_000),
    def: 10_000,
    doc: "every connection is opened at start; while an origin's connections are all idle, this often one unsigned time GET per connection keeps them open (closed ones reopen), so the first orders after a quiet spell pay no handshake; a connection that took a request in the last half period gets none (at most 1.5× this without a request); keep 1.5× it below the venue's keep-alive timeout [unknown]; 0 = off",
  },
  {
    path: "http.deleteBodyKeepAlive",
    type: bool,
    def: true,
    doc: "keep the connection after a DELETE with a body (the Spot cancel); false lets undici close it after each one (a new connection per cancel)",
  },
  {
    path: "http.fastPath",
    type: bool,
    def: true,
    doc: "order requests (create, cancel, amend) written straight to the fast path's own keep-alive sockets from a template, their answers read by a minimal reader (anything unusual falls back to the general reading or is an unknown outcome, as on undici); an order request that finds every fast socket busy waits for the first free one, oldest first (undici only when none is connected); false sends them all on undici like every other request",
  },
  // streams and reconciliation
  { path: "streams.enabled", type: bool, def: true, doc: "consume the Spot order and balance streams" },
  {
    path: "streams.staleMs",
    type: int(100, 600_000),
    def: 35_000,
    doc: "a stream silent this long (no message and no heartbeat) is treated as down; keep it above the venue's Socket.IO ping interval (25 s by default)",
  },
  {
    path: "streams.pollIntervalMs",
    type: int(50, 60_000),
    def: 1_000,
    doc: "live polling: read a surface's open list (HFT: and executions) this often while no trusted stream covers it and it holds live orders",
  },
  {
    path: "streams.holdNewOrdersDuringReconcile",
    type: bool,
    def: true,
    doc: "hold a surface's new orders while that surface reconciles (after its stream reconnected, or while its reconciliation fails), at most `streams.reconcileHoldMs` each; other surfaces are never held",
  },
  {
    path: "streams.reconcileHoldMs",
    type: int(0, 1_500),
    def: 1_000,
    doc: "the longest a new order waits for its surface's reconciliation; then it is sent or refused (`streams.reconcileHoldThen`). At most 1,500: a create still unsent 2 s after it arrived is one the resolver asks the venue about",
  },
  {
    path: "streams.reconcileHoldThen",
    type: oneOf("send", "refuse"),
    def: "send",
    doc: "an order whose hold ran out: `send` (polling and the resolver cover its state) or `refuse` (Reject 402, retryable, naming the surface)",
  },
  {
    path: "streams.reconcileRetryMs",
    type: int(100, 10_000),
    def: 500,
    doc: "a surface's failed reconciliation is retried this often (fixed interval) until one completes",
  },
  {
    path: "orders.unknownQueryRetries",
    type: int(0, 100),
    def: 10,
    doc: "targeted queries before an unknown outcome is escalated",
  },
  {
    path: "orders.unknownQueryIntervalMs",
    type: int(10, 60_000),
    def: 500,
    doc: "interval between targeted queries",
  },
  {
    path: "orders.spotExpirySeconds",
    type: int(1, 31_536_000),
    def: 90,
    doc: "Spot `expiry_period` sent with every order",
  },
  {
    path: "orders.keepFinishedMs",
    type: int(0, 86_400_000),
    def: 3_600_000,
    doc: "a finished order (filled, cancelled, rejected, expired) is forgotten this long after it finished: a Query for it then finds nothing, a Cancel or Amend of it is refused as for an unknown order, and a late venue event about it is dropped (counted as for an unknown order). Bounds the order store over a long run; live orders are never forgotten",
  },
  {
    path: "orders.keepFinishedMax",
    type: int(0, 10_000_000),
    def: 100_000,
    doc: "at most this many finished orders are kept: beyond it the earliest finished are forgotten first, whatever `orders.keepFinishedMs` says",
  },
  // journal
  {
    path: "journal.enabled",
    type: bool,
    def: true,
    doc: "append-only journal of commands, requests and exchange messages",
  },
  {
    path: "journal.dir",
    type: str(),
    def: "var/journal/{venue}",
    doc: "journal directory, one per venue and account (locked by one process at a time); `{venue}` stands for `sim` (the embedded simulator) or the venue's Spot host (`coinswitch.co`)",
  },
  {
    path: "journal.recoverFromVenue",
    type: bool,
    def: false,
    doc: "at start, a damaged journal is moved aside (`<dir>/damaged-<time>/`, never deleted) and the gateway starts from the venue's listings instead of refusing (`hftgate start --recover-from-venue` for one start)",
  },
  { path: "journal.fsync", type: oneOf("none", "interval", "every"), def: "interval", doc: "fsync policy" },
  { path: "journal.fsyncIntervalMs", type: int(1, 60_000), def: 100, doc: "fsync interval for `interval`" },
  {
    path: "journal.writeMode",
    type: oneOf("auto", "map", "write"),
    def: "auto",
    doc: "how records reach the kernel: `map` encodes them straight into the file through a mapped window (the native part `native/journalmap.c`, built by `npm run build`; no system call per batch), `write` hands each batch over with write(2); `auto` maps when the native part is built and writes otherwise. `map` without it refuses to start",
  },
  {
    path: "journal.retryIntervalMs",
    type: int(10, 60_000),
    def: 1_000,
    doc: "while the journal cannot write (disk full, I/O error), the failed write is retried this often; trading is halted and frames are held until it succeeds",
  },
  {
    path: "journal.checkpointIntervalMs",
    type: int(0, 86_400_000),
    def: 60_000,
    doc: "a checkpoint of what a restart needs (live orders, sessions with their resume rings, what each was told) is written this often and at a clean stop; a start reads it and only the journal after it. 0: only at a clean stop",
  },
  {
    path: "journal.checkpointMinBytes",
    type: int(0, 2 ** 40),
    def: 16 * 1024 * 1024,
    doc: "a checkpoint is written only once the journal grew by this many bytes since the last one (a shorter journal is read whole at start about as fast)",
  },
  {
    path: "journal.checkpointFinishedMs",
    type: int(0, 31 * MS_DAY),
    def: 3_600_000,
    doc: "orders created less than this long before a checkpoint stay in it even when finished (Query answers for them after a restart); older finished orders are left to the journal files and the venue's history",
  },
  {
    path: "journal.retentionDays",
    type: int(0, 36_500),
    def: 7,
    doc: "journal files wholly covered by the checkpoint (both kept generations) and not written for this many days are deleted, or moved to `journal.archiveDir`. 0: never",
  },
  {
    path: "journal.archiveDir",
    type: str(),
    def: "",
    doc: "where retention moves old journal files (created owner-only); empty: they are deleted",
  },
  // shutdown
  {
    path: "shutdown.cancelLiveOrders",
    type: bool,
    def: false,
    doc: "at a stop, cancel every live order of every session (as cancel-on-disconnect does for its sessions) and wait for the answers",
  },
  {
    path: "shutdown.timeoutMs",
    type: int(100, 120_000),
    def: 5_000,
    doc: "graceful stop deadline: the drain (in-flight answers, cancel-on-disconnect) may use it all but the last quarter (at most 1.5 s), which closes the rest",
  },
  // engine: rate limits, risk, state file (added by the engine wiring)
  {
    path: "limits.enabled",
    type: bool,
    def: true,
    doc: "apply the account-wide rate limiter before requests leave",
  },
  {
    path: "limits.createWaitMs",
    type: int(0, 60_000),
    def: 0,
    doc: "how long a create may wait for rate-limit room before a retryable Reject (0 = reject at once)",
  },
  {
    path: "limits.cancelWaitMs",
    type: int(0, 60_000),
    def: 2_000,
    doc: "how long a cancel may wait for rate-limit room before a CancelReject (Throttled); above the HFT window so cancels behind a burst get through",
  },
  {
    path: "risk.maxOpenOrdersPerSession",
    type: int(1, 1_000_000),
    def: 500,
    doc: "open orders per strategy session (all instruments)",
  },
  {
    path: "risk.maxOpenOrdersPerInstrument",
    type: int(1, 1_000_000),
    def: 200,
    doc: "open orders per instrument (account-wide)",
  },
  {
    path: "risk.maxOrderNotionalInr",
    type: str(),
    def: "1000000",
    doc: "largest order value on INR markets (decimal)",
  },
  {
    path: "risk.maxOrderNotionalUsdt",
    type: str(),
    def: "10000",
    doc: "largest order value on USDT markets (decimal)",
  },
  {
    path: "risk.priceBandBps",
    type: int(0, 1_000_000),
    def: 1000,
    doc: "limit prices further than this from the reference price are refused (0 = off)",
  },
  {
    path: "risk.noReferenceMarket",
    type: oneOf("refuse", "allow"),
    def: "refuse",
    doc: "a market order on an instrument with no (fresh) reference price: refuse (its value and band cannot be checked) or allow",
  },
  {
    path: "risk.noReferenceLimit",
    type: oneOf("refuse", "allow"),
    def: "allow",
    doc: "a limit order on an instrument with no (fresh) reference price: allow (counted in hftgate_risk_unreferenced_orders_total; its own price bounds its value) or refuse",
  },
  {
    path: "risk.referenceMaxAgeMs",
    type: int(0, MS_DAY),
    def: 300_000,
    doc: "a reference price older than this counts as none (0 = never too old)",
  },
  {
    path: "risk.spotReferenceStream",
    type: bool,
    def: true,
    doc: "feed Spot reference prices (last trade, else mid) from the public order-book and trade streams",
  },
  {
    path: "risk.hftReferencePollMs",
    type: int(0, 600_000),
    def: 1_000,
    doc: "poll GET /v5/market/tickers this often for HFT reference prices (last price, else mid); one request for every symbol, skipped when the limiter has no room (0 = off)",
  },
  {
    path: "risk.duplicateWindowMs",
    type: int(0, 3_600_000),
    def: 0,
    doc: "identical orders within this window are refused (0 = off)",
  },
  {
    path: "risk.triggers.healAfterMs",
    type: int(0, 3_600_000),
    def: 10_000,
    doc: "a trading state set by a venue-health trigger (unknown outcomes, stream loss) returns by itself once no order outcome is open, every surface has a trusted stream or a working poll, and the venue has answered normally for this long; 0 = off (an admin ends it). Venue-reject, admin and kill-switch states always wait for an admin",
  },
  {
    path: "orders.hftQueryAfterAck",
    type: bool,
    def: true,
    doc: "query an HFT order right after its ack (IOC/FOK/market always, limits while query credit allows) so fills arrive before the next poll",
  },
  {
    path: "streams.hftNats.enabled",
    type: bool,
    def: true,
    doc: "consume the HFT private order and trade streams over NATS (for venue sim: only when a nats-server runs for it, see sim.nats)",
  },
  {
    path: "streams.hftNats.url",
    type: str(),
    def: "",
    doc: "NATS WebSocket URL of the HFT streams; empty = wss://pc-nats-prod.coinswitch.co when venue.hftBaseUrl is the documented https://dma.coinswitch.co, else none (ignored for sim)",
  },
  {
    path: "streams.hftNats.auth",
    type: oneOf("userPass", "token", "tokenJoined", "connectFields"),
    def: "userPass",
    doc: "[assumed] how the socket credential goes into the NATS CONNECT: user=api_key pass=signature; auth_token=signature; auth_token=api_key:expires:signature; or extra fields api_key/expires/signature",
  },
  {
    path: "streams.hftNats.subAccountId",
    type: str(),
    def: "",
    doc: "HFT sub-account id of the private subjects; empty = learn it (wildcard subscription until the first own payload names sub_account_id)",
  },
  {
    path: "streams.hftNats.credentialTtlS",
    type: int(30, 86_400),
    def: 3_600,
    doc: "lifetime asked of /dma/api/v1/socket/signature (expires_in_seconds); refreshed when a third is left",
  },
  {
    path: "streams.hftNats.execWaitMs",
    type: int(0, 5_000),
    def: 250,
    doc: "[assumed] hold an order push that is ahead of its executions this long for them, so the fill carries maker/taker (0 = apply at once); past it the fill is derived from the cumulative quantity, liquidity unknown",
  },
  {
    path: "streams.hftNats.echoTimeoutMs",
    type: int(0, 600_000),
    def: 5_000,
    doc: "[assumed] an HFT order acked while the stream is trusted must appear on it within this long (a message that came before the create answer counts), else the stream is declared silent (reconnect, HFT polling meanwhile, reconcile); 0 = off",
  },
  {
    path: "streams.hftAuditIntervalMs",
    type: int(0, 3_600_000),
    def: 30_000,
    doc: "audit of HFT while the HFT stream is trusted: its open list and executions this often instead of every pollIntervalMs (0 = never)",
  },
  {
    path: "streams.auditIntervalMs",
    type: int(0, 600_000),
    def: 2_000,
    doc: "audit of a surface whose push stream is trusted (Spot; HFT has its own): re-read its open-order list this often to catch a lost message; also the pace of a live-polled surface holding no live orders, never faster than pollIntervalMs (0 = off)",
  },
  // market data (public feeds for risk and strategies)
  {
    path: "streams.hftPublic.enabled",
    type: bool,
    def: true,
    doc: "consume the HFT public NATS subjects ltp, depth-update and ticker (same URL as streams.hftNats; for venue sim only when a nats-server runs for it): they feed the HFT reference prices (the tickers poll is then only the fallback) and strategies' market data",
  },
  {
    path: "marketData.enabled",
    type: bool,
    def: true,
    doc: "serve market data subscriptions (Subscribe/Unsubscribe) to strategies",
  },
  {
    path: "marketData.maxSubscriptionsPerSession",
    type: int(1, 10_000),
    def: 64,
    doc: "instruments one connection may subscribe at once (more: SubscribeReject 121)",
  },
  {
    path: "marketData.maxBufferedBytes",
    type: int(1_024, 64 * 1024 * 1024),
    def: 256 * 1024,
    doc: "unsent bytes of a connection above which its market data pauses (MarketDataStatus SlowConsumer, a new snapshot once drained); orders are never held back by it",
  },
  {
    path: "marketData.staleMs",
    type: int(0, 600_000),
    def: 15_000,
    doc: "an instrument whose venue book has been silent this long counts as stale (MarketDataStatus Stale; HFT reference prices fall back to the tickers poll); 0 = never",
  },
  {
    path: "marketData.candleGraceMs",
    type: int(0, 60_000),
    def: 2_000,
    doc: "candles the gateway builds from trades (HFT) close this long after their minute ends when no later trade closed them",
  },
  {
    path: "engine.stateFile",
    type: str(),
    def: "var/gateway.json",
    doc: "where `hftgate start` writes the command API URL and token (mode 0600) for `hftgate demo`",
  },
  {
    path: "engine.inlining",
    type: oneOf("wide", "v8"),
    def: "wide",
    doc: "V8's inlining budget, set process-wide at engine start: `wide` lets the optimizer fuse more of the order path into its callers (docs/benchmarks.md), `v8` leaves V8's flags as the process has them",
  },
  {
    path: "engine.replayJournal",
    type: bool,
    def: true,
    doc: "at start, replay the journal directory to rebuild orders, then reconcile with the venue",
  },
  {
    path: "sim.tickMs",
    type: int(0, 60_000),
    def: 250,
    doc: "simulator synthetic market step interval when embedded (0 = frozen)",
  },
  // bus (src/bus, docs/bus.md): off unless bus.nats.servers is set
  {
    path: "bus.nats.servers",
    type: { kind: "list" },
    def: [],
    doc: "NATS servers of the bus (host:port, comma-separated in the environment); empty = the bus is off",
  },
  { path: "bus.nats.user", type: str(true), def: null, doc: "NATS user of this gateway on the bus" },
  {
    path: "bus.nats.password",
    type: str(true, true),
    def: null,
    doc: "NATS password of this gateway's bus user; prefer the environment variable",
  },
  {
    path: "bus.account",
    type: str(),
    def: "default",
    doc: "this gateway's account name on the bus (one subject token: letters, digits, _ and -)",
  },
  { path: "bus.sessions", type: bool, def: true, doc: "serve remote strategy sessions over NATS" },
  {
    path: "bus.maxConnections",
    type: int(1, 100_000),
    def: 1024,
    doc: "remote connections open at once; a new one beyond it is refused",
  },
  {
    path: "bus.control",
    type: bool,
    def: true,
    doc: "answer the admin control plane (status, kill, trading state)",
  },
  { path: "bus.dropCopy.enabled", type: bool, def: true, doc: "publish the drop copy to JetStream" },
  {
    path: "bus.dropCopy.replicas",
    type: int(1, 5),
    def: 1,
    doc: "replicas of the account's drop-copy stream (3 on a 3-node cluster)",
  },
  {
    path: "bus.dropCopy.maxAgeMs",
    type: int(0, 365 * MS_DAY),
    def: 7 * MS_DAY,
    doc: "drop-copy retention by age (0 = keep) [assumed: one week]",
  },
  {
    path: "bus.dropCopy.maxMsgs",
    type: int(-1, 2 ** 40),
    def: -1,
    doc: "drop-copy retention by count (-1 = no limit; the oldest go first)",
  },
  {
    path: "bus.dropCopy.dedupWindowMs",
    type: int(1000, MS_DAY),
    def: 120_000,
    doc: "JetStream de-duplication window of the drop-copy stream",
  },
  {
    path: "bus.dropCopy.maxPending",
    type: int(1000, 100_000_000),
    def: 1_000_000,
    doc: "drop-copy events held unpublished (memory + spool) while NATS is away; beyond it new ones are counted as lost",
  },
  {
    path: "bus.dropCopy.spoolDir",
    type: str(),
    def: "var/dropcopy",
    doc: "the drop copy's on-disk buffer (journal format, owner-only); keep it per account",
  },
  // FIX 4.4 acceptor (src/fix, docs/fix.md): off unless fix.port is 0 or more
  {
    path: "fix.port",
    type: int(-1, 65535),
    def: -1,
    doc: "FIX 4.4 acceptor port (-1 = off, 0 = ephemeral)",
  },
  { path: "fix.host", type: str(), def: "127.0.0.1", doc: "FIX acceptor address" },
  { path: "fix.compId", type: str(), def: "HFTGATE", doc: "the gateway's CompID (clients' TargetCompID)" },
  {
    path: "fix.sessions",
    type: { kind: "list" },
    def: [],
    doc: "allowed FIX sessions as `<SenderCompID>:<hex Ed25519 public key>`; the SenderCompID is the session name",
  },
  {
    path: "fix.dropCopy",
    type: { kind: "list" },
    def: [],
    doc: "SenderCompIDs (among fix.sessions) that are drop-copy sessions: every report of the account, no orders",
  },
  {
    path: "fix.requirePassword",
    type: bool,
    def: false,
    doc: "the Logon must also carry the gateway token in Password(554)",
  },
  {
    path: "fix.maxSkewMs",
    type: int(1000, 3_600_000),
    def: 60_000,
    doc: "largest difference between a Logon's SendingTime and the gateway's clock",
  },
  {
    path: "fix.storeDir",
    type: str(),
    def: "",
    doc: "FIX sessions' sequence and message store (empty = `fix` beside the journal, or var/fix without one)",
  },
  {
    path: "fix.resendKeep",
    type: int(16, 10_000_000),
    def: 100_000,
    doc: "messages per FIX session kept for ResendRequest; older ones are gap-filled",
  },
  { path: "fix.tls.cert", type: str(true), def: null, doc: "PEM certificate file: the acceptor speaks TLS" },
  { path: "fix.tls.key", type: str(true), def: null, doc: "PEM private key file of fix.tls.cert" },
  // telemetry
  {
    path: "log.level",
    type: oneOf("trace", "debug", "info", "warn", "error", "fatal", "silent"),
    def: "info",
    doc: "log level",
  },
  {
    path: "log.pretty",
    type: oneOf("auto", "true", "false"),
    def: "auto",
    doc: "pretty logs in a terminal when pino-pretty is installed",
  },
] as const satisfies readonly Knob[];

/** The knob table, for iteration. */
export const KNOBS: readonly Knob[] = TABLE;
/** The table's literal type: `Config` is derived from it (load.ts). */
export type KnobTable = typeof TABLE;

/** The value a knob of this type holds once loaded. */
type ValueOf<T> = T extends { kind: "int" | "number" }
  ? number
  : T extends { kind: "bool" }
    ? boolean
    : T extends { kind: "enum"; values: readonly (infer V)[] }
      ? V
      : T extends { kind: "list"; values: readonly (infer V)[] }
        ? V[]
        : T extends { kind: "list" }
          ? string[]
          : T extends { kind: "string"; nullable: true }
            ? string | null
            : string;
/** `"a.b.c"` with value V → `{ a: { b: { c: V } } }`. */
type Nest<P extends string, V> = P extends `${infer H}.${infer R}`
  ? { [K in H]: Nest<R, V> }
  : { [K in P]: V };
type Intersect<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type Flat<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]: Flat<T[K]> } : T;

/** The configuration type of a knob table: one nested field per knob path, typed by its knob type. */
export type ConfigOf<Table extends readonly Knob[]> = Flat<
  Intersect<
    Table[number] extends infer E ? (E extends Knob ? Nest<E["path"], ValueOf<E["type"]>> : never) : never
  >
>;

/** `gateway.maxBufferedBytes` -> `HFTGATE_GATEWAY_MAX_BUFFERED_BYTES`. */
export function envName(path: string): string {
  return (
    "HFTGATE_" +
    path
      .split(".")
      .map((p) => p.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase())
      .join("_")
  );
}
