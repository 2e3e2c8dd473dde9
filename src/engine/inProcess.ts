/**
 * The in-process strategy link: a GatewayClient in the engine's own process talks to the gateway's
 * sessions directly, as one more gateway transport (Gateway.addTransport): the same frames,
 * sequencing, resume, heartbeats and rules as over the WebSocket, but no socket, no syscall and no
 * event-loop hop on the way in. Strategy → gateway is a direct call (the command is on its way to the
 * venue when `placeOrder` returns); gateway → strategy frames are copied and delivered in one batch
 * at the end of the current task (a microtask), so strategy code never runs inside the gateway's stack.
 */
import { type ClientOptions, GatewayClient } from "../client/client.js";
import type { ClientLink, ClientTransport, LinkEvents } from "../client/link.js";
import type { TransportStarter } from "../gateway/gateway.js";
import type { Conn, SendStatus, TransportHandlers } from "../gateway/transport.js";

/** Close code the client sees when it drops the link itself (as a socket reset reads). */
const ABNORMAL = 1006;
const SHUTDOWN = 1001;

class LocalLink {
  private queue: Buffer[] = [];
  private scheduled = false;
  /** The gateway ended the link: deliver what is queued, then the close. */
  private ending: { code: number; reason: string } | undefined;
  /** The close has been reported to both sides. */
  private gone = false;
  private readonly gwLink: unknown;

  constructor(
    private readonly gw: TransportHandlers<unknown>,
    private readonly ev: LinkEvents,
    private readonly all: Set<LocalLink>,
  ) {
    all.add(this);
    this.gwLink = gw.open(this.conn);
    queueMicrotask(() => {
      if (this.gone) return;
      this.setOpen(true);
      this.ev.open();
    });
  }

  /** The gateway's side. */
  readonly conn: Conn = {
    send: (frame: Uint8Array): SendStatus => {
      if (this.gone || this.ending) return 2;
      this.queue.push(Buffer.from(frame)); // the codec reuses its buffers
      this.schedule();
      return 1;
    },
    // Frames wait at most until the end of the current task; nothing accumulates across turns.
    buffered: () => 0,
    end: (code: number, reason: string) => this.end(code, reason),
    cork: (fn: () => void) => fn(),
    // Every frame of a task already leaves in one batch: the gateway need not hold any itself.
    corked: () => true,
  };

  /** The strategy's side. */
  readonly client: ClientLink = {
    open: false,
    send: (frame: Uint8Array) => this.toGateway(frame),
    sendRaw: (frame: Uint8Array | string) => this.toGateway(frame),
    terminate: () => {
      if (this.gone) return;
      this.queue = [];
      this.finish(ABNORMAL, "", true);
    },
  };

  end(code: number, reason: string): void {
    if (this.gone || this.ending) return;
    this.ending = { code, reason };
    this.setOpen(false); // nothing more reaches the gateway; queued frames still reach the strategy
    this.schedule();
  }

  private toGateway(frame: Uint8Array | string): void {
    if (!this.client.open) return;
    if (typeof frame === "string") this.gw.message(this.gwLink, Buffer.from(frame), false);
    else
      this.gw.message(
        this.gwLink,
        Buffer.isBuffer(frame) ? frame : Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength),
        true,
      );
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(this.flush);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const q = this.queue;
    this.queue = [];
    for (let i = 0; i < q.length && !this.gone; i++) this.ev.message(q[i]!);
    if (this.ending && !this.gone) this.finish(this.ending.code, this.ending.reason, false);
  };

  private finish(code: number, reason: string, async: boolean): void {
    this.gone = true;
    this.setOpen(false);
    this.all.delete(this);
    this.gw.close(this.gwLink, code);
    if (async) queueMicrotask(() => this.ev.close(code, reason));
    else this.ev.close(code, reason);
  }

  private setOpen(v: boolean): void {
    (this.client as { open: boolean }).open = v;
  }
}

/** The gateway transport for strategies in this process; `dial` is their GatewayClient transport. */
export class InProcessTransport {
  private handlers: TransportHandlers<unknown> | undefined;
  private readonly links = new Set<LocalLink>();

  /** For `Gateway.addTransport`. */
  readonly start: TransportStarter = async (h) => {
    this.handlers = h as TransportHandlers<unknown>;
    return {
      kind: "in-process",
      port: 0,
      close: async () => {
        for (const l of [...this.links]) l.end(SHUTDOWN, "gateway shutting down");
        this.handlers = undefined;
      },
    };
  };

  readonly dial: ClientTransport = (ev) => {
    if (this.handlers === undefined) throw new Error("the engine is not running");
    return new LocalLink(this.handlers, ev, this.links).client;
  };
}

export type InProcessClientOptions = Omit<ClientOptions, "url" | "transport" | "token"> & {
  /** Default: the engine's user token. */
  token?: string;
};

/** A GatewayClient on the in-process link (not yet connected: call `connect()`). */
export function inProcessClient(
  local: InProcessTransport,
  token: string,
  opts: InProcessClientOptions,
): GatewayClient {
  return new GatewayClient({ token, ...opts, transport: local.dial });
}
