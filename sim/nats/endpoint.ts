/**
 * The simulator's built-in NATS endpoint, for machines without a `nats-server` binary: the client
 * protocol subset the official JavaScript client speaks over WebSocket (INFO, CONNECT with user/pass
 * checked against a user list, PING/PONG, SUB/UNSUB with `*` and `>`, PUB/HPUB, MSG/HMSG, +OK/-ERR),
 * on loopback, so the gateway's unchanged client connects to it. The simulator publishes in-process
 * (`publish`), without a client connection of its own.
 *
 * The mapping of an issued socket credential onto the CONNECT is a knob (`credentialAuth`): the venue's
 * is not published, so the simulator can stand for each reading the gateway supports.
 *
 * A simulator endpoint, not a NATS server: no TLS, no clustering, leaf nodes, JetStream, accounts or
 * JWT/nkey auth; queue groups pick members in turn. Where it speaks, it answers as nats-server does
 * (the same -ERR texts, the connection closed on the same errors, a slow consumer cut off at the same
 * pending-bytes limit), and the tests run the same protocol cases against both
 * (test/sim/natsEndpoint.test.ts).
 *
 * Sustained load: each message is routed once (subjects compared token by token, no per-message
 * maps), a connection's unsent bytes are bounded (`maxPendingBytes`), a peer's bytes can never throw
 * into the process it shares (the gateway's, under `hftgate start`), and `stop()` ends every socket it
 * accepted at once, so a stopping process never waits on a connection of its own endpoint.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import { type NatsBackend, type NatsUser, PUBLIC_READER } from "./backend.js";
import { subjectMatches, subsetOf, tokensMatch, validPublishSubject, validSubject } from "./subjects.js";

/** A permission list's verdict: some allow pattern covers it (or there is no allow list), no deny does. */
function permitted(
  perm: { allow?: string[]; deny?: string[] } | undefined,
  covers: (pattern: string) => boolean,
): boolean {
  return (perm?.allow === undefined || perm.allow.some(covers)) && !(perm?.deny ?? []).some(covers);
}

const CRLF = Buffer.from("\r\n");
const MAX_CONTROL_LINE = 4_096;
const MAX_PAYLOAD = 1_048_576;
const AUTH_TIMEOUT_MS = 2_000;
/** nats-server's default `max_pending`: a client further behind than this is a slow consumer. */
export const MAX_PENDING_BYTES = 64 * 1024 * 1024;
/** nats-server's WebSocket close for a slow consumer (policy violation, its ClosedState text). */
const SLOW_CONSUMER = "Slow Consumer (Pending Bytes)";
const UPGRADE_REQUIRED = http.STATUS_CODES[426]!;

export interface NatsEndpointOptions {
  users: NatsUser[];
  /** Fixed port (a restart reuses it). Default: a free one. Always 127.0.0.1. */
  wsPort?: number;
  /** Unsent bytes a connection may hold before it is closed as a slow consumer. Default 64 MiB. */
  maxPendingBytes?: number;
  /**
   * How an issued socket credential (a user added after start: name = its api_key, password = its
   * signature) must appear in the CONNECT. The venue does not publish it, so the simulator can stand
   * for each reading: `userPass` (default) user/pass; `token` auth_token = signature; `tokenJoined`
   * auth_token = `api_key:expires:signature`; `connectFields` fields api_key and signature. Users
   * given at start (the publisher) always sign in with user/pass.
   */
  credentialAuth?: CredentialAuth;
}

export const CREDENTIAL_AUTH = ["userPass", "token", "tokenJoined", "connectFields"] as const;
export type CredentialAuth = (typeof CREDENTIAL_AUTH)[number];

/** The (user, password) a CONNECT presents under a credential mapping; undefined when it has none. */
function presented(mode: CredentialAuth, f: Record<string, unknown>): [string, string] | undefined {
  const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
  switch (mode) {
    case "userPass": {
      const u = str(f.user);
      const pw = str(f.pass);
      return u !== undefined && pw !== undefined ? [u, pw] : undefined;
    }
    case "token": {
      const t = str(f.auth_token);
      return t !== undefined ? ["", t] : undefined;
    }
    case "tokenJoined": {
      const parts = str(f.auth_token)?.split(":");
      return parts?.length === 3 ? [parts[0]!, parts[2]!] : undefined;
    }
    case "connectFields": {
      const k = str(f.api_key);
      const sig = str(f.signature);
      return k !== undefined && sig !== undefined ? [k, sig] : undefined;
    }
  }
}

export interface NatsEndpointCounters {
  connections: number;
  authFailures: number;
  /** Messages published (in-process and by clients). */
  published: number;
  /** Messages delivered to subscriptions. */
  delivered: number;
  /** Connections ended because their user was removed or changed. */
  revoked: number;
  /** Connections closed as slow consumers (more than `maxPendingBytes` unsent). */
  slowConsumers: number;
}

interface Sub {
  conn: Conn;
  sid: string;
  subject: string;
  /** `subject` split on `.`, once at SUB. */
  tokens: string[];
  queue: string;
  /** Deliveries left before an UNSUB with a maximum removes it (Infinity = none). */
  left: number;
}

export class NatsEndpoint implements NatsBackend {
  readonly kind = "builtin" as const;
  readonly counters: NatsEndpointCounters = {
    connections: 0,
    authFailures: 0,
    published: 0,
    delivered: 0,
    revoked: 0,
    slowConsumers: 0,
  };
  wsPort = 0;
  readonly maxPendingBytes: number;
  private wss: WebSocketServer | undefined;
  private server: http.Server | undefined;
  /** Every socket the listener accepted and not yet closed (upgraded or not). */
  private readonly sockets = new Set<Socket>();
  private users = new Map<string, NatsUser>();
  private readonly conns = new Set<Conn>();
  /** Queue group turn per `subject queue` key. */
  private readonly turns = new Map<string, number>();
  private readonly serverId = randomBytes(11).toString("hex").toUpperCase();

  private readonly fixed: ReadonlySet<string>;
  private readonly credentialAuth: CredentialAuth;

  private constructor(o: NatsEndpointOptions) {
    this.fixed = new Set(o.users.map((u) => u.user));
    this.credentialAuth = o.credentialAuth ?? "userPass";
    this.setUserList(o.users);
    this.wsPort = o.wsPort ?? 0;
    this.maxPendingBytes = o.maxPendingBytes ?? MAX_PENDING_BYTES;
  }

  static async start(o: NatsEndpointOptions): Promise<NatsEndpoint> {
    const e = new NatsEndpoint(o);
    await e.listen();
    return e;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.wsPort}`;
  }

  get running(): boolean {
    return this.wss !== undefined;
  }

  /** Replaces the user list; connections whose user is gone or changed are ended, as on a reload. */
  async setUsers(users: NatsUser[]): Promise<void> {
    this.setUserList(users);
    for (const c of this.conns) {
      if (c.user === undefined) continue;
      const u = this.users.get(c.user.user);
      if (u === undefined || u.password !== c.user.password) {
        // As nats-server on a reload: the connection is closed, without an -ERR.
        this.counters.revoked++;
        c.close(1000, "Client Closed");
      } else c.user = u;
    }
  }

  /**
   * One message from the simulator itself (no client connection). False when the endpoint is down:
   * the message is lost for every subscriber, as on a real outage.
   */
  publish(subject: string, payload: string | Uint8Array): boolean {
    if (this.wss === undefined) return false;
    this.route(subject, "", undefined, Buffer.from(payload as Uint8Array), undefined);
    return true;
  }

  /**
   * A crash: every connection dropped without a close handshake (closing ones and unfinished
   * handshakes too), the listener gone. Resolves once the port is free; never waits on a peer.
   */
  async kill(): Promise<void> {
    for (const c of this.conns) c.ws.terminate();
    this.conns.clear();
    await this.close();
  }

  /** Back on the same port (after `kill`). */
  async restart(): Promise<void> {
    if (this.running) await this.kill();
    await this.listen();
  }

  async stop(): Promise<void> {
    await this.kill();
  }

  // ---------- internals (used by Conn) ----------

  info(conn: Conn): string {
    return `INFO ${JSON.stringify({
      server_id: this.serverId,
      server_name: "hftgate-sim",
      version: "2.10.0",
      proto: 1,
      go: "none (simulator endpoint)",
      host: "127.0.0.1",
      port: this.wsPort,
      headers: true,
      max_payload: MAX_PAYLOAD,
      auth_required: true,
      client_id: conn.id,
      client_ip: "127.0.0.1",
    })}\r\n`;
  }

  authenticate(fields: Record<string, unknown>): NatsUser | undefined {
    // No credentials at all: the public reader (as nats-server's no_auth_user).
    if (
      fields.user === undefined &&
      fields.pass === undefined &&
      fields.auth_token === undefined &&
      (this.credentialAuth !== "connectFields" || fields.api_key === undefined)
    )
      return PUBLIC_READER;
    const fixed = this.fixedUser(fields);
    if (fixed !== undefined) return fixed;
    const p = presented(this.credentialAuth, fields);
    let u: NatsUser | undefined;
    if (p !== undefined) {
      // `token` carries no user name: the signature alone names the credential.
      u = p[0] === "" ? this.byPassword(p[1]) : this.users.get(p[0]);
      if (u !== undefined && (u.password !== p[1] || this.fixed.has(u.user))) u = undefined;
    }
    if (u === undefined) this.counters.authFailures++;
    return u;
  }

  /** A user given at start (the publisher), by user/pass whatever the credential mapping. */
  private fixedUser(f: Record<string, unknown>): NatsUser | undefined {
    if (typeof f.user !== "string" || !this.fixed.has(f.user)) return undefined;
    const u = this.users.get(f.user);
    return u !== undefined && f.pass === u.password ? u : undefined;
  }

  private byPassword(pw: string): NatsUser | undefined {
    for (const u of this.users.values()) if (u.password === pw && u !== PUBLIC_READER) return u;
    return undefined;
  }

  route(subject: string, reply: string, headers: Buffer | undefined, payload: Buffer, from?: Conn): void {
    this.counters.published++;
    const tokens = subject.split(".");
    let queues: Map<string, Sub[]> | undefined;
    for (const c of this.conns) {
      if (c === from && !c.echo) continue;
      for (const s of c.subs.values()) {
        if (!tokensMatch(s.tokens, tokens) || !c.mayReceive(subject)) continue;
        if (s.queue === "") this.deliver(s, subject, reply, headers, payload);
        else {
          queues ??= new Map();
          const k = `${s.subject} ${s.queue}`;
          const l = queues.get(k);
          if (l === undefined) queues.set(k, [s]);
          else l.push(s);
        }
      }
    }
    if (queues === undefined) return;
    for (const [k, members] of queues) {
      const turn = this.turns.get(k) ?? 0;
      this.turns.set(k, turn + 1);
      this.deliver(members[turn % members.length]!, subject, reply, headers, payload);
    }
  }

  forget(c: Conn): void {
    this.conns.delete(c);
  }

  private deliver(
    s: Sub,
    subject: string,
    reply: string,
    headers: Buffer | undefined,
    payload: Buffer,
  ): void {
    this.counters.delivered++;
    s.conn.deliver(s, subject, reply, headers, payload);
    if (--s.left <= 0) s.conn.subs.delete(s.sid);
  }

  private setUserList(users: NatsUser[]): void {
    this.users = new Map([...users, PUBLIC_READER].map((u) => [u.user, u]));
  }

  private listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      // Its own HTTP server (not one inside ws), so every accepted socket is known and ended at stop.
      const server = http.createServer((_req, res) => {
        res.writeHead(426, { "content-type": "text/plain" });
        res.end(UPGRADE_REQUIRED);
      });
      const sockets = this.sockets;
      server.on("connection", (sock: Socket) => {
        sockets.add(sock);
        sock.once("close", () => sockets.delete(sock));
      });
      const wss = new WebSocketServer({
        server,
        perMessageDeflate: false,
        maxPayload: MAX_PAYLOAD + MAX_CONTROL_LINE,
      });
      wss.on("error", () => {});
      wss.on("connection", (ws) => {
        this.counters.connections++;
        const c = new Conn(this, ws, String(this.counters.connections));
        this.conns.add(c);
      });
      // Once listening, server errors reach `wss` (ws forwards them) and end there: a failing
      // accept (descriptors exhausted) is that peer's loss, the listener stays.
      const failed = (e: Error) => {
        wss.close();
        reject(e);
      };
      server.once("error", failed);
      server.listen(this.wsPort, "127.0.0.1", () => {
        server.off("error", failed);
        this.wsPort = (server.address() as AddressInfo).port;
        this.server = server;
        this.wss = wss;
        resolve();
      });
    });
  }

  private close(): Promise<void> {
    const wss = this.wss;
    const server = this.server;
    this.wss = undefined;
    this.server = undefined;
    if (wss !== undefined) {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    }
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server === undefined) return Promise.resolve();
    return new Promise((resolve) => server.close(() => resolve()));
  }
}

/** One client connection: a streaming parser of the client's protocol and its subscriptions. */
class Conn {
  user: NatsUser | undefined;
  echo = true;
  readonly subs = new Map<string, Sub>();
  private verbose = false;
  private headers = false;
  private buf: Buffer = Buffer.alloc(0);
  /** Waiting for a payload: the op's fields and its total size. */
  private pending: { subject: string; reply: string; hdr: number; size: number } | undefined;
  private closed = false;
  private readonly authTimer: NodeJS.Timeout;

  constructor(
    private readonly ep: NatsEndpoint,
    readonly ws: WebSocket,
    readonly id: string,
  ) {
    ws.on("message", (data: Buffer) => this.onMessage(data));
    ws.on("close", () => this.end());
    ws.on("error", () => this.end());
    this.authTimer = setTimeout(() => this.fail("Authentication Timeout"), AUTH_TIMEOUT_MS);
    this.authTimer.unref();
    this.send(ep.info(this));
  }

  /** May a message on `subject` reach this client (its subscribe deny list)? */
  mayReceive(subject: string): boolean {
    const deny = this.user?.permissions?.subscribe?.deny;
    return deny === undefined || !deny.some((d) => subjectMatches(d, subject));
  }

  deliver(s: Sub, subject: string, reply: string, headers: Buffer | undefined, payload: Buffer): void {
    const r = reply === "" ? "" : ` ${reply}`;
    if (headers !== undefined && this.headers) {
      const total = headers.length + payload.length;
      this.sendBuf(
        Buffer.concat([
          Buffer.from(`HMSG ${subject} ${s.sid}${r} ${headers.length} ${total}\r\n`),
          headers,
          payload,
          CRLF,
        ]),
      );
    } else {
      this.sendBuf(
        Buffer.concat([Buffer.from(`MSG ${subject} ${s.sid}${r} ${payload.length}\r\n`), payload, CRLF]),
      );
    }
  }

  /** -ERR and close (nats-server's answer to auth, size and parser errors; its WebSocket close codes). */
  fail(err: string): void {
    if (this.closed) return;
    this.send(`-ERR '${err}'\r\n`);
    const auth = err.startsWith("Auth");
    this.close(auth ? 1008 : 1002, auth ? "Authentication Failure" : "Protocol Violation");
  }

  close(code: number, reason: string): void {
    this.end();
    this.ws.close(code, reason);
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.authTimer);
    this.subs.clear();
    this.ep.forget(this);
  }

  private send(s: string): void {
    this.sendBuf(Buffer.from(s));
  }

  private sendBuf(b: Buffer): void {
    if (this.closed) return;
    if (this.ws.bufferedAmount + b.length > this.ep.maxPendingBytes) {
      // As nats-server: a client this far behind is cut off rather than buffered without bound.
      this.ep.counters.slowConsumers++;
      this.close(1008, SLOW_CONSUMER);
      return;
    }
    this.ws.send(b);
  }

  private ok(): void {
    if (this.verbose) this.send("+OK\r\n");
  }

  /**
   * The one boundary where a peer's bytes enter: whatever they are, they end at most this connection
   * (the endpoint shares its process with the gateway under `hftgate start`).
   */
  private onMessage(data: Buffer): void {
    try {
      this.onData(data);
    } catch {
      this.fail("Unknown Protocol Operation");
    }
  }

  private onData(data: Buffer): void {
    this.buf = this.buf.length === 0 ? data : Buffer.concat([this.buf, data]);
    let off = 0;
    while (!this.closed) {
      const p = this.pending;
      if (p !== undefined) {
        if (this.buf.length - off < p.size + 2) break;
        const body = this.buf.subarray(off, off + p.size);
        if (this.buf[off + p.size] !== 13 || this.buf[off + p.size + 1] !== 10) {
          this.fail("Unknown Protocol Operation");
          return;
        }
        off += p.size + 2;
        this.pending = undefined;
        this.publish(p.subject, p.reply, p.hdr, Buffer.from(body));
        continue;
      }
      const eol = this.buf.indexOf(CRLF, off);
      if (eol < 0) {
        if (this.buf.length - off > MAX_CONTROL_LINE) this.fail("Maximum Control Line Exceeded");
        break;
      }
      const line = this.buf.toString("utf8", off, eol);
      off = eol + 2;
      this.op(line);
    }
    this.buf = off >= this.buf.length ? Buffer.alloc(0) : this.buf.subarray(off);
  }

  private op(line: string): void {
    const sp = line.search(/[ \t]/);
    const name = (sp < 0 ? line : line.slice(0, sp)).toUpperCase();
    const rest = sp < 0 ? "" : line.slice(sp + 1).trim();
    if (this.user === undefined && name !== "CONNECT") {
      this.fail("Authorization Violation");
      return;
    }
    const args = rest === "" ? [] : rest.split(/[ \t]+/);
    switch (name) {
      case "CONNECT":
        this.connect(rest);
        break;
      case "PING":
        this.send("PONG\r\n");
        break;
      case "PONG":
        break;
      case "SUB":
        this.sub(args);
        break;
      case "UNSUB":
        this.unsub(args);
        break;
      case "PUB":
      case "HPUB":
        this.pubHeader(name, args);
        break;
      default:
        this.fail("Unknown Protocol Operation");
    }
  }

  private connect(json: string): void {
    let fields: Record<string, unknown>;
    try {
      const v: unknown = JSON.parse(json);
      if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error("not an object");
      fields = v as Record<string, unknown>;
    } catch {
      this.fail("Invalid Connect");
      return;
    }
    if (this.user !== undefined) return; // a second CONNECT changes nothing here
    const u = this.ep.authenticate(fields);
    if (u === undefined) {
      this.fail("Authorization Violation");
      return;
    }
    clearTimeout(this.authTimer);
    this.user = u;
    // The protocol's defaults: verbose and echo on unless the client says otherwise.
    this.verbose = fields.verbose !== false;
    this.headers = fields.headers === true;
    this.echo = fields.echo !== false;
    this.ok();
  }

  private sub(a: string[]): void {
    if (a.length !== 2 && a.length !== 3) {
      this.fail("Unknown Protocol Operation");
      return;
    }
    const subject = a[0]!;
    const queue = a.length === 3 ? a[1]! : "";
    const sid = a[a.length - 1]!;
    if (!validSubject(subject)) {
      this.send("-ERR 'Invalid Subject'\r\n");
      return;
    }
    if (!permitted(this.user?.permissions?.subscribe, (p) => subsetOf(subject, p))) {
      const q = queue === "" ? "" : ` using queue "${queue}"`;
      this.send(`-ERR 'Permissions Violation for Subscription to "${subject}"${q}'\r\n`);
      return;
    }
    this.subs.set(sid, {
      conn: this,
      sid,
      subject,
      tokens: subject.split("."),
      queue,
      left: Number.POSITIVE_INFINITY,
    });
    this.ok();
  }

  private unsub(a: string[]): void {
    if (a.length !== 1 && a.length !== 2) {
      this.fail("Unknown Protocol Operation");
      return;
    }
    const s = this.subs.get(a[0]!);
    if (s !== undefined) {
      const max = a.length === 2 ? Number(a[1]) : 0;
      if (Number.isInteger(max) && max > 0) s.left = max;
      else this.subs.delete(s.sid);
    }
    this.ok();
  }

  private pubHeader(name: string, a: string[]): void {
    const hpub = name === "HPUB";
    const n = hpub ? 3 : 2;
    if (a.length !== n && a.length !== n + 1) {
      this.fail("Unknown Protocol Operation");
      return;
    }
    const size = Number(a[a.length - 1]);
    const hdr = hpub ? Number(a[a.length - 2]) : 0;
    if (!Number.isInteger(size) || size < 0 || !Number.isInteger(hdr) || hdr < 0 || hdr > size) {
      this.fail("Unknown Protocol Operation");
      return;
    }
    if (size > MAX_PAYLOAD) {
      this.fail("Maximum Payload Violation");
      return;
    }
    this.pending = { subject: a[0]!, reply: a.length === n + 1 ? a[1]! : "", hdr: hpub ? hdr : -1, size };
  }

  private publish(subject: string, reply: string, hdr: number, body: Buffer): void {
    if (!validPublishSubject(subject)) {
      this.send("-ERR 'Invalid Publish Subject'\r\n");
      return;
    }
    if (!permitted(this.user?.permissions?.publish, (p) => subjectMatches(p, subject))) {
      this.send(`-ERR 'Permissions Violation for Publish to "${subject}"'\r\n`);
      return;
    }
    const headers = hdr >= 0 ? body.subarray(0, hdr) : undefined;
    const payload = hdr >= 0 ? body.subarray(hdr) : body;
    this.ok();
    this.ep.route(subject, reply, headers, payload, this);
  }
}
