/**
 * The connection set in front of the exchange (src/rest/clientSet.ts), against a real HTTP server
 * on loopback: one FIFO over its connections, no head-of-line blocking behind a slow answer, and
 * requests still waiting at close fail as not sent.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientSet, NOT_SENT_CODE, type SetHandler } from "../../src/rest/clientSet.js";
import { NetworkError, transportError } from "../../src/rest/errors.js";

let server: Server;
let origin = "";
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url!);
    const delay = req.url!.startsWith("/slow") ? 300 : 0;
    setTimeout(() => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": req.url!.length });
      res.end(req.url);
    }, delay);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** Resolves with the body, or the error the set or undici reported. */
class Got implements SetHandler {
  slot = -1;
  finished: ((h: SetHandler) => void) | undefined = undefined;
  body = "";
  readonly done: Promise<string | Error>;
  private settle!: (v: string | Error) => void;
  constructor() {
    this.done = new Promise((r) => {
      this.settle = r;
    });
  }
  onConnect(): void {}
  onHeaders(): boolean {
    return true;
  }
  onData(chunk: Buffer): boolean {
    this.body += chunk.toString();
    return true;
  }
  onComplete(): void {
    this.finished?.(this);
    this.settle(this.body);
  }
  onError(err: Error): void {
    this.finished?.(this);
    this.settle(err);
  }
}

const OPTS = { connectTimeout: 1_000, headersTimeout: 5_000, bodyTimeout: 5_000, keepAliveTimeout: 30_000 };

function get(set: ClientSet, path: string): Got {
  const h = new Got();
  set.dispatch({ method: "GET", path }, h);
  return h;
}

describe("ClientSet", () => {
  it("sends waiting requests in arrival order, one at a time per connection", async () => {
    const set = new ClientSet(origin, { ...OPTS, connections: 1 });
    seen.length = 0;
    const got = [1, 2, 3, 4, 5].map((i) => get(set, `/fifo/${i}`));
    expect(set.idle).toBe(false);
    expect(await Promise.all(got.map((g) => g.done))).toEqual([1, 2, 3, 4, 5].map((i) => `/fifo/${i}`));
    expect(seen).toEqual([1, 2, 3, 4, 5].map((i) => `/fifo/${i}`));
    expect(set.idle).toBe(true);
    await set.close();
  });

  it("a slow answer holds up only its own connection: later requests go out on the free one", async () => {
    const set = new ClientSet(origin, { ...OPTS, connections: 2 });
    const order: string[] = [];
    const slow = get(set, "/slow");
    const fast = [1, 2, 3, 4].map((i) => get(set, `/fast/${i}`));
    for (const g of [slow, ...fast]) void g.done.then((v) => order.push(String(v)));
    await Promise.all([slow.done, ...fast.map((g) => g.done)]);
    expect(order.slice(0, 4)).toEqual(["/fast/1", "/fast/2", "/fast/3", "/fast/4"]);
    expect(order[4]).toBe("/slow");
    await set.close();
  });

  it("requests still waiting when it closes fail as never sent; later ones too", async () => {
    const set = new ClientSet(origin, { ...OPTS, connections: 1 });
    const first = get(set, "/slow/first");
    const waiting = get(set, "/never");
    const closing = set.close();
    const err = await waiting.done;
    expect(err).toBeInstanceOf(Error);
    expect((err as Error & { code?: string }).code).toBe(NOT_SENT_CODE);
    // The REST layer maps it to "not sent", never to "outcome unknown".
    expect(transportError(err, "hft.createOrder")).toBeInstanceOf(NetworkError);
    expect(await first.done).toBe("/slow/first");
    await closing;
    const late = await get(set, "/late").done;
    expect((late as Error & { code?: string }).code).toBe(NOT_SENT_CODE);
  });
});
