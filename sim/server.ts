/**
 * The HTTP front: one node:http (or https) server serving both surfaces. Per request: count, route,
 * fault decision, body, authentication, rate limit, handler, then the fault outcome (answer, late answer, hang,
 * reset or 5xx). Routes are a precomputed map keyed by `METHOD path`.
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import { V5_RET } from "../src/venue/hft/retCodes.js";
import type { Verifier } from "./auth.js";
import type { SimOptions } from "./config.js";
import type { Exchange } from "./exchange.js";
import type { FaultDecision, Faults } from "./faults.js";
import type { FixedWindowLimiter } from "./fixedWindowLimiter.js";
import { FUTURES_ROUTES } from "./futures.js";
import { hftRoutes } from "./hft.js";
import { CREATE_CLIENT_ID, LateCreates, QUERY_CLIENT_ID } from "./lateCreates.js";
import { message, type Reply, type Req, type RouteDef, v5Err } from "./reply.js";
import { SPOT_ROUTES } from "./spot.js";

const JSON_HEADERS = { "content-type": "application/json" };
const MAX_BODY = 64 * 1024;
const EMPTY_QUERY = new Map<string, string>();
const EMPTY_BODY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

export interface Counters {
  /** Requests received per endpoint key `METHOD /path` (counted on arrival, before auth). */
  requests: Map<string, number>;
  total: number;
  /** Responses by HTTP status. */
  statuses: Map<number, number>;
}

export interface Front {
  server: http.Server;
  counters: Counters;
  /** Responses held back by the timeout and slowAnswer faults; released (destroyed) at stop. */
  hanging: Set<ServerResponse>;
  /** Creates held by the lateCreate fault. */
  late: LateCreates;
}

export interface FrontDeps {
  opts: SimOptions;
  exchange: Exchange;
  verifier: Verifier;
  limiter: FixedWindowLimiter;
  faults: Faults;
  serverNow: () => number;
}

export function createFront(d: FrontDeps): Front {
  const routes = new Map<string, RouteDef>();
  for (const r of [...SPOT_ROUTES, ...hftRoutes(d.opts.hft.cancelEnabled), ...FUTURES_ROUTES])
    routes.set(`${r.method} ${r.path}`, r);
  const counters: Counters = { requests: new Map(), total: 0, statuses: new Map() };
  const hanging = new Set<ServerResponse>();
  const late = new LateCreates(d.exchange.clock);

  const send = (res: ServerResponse, reply: Reply): void => {
    if (res.destroyed) return; // handled for a client that went away (fault `abandoned: "handle"`)
    counters.statuses.set(reply.status, (counters.statuses.get(reply.status) ?? 0) + 1);
    res.writeHead(reply.status, JSON_HEADERS);
    res.end(reply.body);
  };

  /** A handled request's answer (a socket credential's once the NATS server holds it). */
  const answer = (res: ServerResponse, reply: Reply): void => {
    if (reply.ready === undefined) send(res, reply);
    else
      reply.ready.then(
        () => send(res, reply),
        () => send(res, message(503, "socket credential could not be installed")),
      );
  };

  const handle = (
    req: IncomingMessage,
    res: ServerResponse,
    rawTarget: string,
    path: string,
    endpoint: string,
    body: string,
  ): void => {
    const route = routes.get(endpoint);
    const hft = path.startsWith("/v5/") || path.startsWith("/dma/");
    if (route === undefined) {
      send(
        res,
        hft
          ? v5Err(404, `unknown endpoint ${endpoint}`, d.serverNow(), 404)
          : message(404, `Not Found: ${endpoint}`),
      );
      return;
    }
    const decision = d.faults.decide(endpoint);
    if (decision.outcome === "rate429") {
      send(
        res,
        hft
          ? v5Err(10006, "Too many visits (injected)", d.serverNow(), 429)
          : message(429, "Too many requests (injected)"),
      );
      return;
    }
    if (decision.delayMs > 0) {
      setTimeout(() => run(req, res, rawTarget, path, route, hft, body, decision), decision.delayMs);
    } else run(req, res, rawTarget, path, route, hft, body, decision);
  };

  const run = (
    req: IncomingMessage,
    res: ServerResponse,
    rawTarget: string,
    path: string,
    route: RouteDef,
    hft: boolean,
    body: string,
    decision: FaultDecision,
  ): void => {
    if (res.destroyed && decision.handleAbandoned !== true) return;
    const { outcome, status } = decision;
    let account = null;
    const hasKey = req.headers["x-auth-apikey"] !== undefined;
    if (route.auth === "required" || (route.auth === "optional" && hasKey)) {
      const a = d.verifier.verify(req.method!, rawTarget, req.headers, hft);
      if (!a.ok) {
        send(
          res,
          a.status === 400 && hft
            ? v5Err(10001, a.message, d.serverNow(), 400)
            : message(a.status, a.message),
        );
        return;
      }
      account = a.account;
    }
    const now = d.serverNow();
    if (hft && route.auth === "required" && !d.opts.hft.entitled) {
      send(res, v5Err(V5_RET.NOT_ALLOWLISTED, "permission denied: HFT is not enabled for this API key", now));
      return;
    }
    if (
      route.bucket !== "" &&
      !d.limiter.take(route.bucket, account?.apiKey ?? "-", d.exchange.clock.now())
    ) {
      send(res, hft ? v5Err(10006, "Too many visits", now, 429) : message(429, "Too many requests"));
      return;
    }
    let parsed = EMPTY_BODY;
    // GET bodies (legacy samples send `{}`) are tolerated and ignored.
    if (body !== "" && req.method !== "GET") {
      let v: unknown;
      try {
        v = JSON.parse(body);
      } catch {
        send(
          res,
          hft
            ? v5Err(10001, "request body is not valid JSON", now)
            : message(400, "request body is not valid JSON"),
        );
        return;
      }
      if (v === null || typeof v !== "object" || Array.isArray(v)) {
        send(
          res,
          hft
            ? v5Err(10001, "request body must be a JSON object", now)
            : message(400, "request body must be a JSON object"),
        );
        return;
      }
      parsed = v as Record<string, unknown>;
    }
    const q = rawTarget.indexOf("?");
    let query = EMPTY_QUERY;
    if (q !== -1) {
      query = new Map();
      for (const [k, v] of new URLSearchParams(rawTarget.slice(q + 1))) query.set(k, v);
    }
    const ctx: Req = {
      method: req.method!,
      path,
      query,
      body: parsed,
      account,
      exchange: d.exchange,
      serverNow: now,
    };
    const endpoint = `${ctx.method} ${path}`;
    if (outcome === "lateCreate") {
      const cid = parsed[CREATE_CLIENT_ID[endpoint]!];
      const land = (): void => {
        const reply = route.handler({ ...ctx, serverNow: d.serverNow() });
        hanging.delete(res);
        if (!res.destroyed && !res.writableEnded) send(res, reply);
      };
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      const owner = account?.apiKey ?? "-";
      const surface = hft ? "hft" : "spot";
      late.hold(
        owner,
        surface,
        typeof cid === "string" ? cid : "",
        res,
        land,
        decision.queries ?? 1,
        decision.holdMs,
      );
      return;
    }
    const reply = route.handler(ctx);
    switch (outcome) {
      case "normal": {
        const answerDelayMs = decision.answerDelayMs ?? 0;
        if (answerDelayMs > 0) {
          // slowAnswer: handled (the streams have published it), the answer held back.
          hanging.add(res);
          setTimeout(() => {
            hanging.delete(res);
            if (!res.destroyed && !res.writableEnded) answer(res, reply);
          }, answerDelayMs);
        } else answer(res, reply);
        // A query by client id: the lateCreate creates waiting for it land now, after its answer.
        const field = late.size > 0 ? QUERY_CLIENT_ID[endpoint] : undefined;
        if (field !== undefined && account !== null)
          late.queried(account.apiKey, hft ? "hft" : "spot", query.get(field) ?? "");
        return;
      }
      case "timeout":
        hanging.add(res);
        res.on("close", () => hanging.delete(res));
        return;
      case "reset":
        req.socket.destroy();
        return;
      default:
        send(
          res,
          hft
            ? v5Err(10016, "Internal server error (injected)", now, status)
            : message(status, "Internal Server Error (injected)"),
        );
    }
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const rawTarget = req.url ?? "/";
    const q = rawTarget.indexOf("?");
    const path = q === -1 ? rawTarget : rawTarget.slice(0, q);
    const endpoint = `${req.method} ${path}`;
    counters.total++;
    counters.requests.set(endpoint, (counters.requests.get(endpoint) ?? 0) + 1);
    const len = req.headers["content-length"];
    if (len === "0" || (len === undefined && req.headers["transfer-encoding"] === undefined)) {
      // No body: skip the stream plumbing entirely (most GETs).
      req.resume();
      handle(req, res, rawTarget, path, endpoint, "");
      return;
    }
    let body = "";
    let tooBig = false;
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      if (body.length + chunk.length > MAX_BODY) tooBig = true;
      else body += chunk;
    });
    req.on("end", () => {
      if (tooBig) send(res, message(413, "request body too large"));
      else handle(req, res, rawTarget, path, endpoint, body);
    });
  };

  const server =
    d.opts.tls !== undefined
      ? https.createServer({ cert: d.opts.tls.cert, key: d.opts.tls.key }, onRequest)
      : http.createServer(onRequest);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return { server: server as http.Server, counters, hanging, late };
}
