/**
 * The staleness timer must sit above the venue's heartbeat, or an idle but healthy order stream is
 * declared dead every `staleMs`: reconnect, reconciliation, new orders held meanwhile. The simulator
 * (like the venue, [assumed] socket.io defaults) announces its ping interval in the Engine.IO handshake.
 */
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimHandle } from "../../sim/index.js";
import { loadConfig } from "../../src/config/load.js";
import { startVenue } from "./harness/venue.js";

let sim: SimHandle;
beforeAll(async () => {
  sim = (await startVenue()).sim;
});
afterAll(async () => {
  await sim.stop();
});

async function handshake(): Promise<{ pingInterval: number; pingTimeout: number }> {
  const r = await request(
    `${sim.baseUrl}/pro/realtime-rates-socket/spot/order-updates/?EIO=4&transport=polling`,
  );
  const text = await r.body.text();
  expect(r.statusCode).toBe(200);
  return JSON.parse(text.slice(text.indexOf("{")));
}

describe("order-stream staleness vs the venue's heartbeat", () => {
  it("the handshake announces the ping interval (the only traffic of an idle stream)", async () => {
    const h = await handshake();
    expect(h.pingInterval).toBeGreaterThan(0);
  });

  it("the default streams.staleMs is longer than the ping interval", async () => {
    const h = await handshake();
    const staleMs = loadConfig({ env: {} }).streams.staleMs;
    expect(staleMs).toBeGreaterThan(h.pingInterval);
  });
});
