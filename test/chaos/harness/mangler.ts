/**
 * An HTTP proxy in front of the venue's REST surfaces that forwards every request, lets the venue
 * handle it, and then — for the endpoints and share chosen — replaces the answer with what a CDN or
 * load balancer in front of an exchange sends on a bad day: an HTML page with status 200, 404 or 502,
 * or a truncated JSON body. The request was handled; only the answer is garbage.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export type Mangle = "html200" | "html502" | "html404" | "truncated";

export interface MangleRule {
  /** `METHOD /path` as the simulator counts it. */
  endpoint: string;
  kind: Mangle;
  probability: number;
  count: number;
}

export class ManglingProxy {
  private server: http.Server | undefined;
  private rules: MangleRule[] = [];
  private seed = 12345;
  /** Answers replaced so far. */
  mangled = 0;
  port = 0;

  constructor(private readonly target: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  add(rule: MangleRule): void {
    this.rules.push({ ...rule });
  }

  clear(): void {
    this.rules = [];
  }

  /** Deterministic [0, 1) so a run replays. */
  private next(): number {
    this.seed = (this.seed * 1103515245 + 12345) & 0x7fffffff;
    return this.seed / 0x80000000;
  }

  private pick(endpoint: string): Mangle | undefined {
    for (const r of this.rules) {
      if (r.count <= 0 || r.endpoint !== endpoint || this.next() >= r.probability) continue;
      r.count--;
      return r.kind;
    }
    return undefined;
  }

  async start(): Promise<this> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const path = (req.url ?? "/").split("?")[0];
        const kind = this.pick(`${req.method} ${path}`);
        const up = http.request(
          `${this.target}${req.url}`,
          { method: req.method, headers: { ...req.headers, host: new URL(this.target).host } },
          (ures) => {
            const body: Buffer[] = [];
            ures.on("data", (c: Buffer) => body.push(c));
            ures.on("end", () => {
              if (kind === undefined) {
                res.writeHead(ures.statusCode ?? 502, ures.headers);
                res.end(Buffer.concat(body));
                return;
              }
              this.mangled++;
              if (kind === "truncated") {
                const b = Buffer.concat(body);
                res.writeHead(200, { "content-type": "application/json" });
                res.end(b.subarray(0, Math.max(1, b.length >> 1)));
              } else {
                const status = kind === "html200" ? 200 : kind === "html404" ? 404 : 502;
                res.writeHead(status, { "content-type": "text/html" });
                res.end("<html><body><h1>Bad gateway</h1><p>upstream hiccup</p></body></html>");
              }
            });
          },
        );
        up.on("error", () => res.destroy());
        up.end(Buffer.concat(chunks));
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  }
}
