/**
 * Remote strategy sessions over NATS: a second transport under the gateway's one session layer
 * (logon, seq, resume, heartbeats, cancel-on-disconnect are the gateway's, unchanged). A client picks
 * a random connection id `c`, subscribes to `hftgate.<account>.out.<c>` and publishes its frames to
 * `hftgate.<account>.in.<c>` with that `out` subject as the reply subject (the Logon is a request: no
 * gateway on the bus = NATS's immediate "no responders"). One NATS message = one protocol frame.
 * The connection ends with an empty `out` message carrying the `Hftgate-Close` header, either way.
 */
import { headers, type Msg, type NatsConnection, type Subscription } from "@nats-io/nats-core";
import type { Conn, RunningTransport, SendStatus, TransportHandlers } from "../gateway/transport.js";
import { CONN_RE, HEADER, subjects } from "./subjects.js";

export interface NatsSessionOptions {
  account: string;
  /** Open remote connections at most; a new one beyond it is refused with a close (4001). */
  maxConnections: number;
}

/** Ended connection ids remembered (a late frame gets the close notice again, not a new link). */
const TOMBSTONES = 4096;

class NatsConn implements Conn {
  closed = false;
  constructor(
    private readonly t: NatsSessions<unknown>,
    readonly id: string,
    readonly out: string,
  ) {}
  send(frame: Uint8Array): SendStatus {
    if (this.closed) return 2;
    // The client library keeps a reference until its flush (a microtask later); the codec reuses buffers.
    this.t.nc.publish(this.out, new Uint8Array(frame));
    return 1;
  }
  buffered(): number {
    return 0; // NATS buffers per connection, not per session: its slow-consumer rule applies at the server
  }
  end(code: number, reason: string): void {
    if (this.closed) return;
    this.t.end(this, code, reason);
  }
  cork(fn: () => void): void {
    fn(); // publishes of one turn already leave in one write (the client flushes once per microtask)
  }
  corked(): boolean {
    return false;
  }
}

class NatsSessions<L> implements RunningTransport {
  readonly kind = "nats" as const;
  readonly port = 0;
  private readonly links = new Map<string, { conn: NatsConn; link: L }>();
  private readonly tombs = new Set<string>();
  private readonly sub: Subscription;
  readonly stats = { framesIn: 0, opened: 0, refused: 0 };

  constructor(
    readonly nc: NatsConnection,
    private readonly o: NatsSessionOptions,
    private readonly h: TransportHandlers<L>,
  ) {
    this.sub = nc.subscribe(subjects.inAll(o.account), {
      callback: (err, m) => {
        if (err === null) this.onMsg(m);
      },
    });
  }

  get open(): number {
    return this.links.size;
  }

  private onMsg(m: Msg): void {
    const id = m.subject.slice(m.subject.lastIndexOf(".") + 1);
    if (!CONN_RE.test(id)) return;
    const entry = this.links.get(id);
    if (m.headers?.get(HEADER.close)) {
      if (entry) this.closed(entry.conn, 1006); // the client went away without a Logout
      return;
    }
    if (m.data.length === 0) return;
    this.stats.framesIn++;
    if (entry) {
      this.h.message(entry.link, bufferOf(m.data), true);
      return;
    }
    const out = subjects.out(this.o.account, id);
    if (this.tombs.has(id)) {
      notifyClosed(this.nc, out, 4001, "connection ended: use a new connection id");
      return;
    }
    if (this.links.size >= this.o.maxConnections) {
      this.stats.refused++;
      notifyClosed(this.nc, out, 4001, "too many remote connections");
      return;
    }
    const conn = new NatsConn(this as NatsSessions<unknown>, id, out);
    const link = this.h.open(conn);
    this.links.set(id, { conn, link });
    this.stats.opened++;
    this.h.message(link, bufferOf(m.data), true);
  }

  /** The gateway ended a connection: tell the client, then report the close as a socket would. */
  end(conn: NatsConn, code: number, reason: string): void {
    notifyClosed(this.nc, conn.out, code, reason);
    queueMicrotask(() => this.closed(conn, code));
  }

  private closed(conn: NatsConn, code: number): void {
    const e = this.links.get(conn.id);
    if (e === undefined || e.conn !== conn) return;
    conn.closed = true;
    this.links.delete(conn.id);
    this.tombs.add(conn.id);
    if (this.tombs.size > TOMBSTONES) this.tombs.delete(this.tombs.values().next().value as string);
    this.h.close(e.link, code);
  }

  async close(): Promise<void> {
    this.sub.unsubscribe();
    for (const { conn } of [...this.links.values()]) {
      if (!this.nc.isClosed()) notifyClosed(this.nc, conn.out, 1001, "gateway shutting down");
      this.closed(conn, 1001);
    }
  }
}

function bufferOf(u: Uint8Array): Buffer {
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

function notifyClosed(nc: NatsConnection, out: string, code: number, reason: string): void {
  const h = headers();
  h.set(HEADER.close, `${code} ${reason}`);
  try {
    nc.publish(out, new Uint8Array(0), { headers: h });
  } catch {
    // the bus connection is closed: the client sees silence and its heartbeat rule ends the link
  }
}

export interface RemoteSessions extends RunningTransport {
  readonly open: number;
  readonly stats: { framesIn: number; opened: number; refused: number };
}

/** The transport starter for `Gateway.addTransport`. */
export function natsSessions(nc: NatsConnection, o: NatsSessionOptions) {
  return <L>(h: TransportHandlers<L>): Promise<RemoteSessions> => Promise.resolve(new NatsSessions(nc, o, h));
}
