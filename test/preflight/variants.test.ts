/**
 * `runPreflight` against simulators over real sockets (HTTP, Socket.IO, NATS over WebSocket through the
 * simulator's built-in endpoint), one simulator per variant: the default one passes; each variant that
 * differs from the gateway's assumptions (another NATS auth mapping, options not allowlisted, HFT not
 * entitled, a skewed clock, an unregistered key) fails the check that should find it, with the fix
 * named. No variant sees an order-placing request, and no report holds a secret.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type CredentialAuth,
  type DeepPartial,
  type SimHandle,
  type SimOptions,
  startSimNats,
  startSimulator,
} from "../../sim/index.js";
import { generateKeyHex } from "../../src/auth/keygen.js";
import { loadKeyPair } from "../../src/auth/keys.js";
import { loadConfig } from "../../src/config/load.js";
import { InstanceLock } from "../../src/journal/lock.js";
import { ProbeMethodError, VenueProbe } from "../../src/preflight/probe.js";
import type { CheckResult, PreflightReport } from "../../src/preflight/report.js";
import { runPreflight } from "../../src/preflight/run.js";
import { tryNatsConnect } from "../../src/preflight/streams.js";

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const s of stops.reverse()) await s();
});

interface Venue {
  sim: SimHandle;
  natsUrl: string;
  keys: { apiKey: string; secretKey: string };
}

/** A simulator (no synthetic market) with its built-in NATS endpoint, `keys` registered unless told. */
async function venue(
  opts: DeepPartial<SimOptions> = {},
  natsAuth: CredentialAuth = "userPass",
  register = true,
): Promise<Venue> {
  const keys = generateKeyHex();
  const nats = (await startSimNats("builtin", undefined, natsAuth))!;
  stops.push(() => nats.server.stop());
  const sim = await startSimulator({
    ...opts,
    apiKeys: register ? [keys.apiKey] : [generateKeyHex().apiKey],
    market: { synthetic: false, tickMs: 0 },
    nats: nats.sim,
  });
  stops.push(() => sim.stop());
  return { sim, natsUrl: nats.server.wsUrl, keys };
}

async function preflight(v: Venue, overrides: Record<string, unknown> = {}): Promise<PreflightReport> {
  const config = loadConfig({
    env: {},
    overrides: {
      "venue.kind": "exchange",
      "venue.spotBaseUrl": v.sim.baseUrl,
      "venue.hftBaseUrl": v.sim.baseUrl,
      "venue.streamUrl": v.sim.baseUrl,
      "streams.hftNats.url": v.natsUrl,
      "keys.secretKey": v.keys.secretKey,
      ...overrides,
    },
  });
  const r = await runPreflight(config, { timeoutMs: 3_000 });
  // Reads only: nothing but GETs reached the venue's REST surfaces, and no order was created.
  const requests = Object.keys(v.sim.state().requests as Record<string, number>);
  expect(
    requests.filter((e) => !e.startsWith("GET ")),
    requests.join(", "),
  ).toEqual([]);
  expect(v.sim.counters.ordersCreated()).toBe(0);
  expect(r.requests.every((q) => q.startsWith("GET "))).toBe(true);
  // No secret and no credential in the report: no run of 32+ hex digits at all (the key is shortened).
  const text = JSON.stringify(r);
  expect(text).not.toContain(v.keys.secretKey);
  expect(text).not.toMatch(/[0-9a-f]{32}/i);
  return r;
}

function check(r: PreflightReport, id: string): CheckResult {
  const c = r.checks.find((x) => x.id === id);
  if (c === undefined) throw new Error(`no check ${id}`);
  return c;
}

const failed = (r: PreflightReport): string[] =>
  r.checks.filter((c) => c.required && c.status === "fail").map((c) => c.id);

describe("hftgate preflight against simulator variants", () => {
  it("passes on the default simulator, with the mapping it accepts and the figures it measured", async () => {
    const v = await venue();
    // A gateway holding this venue's journal directory: preflight reads beside it and says so.
    const dir = mkdtempSync(join(tmpdir(), "hftgate-preflight-"));
    const journalDir = join(dir, "127.0.0.1_" + new URL(v.sim.baseUrl).port);
    mkdirSync(journalDir);
    const lock = InstanceLock.acquire(join(journalDir, "gateway.lock"), "journal", () => {});
    stops.push(async () => {
      lock.release();
      rmSync(dir, { recursive: true, force: true });
    });
    const r = await preflight(v, {
      "venue.surfaces": ["spot", "hft", "futures"],
      "journal.dir": join(dir, "{venue}"),
    });
    expect(failed(r), JSON.stringify(r.checks)).toEqual([]);
    expect(r.ok).toBe(true);
    for (const id of ["clock", "key", "instruments", "hft", "futures", "spotStream", "hftStream"])
      expect(check(r, id).status, id).toBe("pass");
    expect(check(r, "hftStream").data?.accepted).toEqual(["userPass"]);
    expect(check(r, "hftStream").data?.publicWithoutCredential).toBe(true);
    expect(Math.abs(check(r, "clock").data?.offsetMs as number)).toBeLessThan(1_000);
    expect(check(r, "journal").data).toMatchObject({ dir: journalDir, running: true });
    expect(check(r, "journal").detail).toContain(`pid ${process.pid}`);
    expect(check(r, "instruments").data).toMatchObject({
      "spot:coinswitchx": expect.any(Number),
      futures: expect.any(Number),
    });
  });

  it("finds another NATS auth mapping and recommends the knob", async () => {
    const v = await venue({}, "tokenJoined");
    const r = await preflight(v);
    const c = check(r, "hftStream");
    expect(c.status).toBe("fail");
    expect(c.data?.accepted).toEqual(["tokenJoined"]);
    expect(c.fix).toContain("streams.hftNats.auth=tokenJoined");
    expect(failed(r)).toEqual(["hftStream"]);
    expect(r.ok).toBe(false);
  });

  it("finds the mapping of CONNECT fields (and does not take the anonymous public user for it)", async () => {
    const v = await venue({}, "connectFields");
    const r = await preflight(v);
    expect(check(r, "hftStream").data?.accepted).toEqual(["connectFields"]);
    expect(check(r, "hftStream").fix).toContain("streams.hftNats.auth=connectFields");
  });

  it("tells a connection whose private subject is refused (anonymous) from an accepted one", async () => {
    const v = await venue();
    const subject = "v1.f.ex1.private.subAccountId.*.order";
    const anon = await tryNatsConnect(v.natsUrl, {}, 2_000, subject);
    expect(anon.outcome).toBe("denied");
    expect(await tryNatsConnect(v.natsUrl, {}, 2_000)).toEqual({ outcome: "accepted" });
    expect((await tryNatsConnect(v.natsUrl, { user: "nobody", pass: "x" }, 2_000)).outcome).toBe("refused");
  });

  it("finds a key not on the options allowlist when options are configured", async () => {
    const v = await venue({ hft: { optionsAllowlisted: false } });
    const r = await preflight(v, { "venue.hftCategories": ["linear", "option"] });
    const c = check(r, "options");
    expect(c.status).toBe("fail");
    expect(c.detail).toContain("not on the options allowlist");
    expect(c.fix).toContain("venue.hftCategories");
    expect(failed(r)).toEqual(["options"]);
    // Not configured: seen and said, not a failure.
    const r2 = await preflight(v);
    expect(check(r2, "options").status).toBe("skip");
    expect(r2.ok).toBe(true);
  });

  it("finds a key without HFT", async () => {
    const v = await venue({ hft: { entitled: false } });
    const r = await preflight(v);
    expect(check(r, "hft").status).toBe("fail");
    expect(check(r, "hft").fix).toContain("venue.surfaces");
    expect(check(r, "spotStream").status).toBe("pass");
    expect(check(r, "options").detail).toContain("HFT refused the key");
    expect(failed(r)).toContain("hft");
    expect(failed(r)).not.toContain("key");
  });

  it("finds a skewed venue clock (and still checks the key on the venue's time)", async () => {
    const v = await venue({ faults: { clockSkewMs: 120_000 } });
    const r = await preflight(v);
    const c = check(r, "clock");
    expect(c.status).toBe("fail");
    expect(c.data?.offsetMs as number).toBeGreaterThan(100_000);
    expect(c.fix).toContain("clock");
    expect(check(r, "key").status).toBe("pass");
    expect(failed(r)).toEqual(["clock"]);
  });

  it("refuses keys that do not load, before any request, without showing them", async () => {
    const keys = generateKeyHex();
    const other = generateKeyHex();
    const config = loadConfig({
      env: {},
      overrides: {
        "venue.kind": "exchange",
        "venue.spotBaseUrl": "http://127.0.0.1:9",
        "keys.secretKey": keys.secretKey,
        "keys.apiKey": other.apiKey,
      },
    });
    const r = await runPreflight(config, { timeoutMs: 500 });
    expect(r.ok).toBe(false);
    expect(r.checks.map((c) => [c.id, c.status])).toEqual([["keys", "fail"]]);
    expect(r.checks[0]!.detail).toContain("does not match");
    expect(r.requests).toEqual([]);
    expect(JSON.stringify(r)).not.toContain(keys.secretKey);
  });

  it("says the venue is not reachable and fails every required check it could not run", async () => {
    const config = loadConfig({
      env: {},
      overrides: {
        "venue.kind": "exchange",
        "venue.spotBaseUrl": "http://127.0.0.1:9",
        "venue.hftBaseUrl": "http://127.0.0.1:9",
        "venue.streamUrl": "http://127.0.0.1:9",
        "streams.hftNats.url": "ws://127.0.0.1:9",
        "keys.secretKey": generateKeyHex().secretKey,
      },
    });
    const r = await runPreflight(config, { timeoutMs: 1_000 });
    expect(r.ok).toBe(false);
    expect(check(r, "clock").detail).toContain("not reachable");
    expect(check(r, "clock").fix).toContain("venue.spotBaseUrl");
    expect(failed(r)).toEqual(["clock", "key", "instruments", "hft", "spotStream", "hftStream"]);
    expect(check(r, "key").detail).toContain("did not answer");
  });

  it("reads only: its HTTP client refuses any method but GET", async () => {
    const probe = new VenueProbe({
      keys: loadKeyPair(generateKeyHex().secretKey),
      spotBaseUrl: "http://127.0.0.1:9",
      hftBaseUrl: "http://127.0.0.1:9",
      timeoutMs: 500,
    });
    for (const id of [
      "hft.createOrder",
      "hft.cancelOrder",
      "spot.createOrder",
      "spot.cancelOrder",
      "futures.createOrder",
    ] as const)
      await expect(probe.get(id)).rejects.toBeInstanceOf(ProbeMethodError);
    expect(probe.sent).toEqual([]);
    await probe.close();
  });

  it("finds an unregistered key: REST and the Spot socket refuse it", async () => {
    const v = await venue({}, "userPass", false);
    const r = await preflight(v);
    expect(check(r, "key").status).toBe("fail");
    expect(check(r, "key").detail).toContain("401");
    expect(check(r, "key").fix).toContain("register");
    expect(check(r, "spotStream").status).toBe("fail");
    expect(r.ok).toBe(false);
  });
});
