/**
 * The venue's run-time account reads a strategy needs (trading fee, trade info, TDS, portfolio),
 * answered by the gateway with its own keys: the strategy never holds a second key. Each read is a
 * catalogue endpoint with the query parameters it accepts and the rate class it spends; the answer is
 * the venue's `data`, untouched.
 */

import type { HttpReply } from "../gateway/engineApi.js";
import type { LimitClass, RateLimiter } from "../limits/index.js";
import type { EndpointId } from "../rest/catalogue.js";
import type { RestClient } from "../rest/client.js";
import {
  AuthError,
  InvalidRequestError,
  NetworkError,
  OutcomeUnknownError,
  RateLimitedError,
  ValidationError,
} from "../rest/errors.js";

interface ReadSpec {
  readonly endpoint: EndpointId;
  readonly cls: LimitClass;
  /** Query parameters passed through (anything else is refused). */
  readonly params: readonly string[];
  readonly required?: readonly string[];
}

/** The reads, by the name in `GET /v1/venue/<name>`. */
export const VENUE_READS: Readonly<Record<string, ReadSpec>> = {
  tradingFee: {
    endpoint: "spot.tradingFee",
    cls: "spot.other",
    params: ["exchange"],
    required: ["exchange"],
  },
  tradeInfo: { endpoint: "spot.tradeInfo", cls: "spot.other", params: ["exchange", "symbol"] },
  tds: { endpoint: "spot.tds", cls: "spot.tds", params: [] },
  portfolio: { endpoint: "spot.portfolio", cls: "spot.portfolio", params: [] },
};

const PARAM_VALUE = /^[A-Za-z0-9/_,.-]{1,40}$/;
const JSON_CT = "application/json";

function reply(status: number, body: unknown): HttpReply {
  return { status, contentType: JSON_CT, body: JSON.stringify(body) };
}

function error(
  status: number,
  kind: string,
  message: string,
  extra: Record<string, unknown> = {},
): HttpReply {
  return reply(status, { error: { kind, message, ...extra } });
}

/** One read: validated at the edge, rate-limited like any gateway request, signed by the gateway. */
export async function venueRead(
  client: RestClient,
  limiter: RateLimiter | undefined,
  name: string,
  query: URLSearchParams,
): Promise<HttpReply> {
  const spec = Object.hasOwn(VENUE_READS, name) ? VENUE_READS[name] : undefined;
  if (spec === undefined)
    return error(
      404,
      "UnknownRead",
      `no venue read ${JSON.stringify(name.slice(0, 40))}; known: ${Object.keys(VENUE_READS).join(", ")}`,
    );
  const q: [string, string][] = [];
  for (const [k, v] of query) {
    if (!spec.params.includes(k))
      return error(400, "BadParameter", `${name} takes no parameter ${JSON.stringify(k.slice(0, 40))}`);
    if (!PARAM_VALUE.test(v))
      return error(400, "BadParameter", `${k}: 1-40 characters of A-Z a-z 0-9 / _ , . -`);
    q.push([k, v]);
  }
  for (const r of spec.required ?? [])
    if (!query.has(r)) return error(400, "BadParameter", `${name} needs ${r}`);
  const lim = limiter?.acquire(spec.cls, "query", 0);
  if (lim !== undefined && lim.status !== "granted") {
    if (lim.status === "queued") lim.withdraw();
    const after = lim.status === "rejected" ? lim.retryAfterMs : 1000;
    return error(429, "RateLimited", `the gateway's ${spec.cls} budget is spent`, { retryAfterMs: after });
  }
  try {
    const data = await client.call(spec.endpoint, q);
    limiter?.reportOutcome(spec.cls, 200);
    return reply(200, { data });
  } catch (err) {
    const status = (err as { status?: number }).status ?? 0;
    if (status > 0) limiter?.reportOutcome(spec.cls, status);
    const msg = (err as Error).message;
    if (err instanceof RateLimitedError)
      return error(429, "VenueRateLimited", msg, { retryAfterMs: err.retryAfterMs ?? 1000 });
    if (err instanceof ValidationError) return error(400, "VenueRejected", err.exchangeMessage || msg);
    if (err instanceof InvalidRequestError) return error(400, "BadParameter", msg);
    if (err instanceof AuthError) return error(502, "VenueAuth", msg);
    if (err instanceof OutcomeUnknownError || err instanceof NetworkError)
      return error(503, "VenueUnavailable", msg);
    return error(502, "VenueError", msg);
  }
}
