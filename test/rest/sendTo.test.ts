/**
 * `RestClient.sendTo`, the order paths' way out: each request's outcome reaches the caller's
 * long-lived sink exactly once, with the context and stamp it was sent with, never inside the call
 * that sent it; answers unwrapped, failures typed. Against a verifying HTTP server on 127.0.0.1.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadKeyPair } from "../../src/auth/keys.js";
import type { AnswerSink } from "../../src/rest/client.js";
import { NetworkError, ValidationError } from "../../src/rest/errors.js";
import type { SpotOrderRecord, V5OrderAck } from "../../src/rest/wire.js";
import { prepareHftCancel } from "../../src/venue/hft/cancel.js";
import { prepareSpotCancel } from "../../src/venue/spot/cancel.js";
import { createRestStack, type RestStack } from "../../src/venue/stack.js";
import { closeServer, envelope, json, SPOT_ORDER, startServer } from "./helpers.js";

const keys = loadKeyPair("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
let server: Server;
let stack: RestStack;

interface Seen {
  kind: "answered" | "failed";
  ctx: string;
  value: unknown;
  stamp: number;
}

/** One sink for every request, as the engine's paths have it. */
class Sink implements AnswerSink<string> {
  readonly seen: Seen[] = [];
  private waiters: (() => void)[] = [];
  answered(ctx: string, value: unknown, stamp: number): void {
    this.seen.push({ kind: "answered", ctx, value, stamp });
    for (const w of this.waiters.splice(0)) w();
  }
  failed(ctx: string, value: unknown, stamp: number): void {
    this.seen.push({ kind: "failed", ctx, value, stamp });
    for (const w of this.waiters.splice(0)) w();
  }
  async until(n: number): Promise<void> {
    while (this.seen.length < n) await new Promise<void>((r) => this.waiters.push(r));
  }
}

beforeAll(async () => {
  const s = await startServer(keys.apiKey, (req, res) => {
    if (!req.sigOk) return json(res, 401, { message: "Invalid Access" });
    const body = JSON.parse(req.body) as { order_id?: string; orderId?: string };
    if (req.url === "/trade/api/v2/order" && body.order_id === "refused")
      return json(res, 422, { message: "order already closed" });
    if (req.url === "/trade/api/v2/order")
      return json(res, 200, { data: { ...SPOT_ORDER, order_id: body.order_id } });
    if (req.url === "/v5/order/cancel")
      return json(res, 200, envelope({ orderId: body.orderId, orderLinkId: "" }));
    return json(res, 404, { message: "not found" });
  });
  server = s.server;
  stack = createRestStack({ keys, spotBaseUrl: s.url, hftBaseUrl: s.url, presign: false, clock: false });
  await stack.start();
});

afterAll(async () => {
  await stack.stop();
  await closeServer(server);
});

describe("RestClient.sendTo", () => {
  it("hands each outcome to the sink once, with its own context and stamp, after the send returned", async () => {
    const c = stack.client;
    const sink = new Sink();
    c.sendTo(prepareSpotCancel(c, "A1"), sink, "spot-a", 11);
    c.sendTo(
      prepareHftCancel(c, { category: "linear", symbol: "BTCUSDT", orderId: "H1" }),
      sink,
      "hft-b",
      22,
    );
    c.sendTo(prepareSpotCancel(c, "refused"), sink, "spot-c", 33);
    expect(sink.seen).toEqual([]); // nothing is delivered inside the sending call
    await sink.until(3);
    await new Promise((r) => setTimeout(r, 50));
    expect(sink.seen).toHaveLength(3);
    const by = new Map(sink.seen.map((s) => [s.ctx, s]));
    expect(by.get("spot-a")).toMatchObject({ kind: "answered", stamp: 11 });
    expect((by.get("spot-a")!.value as SpotOrderRecord).order_id).toBe("A1");
    expect(by.get("hft-b")).toMatchObject({ kind: "answered", stamp: 22 });
    expect((by.get("hft-b")!.value as V5OrderAck).orderId).toBe("H1");
    expect(by.get("spot-c")).toMatchObject({ kind: "failed", stamp: 33 });
    expect(by.get("spot-c")!.value).toBeInstanceOf(ValidationError);
    expect((by.get("spot-c")!.value as ValidationError).exchangeMessage).toBe("order already closed");
  });

  it("a venue it cannot reach is a NetworkError for that request's context", async () => {
    // A free port with nothing listening on it.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const down = createRestStack({
      keys,
      spotBaseUrl: `http://127.0.0.1:${port}`,
      presign: false,
      clock: false,
      http: { connectTimeoutMs: 500, keepWarmMs: 0 },
    });
    const sink = new Sink();
    down.client.sendTo(prepareSpotCancel(down.client, "A2"), sink, "spot-d", 44);
    await sink.until(1);
    await down.stop();
    expect(sink.seen).toHaveLength(1);
    expect(sink.seen[0]).toMatchObject({ kind: "failed", ctx: "spot-d", stamp: 44 });
    expect(sink.seen[0]!.value).toBeInstanceOf(NetworkError);
  });
});
