/**
 * One Socket.IO v4 connection to one namespace, kept alive: websocket transport only, subscriptions
 * re-emitted on every (re)connect, bounded exponential reconnect back-off (socket.io's Manager), and a
 * staleness rule: if no packet at all (engine.io pings included) arrives for `staleMs`, the stream is
 * declared down and the connection is torn down and re-opened, whether or not a close was seen.
 * Payloads are handed to one sink per event; a sink that returns false counts a malformed message.
 * Nothing a peer sends can throw into the socket loop.
 */
import { Manager, type Socket } from "socket.io-client";

export interface StreamStateListener {
  /** The namespace is connected and its subscriptions were sent. `reconnect` is false the first time. */
  onUp(name: string, reconnect: boolean): void;
  /** The stream stopped delivering: close, error, or staleness (`reason` says which). */
  onDown(name: string, reason: string): void;
}

export interface BackoffOptions {
  /** First reconnect delay (ms). Default 250. */
  minMs?: number;
  /** Upper bound of the delay (ms). Default 5,000. */
  maxMs?: number;
  /** Randomised fraction of each delay (0..1). Default 0.3. */
  jitter?: number;
}

export interface SocketStreamOptions {
  /** Human name for listeners and stats, e.g. "spot.orders". */
  name: string;
  /** Origin, e.g. `https://ws.coinswitch.co` or the simulator's base URL. */
  baseUrl: string;
  /** Engine.IO handshake path, e.g. `/pro/realtime-rates-socket/spot/order-updates`. */
  path: string;
  /** Socket.IO namespace, e.g. `/orderupdates`. */
  namespace: string;
  /** `[event, payload]` pairs emitted after every connect. */
  subscriptions: ReadonlyArray<readonly [string, unknown]>;
  /** Per event: consumes one payload; returns false when it was malformed (counted, dropped). */
  sinks: Readonly<Record<string, (payload: unknown) => boolean>>;
  listener?: StreamStateListener;
  /** Silence (no packet of any kind) after which the stream counts as down. Default 30,000 ms. */
  staleMs?: number;
  backoff?: BackoffOptions;
  /** Connect attempt timeout (ms). Default 5,000. */
  connectTimeoutMs?: number;
  /** Injectable clock (ms) for the staleness rule. */
  now?: () => number;
}

export interface SocketStreamStats {
  messages: number;
  malformed: number;
  /** Sink threw (a bug in our code, not the peer's): counted and swallowed. */
  sinkErrors: number;
  connects: number;
  disconnects: number;
  staleTrips: number;
  packets: number;
}

const NOOP_STATE: StreamStateListener = { onUp() {}, onDown() {} };

export class SocketStream {
  readonly name: string;
  readonly stats: SocketStreamStats = {
    messages: 0,
    malformed: 0,
    sinkErrors: 0,
    connects: 0,
    disconnects: 0,
    staleTrips: 0,
    packets: 0,
  };
  private readonly manager: Manager;
  private readonly socket: Socket;
  /** `[event, payload]` pairs emitted on every connect (changed at run time by `subscribe`/`unsubscribe`). */
  private subs: Array<readonly [string, unknown]>;
  private readonly listener: StreamStateListener;
  private readonly staleMs: number;
  private readonly now: () => number;
  private lastPacketMs = 0;
  private transportOpen = false;
  private isUp = false;
  private started = false;
  private staleTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly backoffMin: number;
  private readonly backoffMax: number;
  private manualAttempts = 0;
  // Bound once: no per-packet closures.
  private readonly onPacket = (): void => {
    this.lastPacketMs = this.now();
    this.stats.packets++;
  };

  constructor(opts: SocketStreamOptions) {
    this.subs = [...opts.subscriptions];
    this.name = opts.name;
    this.listener = opts.listener ?? NOOP_STATE;
    this.staleMs = opts.staleMs ?? 30_000;
    this.now = opts.now ?? Date.now;
    const b = opts.backoff ?? {};
    this.backoffMin = b.minMs ?? 250;
    this.backoffMax = b.maxMs ?? 5_000;
    this.manager = new Manager(opts.baseUrl, {
      path: opts.path,
      transports: ["websocket"],
      autoConnect: false,
      reconnection: true,
      reconnectionDelay: this.backoffMin,
      reconnectionDelayMax: this.backoffMax,
      randomizationFactor: b.jitter ?? 0.3,
      timeout: opts.connectTimeoutMs ?? 5_000,
    });
    this.manager.on("open", () => {
      this.transportOpen = true;
      this.lastPacketMs = this.now();
      this.manager.engine.on("packet", this.onPacket);
    });
    this.manager.on("close", () => {
      this.transportOpen = false;
    });
    this.socket = this.manager.socket(opts.namespace);
    this.socket.on("connect", () => this.handleConnect());
    this.socket.on("disconnect", (reason: string) => this.handleDisconnect(reason));
    this.socket.on("connect_error", (err: Error) => this.handleConnectError(err));
    for (const [event, sink] of Object.entries(opts.sinks)) {
      this.socket.on(event, (payload: unknown) => this.deliver(sink, payload));
    }
  }

  get up(): boolean {
    return this.isUp;
  }

  /** Adds subscriptions: emitted now when connected, and on every reconnect. */
  subscribe(subs: ReadonlyArray<readonly [string, unknown]>): void {
    for (const x of subs) {
      this.subs.push(x);
      if (this.socket.connected) this.socket.emit(x[0], x[1]);
    }
  }

  /** Drops subscriptions (the same pair objects `subscribe` got) and emits `[event, payload]` leave messages. */
  unsubscribe(
    subs: ReadonlyArray<readonly [string, unknown]>,
    leave: ReadonlyArray<readonly [string, unknown]>,
  ): void {
    this.subs = this.subs.filter((x) => !subs.includes(x));
    if (this.socket.connected) for (const [event, payload] of leave) this.socket.emit(event, payload);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.socket.connect();
    const every = Math.max(10, Math.min(1_000, Math.floor(this.staleMs / 4)));
    this.staleTimer = setInterval(() => this.checkStale(), every);
    this.staleTimer.unref();
  }

  stop(): void {
    if (!this.started) return;
    this.started = false;
    if (this.staleTimer !== undefined) clearInterval(this.staleTimer);
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.staleTimer = undefined;
    this.retryTimer = undefined;
    this.socket.disconnect();
    this.manager.engine?.close();
    if (this.isUp) {
      this.isUp = false;
      this.listener.onDown(this.name, "stopped");
    }
  }

  /** Tears the transport down and lets the Manager reconnect (staleness, or an operator's request). */
  forceReconnect(reason: string): void {
    if (!this.started) return;
    this.markDown(reason);
    const engine = this.manager.engine;
    if (this.transportOpen && engine !== undefined) engine.close();
    else if (!this.socket.active) this.scheduleManualConnect();
  }

  private checkStale(): void {
    if (!this.transportOpen) return;
    if (this.now() - this.lastPacketMs < this.staleMs) return;
    this.stats.staleTrips++;
    this.forceReconnect("stale");
  }

  private handleConnect(): void {
    this.stats.connects++;
    this.manualAttempts = 0;
    this.lastPacketMs = this.now();
    for (const [event, payload] of this.subs) this.socket.emit(event, payload);
    this.isUp = true;
    this.listener.onUp(this.name, this.stats.connects > 1);
  }

  private handleDisconnect(reason: string): void {
    this.stats.disconnects++;
    this.markDown(reason);
    // A server-side disconnect is not retried by socket.io itself; we still want the stream back.
    if (this.started && reason === "io server disconnect") this.scheduleManualConnect();
  }

  private handleConnectError(err: Error): void {
    this.markDown(`connect_error: ${err.message}`);
    // Namespace-level refusals leave the socket inactive; transport errors are retried by the Manager.
    if (this.started && !this.socket.active) this.scheduleManualConnect();
  }

  private markDown(reason: string): void {
    if (!this.isUp) return;
    this.isUp = false;
    this.listener.onDown(this.name, reason);
  }

  private scheduleManualConnect(): void {
    if (this.retryTimer !== undefined) return;
    const delay = Math.min(this.backoffMax, this.backoffMin * 2 ** this.manualAttempts);
    this.manualAttempts = Math.min(this.manualAttempts + 1, 30);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.started && !this.socket.connected) this.socket.connect();
    }, delay);
    this.retryTimer.unref();
  }

  private deliver(sink: (p: unknown) => boolean, payload: unknown): void {
    this.stats.messages++;
    let ok: boolean;
    try {
      ok = sink(payload);
    } catch {
      // Sinks validate and never throw on peer input; this guards the socket loop against our bugs.
      this.stats.sinkErrors++;
      return;
    }
    if (!ok) this.stats.malformed++;
  }
}
