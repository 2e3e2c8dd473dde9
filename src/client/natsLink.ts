/**
 * The bus transport for `GatewayClient` (docs/bus.md §3): frames to `hftgate.<account>.in.<id>` with
 * the connection's `out` subject as reply subject, frames back on `hftgate.<account>.out.<id>`. `id`
 * is a fresh NUID per connection (a reconnect is a new connection resuming the same session).
 */
import { headers, type Msg, type NatsConnection, nuid } from "@nats-io/nats-core";
import type { ClientTransport, LinkEvents } from "./link.js";

export interface NatsTransportOptions {
  /** An open NATS connection (the caller owns it; several clients may share one). */
  nc: NatsConnection;
  /** The gateway's account name on the bus. */
  account: string;
}

const CLOSE_HEADER = "Hftgate-Close";

/** Status the server puts on a request nobody subscribes to (no gateway for the account). */
const NO_RESPONDERS = 503;

export function natsTransport(o: NatsTransportOptions): ClientTransport {
  return (ev) => new NatsLink(o.nc, o.account, ev);
}

class NatsLink {
  open = false;
  private ended = false;
  private readonly in: string;
  private readonly out: string;
  private readonly sub;

  constructor(
    private readonly nc: NatsConnection,
    account: string,
    private readonly ev: LinkEvents,
  ) {
    const id = nuid.next();
    this.in = `hftgate.${account}.in.${id}`;
    this.out = `hftgate.${account}.out.${id}`;
    this.sub = nc.subscribe(this.out, { callback: (err, m) => (err ? this.fail(err) : this.onMsg(m)) });
    void nc.closed().then(() => this.end(1006, "bus connection closed"));
    // Open once the server has the subscription, so the first answer cannot be missed.
    nc.flush().then(
      () => {
        if (this.ended) return;
        this.open = true;
        ev.open();
      },
      (err: Error) => this.fail(err),
    );
  }

  private onMsg(m: Msg): void {
    const h = m.headers;
    if (h !== undefined) {
      const close = h.get(CLOSE_HEADER);
      if (close) {
        const sp = close.indexOf(" ");
        this.end(Number(close.slice(0, sp)) || 1006, sp < 0 ? "" : close.slice(sp + 1));
        return;
      }
      if (h.code === NO_RESPONDERS) {
        this.ev.error(new Error("no gateway serves this account on the bus (no responders)"));
        this.end(1006, "no responders");
        return;
      }
    }
    if (m.data.length > 0) this.ev.message(m.data);
  }

  send(frame: Uint8Array): void {
    if (!this.open) throw new Error("not connected");
    this.publish(new Uint8Array(frame)); // copied: the library holds it until its flush, the codec reuses buffers
  }

  sendRaw(frame: Uint8Array | string): void {
    this.publish(typeof frame === "string" ? frame : new Uint8Array(frame));
  }

  /** A bus connection that closed under the link ends it (as a dropped socket would), never throws. */
  private publish(data: Uint8Array | string): void {
    try {
      this.nc.publish(this.in, data, { reply: this.out });
    } catch (err) {
      this.fail(err as Error);
    }
  }

  terminate(): void {
    if (this.ended) return;
    const h = headers();
    h.set(CLOSE_HEADER, "1006 client gone");
    try {
      this.nc.publish(this.in, new Uint8Array(0), { headers: h });
    } catch {
      // connection closed: the gateway sees silence and ends the session by its heartbeat rule
    }
    this.end(1006, "terminated");
  }

  private fail(err: Error): void {
    this.ev.error(err);
    this.end(1006, err.message);
  }

  private end(code: number, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.open = false;
    if (!this.nc.isClosed()) this.sub.unsubscribe();
    queueMicrotask(() => this.ev.close(code, reason));
  }
}
