/**
 * The fast path's connections to one origin: `connections` persistent sockets, one request in flight
 * on each (no pipelining). A request is written with one `socket.write` in the caller's turn, from a
 * template per endpoint (request line, host and the fixed headers) with the signature, epoch, length
 * and body written in place.
 *
 * One FIFO when every socket is busy: the first socket to finish (or to connect) takes the oldest
 * waiting request, so a slow answer never holds up a request another socket could send (the rule of
 * rest/clientSet.ts). A request that waits here is still the order's request outstanding: the engine
 * counts it from the hand-over (`Order.requestsOut`), and the resolver asks nothing about an order
 * while it is, so a later query on the general client cannot overtake it to a wrong conclusion. When no
 * socket is connected or connecting, a request goes to the general client unsent instead.
 *
 * Failures keep the general client's meaning: a timeout, a reset or a short read after the request
 * was written is an unknown outcome (never re-sent). The socket is dropped after anything it cannot read.
 */
import { connect as netConnect, type OnReadOpts, type Socket } from "node:net";
import { type ConnectionOptions, connect as tlsConnect } from "node:tls";
import { putAscii, putLatin1 } from "../../util/bytes.js";
import type { Endpoint, EndpointId } from "../catalogue.js";
import { DONE, MALFORMED, NEED_MORE, ResponseReader } from "./reader.js";

/** One request the origin carries; the owner decides what its outcome means. */
export interface FastJob {
  readonly ep: Endpoint;
  /** Bytes to write (set by `dispatch` from the template, or a fixed warm-up request). */
  readonly path: string;
  readonly headers: readonly string[];
  readonly body: string | undefined;
  /** The answer (status, Retry-After, body bytes). */
  complete(status: number, retryAfter: string | undefined, body: Buffer): void;
  /** A transport failure; `sent` false when no byte left (the owner may hand it to another client). */
  fail(err: Error, sent: boolean): void;
}

export interface FastOriginOptions {
  connections: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Certificate authorities for TLS (Node's own and more), or Node's own. */
  ca?: string[];
}

const S_DEAD = 0;
const S_CONNECTING = 1;
const S_READY = 2;

const SCRATCH = 2048;
/** The sockets' read buffer (`onread`): one per origin, every read consumed before the next. */
const READ_BUF = 64 * 1024;
/** A socket the venue closed after being open at least this long is reopened at once. */
const REOPEN_AFTER_MS = 1_000;

class Conn {
  state = S_DEAD;
  sock: Socket | undefined = undefined;
  job: FastJob | undefined = undefined;
  readonly reader = new ResponseReader();
  /** Date.now() past which the request in flight has timed out (0: none). */
  deadline = 0;
  scratch = Buffer.allocUnsafe(SCRATCH);
  /** Date.now() when the socket connected (an idle close after a while reopens it at once). */
  openedAt = 0;
  /** Date.now() when the socket last took a request (keep-warm leaves a recently used one alone). */
  usedAt = 0;
  constructor(readonly index: number) {}
}

function codeError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

export class FastOrigin {
  private readonly conns: Conn[] = [];
  private readonly fifo: (FastJob | undefined)[] = [];
  private fifoHead = 0;
  private inFlight = 0;
  private closed = false;
  private readonly prefixes = new Map<EndpointId, Buffer>();
  private readonly url: URL;
  private readonly hostHeader: string;
  private readonly sweepTimer: NodeJS.Timeout;
  /**
   * Where every socket of this origin reads into. Reading with `onread` skips the stream layer (no
   * Buffer, 'data' event or read-more tick per read); the reader copies out what it keeps across reads.
   */
  private readonly readBuf = Buffer.allocUnsafe(READ_BUF);

  constructor(
    origin: string,
    private readonly o: FastOriginOptions,
    /** Where a request no socket can take now goes (not sent: the general client sends it). */
    private readonly fallback: (job: FastJob) => void,
  ) {
    this.url = new URL(origin);
    this.hostHeader = this.url.host;
    for (let i = 0; i < Math.max(1, o.connections); i++) this.conns.push(new Conn(i));
    // One coarse sweep for the timeouts instead of a timer per request.
    const tick = Math.max(5, Math.min(250, Math.floor(Math.min(o.headersTimeoutMs, o.bodyTimeoutMs) / 4)));
    this.sweepTimer = setInterval(() => this.sweep(), tick);
    this.sweepTimer.unref();
  }

  get size(): number {
    return this.conns.length;
  }

  /** Nothing in flight and nothing waiting. */
  get idle(): boolean {
    return this.inFlight === 0 && this.fifoHead === this.fifo.length;
  }

  /** Connects every socket; resolves with the number that failed. */
  async start(): Promise<number> {
    const r = await Promise.all(this.conns.map((c) => this.open(c)));
    return r.filter((ok) => !ok).length;
  }

  /** Writes on a free connected socket now, or queues behind the requests already waiting. */
  dispatch(job: FastJob): void {
    if (this.closed) {
      job.fail(codeError("HFTGATE_NOT_SENT", "connections closed; request not sent"), false);
      return;
    }
    let live = this.fifoHead !== this.fifo.length;
    if (!live) {
      const cs = this.conns;
      for (let i = 0; i < cs.length; i++) {
        const c = cs[i]!;
        if (c.state === S_READY) {
          if (c.job === undefined) {
            this.write(c, job);
            return;
          }
          live = true;
        } else if (c.state === S_CONNECTING) live = true;
      }
    }
    // Sockets the venue closed reopen now and take the oldest waiting request when connected.
    this.reopen();
    if (live) this.fifo.push(job);
    // No socket can take it soon: the general client sends it.
    else this.fallback(job);
  }

  /**
   * One request on socket `i` when it is connected and free (the keep-warm GETs); not when it took a
   * request less than `quietMs` ago (a socket in use needs no warming).
   */
  dispatchOn(i: number, job: FastJob, quietMs = 0): boolean {
    const c = this.conns[i];
    if (c === undefined || c.job !== undefined || this.closed) return false;
    if (quietMs > 0 && Date.now() - c.usedAt < quietMs) return false;
    if (c.state !== S_READY) {
      void this.open(c).then((ok) => {
        if (ok && c.job === undefined && !this.closed) this.write(c, job);
        else job.fail(codeError("ECONNREFUSED", "connect failed"), false);
      });
      return true;
    }
    this.write(c, job);
    return true;
  }

  /**
   * Stops taking requests (waiting ones fail as not sent, as the connection set's do) and resolves once
   * the requests in flight are answered or have failed (their timeouts still run), like undici's close.
   */
  close(): Promise<void> {
    this.closed = true;
    for (const j of this.takeWaiting())
      j.fail(codeError("HFTGATE_NOT_SENT", "connections closed; request not sent"), false);
    return new Promise<void>((resolve) => {
      this.closedAll = resolve;
      this.settleClose();
    });
  }

  private closedAll: (() => void) | undefined = undefined;

  /** After close: once nothing is in flight, every socket goes and close() resolves. */
  private settleClose(): void {
    if (!this.closed || this.inFlight > 0 || this.closedAll === undefined) return;
    clearInterval(this.sweepTimer);
    for (const c of this.conns) if (c.sock !== undefined) this.drop(c, undefined);
    const done = this.closedAll;
    this.closedAll = undefined;
    done();
  }

  // ---------- writing ----------

  private prefixOf(ep: Endpoint): Buffer {
    let p = this.prefixes.get(ep.id);
    if (p === undefined) {
      p = Buffer.from(
        `${ep.requestLineHead} HTTP/1.1\r\nhost: ${this.hostHeader}\r\nconnection: keep-alive\r\n`,
        "latin1",
      );
      this.prefixes.set(ep.id, p);
    }
    return p;
  }

  private write(c: Conn, job: FastJob): void {
    c.job = job;
    this.inFlight++;
    c.reader.reset();
    const now = Date.now();
    c.usedAt = now;
    c.deadline = now + this.o.headersTimeoutMs;
    const ep = job.ep;
    const prefix = job.path === ep.path ? this.prefixOf(ep) : undefined;
    const body = job.body;
    const h = job.headers;
    // Upper bound of the bytes: every string at up to 3 bytes per UTF-16 unit (the body).
    let need = 64 + (prefix === undefined ? 32 + job.path.length * 3 : prefix.length);
    for (let i = 0; i < h.length; i++) need += h[i]!.length * 3 + 4;
    if (body !== undefined) need += body.length * 3 + 32;
    let b = c.scratch;
    if (need > b.length) b = c.scratch = Buffer.allocUnsafe(need * 2);
    let n: number;
    if (prefix !== undefined) {
      b.set(prefix, 0);
      n = prefix.length;
    } else {
      n = b.write(ep.method, 0, "latin1");
      b[n++] = 0x20;
      n += b.write(job.path, n, "utf8");
      n += b.write(` HTTP/1.1\r\nhost: ${this.hostHeader}\r\nconnection: keep-alive\r\n`, n, "latin1");
    }
    for (let i = 0; i + 1 < h.length; i += 2) {
      n += putLatin1(b, h[i]!, n);
      b[n++] = 0x3a;
      b[n++] = 0x20;
      n += putLatin1(b, h[i + 1]!, n);
      b[n++] = 0x0d;
      b[n++] = 0x0a;
    }
    if (body !== undefined) {
      n += putLatin1(b, "content-length: ", n);
      // An ASCII body (every order body) is its own length in bytes: its length is written, then the
      // body in the same pass that checks it; a body that is not ASCII is written again as UTF-8.
      const at = n;
      n = endHead(b, at + putLatin1(b, String(body.length), at));
      let k = putAscii(b, body, n);
      if (k < 0) {
        n = endHead(b, at + putLatin1(b, String(Buffer.byteLength(body, "utf8")), at));
        k = b.write(body, n, "utf8");
      }
      n += k;
    } else {
      b[n++] = 0x0d;
      b[n++] = 0x0a;
    }
    // The scratch buffer is reused only after this request's answer, so the socket may keep it.
    c.sock!.write(b.subarray(0, n));
  }

  // ---------- reading ----------

  private onData(c: Conn, d: Buffer): void {
    const job = c.job;
    if (job === undefined) {
      // Bytes with no request in flight: the socket's framing is lost.
      this.drop(c, codeError("UND_ERR_SOCKET", "unexpected bytes"));
      return;
    }
    const r = c.reader.feed(d);
    if (r === NEED_MORE) {
      c.reader.own();
      if (c.reader.headed) c.deadline = Date.now() + this.o.bodyTimeoutMs;
      return;
    }
    if (r === MALFORMED) {
      this.drop(c, codeError("ERR_FAST_PATH_BAD_RESPONSE", "response could not be read"));
      return;
    }
    this.finish(c, job);
  }

  private onEnd(c: Conn): void {
    const job = c.job;
    if (job !== undefined && c.reader.end() === DONE) {
      this.finish(c, job);
      return;
    }
    this.drop(c, codeError("UND_ERR_SOCKET", "other side closed"));
  }

  /** The answer is complete: the socket is free again before the answer is read. */
  private finish(c: Conn, job: FastJob): void {
    const r = c.reader;
    c.job = undefined;
    c.deadline = 0;
    this.inFlight--;
    const status = r.status;
    const retryAfter = r.retryAfter;
    const body = r.body();
    if (r.close) this.drop(c, undefined);
    else this.next(c);
    job.complete(status, retryAfter, body);
    this.settleClose();
  }

  /** The oldest waiting request goes out on `c`, free and connected. */
  private next(c: Conn): void {
    if (this.fifoHead === this.fifo.length || c.state !== S_READY || c.job !== undefined) return;
    const j = this.fifo[this.fifoHead]!;
    this.fifo[this.fifoHead++] = undefined;
    if (this.fifoHead === this.fifo.length) {
      this.fifo.length = 0;
      this.fifoHead = 0;
    }
    this.write(c, j);
  }

  private takeWaiting(): FastJob[] {
    const waiting = this.fifo.slice(this.fifoHead) as FastJob[];
    this.fifo.length = 0;
    this.fifoHead = 0;
    return waiting;
  }

  /**
   * Closes the socket; the request in flight on it (written) fails with `err`. When no socket is left
   * connected or connecting, the waiting requests go to the general client unsent.
   */
  private drop(c: Conn, err: Error | undefined): void {
    const job = c.job;
    c.job = undefined;
    c.deadline = 0;
    c.state = S_DEAD;
    const s = c.sock;
    c.sock = undefined;
    if (s !== undefined) {
      s.removeAllListeners();
      s.on("error", () => {});
      s.destroy();
    }
    if (job !== undefined) {
      this.inFlight--;
      job.fail(err ?? codeError("UND_ERR_SOCKET", "connection closed"), true);
      this.settleClose();
    }
    if (this.closed) return;
    // The venue closed an idle socket (its keep-alive timeout): reopen it now, as undici would on
    // the next request, unless it had just opened (a venue refusing to keep it gets no loop).
    if (job === undefined && c.openedAt > 0 && Date.now() - c.openedAt > REOPEN_AFTER_MS) void this.open(c);
    else if (this.conns.every((x) => x.state === S_DEAD))
      for (const j of this.takeWaiting()) this.fallback(j);
  }

  private sweep(): void {
    if (this.inFlight === 0) return;
    const now = Date.now();
    for (const c of this.conns) {
      if (c.job !== undefined && c.deadline !== 0 && now > c.deadline) {
        const code = c.reader.headed ? "UND_ERR_BODY_TIMEOUT" : "UND_ERR_HEADERS_TIMEOUT";
        this.drop(
          c,
          codeError(code, code === "UND_ERR_BODY_TIMEOUT" ? "Body Timeout Error" : "Headers Timeout Error"),
        );
      }
    }
  }

  // ---------- connecting ----------

  /** Reopens every closed socket (in the background). */
  private reopen(): void {
    if (this.dead === 0) return;
    for (const c of this.conns) if (c.state === S_DEAD) void this.open(c);
  }

  /** Sockets closed and not reopening. */
  private get dead(): number {
    let n = 0;
    for (const c of this.conns) if (c.state === S_DEAD) n++;
    return n;
  }

  private open(c: Conn): Promise<boolean> {
    if (c.state === S_READY) return Promise.resolve(true);
    if (this.closed) return Promise.resolve(false);
    c.state = S_CONNECTING;
    c.openedAt = 0;
    const u = this.url;
    const tls = u.protocol === "https:";
    const port = Number(u.port || (tls ? 443 : 80));
    const host = u.hostname.replace(/^\[|\]$/g, "");
    const onread: OnReadOpts = {
      buffer: this.readBuf,
      callback: (n: number): boolean => {
        // Only the connection's current socket, once connected, is read.
        if (c.sock === s && c.state === S_READY) this.onData(c, this.readBuf.subarray(0, n));
        return true;
      },
    };
    // The TLS socket takes `onread` as a plain socket does (its type does not list it).
    const s: Socket = tls
      ? tlsConnect({
          host,
          port,
          servername: host,
          ALPNProtocols: ["http/1.1"],
          ca: this.o.ca,
          onread,
        } as ConnectionOptions)
      : netConnect({ port, host, onread });
    s.setNoDelay(true);
    c.sock = s;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(
        () => fail(codeError("UND_ERR_CONNECT_TIMEOUT", "connect timeout")),
        this.o.connectTimeoutMs,
      );
      const fail = (_e: Error) => {
        clearTimeout(timer);
        if (c.sock === s) this.drop(c, undefined);
        resolve(false);
      };
      s.once("error", fail);
      s.once(tls ? "secureConnect" : "connect", () => {
        clearTimeout(timer);
        s.off("error", fail);
        if (c.sock !== s || this.closed) {
          resolve(false);
          return;
        }
        c.state = S_READY;
        c.openedAt = Date.now();
        s.on("end", () => this.onEnd(c));
        s.on("error", (e: Error) => this.drop(c, e));
        s.on("close", () => {
          if (c.sock === s) this.drop(c, codeError("UND_ERR_SOCKET", "other side closed"));
        });
        this.next(c);
        resolve(true);
      });
    });
  }
}

/** Ends the header line and the head ("\r\n\r\n") at `n`; returns the offset after it. */
function endHead(b: Buffer, n: number): number {
  b[n] = 0x0d;
  b[n + 1] = 0x0a;
  b[n + 2] = 0x0d;
  b[n + 3] = 0x0a;
  return n + 4;
}
