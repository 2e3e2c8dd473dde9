/**
 * Every venue fact the project assumes (marked `[assumed]` in the docs and the code) as one table:
 * what is assumed, the knobs that change it, how to verify it live. `hftgate preflight --assumptions`
 * prints it and docs/going-live.md holds the same text; test/preflight/assumptions.test.ts keeps both
 * honest: every `[assumed]` mark in README, docs and code falls under a row (its `marks` match the
 * mark's line or its neighbours), every row still has a mark, every knob exists in the config schema,
 * and every preflight check named verifies the row. The preflight checks that confirm a row list its
 * id (`verifies` in checks.ts).
 */

export interface Assumption {
  readonly id: string;
  /** What is assumed, in a sentence or two. */
  readonly fact: string;
  /** Config knobs (schema paths) that change it; empty when it is not configurable. */
  readonly knobs: readonly string[];
  /** How to verify it on the live venue (after any preflight check that does). */
  readonly verify: string;
  /** Catalogue endpoints flagged `assumed` that this row covers. */
  readonly endpoints?: readonly string[];
  /** What a mark about this fact says (matched, case-insensitive, against the mark's line and its neighbours). */
  readonly marks: readonly RegExp[];
}

export const ASSUMPTIONS: readonly Assumption[] = [
  {
    id: "clock-drift",
    fact: "`X-AUTH-EPOCH` is the current time in ms; the venue accepts an epoch within 60 s of its clock (5 s recommended, 5–60 s accepted) and checks HFT like Spot (its docs disagree); epochs floored to 50 ms (`signing.epochStepMs`) are inside that window.",
    knobs: ["clock.warnMs", "clock.refuseMs", "signing.epochPolicy", "signing.epochStepMs"],
    verify: "offset and round trip measured; keep the host on NTP",
    marks: [/drift|epoch|header as the current time|seconds of drift|the window/i],
  },
  {
    id: "hft-time",
    fact: "`GET /v5/market/time` carries `timeNano` / `timeSecond` in `result` (Bybit v5), else the envelope's `time`.",
    knobs: [],
    verify: "the HFT time offset is printed beside the Spot one",
    marks: [/market\/time|timeNano/i],
  },
  {
    id: "auth-401",
    fact: "A 401 answer to a create is a definite reject (the venue did not authenticate it, so it placed nothing); a 400 means a missing epoch only when its text says so; a Spot request without an epoch gets 401.",
    knobs: [],
    verify:
      "not by preflight (it sends nothing that could be placed); watch `Reject 404 ClockSkew` / `400 VenueRejected` counts in the first hour",
    marks: [/\b401\b|mentions the epoch|missing epoch|without `?X-AUTH-EPOCH/i],
  },
  {
    id: "hft-market-signed",
    fact: "HFT market-data endpoints (`/v5/market/*`) are signed like the private ones (the simulator also serves them unsigned).",
    knobs: [],
    verify: "instruments load signed",
    marks: [/market-data endpoints are signed|market\/\*|HFT market-data/i],
  },
  {
    id: "hft-entitlement",
    fact: "A key without HFT gets `retCode 10005` (permission denied) on signed `/v5` and `/dma` calls; market data stays public.",
    knobs: ["venue.surfaces"],
    verify: "a signed HFT read is accepted",
    marks: [/HFT is not enabled|entitled/i],
  },
  {
    id: "options-allowlist",
    fact: "An options call from a key not on the allowlist is `retCode 10005`; option market data is public; option symbols look like `BTC-26DEC26-70000-C` (Bybit).",
    knobs: ["venue.hftCategories"],
    verify: "a signed options read is accepted (required when `option` is configured)",
    marks: [
      /allowlist|10005|option symbols|BTC-26DEC26|option market data|permission denied|premium in USDT/i,
    ],
  },
  {
    id: "hft-cancel",
    fact: "HFT cancel is Bybit-v5 style: `POST /v5/order/cancel` `{category, symbol, orderId | orderLinkId}`, answered `{orderId, orderLinkId}`, single phase (the order is Cancelled at once).",
    knobs: ["venue.hftCancelPath"],
    verify: "the first live order: cancel it and see `Cancelled` (docs/going-live.md, first live order)",
    endpoints: ["hft.cancelOrder"],
    marks: [/\/v5\/order\/cancel|cancel path|v5 cancel|cancelEnabled|HFT order is cancelled/i],
  },
  {
    id: "hft-amend",
    fact: "HFT amend is Bybit-v5 style: `POST /v5/order/amend` naming the order by `orderId`, `qty` the new total; an amended order loses its time priority; it spends a create's rate-limit token.",
    knobs: ["venue.hftAmendPath", "venue.hftAmendBy"],
    verify: "amend one resting order in the first hour and see the new price on `/v5/order/realtime`",
    endpoints: ["hft.amendOrder"],
    marks: [/amend/i],
  },
  {
    id: "hft-wallet",
    fact: "`GET /v5/account/wallet-balance` exists on the HFT host with the Bybit v5 answer (third parties report it).",
    knobs: [],
    verify: "not used for trading; `curl` it signed (`hftgate sign`) if you rely on it",
    endpoints: ["hft.walletBalance"],
    marks: [/wallet-balance|wallet balance/i],
  },
  {
    id: "v5-records",
    fact: 'HFT records follow the Bybit v5 model: `/v5/order/realtime`, `/v5/execution/list` (`execTime`, `isMaker`), `/v5/market/instruments-info`, `/v5/position/list`, `/v5/market/tickers` fields; IOC/FOK remainders `PartiallyFilledCanceled`, `Rejected`; lists page with `cursor` / `nextPageCursor` ("" on the last page, 50 a page).',
    knobs: [],
    verify:
      "instruments parse; the first live order's updates and fills read cleanly (`hftgate_stream_records_invalid_total` stays 0)",
    marks: [
      /Bybit-v5 model|Bybit-style\] (IOC|rejected)|nextPageCursor|execTime|execution\/list|instruments-info|position\/list|tickers|page size|pageSize/i,
    ],
  },
  {
    id: "v5-errors",
    fact: "HFT refusals are HTTP 200 with a non-zero `retCode` (Bybit style), auth failures HTTP 401; codes: 110001 order not found, 110007 margin, 10006 rate limit (with 429), 10016 server error, 110025 switch mode, 131001 transfer.",
    knobs: [],
    verify: "rejects in the first hour show the venue's code and text in the log (`venue rejected`)",
    marks: [
      /retCode|110001|110007|110025|131001|10006|10016|codes for cases|not found \/ not|insufficient|duplicate orderLinkId|qty not a multiple|inside a 200 envelope|HFT errors/i,
    ],
  },
  {
    id: "hft-realtime-window",
    fact: "`/v5/order/realtime` keeps closed orders for hours (6 h in the simulator), long enough to cover every order the gateway still tracks.",
    knobs: ["streams.hftAuditIntervalMs"],
    verify: "after a restart in the first hour, the recovery resolves every order it held (log `restart`)",
    marks: [/closedVisible|realtime. window|last few hours|closed orders stay/i],
  },
  {
    id: "hft-position-idx",
    fact: "`positionIdx` is optional on HFT create (0, one-way mode); the docs disagree.",
    knobs: [],
    verify: "the first live HFT order is accepted",
    marks: [/positionIdx/i],
  },
  {
    id: "hft-funding",
    fact: "The HFT account holds margin before the first order (the venue opens it at the first funds transfer); the transfer answer is enveloped like `/v5`.",
    knobs: [],
    verify: "fund the HFT account before the first order (CoinSwitch's HFT onboarding)",
    marks: [/startingMargin|pre-funded|transfer|enveloped like/i],
  },
  {
    id: "nats-auth",
    fact: "The socket credential `{api_key, expires, signature}` goes into the NATS CONNECT as `user` = api_key, `pass` = signature (the venue does not publish the mapping).",
    knobs: ["streams.hftNats.auth"],
    verify: "each mapping is tried; the one the server accepts is recommended",
    marks: [/auth mapping|CONNECT|userPass|hftNats\.auth/i],
  },
  {
    id: "nats-credential",
    fact: "`/dma/api/v1/socket/signature` answers a bare `{api_key, expires, signature}` with `expires` in Unix ms, a new `api_key` per issuance.",
    knobs: ["streams.hftNats.credentialTtlS"],
    verify: "a credential is fetched and parsed",
    marks: [/expires|WebSocket key per issuance/i],
  },
  {
    id: "nats-payloads",
    fact: "Private HFT messages: `.order` carries a `/v5/order/realtime` record, `.trade` a `/v5/execution/list` row, each with `sub_account_id` (a stable id); the wildcard subscription is allowed so the id can be learned.",
    knobs: ["streams.hftNats.subAccountId"],
    verify:
      "after the first live HFT order, `hftgate_hft_stream_messages_total` grows and the log says `HFT sub-account id learned from the stream`",
    marks: [/payload|sub-account|sub_account|subAccountIdOf|wildcard|order message carries/i],
  },
  {
    id: "nats-exec-wait",
    fact: "A private `.order` message runs at most 250 ms ahead of its `.trade` messages.",
    knobs: ["streams.hftNats.execWaitMs"],
    verify: 'fills in the first hour carry maker/taker, not "unknown"',
    marks: [/execWaitMs|ahead of its executions|order message and its/i],
  },
  {
    id: "nats-echo",
    fact: "The venue publishes an order's `New` on its creation, within 5 s of the create answer.",
    knobs: ["streams.hftNats.echoTimeoutMs"],
    verify: "`hftgate_hft_stream_silent_trips_total` stays 0 in the first hour",
    marks: [/echoTimeoutMs|appear on (it|the stream)/i],
  },
  {
    id: "nats-public",
    fact: "Public HFT subjects (`ltp`, `depth-update`, `ticker`) need no credential; payloads `{p, q, S, E}`, `{b, a, E}` (full top-of-book), `{lastPrice, E}` with the aliases docs/streams.md lists.",
    knobs: ["streams.hftPublic.enabled"],
    verify:
      "a connection without a credential is accepted; after start, HFT reference prices come from the stream (`/health`)",
    marks: [/public subjects|without a credential|public\.futures|\bltp\b|depth-update|lastPrice/i],
  },
  {
    id: "spot-streams",
    fact: "Spot private streams: order updates are Spot order records, balance updates `{balances, timestamp}` (also once on subscribe); no subscribe acknowledgement is needed; an unknown key gets no data; the server pings at Socket.IO's 25 s default.",
    knobs: ["streams.staleMs"],
    verify:
      "the order-updates subscription is tried with the key; after start, `spot.orders` is up on `/health`",
    marks: [
      /FETCH_BALANCE_UPDATES|balance (update|payload)|acknowledg|unknown keys get no data|unregistered key|socket\.io default|snapshot right after subscribing|order-update payloads|private-stream payloads/i,
    ],
  },
  {
    id: "spot-market-data",
    fact: "Spot market data: trade prints `{E, p, q, s, m}` (`m` = the buyer was the maker), candles `{o, h, l, c, v, s, t}` like the Futures klines, REST ticker and trades field lists as the simulator serves them.",
    knobs: ["risk.spotReferenceStream"],
    verify: "after start, Spot books and prints arrive (`top`, market data)",
    marks: [
      /candle|kline|trade prints|trades socket|24 h statistics|24hr\/ticker|GET \/trades|Binance-style|buyer was the maker|taker was the seller/i,
    ],
  },
  {
    id: "spot-records",
    fact: "Spot order records: `client_order_id` echoed under that key, `status` upper case, lists wrapped as `{data: {orders}}`, cancel answers `{data: <record>}`; a record without `average_price` is priced at the limit; `tradeInfo` gives no quantity bounds (one step minimum) and all exchanges when none is named; numbers may be strings.",
    knobs: [],
    verify:
      "instruments load; the first live Spot order's ack and updates read cleanly (`hftgate_stream_records_invalid_total` stays 0)",
    marks: [
      /client_order_id|average_price|wrapper key|active status|quantity bounds|one step minimum|upper case|order record|exchange optional|all when omitted|lenient|no average|cancel response|Spot cancel answer/i,
    ],
  },
  {
    id: "not-found-404",
    fact: '`GET /order` (Spot and Futures) answers 404 for an order the venue does not have, which the gateway reads as "never placed"; an acked order a query cannot find is escalated, not cancelled.',
    knobs: ["orders.unknownQueryRetries", "orders.unknownQueryIntervalMs"],
    verify: "not by preflight (needs an order id); `hftgate_resolution_escalations_total` stays 0",
    marks: [/\b404\b|never placed|cannot find/i],
  },
  {
    id: "cancel-raised",
    fact: 'A Spot cancel answered "accepted" means `CANCELLATION_RAISED` (fills may still come); records keep `*_RAISED` until final; a repeated cancel while raised is answered with the same record; the final `Cancelled` comes from a stream or a query.',
    knobs: [],
    verify: "the first live Spot order: cancel it and see `CancellationRaised` then `Cancelled`",
    marks: [
      /CANCELLATION_RAISED|CancellationRaised|cancel "accepted"|repeated cancel|final Cancelled|cancel answer of/i,
    ],
  },
  {
    id: "lists",
    fact: "One Spot open list (500, newest first) holds every open order of the account; closed lists are capped at 500.",
    knobs: [],
    verify: "keep fewer than 500 open Spot orders per account",
    marks: [/\b500\b|newest first|open list/i],
  },
  {
    id: "spot-expiry",
    fact: "`expiry_period` defaults to 90 s and is bounded (30 days in the simulator).",
    knobs: ["orders.spotExpirySeconds"],
    verify: "a resting Spot order ends `Expired` after `orders.spotExpirySeconds`",
    marks: [/expiry_period|maxExpirySec|defaultExpirySec|expiry/i],
  },
  {
    id: "venue-rejects",
    fact: "Spot validation failures are 4xx (400, or 422) and final; a create refused before it reached the venue is retryable, one the venue refused is not; rejected creates are 4xx answers, never `DISCARDED` records.",
    knobs: [],
    verify: "rejects in the first hour carry the venue's text (`Reject 400 VenueRejected`)",
    marks: [/validationStatus|400 or 422|refused before it reached|DISCARDED|4xx answers/i],
  },
  {
    id: "duplicate-client-id",
    fact: "A repeated client id (`client_order_id`, `orderLinkId`) returns the same order, unchanged.",
    knobs: [],
    verify: "not by preflight; the gateway never re-sends a create under a new id (docs/orders.md)",
    marks: [/repeated `?(client_order_id|orderLinkId)|same order/i],
  },
  {
    id: "rate-limits",
    fact: "Rate limits: fixed windows per API key; the Spot cancel shares the create bucket (100 / 10 s), other Spot endpoints 100 / 10 s; HFT 50 / 1 s per class (the venue publishes no number); windows lengthened by a 50 ms margin.",
    knobs: ["limits.enabled", "limits.createWaitMs", "limits.cancelWaitMs"],
    verify:
      "rate-limit headers are reported when the venue sends any; `hftgate_ratelimit_credit` never reaches 0 in the first hour",
    marks: [
      /bucket|rate[- ]limit|limiters|spot\.other|hft\.(order|query|other)|publishes no (number|cancel)|fixed.window|cancel sharing it|\[assumed 50 ms\]|W ms apart|what a create spends|clock is not ours/i,
    ],
  },
  {
    id: "futures-api",
    fact: "Futures v2 beyond place / get order: cancel `DELETE /trade/api/v2/futures/order` `{exchange, order_id}`, `open_orders` / `closed_orders`, `instrument_info`, `ticker`; records with every number a string; `RAISED` also when partly filled; no private stream, so the open list is polled (20 reads a minute allowed).",
    knobs: ["venue.surfaces", "venue.futuresCancelPath", "venue.futuresPollMs"],
    verify: "a signed Futures read is accepted and Futures instruments load (when `futures` is configured)",
    endpoints: [
      "futures.cancelOrder",
      "futures.cancelAll",
      "futures.openOrders",
      "futures.closedOrders",
      "futures.positions",
      "futures.leverage",
      "futures.updateLeverage",
      "futures.addMargin",
      "futures.walletBalance",
      "futures.transactions",
      "futures.instruments",
      "futures.depth",
      "futures.ticker",
      "futures.tickerAll",
      "futures.klines",
      "futures.trades",
    ],
    marks: [
      /futures|RAISED|instrument_info|open_orders|EXCHANGE_2|mirrors Spot|open-list reads|place order and get order|24 h ticker rows/i,
    ],
  },
  {
    id: "order-flags",
    fact: "The venue supports reduce-only and post-only on the orders that carry the flags.",
    knobs: [],
    verify: "send one post-only order in the first hour if you use the flag",
    marks: [/post-only|reduce-only/i],
  },
  {
    id: "position-snapshot",
    fact: "A `/v5/position/list` snapshot taken just before a fill does not yet contain it (a fill it already contains is counted twice until the next snapshot).",
    knobs: [],
    verify: "positions on `top` match the venue's after the first fills",
    marks: [/snapshot/i],
  },
  {
    id: "sim-market",
    fact: "The simulator's instruments, grids, fees, TDS and synthetic market only look like the venue's; the gateway reads grids and bounds from the venue at start.",
    knobs: [],
    verify: "nothing to verify on the venue: instruments load from it",
    marks: [/grids|tdsRate|\bTDS\b|All values|no margin model|real venue's/i],
  },
  {
    id: "fsync",
    fact: "After a failed `fdatasync` the kernel may have dropped the dirty pages, so a later one succeeding proves nothing about the earlier writes.",
    knobs: ["journal.fsync"],
    verify: "not a venue fact; a journal write failure halts and shows on `/health`",
    marks: [/fdatasync/i],
  },
  {
    id: "local-defaults",
    fact: "Defaults of the gateway's own where nothing is published: a disconnected session stays resumable one day, at most 256 retained; the drop copy keeps one week; the REST client's default address is the local simulator's.",
    knobs: [
      "gateway.sessionRetentionMs",
      "gateway.maxRetainedSessions",
      "bus.dropCopy.maxAgeMs",
      "venue.spotBaseUrl",
    ],
    verify: "choose them for the desk; not venue facts",
    marks: [/one day|longest idle|one week|retention by age|DEFAULT_BASE_URL|simulator's default address/i],
  },
];

/** The table as docs/going-live.md holds it (`hftgate preflight --assumptions` prints it). */
export function assumptionTable(verifiedBy: (id: string) => readonly string[]): string {
  const cell = (s: string): string => s.replace(/\|/g, "\\|");
  const rows = ASSUMPTIONS.map((a) => {
    const knobs = a.knobs.length > 0 ? a.knobs.map((k) => `\`${k}\``).join(", ") : "—";
    const checks = verifiedBy(a.id);
    const how =
      checks.length > 0 ? `preflight ${checks.map((c) => `\`${c}\``).join(", ")}: ${a.verify}` : a.verify;
    return `| \`${a.id}\` | ${cell(a.fact)} | ${knobs} | ${cell(how)} |`;
  });
  return [
    "| id | what we assume | configurable | how to verify it live |",
    "|---|---|---|---|",
    ...rows,
  ].join("\n");
}
