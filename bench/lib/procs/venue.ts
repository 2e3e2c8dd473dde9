/**
 * Benchmark venue process: the exchange simulator (synthetic market off, rate limits off) and, in
 * front of it, a trivial exchange stub. The stub answers order creates and cancels at once from a
 * plain node:http handler (fixed ack, ids minted from a counter) and proxies every other request
 * (instruments, time, lists: what a gateway needs at start-up) to the simulator. Pointing the gateway
 * at `port` isolates the gateway's own cost; at `simPort` it trades against the full simulator.
 *
 * argv: API key hex. Ready info: { port, simPort }.
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { startSimulator } from "../../../sim/index.js";
import { failChild, serveChild } from "../child.js";

const [apiKey = ""] = process.argv.slice(2);

/** Pulls one JSON string field out of a small flat body without a full parse (the stub is trivial). */
function field(body: string, name: string): string {
  const k = body.indexOf(`"${name}"`);
  if (k < 0) return "";
  const q1 = body.indexOf('"', body.indexOf(":", k) + 1);
  const q2 = body.indexOf('"', q1 + 1);
  return q1 < 0 || q2 < 0 ? "" : body.slice(q1 + 1, q2);
}

let nextId = 1;
function orderId(): string {
  const n = String(nextId++).padStart(12, "0");
  return `00000000-0000-4000-8000-${n}`;
}

function v5Ack(body: string): string {
  return `{"retCode":0,"retMsg":"OK","result":{"orderId":"${field(body, "orderId") || orderId()}","orderLinkId":"${field(body, "orderLinkId")}"},"retExtInfo":{},"time":${Date.now()}}`;
}

function spotRecord(body: string, status: string): string {
  const now = Date.now();
  const b = JSON.parse(body) as Record<string, unknown>;
  const rec = {
    order_id: (b.order_id as string | undefined) ?? orderId(),
    client_order_id: (b.client_order_id as string | undefined) ?? null,
    symbol: b.symbol ?? "BTC/INR",
    price: Number(b.price ?? 0),
    average_price: 0,
    orig_qty: Number(b.quantity ?? 0),
    executed_qty: 0,
    status,
    side: String(b.side ?? "buy").toUpperCase(),
    type: "LIMIT",
    exchange: b.exchange ?? "coinswitchx",
    order_source: "API_TRADING",
    created_time: now,
    updated_time: now,
  };
  return JSON.stringify({ data: rec });
}

const HDR = { "content-type": "application/json" };

/** The instant answers of the stub, by "METHOD path". */
const INSTANT: Record<string, (body: string) => string> = {
  "POST /v5/order/create": v5Ack,
  "POST /v5/order/cancel": v5Ack,
  "POST /trade/api/v2/order": (b) => spotRecord(b, "OPEN"),
  // [bench] the stub confirms a Spot cancel at once, so the cancel's answer reaches the strategy as
  // a message (Cancelled) and a cancel round trip is measured like a create's (one exchange round trip).
  "DELETE /trade/api/v2/order": (b) => spotRecord(b, "CANCELLED"),
};

async function main(): Promise<void> {
  const sim = await startSimulator({
    apiKeys: [apiKey],
    seed: 7,
    rateLimits: { enabled: false },
    market: { synthetic: false, tickMs: 0 },
  });
  const simPort = Number(new URL(sim.baseUrl).port);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const q = req.url!.indexOf("?");
    const key = `${req.method} ${q < 0 ? req.url : req.url!.slice(0, q)}`;
    const instant = INSTANT[key];
    if (instant) {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (d: string) => {
        body += d;
      });
      req.on("end", () => {
        const out = instant(body);
        res.writeHead(200, { ...HDR, "content-length": Buffer.byteLength(out) });
        res.end(out);
      });
      return;
    }
    const up = request(
      { host: "127.0.0.1", port: simPort, method: req.method, path: req.url, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on("error", () => {
      res.writeHead(502, HDR);
      res.end('{"message":"stub upstream failed"}');
    });
    req.pipe(up);
  });
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  serveChild(
    { port, simPort },
    {
      /** The simulator's stream counters (order updates pushed: the stream events of the load phase). */
      streamCounters: () => ({ ...sim.counters.streams }),
    },
    async () => {
      server.closeAllConnections();
      server.close();
      await sim.stop();
    },
  );
}

main().catch(failChild);
