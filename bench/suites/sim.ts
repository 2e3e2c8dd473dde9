/**
 * Simulator suite: how much the venue itself costs per request. HTTP round trips through one
 * keep-alive undici connection, client and simulator in this one process (so on one vCPU; the
 * figures include the client), against a trivial node:http server in the same process as the floor.
 * Also the matching exchange alone (`Exchange`, no HTTP): an HFT IOC create that does not cross.
 * "signed" reuses one signature per second (the simulator caches verified triples, as a pre-signing
 * client would hit); "fresh" signs and verifies every request (client-side signing included).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Pool } from "undici";
import { startSimulator } from "../../sim/index.js";
import { loadKeyPair } from "../../src/auth/keys.js";
import { nativeSigner } from "../../src/auth/signer.js";
import { ratio, timeAsync, timeSync } from "../lib/stats.js";

export const name = "sim";

const SECRET = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const N = 5_000;

export async function run(): Promise<Record<string, unknown>> {
  const keys = loadKeyPair(SECRET);
  const signer = nativeSigner(keys);
  const sim = await startSimulator({
    apiKeys: [keys.apiKey],
    timeMode: "manual",
    market: { tickMs: 0 },
    rateLimits: { enabled: false },
  });
  const ackBody = `{"retCode":0,"retMsg":"OK","result":{"orderId":"7f3c0a52-1e9b-4c1d-9d7e-2b0f6a1c3e44","orderLinkId":""},"retExtInfo":{},"time":${Date.now()}}`;
  const trivial = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(ackBody);
    });
  });
  await new Promise<void>((r) => trivial.listen(0, "127.0.0.1", () => r()));
  const floorPool = new Pool(`http://127.0.0.1:${(trivial.address() as AddressInfo).port}`, {
    connections: 1,
  });
  const simPool = new Pool(sim.baseUrl, { connections: 1 });

  // The signature depends only on the epoch; refresh it once per second as a pre-signer would.
  let epoch = "";
  let sig = "";
  const headers = () => {
    const now = Date.now();
    if (epoch === "" || now - Number(epoch) > 1_000) {
      epoch = String(now);
      sig = signer.signHex(`POST/v5/order/create${epoch}`);
    }
    return {
      "content-type": "application/json",
      "x-auth-apikey": keys.apiKey,
      "x-auth-signature": sig,
      "x-auth-epoch": epoch,
    };
  };
  const body = JSON.stringify({
    category: "linear",
    symbol: "BTCUSDT",
    side: "Buy",
    orderType: "Limit",
    qty: "0.001",
    price: "50000",
    timeInForce: "IOC",
    positionIdx: 0,
  });
  const post = async (pool: Pool) => {
    const r = await pool.request({ path: "/v5/order/create", method: "POST", headers: headers(), body });
    await r.body.text();
  };
  const getTime = async (pool: Pool) => {
    const r = await pool.request({ path: "/trade/api/v2/time", method: "GET" });
    await r.body.text();
  };

  // Every request with a distinct epoch: the simulator verifies each signature (client signing included).
  let bump = 0;
  const postFresh = async () => {
    const e = String(Date.now() + (bump++ % 1000));
    const h = {
      "content-type": "application/json",
      "x-auth-apikey": keys.apiKey,
      "x-auth-signature": signer.signHex(`POST/v5/order/create${e}`),
      "x-auth-epoch": e,
    };
    const r = await simPool.request({ path: "/v5/order/create", method: "POST", headers: h, body });
    await r.body.text();
  };

  const floor = await timeAsync(() => post(floorPool), N);
  const create = await timeAsync(() => post(simPool), N);
  const fresh = await timeAsync(postFresh, N);
  const floorGet = await timeAsync(() => getTime(floorPool), N);
  const time = await timeAsync(() => getTime(simPool), N);
  const acct = sim.exchange.accounts.get(keys.apiKey)!;
  const engineOnly = timeSync(
    () =>
      sim.exchange.hftCreate(acct, {
        symbol: "BTCUSDT",
        buy: true,
        market: false,
        priceTicks: 500_000,
        lots: 1,
        tif: "IOC",
        positionIdx: 0,
        clientId: "",
      }),
    50_000,
  );
  await floorPool.close();
  await simPool.close();
  await sim.stop();
  await new Promise<void>((r) => trivial.close(() => r()));
  return {
    placement: "client and simulator in one process (one event loop)",
    floor_post_trivial_server: floor,
    sim_v5_create_ioc_signed: create,
    ratio_create_p50_vs_floor: ratio(create.p50_us, floor.p50_us),
    sim_v5_create_fresh_signature_each: fresh,
    ratio_fresh_p50_vs_floor: ratio(fresh.p50_us, floor.p50_us),
    floor_get_trivial_server: floorGet,
    sim_spot_time_unauthenticated: time,
    ratio_time_p50_vs_floor: ratio(time.p50_us, floorGet.p50_us),
    engine_hft_create_ioc_no_http: engineOnly,
  };
}
