/**
 * Admin HTTP endpoint for fault injection and inspection. Unauthenticated by design, so it only ever
 * listens on loopback and only when asked for (adminPort). Routes:
 *   GET    /state                 counters, fault rules and how many requests each kind answered
 *                                  (`faultHits`), stream faults, clock skew
 *   POST   /faults                add a rule (FaultRule) or {rules:[...]}
 *   DELETE /faults                clear all rules, stream faults and skew
 *   PUT    /faults/streams        {dropProbability?, duplicateProbability?, reorderProbability?}
 *   PUT    /faults/nats           {dropProbability?, duplicateProbability?, reorderProbability?, paused?,
 *                                  orderFirst?, tradeDelayMs?, refuseGrants?, credentialTtlMs?}
 *   PUT    /clock-skew            {ms}
 *   PUT    /spot/delays           {cancelConfirmMs?, expiryConfirmMs?}
 *   POST   /streams/disconnect    {mode?: "transport" | "server"}
 *   POST   /market/step           {n?}
 *   POST   /time/advance          {ms}   (manual time mode only)
 *   POST   /accounts              {apiKey}
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { FaultRule, StreamFaults } from "./faults.js";
import type { SimControl } from "./simControl.js";

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function num(v: unknown, name: string): number {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new Error(`${name} must be a finite number`);
  return v;
}

export function createAdmin(ctl: SimControl): http.Server {
  const route = (method: string, path: string, body: Record<string, unknown>): [number, unknown] => {
    switch (`${method} ${path}`) {
      case "GET /state":
        return [200, ctl.state()];
      case "POST /faults": {
        const rules = Array.isArray(body.rules)
          ? (body.rules as FaultRule[])
          : [body as unknown as FaultRule];
        for (const r of rules) ctl.faults.add(r);
        return [200, { rules: ctl.faults.rules() }];
      }
      case "DELETE /faults":
        ctl.faults.clear();
        return [200, { cleared: true }];
      case "POST /faults/late-creates/release":
        return [200, { landed: ctl.faults.releaseLateCreates() }];
      case "PUT /faults/streams":
        ctl.faults.setStreams(body as Partial<StreamFaults>);
        return [200, { streams: ctl.faults.streams() }];
      case "PUT /faults/nats":
        ctl.faults.setNats(body as Parameters<SimControl["faults"]["setNats"]>[0]);
        return [200, { ok: true }];
      case "PUT /clock-skew":
        ctl.faults.setClockSkew(num(body.ms, "ms"));
        return [200, { clockSkewMs: body.ms }];
      case "PUT /spot/delays":
        ctl.setSpotDelays({
          ...(body.cancelConfirmMs !== undefined
            ? { cancelConfirmMs: num(body.cancelConfirmMs, "cancelConfirmMs") }
            : {}),
          ...(body.expiryConfirmMs !== undefined
            ? { expiryConfirmMs: num(body.expiryConfirmMs, "expiryConfirmMs") }
            : {}),
        });
        return [200, { ok: true }];
      case "POST /streams/disconnect":
        return [
          200,
          { disconnected: ctl.faults.disconnectStreams(body.mode === "server" ? "server" : "transport") },
        ];
      case "POST /market/step":
        ctl.market.step(body.n === undefined ? 1 : num(body.n, "n"));
        return [200, { ok: true }];
      case "POST /time/advance":
        ctl.advance(num(body.ms, "ms"));
        return [200, { ok: true }];
      case "POST /accounts":
        if (typeof body.apiKey !== "string") throw new Error("apiKey must be a hex string");
        ctl.registerAccount(body.apiKey);
        return [200, { registered: body.apiKey.toLowerCase() }];
      default:
        return [404, { error: `unknown admin route ${method} ${path}` }];
    }
  };

  return http.createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      if (raw.length < 65_536) raw += c;
    });
    req.on("end", () => {
      try {
        const body = raw.trim() === "" ? {} : (JSON.parse(raw) as Record<string, unknown>);
        if (body === null || typeof body !== "object") throw new Error("body must be a JSON object");
        const [status, out] = route(req.method ?? "GET", (req.url ?? "/").split("?")[0]!, body);
        reply(res, status, out);
      } catch (e) {
        reply(res, 400, { error: e instanceof Error ? e.message : String(e) });
      }
    });
  });
}
