/**
 * Security checks of the reliability issue, as tests: loopback by default, a token always required
 * (and a warning beyond loopback), constant-time token comparison (code review + the bad-token delay),
 * the kill switch behind its own token, secrets absent from everything written, and TLS certificate
 * checks never disabled outside the simulator.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join, relative } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { loadKeyPair } from "../../src/auth/keys.js";
import { loadConfig } from "../../src/config/load.js";
import type { GatewayEngine } from "../../src/gateway/engineApi.js";
import { Gateway } from "../../src/gateway/gateway.js";
import { StartupError, startEngine } from "../../src/index.js";
import { decodeG2C, encodeC2G } from "../../src/protocol/codec.js";
import { CODES, RejectSource, TradingStateValue } from "../../src/protocol/schema.js";
import { captureLogger } from "../e2e/harness.js";
import { ROOT } from "./harness/child.js";
import { ADMIN_TOKEN, type EngineRig, engineConfig, startEngineRig, TOKEN } from "./harness/engineRig.js";
import { filesUnder, leaks } from "./harness/secrets.js";
import { Strategy } from "./harness/strategy.js";
import { type ChaosVenue, secretHex, startVenue, until } from "./harness/venue.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f().catch(() => {});
});

async function rig(
  overrides: Record<string, unknown> = {},
  logger?: pino.Logger,
): Promise<[ChaosVenue, EngineRig]> {
  const v = await startVenue();
  cleanup.push(() => v.sim.stop());
  const r = await startEngineRig(v, overrides, logger ? { logger } : {});
  cleanup.push(() => r.close());
  return [v, r];
}

/** A stub engine: the gateway's own behaviour is under test. */
const STUB: GatewayEngine = {
  instruments: () => [],
  onLogon() {},
  onNewOrder() {},
  onCancel() {},
  onCancelAll() {},
  onQuery: () => [],
  onDisconnect() {},
};

function firstExternalIPv4(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  return undefined;
}

function tcpConnect(host: string, port: number): Promise<"connected" | string> {
  return new Promise((resolve) => {
    const s = net.connect(port, host);
    s.once("connect", () => {
      s.destroy();
      resolve("connected");
    });
    s.once("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
    s.setTimeout(1_000, () => {
      s.destroy();
      resolve("timeout");
    });
  });
}

describe("command API exposure", () => {
  it("binds to loopback by default: the default config, the gateway, and a connection attempt from outside loopback", async () => {
    expect(loadConfig({ env: {} }).gateway.host).toBe("127.0.0.1");
    const [, r] = await rig();
    const u = new URL(r.h.url);
    expect(u.hostname).toBe("127.0.0.1");
    const ext = firstExternalIPv4();
    if (ext !== undefined) expect(await tcpConnect(ext, Number(u.port))).not.toBe("connected");
    expect(await tcpConnect("127.0.0.1", Number(u.port))).toBe("connected");
  });

  it("a token is always required: the gateway refuses to start without one", () => {
    const saved = process.env.HFTGATE_TOKEN;
    delete process.env.HFTGATE_TOKEN;
    try {
      expect(() => new Gateway(STUB, { host: "0.0.0.0", port: 0, token: null })).toThrow(/token is required/);
    } finally {
      if (saved !== undefined) process.env.HFTGATE_TOKEN = saved;
    }
  });

  it("binding beyond loopback logs a warning; with no token configured one is generated (never empty)", async () => {
    const { logger, lines } = captureLogger("info");
    const [, r] = await rig({ "gateway.host": "0.0.0.0", "gateway.token": null }, logger);
    expect(lines.some((l) => /"level":40/.test(l) && /beyond loopback/.test(l))).toBe(true);
    expect(r.h.tokenGenerated).toBe(true);
    expect(r.h.token.length).toBeGreaterThanOrEqual(16);
    // The generated token never reaches the log (the banner prints it once, to the operator's terminal).
    expect(lines.filter((l) => l.includes(r.h.token))).toEqual([]);
    // And it is really required: another token is refused.
    const url = r.h.url.replace("0.0.0.0", "127.0.0.1");
    await expect(new Strategy(url, "not-the-token-000000", "x").connect()).rejects.toThrow(/bad token/);
  });
});

describe("tokens", () => {
  it("compared in constant time (code review): digests of equal length, timingSafeEqual, no plain comparison", () => {
    const dir = join(ROOT, "src", "gateway");
    for (const f of readdirSync(dir).filter((x) => x.endsWith(".ts"))) {
      const src = readFileSync(join(dir, f), "utf8");
      // No token is ever compared with ===, !==, == or != (or startsWith/includes) anywhere in the gateway.
      expect(src).not.toMatch(/token\w*\s*[!=]==?[^>]|[!=]==?\s*\w*\.?\w*token\b/i);
      expect(src).not.toMatch(/token\w*\.(startsWith|includes|localeCompare)\(/i);
    }
    const gw = readFileSync(join(dir, "logon.ts"), "utf8");
    expect(gw).toMatch(/timingSafeEqual\(given, this\.tokenDigest\)/);
    expect(gw).toMatch(/createHash\("sha256"\)/); // fixed-length digests: no length leak, no throw
  });

  it("a bad token closes the session after the configured delay", async () => {
    const [, r] = await rig({ "gateway.badTokenDelayMs": 300 });
    const ws = new WebSocket(r.h.url);
    ws.binaryType = "nodebuffer";
    await new Promise((res) => ws.once("open", res));
    const t0 = performance.now();
    const got = new Promise<{ code: number; at: number }>((res) => {
      ws.on("message", (d: Buffer) => {
        const m = decodeG2C(d);
        if (m.name === "LogonReject") res({ code: m.body.code, at: performance.now() });
      });
    });
    const closed = new Promise<{ code: number; at: number }>((res) =>
      ws.once("close", (code) => res({ code, at: performance.now() })),
    );
    ws.send(
      Buffer.from(
        encodeC2G("Logon", {
          token: "wrong-token-123456",
          sessionName: "guess",
          heartbeatMs: 0,
          codPolicy: 0,
          resumeFromSeq: 0,
          options: 0,
        }),
      ),
    );
    const rej = await got;
    const c = await closed;
    expect(rej.code).toBe(CODES.BadToken.code);
    expect(rej.at - t0).toBeGreaterThanOrEqual(290); // timer granularity
    expect(c.code).toBe(4001);
    expect(c.at - t0).toBeGreaterThanOrEqual(290);
  });
});

describe("kill switch", () => {
  it("needs the admin token: a user session's account-wide cancel does not halt; the admin's halts, cancels still pass", async () => {
    const [, r] = await rig();
    const hft = r.inst("hft", "ETHUSDT");
    const user = await r.strategy("user");
    const states: number[] = [];
    user.client.on("tradingState", (b) => states.push(b.state));
    for (let i = 0; i < 4; i++) user.place(hft, "buy", 320_000 - i * 10, 5);
    await until(() => user.unanswered().length === 0, 3_000, "acks");
    user.client.cancelAll(undefined, true); // scope: account, from a non-admin session
    await new Promise((res) => setTimeout(res, 300));
    expect(r.h.risk.state).toBe("active");
    expect(states).not.toContain(TradingStateValue.Halted);
    const after = user.place(hft, "buy", 319_000, 5);
    await until(() => user.told.get(after)!.acks === 1, 2_000, "still trading");
    // The user token cannot take over the admin's session name, and vice versa.
    const admin = await r.strategy("ops", { token: ADMIN_TOKEN });
    await expect(new Strategy(r.h.url, TOKEN, "ops").connect()).rejects.toThrow(/already connected|in use/);
    admin.client.cancelAll(undefined, true);
    await until(() => states.includes(TradingStateValue.Halted), 2_000, "halted broadcast");
    expect(r.h.risk.state).toBe("halted");
    const refused = user.place(hft, "buy", 318_000, 5);
    await until(() => user.told.get(refused)!.rejects.length === 1, 2_000, "refused while halted");
    expect(user.told.get(refused)!.rejects[0]!.source).toBe(RejectSource.Risk);
  });

  it("Kill and SetTradingState from a user session are refused (NotAdmin) and change nothing; from the admin they act", async () => {
    const [, r] = await rig();
    const hft = r.inst("hft", "ETHUSDT");
    const user = await r.strategy("user2");
    const states: number[] = [];
    user.client.on("tradingState", (b) => states.push(b.state));
    user.client.kill("user says stop");
    user.client.setTradingState(TradingStateValue.Halted, "user says halt");
    await until(() => user.errors.length >= 2, 2_000, "two errors");
    expect(user.errors.map((e) => e.code)).toEqual([CODES.NotAdmin.code, CODES.NotAdmin.code]);
    expect(r.h.risk.state).toBe("active");
    const ok = user.place(hft, "buy", 320_000, 5);
    await until(() => user.told.get(ok)!.acks === 1, 2_000, "still trading");
    const admin = await r.strategy("ops2", { token: ADMIN_TOKEN });
    admin.client.setTradingState(TradingStateValue.Reducing, "ops: reduce");
    await until(() => r.h.risk.state === "reducing", 2_000, "reducing");
    admin.client.kill("ops: stop everything");
    await until(() => states.includes(TradingStateValue.Halted), 2_000, "halted broadcast");
    expect(r.h.risk.state).toBe("halted");
  });

  it("the admin token must differ from the user token (else every user session is privileged)", async () => {
    const v = await startVenue();
    cleanup.push(() => v.sim.stop());
    const dir = (await import("node:fs")).mkdtempSync(
      join((await import("node:os")).tmpdir(), "hftgate-sec-"),
    );
    const cfg = engineConfig(v, dir, { "gateway.adminToken": TOKEN });
    let started: Awaited<ReturnType<typeof startEngine>> | undefined;
    let refusal: unknown;
    try {
      started = await startEngine(cfg, { logger: pino({ level: "silent" }) });
    } catch (e) {
      refusal = e;
    }
    if (started) {
      cleanup.push(() => started!.stop("test"));
      const s = await new Strategy(started.url, TOKEN, "plain-user").connect();
      cleanup.push(() => s.close());
      const sess = started.gateway.sessions().find((x) => x.name === "plain-user");
      expect(sess?.admin).toBe(false);
    } else expect(refusal).toBeInstanceOf(StartupError);
  });
});

describe("secrets", () => {
  it("the secret key never appears in logs (debug level), journal files, metrics, health or error output", async () => {
    const { logger, lines } = captureLogger("debug");
    const [v, r] = await rig({}, logger);
    const secret = secretHex(v.keys);
    const s = await r.strategy("alpha");
    const hft = r.inst("hft", "ETHUSDT");
    v.faults.add({ kind: "error5xx", endpoint: "POST /v5/order/create", count: 2 });
    v.faults.add({ kind: "reset", endpoint: "POST /v5/order/create", count: 1 });
    for (let i = 0; i < 8; i++) s.place(hft, "buy", 320_000 - i * 10, 5);
    await until(() => s.unanswered().length === 0, 3_000, "answers");
    await new Promise((res) => setTimeout(res, 300));
    const pages = [];
    for (const p of ["/metrics", "/health"])
      pages.push({ name: p, data: await (await fetch(r.h.httpUrl + p)).text() });
    // Error output: start-up failures caused by bad keys must not echo the key.
    const errors: string[] = [];
    for (const bad of [secret.slice(0, 63), `${secret}00`, secret.toUpperCase().replace(/.$/, "Z")]) {
      try {
        loadKeyPair(bad);
      } catch (e) {
        errors.push(String(e), (e as Error).stack ?? "");
      }
    }
    let mismatch: unknown;
    try {
      const h = await startEngine(
        engineConfig(v, r.dir, { "keys.apiKey": "ab".repeat(32), "gateway.port": 0 }),
        {
          logger,
        },
      );
      await h.stop("unexpected");
    } catch (e) {
      mismatch = e;
      errors.push(String(e), (e as Error).stack ?? "");
    }
    expect(mismatch).toBeInstanceOf(StartupError); // the configured API key does not match the secret
    expect(errors.length).toBe(8);
    await r.h.journal?.flush();
    const artifacts = [
      { name: "log", data: lines.join("\n") },
      { name: "errors", data: errors.join("\n") },
      ...pages,
      ...filesUnder(join(r.dir, "journal")),
    ];
    expect(lines.length).toBeGreaterThan(0);
    expect(leaks(secret, artifacts)).toEqual([]);
    // A truncated/padded variant is what an error would echo; it must not appear either.
    expect(leaks(secret.slice(0, 63) + "0", [{ name: "errors", data: errors.join("\n") }])).toEqual([]);
  });
});

describe("secrets in configuration errors", () => {
  it("a config file that does not parse (secret written without quotes) is reported without any of the secret", () => {
    const secret = "ab12".repeat(16); // starts with a letter: JSON.parse then quotes the text around it
    const dir = mkdtempSync(join(tmpdir(), "hftgate-sec-cfg-"));
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "config.json");
    // A plausible slip: the hex key without quotes. JSON.parse's message quotes the text around the error.
    writeFileSync(file, `{"keys": {"secretKey": ${secret}}}`);
    let msg = "";
    try {
      loadConfig({ file, env: {} });
    } catch (e) {
      msg = `${String(e)}\n${(e as Error).stack ?? ""}`;
    }
    expect(msg).toMatch(/config/i);
    // No run of 8 or more characters of the key may appear (a partial key is still a leak).
    const pieces = new Set<string>();
    for (let i = 0; i + 8 <= secret.length; i++) pieces.add(secret.slice(i, i + 8));
    expect([...pieces].filter((p) => msg.toLowerCase().includes(p))).toEqual([]);
  });
});

describe("TLS", () => {
  it("certificate checks are never disabled outside the simulator (src/ scan; the simulator lives in sim/)", () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(ts|js|json)$/.test(e.name)) {
          const text = readFileSync(p, "utf8");
          const bad = [
            /rejectUnauthorized\s*:\s*(false|0|!1)/,
            /NODE_TLS_REJECT_UNAUTHORIZED/,
            /checkServerIdentity\s*[:=]/,
            /strictSSL\s*:\s*false/,
            /\binsecure\s*:\s*true/,
          ];
          for (const re of bad) if (re.test(text)) offenders.push(`${relative(ROOT, p)}: ${re}`);
        }
      }
    };
    walk(join(ROOT, "src"));
    walk(join(ROOT, "config"));
    expect(offenders).toEqual([]);
  });

  it("the scan would catch a disabled check (the patterns are live)", () => {
    const sample = "const agent = new Agent({ connect: { rejectUnauthorized: false } });";
    expect(/rejectUnauthorized\s*:\s*(false|0|!1)/.test(sample)).toBe(true);
  });
});
