import { createPublicKey, verify } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { EpochSource } from "../../src/auth/epoch.js";
import { loadKeyPair } from "../../src/auth/keys.js";
import { Presigner } from "../../src/auth/presigner.js";
import { RequestSigner } from "../../src/auth/requestSigner.js";
import { signedMessage } from "../../src/auth/signedMessage.js";
import { nativeSigner } from "../../src/auth/signer.js";
import { ClockError } from "../../src/clock/clockSync.js";
import { loadConfig } from "../../src/config/load.js";
import { HOT_PREFIXES } from "../../src/venue/stack.js";

const SECRET = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const keys = loadKeyPair(SECRET);
const signer = nativeSigner(keys);
let running: Presigner | undefined;

afterEach(async () => {
  await running?.stop();
  running = undefined;
});

/** A started pre-signer on an epoch grid of `stepMs` and on the clock `now`; the hot prefixes. */
async function steppedPresigner(
  now: () => number,
  o: { stepMs: number; horizonMs: number; refillMs: number; graceMs?: number; idleMs?: number },
): Promise<{ epochs: EpochSource; p: Presigner }> {
  const epochs = new EpochSource({ now, stepMs: o.stepMs });
  const p = new Presigner(keys, {
    prefixes: HOT_PREFIXES,
    clockMs: () => epochs.clockMs(),
    stepMs: epochs.stepMs,
    horizonMs: o.horizonMs,
    refillMs: o.refillMs,
    graceMs: o.graceMs,
    idleMs: o.idleMs,
  });
  running = p;
  await p.start();
  return { epochs, p };
}

/**
 * A started pre-signer on the 50 ms epoch grid (horizon 200 ms, grace 20 ms), refilled only when a test
 * calls refill(), on the clock `now`.
 */
function gridPresigner(now: () => number): Promise<{ epochs: EpochSource; p: Presigner }> {
  return steppedPresigner(now, { stepMs: 50, horizonMs: 200, refillMs: 1000, graceMs: 20 });
}

describe("Presigner", () => {
  it("fills the horizon with signatures identical to inline signing", async () => {
    const base = 1719905777483;
    let t = base;
    const p = new Presigner(keys, {
      prefixes: HOT_PREFIXES,
      clockMs: () => t,
      horizonMs: 100,
      refillMs: 1000,
      batch: 32,
    });
    running = p;
    await p.start();
    expect(p.held(0)).toBe(101);
    for (const e of [base, base + 50, base + 100]) {
      for (let id = 0; id < HOT_PREFIXES.length; id++) {
        const sig = p.get(id, e);
        expect(sig).toBe(signer.signHex(HOT_PREFIXES[id] + e));
      }
    }
    expect(p.get(0, base)).toBe(
      "c1502bb380280b45d549aba7730baf7713e97992d99afc1554bfd32ccc1660b53e5826775415bd0272f1773ed8020e06e695b75f10d311d3582b69ad1cdbd40c",
    );
    expect(p.get(0, base + 101)).toBeUndefined();
    expect(p.get(9, base)).toBeUndefined();
    expect(p.misses).toBe(2);
    // Moving on: refill covers the new horizon and drops epochs older than the grace.
    t = base + 150;
    await p.refill();
    expect(p.get(0, base + 250)).toBe(signer.signHex(`POST/v5/order/create${base + 250}`));
    expect(p.get(0, base)).toBeUndefined();
  });

  it("signatures read while the worker keeps refilling the shared ring are never torn", async () => {
    const p = new Presigner(keys, {
      prefixes: HOT_PREFIXES,
      clockMs: () => Date.now(),
      horizonMs: 30,
      refillMs: 2,
      graceMs: 5,
    });
    running = p;
    await p.start();
    const seen = new Map<number, string>();
    const until = Date.now() + 300;
    while (Date.now() < until) {
      const e = Date.now() + (seen.size % 20);
      const sig = p.get(0, e);
      if (sig !== undefined) seen.set(e, sig);
      await new Promise((r) => setImmediate(r));
    }
    expect(seen.size).toBeGreaterThan(20);
    for (const [e, sig] of seen) expect(sig).toBe(signer.signHex(`POST/v5/order/create${e}`));
  });

  it("stop() terminates cleanly and later lookups miss", async () => {
    const t = 2_000_000;
    const p = new Presigner(keys, { prefixes: HOT_PREFIXES, clockMs: () => t, horizonMs: 20, refillMs: 5 });
    await p.start();
    expect(p.get(1, t + 10)).toBeDefined();
    await p.stop();
    await p.stop();
    expect(p.get(1, t + 10)).toBeUndefined();
  });

  it("a prefix unused for idleMs is no longer signed ahead; its next use resumes it", async () => {
    let t = 3_000_000;
    const p = new Presigner(keys, {
      prefixes: HOT_PREFIXES,
      clockMs: () => t,
      horizonMs: 50,
      refillMs: 60_000,
      idleMs: 1_000,
    });
    running = p;
    await p.start();
    for (let id = 0; id < HOT_PREFIXES.length; id++) expect(p.held(id)).toBe(51);
    // Only the HFT create is used; the clock moves past the idle window.
    t += 600;
    p.get(0, t); // a use (hit or miss) marks the prefix busy
    t += 600;
    await p.refill();
    expect(p.held(0)).toBe(51);
    expect(p.held(1)).toBe(0);
    expect(p.get(1, t)).toBeUndefined(); // the miss: the caller signs inline once
    const produced = p.produced;
    await p.refill();
    expect(p.held(1)).toBe(51);
    expect(p.get(1, t + 10)).toBe(signer.signHex(`${HOT_PREFIXES[1]}${t + 10}`));
    // Only the resumed prefix was signed (the other idle ones stay off); prefix 0 was already full.
    expect(p.produced - produced).toBe(51);
  });

  it("runs its worker thread at the configured nice value (Linux), the event loop's thread unchanged", async () => {
    const p = new Presigner(keys, {
      prefixes: HOT_PREFIXES,
      clockMs: () => Date.now(),
      horizonMs: 20,
      refillMs: 1000,
      nice: 15,
    });
    running = p;
    await p.start();
    if (process.platform !== "linux") return;
    for (let i = 0; i < 100 && p.niced === undefined; i++) await new Promise((r) => setTimeout(r, 5));
    expect(p.niced).toBe(15);
    // /proc/<pid>/task/<tid>/stat: field 19 is the nice value (after the parenthesised name).
    const nice = (tid: string) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
    };
    const nices = readdirSync("/proc/self/task").map(nice);
    expect(nices).toContain(15);
    expect(nice(String(process.pid))).toBe(0);
  });
});

describe("RequestSigner", () => {
  const pub = createPublicKey({
    key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), Buffer.from(keys.apiKey, "hex")]),
    format: "der",
    type: "spki",
  });

  it("uses the ring on hot prefixes and signs inline otherwise; every signature verifies", async () => {
    const t = 3_000_000;
    const epochs = new EpochSource({ now: () => t });
    const p = new Presigner(keys, {
      prefixes: HOT_PREFIXES,
      clockMs: () => epochs.clockMs(),
      horizonMs: 10,
      refillMs: 1000,
    });
    running = p;
    await p.start();
    const rs = new RequestSigner(signer, epochs, p);
    const a = { ...rs.signFor("POST", "/v5/order/create", 0) };
    expect(a.epoch).toBe(String(t));
    expect(p.hits).toBe(1);
    expect(verify(null, Buffer.from(`POST/v5/order/create${t}`), pub, Buffer.from(a.signature, "hex"))).toBe(
      true,
    );
    const target = "/v5/order/realtime?category=linear&orderLinkId=grid+7%2Ba%2Fb";
    const b = { ...rs.signFor("GET", target, -1) };
    expect(rs.inline).toBe(1);
    expect(
      verify(null, Buffer.from(signedMessage("GET", target, b.epoch)), pub, Buffer.from(b.signature, "hex")),
    ).toBe(true);
  });

  it("with an epoch step, only grid epochs are signed, and every request hits one", async () => {
    let t = 4_000_002;
    const { epochs, p } = await steppedPresigner(() => t, { stepMs: 5, horizonMs: 50, refillMs: 1000 });
    // 4_000_000 (the grid point in use now) .. 4_000_050: 11 epochs, a tenth of a 1 ms fill's work.
    expect(p.held(0)).toBe(11);
    expect(p.produced).toBe(11 * HOT_PREFIXES.length);
    expect(p.get(0, 4_000_003)).toBeUndefined();
    const rs = new RequestSigner(signer, epochs, p);
    for (; t < 4_000_040; t += 3) {
      const s = { ...rs.signFor("POST", "/v5/order/create", 0) };
      expect(Number(s.epoch) % 5).toBe(0);
      expect(t - Number(s.epoch)).toBeLessThan(5);
      expect(s.signature).toBe(signer.signHex(`POST/v5/order/create${s.epoch}`));
    }
    expect(rs.inline).toBe(0);
    // The next refill continues on the grid.
    await p.refill();
    expect(p.get(0, 4_000_085)).toBe(signer.signHex("POST/v5/order/create4000085"));
  });

  it("with a step longer than the grace, the grid point in use survives every refill", async () => {
    let t = 5_000_000;
    const { epochs, p } = await gridPresigner(() => t);
    const rs = new RequestSigner(signer, epochs, p);
    // Through two grid points, a refill at every 10 ms: the epoch in use is up to 49 ms old.
    for (; t < 5_000_100; t += 10) {
      await p.refill();
      const s = { ...rs.signFor("POST", "/v5/order/create", 0) };
      expect(Number(s.epoch)).toBe(t - (t % 50));
      expect(s.signature).toBe(signer.signHex(`POST/v5/order/create${s.epoch}`));
    }
    expect(rs.inline).toBe(0);
    expect(p.misses).toBe(0);
  });

  it("at the configured defaults every request between refills hits, even with a refill a whole period late", async () => {
    const { signing } = loadConfig({ env: {} });
    let t = 7_000_013;
    const { epochs, p } = await steppedPresigner(() => t, {
      stepMs: signing.epochStepMs,
      horizonMs: signing.presignHorizonMs,
      refillMs: signing.presignRefillMs,
      idleMs: signing.presignIdleMs,
    });
    const rs = new RequestSigner(signer, epochs, p);
    // Refills by hand (the timer's period is the default): each period one refill, every second one
    // skipped, and a request every 7 ms of the clock in between.
    const end = t + 10 * signing.presignRefillMs;
    for (let k = 0; t < end; k++) {
      if (k % 2 === 0) await p.refill();
      const until = t + signing.presignRefillMs;
      for (; t < until; t += 7) {
        const s = { ...rs.signFor("POST", "/v5/order/create", 0) };
        expect(s.signature).toBe(signer.signHex(`POST/v5/order/create${s.epoch}`));
      }
    }
    expect(rs.inline).toBe(0);
    expect(p.misses).toBe(0);
    expect(p.hits).toBeGreaterThan(250);
  });

  it("with an epoch step, signatures older than the grace are swept by the next refill", async () => {
    let t = 6_000_010;
    const { p } = await gridPresigner(() => t);
    const old = signer.signHex("POST/v5/order/create6000050");
    expect(p.get(0, 6_000_050)).toBe(old);
    // 300 ms on: 6_000_000 .. 6_000_250 are behind the grid point in use (6_000_300) minus the grace.
    t = 6_000_310;
    await p.refill();
    for (let e = 6_000_000; e <= 6_000_250; e += 50) expect(p.get(0, e)).toBeUndefined();
    expect(p.get(0, 6_000_300)).toBe(signer.signHex("POST/v5/order/create6000300"));
    expect(p.held(0)).toBe(p.held(1));
  });

  it("a miss falls back to inline signing (correct, only slower)", () => {
    const epochs = new EpochSource({ now: () => 42 });
    const rs = new RequestSigner(signer, epochs);
    const s = rs.signFor("DELETE", "/trade/api/v2/order", 3);
    expect(s.signature).toBe(signer.signHex("DELETE/trade/api/v2/order42"));
  });

  it("the guard can refuse before anything is signed", () => {
    const rs = new RequestSigner(signer, new EpochSource(), undefined, {
      assertCanSign() {
        throw new ClockError("refused", 70_000);
      },
    });
    expect(() => rs.signFor("GET", "/x", -1)).toThrow(ClockError);
    expect(rs.inline).toBe(0);
  });
});
