/**
 * The keep-alive connections to one origin: `connections` undici Clients (no pipelining) behind one
 * FIFO. It does what an undici Pool does for this gateway, without the Pool's per-request layer (its
 * dispatcher lookup and a `drain` event per answer): 62.5 against 68.6 µs p50 for the same create in
 * the rest suite, raw socket 44.6 µs (docs/benchmarks.md, gateway cost).
 *
 * A request goes to a connection with nothing in flight; when every one is busy it waits in the FIFO,
 * and the first connection to finish takes the oldest waiting request, so a slow answer on one
 * connection never holds up a request another connection could send.
 */
import { Client, type Dispatcher } from "undici";

/** Error code of a request the set never handed to a connection (see rest/errors NOT_SENT). */
export const NOT_SENT_CODE = "HFTGATE_NOT_SENT";

function notSent(): Error {
  return Object.assign(new Error("connections closed; request not sent"), { code: NOT_SENT_CODE });
}

/** A request handler the set can tell apart: the set records its connection on it. */
export interface SetHandler extends Dispatcher.DispatchHandler {
  /** Index of the connection carrying the request (set by the ClientSet; -1 before). */
  slot: number;
  /** Called by the handler once, when the request completed or failed. */
  finished: ((h: SetHandler) => void) | undefined;
}

export interface ClientSetOptions {
  connections: number;
  connectTimeout: number;
  headersTimeout: number;
  bodyTimeout: number;
  keepAliveTimeout: number;
  /** Certificate authorities for TLS (Node's own and more), or Node's own. */
  ca?: string[];
}

interface Waiting {
  opts: Dispatcher.DispatchOptions;
  handler: SetHandler;
}

export class ClientSet {
  private readonly clients: Client[];
  /** Requests in flight per connection (0 or 1: no pipelining). */
  private readonly busy: Uint8Array;
  /** Date.now() when each connection last took a request (keep-warm leaves a recently used one alone). */
  private readonly usedAt: Float64Array;
  private inFlight = 0;
  private readonly fifo: Waiting[] = [];
  private fifoHead = 0;
  private closed = false;
  private readonly onFinished = (h: SetHandler): void => this.finish(h);

  constructor(
    readonly origin: string,
    o: ClientSetOptions,
  ) {
    const n = Math.max(1, o.connections);
    this.clients = [];
    for (let i = 0; i < n; i++) {
      this.clients.push(
        new Client(origin, {
          // Never pipeline: a request behind a stalled one would share its fate.
          pipelining: 1,
          connectTimeout: o.connectTimeout,
          headersTimeout: o.headersTimeout,
          bodyTimeout: o.bodyTimeout,
          keepAliveTimeout: o.keepAliveTimeout,
          ...(o.ca === undefined ? {} : { connect: { ca: o.ca } }),
        }),
      );
    }
    this.busy = new Uint8Array(n);
    this.usedAt = new Float64Array(n);
  }

  get size(): number {
    return this.clients.length;
  }

  /** Nothing in flight and nothing waiting. */
  get idle(): boolean {
    return this.inFlight === 0 && this.fifoHead === this.fifo.length;
  }

  /** Sends on a free connection, or queues behind the requests already waiting. */
  dispatch(opts: Dispatcher.DispatchOptions, handler: SetHandler): void {
    handler.finished = this.onFinished;
    if (this.closed) {
      handler.finished = undefined;
      handler.onError?.(notSent());
      return;
    }
    if (this.fifoHead === this.fifo.length) {
      const busy = this.busy;
      for (let i = 0; i < busy.length; i++) {
        if (busy[i] === 0) {
          this.start(i, opts, handler);
          return;
        }
      }
    }
    this.fifo.push({ opts, handler });
  }

  /**
   * One request on connection `i` (unsigned warm-up GETs): opens it if closed, keeps it warm; not when
   * it took a request less than `quietMs` ago (a connection in use needs no warming).
   */
  dispatchOn(i: number, opts: Dispatcher.DispatchOptions, handler: SetHandler, quietMs = 0): boolean {
    if (this.busy[i] !== 0 || this.closed) return false;
    if (quietMs > 0 && Date.now() - this.usedAt[i]! < quietMs) return false;
    handler.finished = this.onFinished;
    this.start(i, opts, handler);
    return true;
  }

  /** Closes every connection; requests still waiting fail as not sent. */
  async close(): Promise<void> {
    this.closed = true;
    const waiting = this.fifo.slice(this.fifoHead);
    this.fifo.length = 0;
    this.fifoHead = 0;
    for (const w of waiting) {
      w.handler.finished = undefined;
      w.handler.onError?.(notSent());
    }
    await Promise.all(this.clients.map((c) => c.close()));
  }

  private start(i: number, opts: Dispatcher.DispatchOptions, handler: SetHandler): void {
    this.busy[i] = 1;
    this.usedAt[i] = Date.now();
    this.inFlight++;
    handler.slot = i;
    // A closed or destroyed client reports through handler.onError, which frees the slot.
    this.clients[i]!.dispatch(opts, handler);
  }

  private finish(h: SetHandler): void {
    const i = h.slot;
    if (i < 0 || this.busy[i] === 0) return;
    h.slot = -1;
    this.busy[i] = 0;
    this.inFlight--;
    if (this.fifoHead < this.fifo.length) {
      const w = this.fifo[this.fifoHead]!;
      this.fifo[this.fifoHead++] = undefined as unknown as Waiting;
      if (this.fifoHead === this.fifo.length) {
        this.fifo.length = 0;
        this.fifoHead = 0;
      } else if (this.fifoHead > 1024 && this.fifoHead * 2 > this.fifo.length) {
        this.fifo.splice(0, this.fifoHead);
        this.fifoHead = 0;
      }
      this.start(i, w.opts, w.handler);
    }
  }
}
