import { execFileSync } from "node:child_process";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimHandle, startSimulator } from "../../sim/index.js";
import { signedMessage } from "../../src/auth/signedMessage.js";
import { call, newKeys } from "./helpers.js";

const keys = newKeys();
const stranger = newKeys();
let sim: SimHandle;

/** Independent signer: Python `cryptography`, fed the secret seed on stdin (never on argv). */
function pySign(message: string): string {
  const script =
    "import sys\nfrom cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey\n" +
    "seed, msg = sys.stdin.read().split('\\n', 1)\n" +
    "print(Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed)).sign(msg.encode('utf-8')).hex())\n";
  return execFileSync("python3", ["-c", script], {
    input: `${Buffer.from(keys.seed).toString("hex")}\n${message}`,
  })
    .toString()
    .trim();
}

async function raw(method: string, target: string, headers: Record<string, string>, body?: string) {
  const res = await request(sim.baseUrl + target, {
    method: method as "GET",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  return { status: res.statusCode, json: JSON.parse(await res.body.text()) };
}

beforeAll(async () => {
  sim = await startSimulator({ apiKeys: [keys.apiKey], market: { synthetic: false } });
});
afterAll(async () => {
  await sim.stop();
});

describe("authentication (docs/venue-api.md §2)", () => {
  it("accepts requests signed by an independent implementation (Python cryptography)", async () => {
    const epoch = String(Date.now());
    const target = "/trade/api/v2/orders?open=true&exchanges=coinswitchx%2Cc2c1&symbols=btc%2Finr";
    const sig = pySign(signedMessage("GET", target, epoch));
    const r = await raw("GET", target, {
      "x-auth-apikey": keys.apiKey,
      "x-auth-signature": sig,
      "x-auth-epoch": epoch,
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ data: { orders: [] } });
    // HFT with a space and plus in the query (worked example (d)), upper-case hex accepted.
    const t2 = "/v5/order/realtime?category=linear&symbol=BTCUSDT&orderLinkId=grid+7%2Ba%2Fb";
    const sig2 = pySign(signedMessage("GET", t2, epoch)).toUpperCase();
    const r2 = await raw("GET", t2, {
      "x-auth-apikey": keys.apiKey.toUpperCase(),
      "x-auth-signature": sig2,
      "x-auth-epoch": epoch,
    });
    expect(r2.status).toBe(200);
    expect(r2.json.retCode).toBe(0);
  });

  it("signs the decoded target: the python message for example (c) matches signedMessage", () => {
    const wire =
      "/trade/api/v2/orders?open=false&symbols=btc%2Finr%2Ceth%2Finr&exchanges=coinswitchx%2Cc2c1&status=EXECUTED&count=100";
    expect(signedMessage("GET", wire, "1719905777483")).toBe(
      "GET/trade/api/v2/orders?open=false&symbols=btc/inr,eth/inr&exchanges=coinswitchx,c2c1&status=EXECUTED&count=1001719905777483",
    );
  });

  it("rejects tampered method, path, query and epoch with 401 Invalid Access", async () => {
    const t = "/trade/api/v2/orders?open=true";
    const cases = [
      { signMethod: "POST" },
      { signTarget: "/trade/api/v2/order?open=true" },
      { signTarget: "/trade/api/v2/orders?open=false" },
      { signEpoch: String(Date.now() - 1) },
    ];
    for (const c of cases) {
      const r = await call(sim.baseUrl, keys, "GET", t, undefined, c);
      expect(r.status, JSON.stringify(c)).toBe(401);
      expect(r.json).toEqual({ message: "Invalid Access" });
    }
    // The body is not signed: a POST with any body verifies against the same message.
    const ok = await call(sim.baseUrl, keys, "POST", "/trade/api/v2/exchangePrecision", { exchange: "c2c1" });
    expect(ok.status).toBe(200);
  });

  it("rejects unknown keys, malformed signatures and drift over 60 s", async () => {
    expect((await call(sim.baseUrl, stranger, "GET", "/trade/api/v2/ping")).status).toBe(401);
    const old = String(Date.now() - 61_000);
    expect(
      (await call(sim.baseUrl, keys, "GET", "/trade/api/v2/ping", undefined, { epoch: old })).status,
    ).toBe(401);
    expect((await call(sim.baseUrl, keys, "POST", "/v5/order/create", {}, { epoch: old })).status).toBe(401);
    // Between 5 s and 60 s: accepted by default [assumed].
    const soft = String(Date.now() - 20_000);
    expect(
      (await call(sim.baseUrl, keys, "GET", "/trade/api/v2/ping", undefined, { epoch: soft })).status,
    ).toBe(200);
    const bad = await raw("GET", "/trade/api/v2/ping", {
      "x-auth-apikey": keys.apiKey,
      "x-auth-signature": "zz",
      "x-auth-epoch": String(Date.now()),
    });
    expect(bad.status).toBe(401);
  });

  it("missing X-AUTH-EPOCH: 400 on HFT, 401 on Spot by default", async () => {
    const h = await call(sim.baseUrl, keys, "GET", "/v5/order/realtime?category=linear", undefined, {
      omitEpoch: true,
    });
    expect(h.status).toBe(400);
    expect(h.json.retMsg).toMatch(/X-AUTH-EPOCH/);
    const s = await call(sim.baseUrl, keys, "GET", "/trade/api/v2/ping", undefined, { omitEpoch: true });
    expect(s.status).toBe(401);
  });

  it("serves /time unauthenticated, validates keys, tolerates a body on GET", async () => {
    const t = await call(sim.baseUrl, keys, "GET", "/trade/api/v2/time", undefined, { noAuth: true });
    expect(t.status).toBe(200);
    expect(Math.abs(t.json.serverTime - Date.now())).toBeLessThan(5_000);
    const v = await call(sim.baseUrl, keys, "GET", "/trade/api/v2/validate/keys", {});
    expect(v).toEqual({ status: 200, json: { message: "Valid Access" } });
    expect(
      (await call(sim.baseUrl, keys, "GET", "/trade/api/v2/ping", undefined, { noAuth: true })).status,
    ).toBe(401);
  });

  it("clock skew fault moves /time and the drift check", async () => {
    sim.faults.setClockSkew(120_000);
    try {
      const t = await call(sim.baseUrl, keys, "GET", "/trade/api/v2/time", undefined, { noAuth: true });
      expect(t.json.serverTime - Date.now()).toBeGreaterThan(100_000);
      expect((await call(sim.baseUrl, keys, "GET", "/trade/api/v2/ping")).status).toBe(401);
      const skewed = String(Date.now() + 120_000);
      expect(
        (await call(sim.baseUrl, keys, "GET", "/trade/api/v2/ping", undefined, { epoch: skewed })).status,
      ).toBe(200);
    } finally {
      sim.faults.setClockSkew(0);
    }
  });
});

describe("HFT drift check disabled (docs DISAGREEMENT, configurable)", () => {
  it("accepts an old epoch on HFT but not on Spot", async () => {
    const s2 = await startSimulator({
      apiKeys: [keys.apiKey],
      market: { synthetic: false },
      auth: { hftDriftCheck: false },
    });
    try {
      const old = String(Date.now() - 600_000);
      expect(
        (await call(s2.baseUrl, keys, "GET", "/v5/order/realtime?category=linear", undefined, { epoch: old }))
          .status,
      ).toBe(200);
      expect(
        (await call(s2.baseUrl, keys, "GET", "/trade/api/v2/ping", undefined, { epoch: old })).status,
      ).toBe(401);
    } finally {
      await s2.stop();
    }
  });
});
