import { createPublicKey, verify } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { signedMessage } from "../../src/auth/signedMessage.js";
import type { AnswerSink, PreparedRequest } from "../../src/rest/client.js";
import { makeGrid } from "../../src/venue/orderFields.js";
import type { RestStack } from "../../src/venue/stack.js";

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  /** undefined for unsigned requests */
  sigOk: boolean | undefined;
}

export type Handler = (req: Seen, res: ServerResponse) => void;

/** A tiny exchange stand-in on 127.0.0.1:0 that verifies every signed request it receives. */
export async function startServer(
  apiKey: string,
  handler: Handler,
): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const pub = createPublicKey({
    key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), Buffer.from(apiKey, "hex")]),
    format: "der",
    type: "spki",
  });
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      const sig = req.headers["x-auth-signature"];
      const epoch = req.headers["x-auth-epoch"];
      let sigOk: boolean | undefined;
      if (typeof sig === "string") {
        sigOk =
          typeof epoch === "string" &&
          req.headers["x-auth-apikey"] === apiKey &&
          verify(
            null,
            Buffer.from(signedMessage(req.method!, req.url!, epoch), "utf8"),
            pub,
            Buffer.from(sig, "hex"),
          );
      }
      const s: Seen = { method: req.method!, url: req.url!, headers: req.headers, body, sigOk };
      seen.push(s);
      handler(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, server };
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function envelope(result: unknown, retCode = 0, retMsg = "OK") {
  return { retCode, retMsg, result, retExtInfo: {}, time: Date.now() };
}

export function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((r) => server.close(() => r()));
}

/** A Spot v2 order record as the venue answers it (open, unfilled). */
export const SPOT_ORDER = {
  order_id: "5b1e9c3a-2f47-4d0e-8a61-0c9d7e3f2a10",
  client_order_id: "c-1" as string | null,
  symbol: "BTC/INR",
  price: 61250.5,
  average_price: 0,
  orig_qty: 0.0015,
  executed_qty: 0,
  status: "OPEN",
  side: "BUY",
  type: "LIMIT",
  exchange: "coinswitchx",
  order_source: "API_TRADING",
  created_time: 1,
  updated_time: 1,
};

/** The BTCUSDT linear grid the order tests use. */
export const BTC_GRID = makeGrid("0.1", "0.001");

/** A linear BTCUSDT limit buy of 0.005 at 1000.0 with client id `link`. */
export function hftCreate(s: RestStack, link: string): PreparedRequest {
  return s.client.prepareHftCreate(
    {
      category: "linear",
      symbol: "BTCUSDT",
      side: "buy",
      orderType: "limit",
      qty: "0.005",
      price: "1000.0",
      positionIdx: 0,
      timeInForce: "GTC",
      orderLinkId: link,
    },
    BTC_GRID,
  );
}

/** One request through `sendTo`; resolves with its outcome. */
export function sendOnce(stack: RestStack, req: PreparedRequest): Promise<{ ok: boolean; value: unknown }> {
  return new Promise((resolve) => {
    const sink: AnswerSink<number> = {
      answered: (_c, value) => resolve({ ok: true, value }),
      failed: (_c, value) => resolve({ ok: false, value }),
    };
    stack.client.sendTo(req, sink, 0, 0);
  });
}

/** Splits what a raw server's socket receives into requests (Content-Length framing), each to `each`. */
export function eachRequest(sock: Socket, each: (req: string) => void): void {
  let acc = Buffer.alloc(0);
  sock.on("error", () => {});
  sock.on("data", (d: Buffer) => {
    acc = Buffer.concat([acc, d]);
    for (;;) {
      const h = acc.indexOf("\r\n\r\n");
      if (h < 0) return;
      const m = /content-length: *(\d+)/i.exec(acc.toString("latin1", 0, h));
      const end = h + 4 + (m ? Number(m[1]) : 0);
      if (acc.length < end) return;
      const req = acc.toString("utf8", 0, end);
      acc = acc.subarray(end);
      each(req);
    }
  });
}
