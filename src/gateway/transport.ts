/**
 * The two WebSocket servers the gateway can run on, behind one small interface: native
 * uWebSockets.js (default) and a pure-JS fallback on `ws`. Both serve the protocol path plus
 * GET /health, /metrics and /admin/state (admin token) on the same port.
 */

import type * as UWS from "uWebSockets.js";
import { createServer, STATUS_CODES } from "node:http";
import { createRequire } from "node:module";
import { WebSocketServer, type WebSocket as WsSocket } from "ws";
import { WS_PATH } from "../protocol/schema.js";
import type { HttpReply } from "./engineApi.js";

/** Send result, as uWS defines it: 1 sent, 0 queued (back-pressure building), 2 dropped. */
export type SendStatus = 0 | 1 | 2;

export interface Conn {
  send(frame: Uint8Array): SendStatus;
  /** Bytes accepted but not yet written to the kernel. */
  buffered(): number;
  /** Graceful close with a code and reason. */
  end(code: number, reason: string): void;
  /** Runs fn with writes batched into one syscall where the transport supports it. */
  cork(fn: () => void): void;
  /** True while sends are already batched into one write (inside a uWS callback or a cork). */
  corked(): boolean;
}

export type HttpRoute = "health" | "metrics" | "admin";

/** GET paths served besides the protocol's WebSocket path. */
const ROUTES: Readonly<Record<string, HttpRoute>> = {
  "/health": "health",
  "/metrics": "metrics",
  "/admin/state": "admin",
};

export interface TransportHandlers<L> {
  open(conn: Conn): L;
  message(link: L, data: Buffer, isBinary: boolean): void;
  close(link: L, code: number): void;
  /** `authorization`: the request's Authorization header (the admin route checks it). */
  http(route: HttpRoute, authorization?: string): HttpReply;
  /** `GET /v1/venue/<name>?<query>` with its Authorization header: a venue read (absent = 404). */
  venue?(name: string, query: string, authorization: string | undefined): Promise<HttpReply>;
}

/** Path prefix of the venue reads (run-time account data answered with the gateway's keys). */
export const VENUE_READ_PATH = "/v1/venue/";

export interface TransportOptions {
  host: string;
  port: number;
  /** WebSocket layer's own limit; larger frames close the connection. */
  maxPayload: number;
  /** Bytes a socket may buffer before send reports drops. */
  maxBackpressure: number;
}

export interface RunningTransport {
  readonly kind: "uws-native" | "ws" | "nats" | "in-process" | "fix";
  readonly port: number;
  close(): Promise<void>;
}

/** Closes gracefully, then hard after a grace period if the peer never reads the close frame. */
const FORCE_CLOSE_MS = 2000;

// ---- uWebSockets.js ----

interface UwsData<L> {
  link?: L;
}

class UwsConn implements Conn {
  closed = false;
  constructor(private readonly ws: UWS.WebSocket<unknown>) {}
  send(frame: Uint8Array): SendStatus {
    if (this.closed) return 2;
    // Outside a cork (a lone frame of its turn: outbound.ts batches the rest into one cork) uWS corks
    // the socket itself for the one frame, header and payload in one write, without the JS callback
    // round trip an explicit ws.cork costs.
    return this.ws.send(frame, true, false) as SendStatus;
  }
  buffered(): number {
    return this.closed ? 0 : this.ws.getBufferedAmount();
  }
  end(code: number, reason: string): void {
    if (this.closed) return;
    this.ws.end(code, reason);
    setTimeout(() => {
      if (!this.closed) this.ws.close();
    }, FORCE_CLOSE_MS).unref();
  }
  corked(): boolean {
    return uwsCorked;
  }
  cork(fn: () => void): void {
    if (this.closed || uwsCorked) {
      fn();
      return;
    }
    uwsCorked = true;
    try {
      this.ws.cork(fn);
    } finally {
      uwsCorked = false;
    }
  }
}
/** True while running inside a uWS callback or an explicit cork (uWS corks the current socket there). */
let uwsCorked = false;

function replyUws(res: UWS.HttpResponse, r: HttpReply): void {
  const status = r.status ?? 200;
  res.cork(() => {
    res
      .writeStatus(`${status} ${STATUS_CODES[status] ?? ""}`)
      .writeHeader("content-type", r.contentType ?? "text/plain; charset=utf-8")
      .end(r.body);
  });
}

export function startUwsTransport<L>(
  opts: TransportOptions,
  h: TransportHandlers<L>,
): Promise<RunningTransport> {
  const uws = createRequire(import.meta.url)("uWebSockets.js") as typeof UWS;
  const conns = new Set<UWS.WebSocket<UwsData<L>>>();
  const app = uws.App();
  app.ws<UwsData<L>>(WS_PATH, {
    maxPayloadLength: opts.maxPayload,
    maxBackpressure: opts.maxBackpressure,
    closeOnBackpressureLimit: 0,
    idleTimeout: 0, // the gateway runs its own heartbeats
    sendPingsAutomatically: false,
    compression: uws.DISABLED,
    upgrade: (res, req, ctx) => {
      res.upgrade<UwsData<L>>(
        {},
        req.getHeader("sec-websocket-key"),
        req.getHeader("sec-websocket-protocol"),
        req.getHeader("sec-websocket-extensions"),
        ctx,
      );
    },
    open: (ws) => {
      conns.add(ws);
      const conn = new UwsConn(ws as UWS.WebSocket<unknown>);
      const d = ws.getUserData();
      (d as UwsData<L> & { conn: UwsConn }).conn = conn;
      uwsCorked = true;
      try {
        d.link = h.open(conn);
      } finally {
        uwsCorked = false;
      }
    },
    message: (ws, msg, isBinary) => {
      uwsCorked = true;
      try {
        h.message(ws.getUserData().link!, Buffer.from(msg), isBinary);
      } finally {
        uwsCorked = false;
      }
    },
    close: (ws, code) => {
      conns.delete(ws);
      const d = ws.getUserData() as UwsData<L> & { conn: UwsConn };
      d.conn.closed = true;
      h.close(d.link!, code);
    },
  });
  for (const [path, route] of Object.entries(ROUTES))
    app.get(path, (res, req) => replyUws(res, h.http(route, req.getHeader("authorization"))));
  app.get(`${VENUE_READ_PATH}:name`, (res, req) => {
    const venue = h.venue;
    if (venue === undefined) return replyUws(res, { status: 404, body: "not found\n" });
    // Read everything from req now: it is gone once this callback returns.
    const name = req.getParameter(0) ?? "";
    const auth = req.getHeader("authorization");
    const query = req.getQuery() ?? "";
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    venue(name, query, auth === "" ? undefined : auth).then(
      (r) => {
        if (!aborted) replyUws(res, r);
      },
      () => {
        if (!aborted) replyUws(res, { status: 500, body: "internal error\n" });
      },
    );
  });
  app.any("/*", (res) => replyUws(res, { status: 404, body: "not found\n" }));
  return new Promise((resolve, reject) => {
    app.listen(opts.host, opts.port, (ls) => {
      if (!ls) return reject(new Error(`uWebSockets.js could not listen on ${opts.host}:${opts.port}`));
      resolve({
        kind: "uws-native",
        port: uws.us_socket_local_port(ls as unknown as UWS.us_socket),
        close: async () => {
          uws.us_listen_socket_close(ls);
          for (const ws of conns) ws.close();
          conns.clear();
        },
      });
    });
  });
}

// ---- ws (pure JS) ----

class WsConn implements Conn {
  closed = false;
  constructor(
    private readonly ws: WsSocket,
    private readonly maxBackpressure: number,
  ) {}
  send(frame: Uint8Array): SendStatus {
    if (this.closed) return 2;
    // ws may keep a reference until the socket drains; the codec reuses its buffers, so copy.
    this.ws.send(Buffer.from(frame), { binary: true });
    return this.ws.bufferedAmount > this.maxBackpressure ? 0 : 1;
  }
  buffered(): number {
    return this.ws.bufferedAmount;
  }
  end(code: number, reason: string): void {
    if (this.closed) return;
    this.ws.close(code, reason);
    setTimeout(() => {
      if (!this.closed) this.ws.terminate();
    }, FORCE_CLOSE_MS).unref();
  }
  cork(fn: () => void): void {
    fn();
  }
  corked(): boolean {
    return false;
  }
}

export function startWsTransport<L>(
  opts: TransportOptions,
  h: TransportHandlers<L>,
): Promise<RunningTransport> {
  const server = createServer((req, res) => {
    const [vpath = "", query = ""] = (req.url ?? "").split("?", 2);
    if (req.method === "GET" && vpath.startsWith(VENUE_READ_PATH) && h.venue !== undefined) {
      const auth = req.headers.authorization;
      h.venue(decodeURIComponent(vpath.slice(VENUE_READ_PATH.length)), query, auth).then(
        (r) => {
          res.writeHead(r.status ?? 200, { "content-type": r.contentType ?? "text/plain; charset=utf-8" });
          res.end(r.body);
        },
        () => {
          res.writeHead(500);
          res.end("internal error\n");
        },
      );
      return;
    }
    const route = req.method === "GET" ? ROUTES[vpath] : undefined;
    const r: HttpReply =
      route !== undefined ? h.http(route, req.headers.authorization) : { status: 404, body: "not found\n" };
    res.writeHead(r.status ?? 200, { "content-type": r.contentType ?? "text/plain; charset=utf-8" });
    res.end(r.body);
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxPayload, perMessageDeflate: false });
  server.on("upgrade", (req, socket, head) => {
    if ((req.url ?? "").split("?")[0] !== WS_PATH) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.binaryType = "nodebuffer";
      const conn = new WsConn(ws, opts.maxBackpressure);
      const link = h.open(conn);
      ws.on("message", (data, isBinary) => h.message(link, data as Buffer, isBinary));
      ws.on("error", () => ws.terminate());
      ws.on("close", (code) => {
        conn.closed = true;
        h.close(link, code);
      });
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      const addr = server.address();
      resolve({
        kind: "ws",
        port: typeof addr === "object" && addr ? addr.port : opts.port,
        close: () =>
          new Promise<void>((done) => {
            for (const c of wss.clients) c.terminate();
            wss.close();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
