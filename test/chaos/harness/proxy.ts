/**
 * A loopback TCP proxy that can cut a link for a while: every open connection is destroyed and new
 * ones are refused until the cut ends. Placed between the gateway and the simulator's Socket.IO
 * endpoint it is a real network partition of the order stream (REST keeps going direct).
 */
import net from "node:net";

export class CuttableProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private cutUntil = 0;
  /** Connections accepted / refused during a cut / cuts made. */
  readonly stats = { accepted: 0, refused: 0, cuts: 0 };
  port = 0;

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = "127.0.0.1",
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const server = net.createServer((client) => this.onConn(client));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.port = (server.address() as net.AddressInfo).port;
    return this;
  }

  private onConn(client: net.Socket): void {
    if (Date.now() < this.cutUntil) {
      this.stats.refused++;
      client.destroy();
      return;
    }
    this.stats.accepted++;
    const up = net.connect(this.targetPort, this.targetHost);
    this.sockets.add(client);
    this.sockets.add(up);
    const done = () => {
      client.destroy();
      up.destroy();
      this.sockets.delete(client);
      this.sockets.delete(up);
    };
    client.on("error", done).on("close", done);
    up.on("error", done).on("close", done);
    client.pipe(up);
    up.pipe(client);
  }

  /** Destroys every open connection and refuses new ones for `ms`. */
  cut(ms: number): void {
    this.stats.cuts++;
    this.cutUntil = Date.now() + ms;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  get isCut(): boolean {
    return Date.now() < this.cutUntil;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
