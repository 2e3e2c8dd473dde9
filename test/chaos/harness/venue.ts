/**
 * Simulator-side helpers for the scenarios: key pairs, a started simulator with the chaos defaults
 * (no synthetic market, so only our orders and a counterparty trade, and fills are exact), a signed
 * counterparty order, and a ledger of injected faults that counts how many actually fired.
 */
import { generateKeyPairSync } from "node:crypto";
import { request } from "undici";
import {
  type DeepPartial,
  type FaultRule,
  type SimHandle,
  type SimOptions,
  startSimulator,
} from "../../../sim/index.js";
import { type KeyPair, loadKeyPair } from "../../../src/auth/keys.js";
import { signedMessage } from "../../../src/auth/signedMessage.js";
import { nativeSigner } from "../../../src/auth/signer.js";

export function newKeys(): KeyPair {
  const { privateKey } = generateKeyPairSync("ed25519");
  const pkcs8 = privateKey.export({ format: "der", type: "pkcs8" });
  return loadKeyPair(Buffer.from(pkcs8.subarray(pkcs8.length - 32)).toString("hex"));
}

/** The hex secret of a key pair (what a config file or environment would hold). */
export function secretHex(keys: KeyPair): string {
  return Buffer.from(keys.seed).toString("hex");
}

export interface ChaosVenue {
  sim: SimHandle;
  keys: KeyPair;
  /** A second funded account that takes the other side. */
  other: KeyPair;
  faults: FaultLedger;
}

export async function startVenue(opts: DeepPartial<SimOptions> = {}): Promise<ChaosVenue> {
  const keys = newKeys();
  const other = newKeys();
  const sim = await startSimulator({
    seed: 7,
    market: { synthetic: false, tickMs: 0 },
    spot: { cancelConfirmMs: 20, expiryConfirmMs: 20 },
    ...opts,
    apiKeys: [keys.apiKey, other.apiKey],
  });
  return { sim, keys, other, faults: new FaultLedger(sim) };
}

/**
 * Adds request-fault rules (each with a `count`) and reports how many fired: every matching request
 * decrements its rule's count, and an exhausted rule retires.
 */
export class FaultLedger {
  private added = 0;
  /** Faults counted outside request rules (stream cuts, skew changes, kills, bad frames...). */
  extra = 0;
  constructor(private readonly sim: SimHandle) {}

  add(rule: FaultRule & { count: number }): void {
    this.added += rule.count;
    this.sim.faults.add(rule);
  }

  /** Request faults that fired so far, plus stream faults, plus `extra`. */
  fired(): number {
    const left = this.sim.faults.rules().reduce((a, r) => a + (r.count ?? 0), 0);
    const s = this.sim.counters.streams;
    return this.added - left + s.dropped + s.duplicated + s.reordered + this.extra;
  }

  /** Venue clock skew (counted as one fault per change). */
  setSkew(ms: number): void {
    this.skewMs = ms;
    this.extra++;
    this.sim.faults.setClockSkew(ms);
  }
  private skewMs = 0;

  /**
   * Retires the unfired rules on one endpoint (they are no longer counted as added), keeping every
   * other rule with its remaining count, the stream faults and the skew.
   */
  retire(endpoint: string): void {
    const rules = this.sim.faults.rules();
    const keep = rules.filter((r) => r.endpoint !== endpoint);
    if (keep.length === rules.length) return;
    for (const r of rules) if (r.endpoint === endpoint) this.added -= r.count ?? 0;
    const streams = this.sim.faults.streams();
    this.sim.faults.clear();
    for (const r of keep) this.sim.faults.add(r);
    this.sim.faults.setStreams(streams);
    this.sim.faults.setClockSkew(this.skewMs);
  }

  /** Removes the request rules that did not fire (so settling is fault-free); keeps stream faults and skew. */
  clearRules(): void {
    const left = this.sim.faults.rules().reduce((a, r) => a + (r.count ?? 0), 0);
    this.added -= left;
    const streams = this.sim.faults.streams();
    this.sim.faults.clear();
    this.sim.faults.setStreams(streams);
    this.sim.faults.setClockSkew(this.skewMs);
  }
}

export interface SignedAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: test convenience over the simulator's JSON
  json: any;
}

/** One signed request straight to the simulator (not through the gateway). */
export async function signedCall(
  baseUrl: string,
  keys: KeyPair,
  method: "GET" | "POST" | "DELETE",
  target: string,
  body?: unknown,
): Promise<SignedAnswer> {
  const epoch = String(Date.now());
  const res = await request(baseUrl + target, {
    method,
    headers: {
      "content-type": "application/json",
      "x-auth-apikey": keys.apiKey,
      "x-auth-epoch": epoch,
      "x-auth-signature": nativeSigner(keys).signHex(signedMessage(method, target, epoch)),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text === "" ? undefined : JSON.parse(text) };
}

/** The counterparty takes liquidity: a Spot BTC/INR limit order. */
export async function counterSpot(
  v: ChaosVenue,
  side: "buy" | "sell",
  price: number,
  qty: number,
): Promise<void> {
  // The counterparty stands outside the test: faults meant for the gateway's creates never hit it.
  v.faults.retire("POST /trade/api/v2/order");
  const r = await signedCall(v.sim.baseUrl, v.other, "POST", "/trade/api/v2/order", {
    side,
    symbol: "BTC/INR",
    type: "limit",
    price,
    quantity: qty,
    exchange: "coinswitchx",
  });
  if (r.status !== 200)
    throw new Error(`counterparty Spot order refused: ${r.status} ${JSON.stringify(r.json)}`);
}

/** The counterparty takes liquidity: an HFT ETHUSDT limit order. */
export async function counterHft(
  v: ChaosVenue,
  side: "Buy" | "Sell",
  price: string,
  qty: string,
): Promise<void> {
  v.faults.retire("POST /v5/order/create");
  const r = await signedCall(v.sim.baseUrl, v.other, "POST", "/v5/order/create", {
    category: "linear",
    symbol: "ETHUSDT",
    side,
    orderType: "Limit",
    qty,
    price,
    positionIdx: 0,
    timeInForce: "GTC",
  });
  if (r.status !== 200 || r.json.retCode !== 0)
    throw new Error(`counterparty HFT order refused: ${JSON.stringify(r.json)}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not reached within ${ms} ms`);
    await sleep(10);
  }
}
