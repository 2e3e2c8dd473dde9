/**
 * The Spot cancel is a DELETE with a JSON body. undici closes a connection after a body sent with a
 * method that does not anticipate one, unless told not to: every cancel would then open a new TCP
 * (and, at the real venue, TLS) connection. Counted at a real server over loopback.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadKeyPair } from "../../src/auth/keys.js";
import { createRestStack, type RestStack } from "../../src/venue/stack.js";
import { closeServer, json, SPOT_ORDER, startServer } from "./helpers.js";

const keys = loadKeyPair("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
const RECORD = { ...SPOT_ORDER, client_order_id: null, status: "CANCELLED" };

let server: Server;
let connections = 0;
let url = "";

/** A venue that answers the time and, for signed requests, the cancelled record. */
function startVenue() {
  return startServer(keys.apiKey, (req, res) => {
    if (req.url.startsWith("/trade/api/v2/time")) return json(res, 200, { serverTime: Date.now() });
    if (!req.sigOk) return json(res, 401, { message: "Invalid Access" });
    return json(res, 200, { data: RECORD });
  });
}

beforeAll(async () => {
  const s = await startVenue();
  server = s.server;
  url = s.url;
  server.keepAliveTimeout = 60_000;
  server.on("connection", () => {
    connections++;
  });
});

afterAll(async () => {
  await closeServer(server);
});

async function cancels(deleteBodyKeepAlive: boolean | undefined, n: number): Promise<number> {
  const stack: RestStack = createRestStack({
    keys,
    spotBaseUrl: url,
    hftBaseUrl: url,
    http: { connections: 2, prewarm: 1, deleteBodyKeepAlive },
    presign: false,
    clock: false,
  });
  await stack.start();
  const before = connections;
  try {
    for (let i = 0; i < n; i++) {
      const r = await stack.client.cancelSpotOrder(RECORD.order_id);
      expect(r.status).toBe("CANCELLED");
    }
    return connections - before;
  } finally {
    await stack.stop();
  }
}

describe("Spot cancel (DELETE with a body) on keep-alive connections", () => {
  it("reuses the warm connection by default: 20 sequential cancels open at most one more", async () => {
    expect(await cancels(undefined, 20)).toBeLessThanOrEqual(1);
  });

  it("with http.deleteBodyKeepAlive false, undici closes the connection after each cancel", async () => {
    expect(await cancels(false, 20)).toBeGreaterThanOrEqual(19);
  });
});

describe("warm connections", () => {
  it("start opens every connection; an idle pool is kept warm, so a burst after a quiet spell opens none", async () => {
    // A venue that closes a connection idle for 300 ms (without a Keep-Alive hint); the quiet spell
    // below outlasts that twice over.
    const s = await startVenue();
    s.server.keepAliveTimeout = 0;
    let opened = 0;
    s.server.on("connection", (socket: Socket) => {
      opened++;
      socket.setTimeout(300, () => socket.destroy());
    });
    const burstAfterQuiet = async (keepWarmMs: number) => {
      const stack = createRestStack({
        keys,
        spotBaseUrl: s.url,
        hftBaseUrl: s.url,
        http: { connections: 4, keepWarmMs },
        presign: false,
        clock: false,
      });
      const before = opened;
      await stack.start();
      const atStart = opened - before;
      await new Promise((r) => setTimeout(r, 800));
      const mid = opened;
      await Promise.all([1, 2, 3, 4].map(() => stack.client.cancelSpotOrder(RECORD.order_id)));
      const rounds = stack.client.warmStats.rounds;
      await stack.stop();
      return { atStart, burst: opened - mid, rounds };
    };
    try {
      const warm = await burstAfterQuiet(50);
      expect(warm.atStart).toBe(4);
      expect(warm.rounds).toBeGreaterThanOrEqual(5);
      expect(warm.burst).toBe(0);
      // Without keep-warm the same burst finds its connections closed by the venue and opens them again.
      const cold = await burstAfterQuiet(0);
      expect(cold.atStart).toBe(4);
      expect(cold.burst).toBe(4);
    } finally {
      await closeServer(s.server);
    }
  });
});
