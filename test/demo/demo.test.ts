/**
 * The demo strategy against the whole product in-process (simulator with a synthetic market, engine,
 * gateway on port 0), plus its failure paths and connection resolution.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as demoCommand } from "../../src/commands/demo.js";
import { loadConfig } from "../../src/config/load.js";
import { formatReport } from "../../src/demo/report.js";
import { type DemoResult, planOrders, runDemo } from "../../src/demo/strategy.js";
import { DemoError, resolveTarget } from "../../src/demo/target.js";
import { type EngineHandle, startEngine } from "../../src/index.js";
import { OrderStatus, Surface } from "../../src/protocol/schema.js";

const TOKEN = "demo-test-token-0123456789";
let h: EngineHandle;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "hftgate-demo-"));
  const config = loadConfig({
    env: {},
    overrides: {
      "gateway.port": 0,
      "gateway.token": TOKEN,
      "gateway.badTokenDelayMs": 10,
      "journal.enabled": false,
      "signing.presign": false,
      "sim.syntheticMarket": true,
      "sim.tickMs": 50,
      "streams.pollIntervalMs": 100,
      "orders.unknownQueryIntervalMs": 50,
      "log.level": "silent",
    },
  });
  h = await startEngine(config, { logger: pino({ level: "silent" }) });
});

afterAll(async () => {
  await h?.stop("test");
  rmSync(dir, { recursive: true, force: true });
});

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe("demo strategy through gateway + engine + simulator", () => {
  let r: DemoResult;

  beforeAll(async () => {
    const venue = { hftBaseUrl: h.sim!.baseUrl, streamUrl: h.sim!.baseUrl };
    r = await runDemo({ url: h.url, token: TOKEN, venue, sessionName: "demo-test", fillWaitMs: 4_000 });
  }, 20_000);

  it("trades one instrument per surface and every order reaches a final state", () => {
    expect(r.traded.map((t) => t.inst.surface).sort()).toEqual([Surface.Spot, Surface.Hft]);
    expect(r.allFinal).toBe(true);
    for (const o of r.orders) expect([4, 6, 7, 8]).toContain(o.status);
  });

  it("the resting orders are acked, then cancelled, with place→ack and cancel→done latencies", () => {
    const resting = r.orders.filter((o) => o.intent === "rests");
    expect(resting).toHaveLength(2);
    for (const o of resting) {
      expect(o.answer).toBe("Ack");
      expect(o.exchangeOrderId).not.toBe("");
      expect(o.status).toBe(OrderStatus.Cancelled);
      expect(o.fills).toHaveLength(0);
      expect(o.lat.ackUs).toBeGreaterThan(0);
      expect(o.lat.ackInGatewayUs).toBeGreaterThan(0);
      expect(o.lat.ackInGatewayUs!).toBeLessThan(o.lat.ackUs!);
      expect(o.lat.cancelUs).toBeGreaterThan(0);
    }
  });

  it("the crossing orders fill at or better than their limit, with a place→fill latency", () => {
    const crossing = r.orders.filter((o) => o.intent === "crosses");
    expect(crossing).toHaveLength(2);
    for (const o of crossing) {
      expect(o.answer).toBe("Ack");
      expect(o.fills.length).toBeGreaterThan(0);
      for (const f of o.fills) expect(f.priceTicks).toBeLessThanOrEqual(o.priceTicks);
      expect(o.lat.firstFillUs!).toBeGreaterThanOrEqual(o.lat.ackUs!);
    }
  });

  it("the Spot order below the minimum value is rejected with a code and a reason", () => {
    const small = r.orders.filter((o) => o.intent === "too small");
    expect(small).toHaveLength(1);
    expect(small[0]!.status).toBe(OrderStatus.Rejected);
    expect(small[0]!.reject?.code).toBeGreaterThan(0);
    expect(small[0]!.reject?.text).not.toBe("");
  });

  it("prints one line per order with what happened", () => {
    const text = formatReport(r);
    for (const o of r.orders) expect(text).toMatch(new RegExp(`^${o.clOrdNo}\\s`, "m"));
    expect(text).toContain("cancelled");
    expect(text).toContain("filled");
    expect(text).toContain("rejected");
    expect(text).toContain(`all ${r.orders.length} orders reached a final state.`);
  });
});

describe("demo without market data (embedded simulator, no venue URL)", () => {
  it("learns the HFT price from one minimum-size market order, trades HFT and skips Spot", async () => {
    const r = await runDemo({ url: h.url, token: TOKEN, quotes: new Map(), probe: true, fillWaitMs: 4_000 });
    expect(r.traded.map((t) => t.inst.surface)).toEqual([Surface.Hft]);
    expect(r.skipped.join()).toMatch(/BTC\/INR.*no market price/);
    const [probe, ...rest] = r.orders;
    expect(probe!.intent).toBe("price probe");
    expect(probe!.fills.length).toBeGreaterThan(0);
    expect(rest.map((o) => o.intent)).toEqual(["rests", "crosses"]);
    expect(r.allFinal).toBe(true);
    expect(formatReport(r)).toContain("at market");
  }, 20_000);
});

describe("demo failure paths", () => {
  it("a gateway that is not listening is reported as not reachable", async () => {
    const port = await closedPort();
    await expect(runDemo({ url: `ws://127.0.0.1:${port}`, token: TOKEN })).rejects.toThrow(
      /gateway not reachable at ws:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/,
    );
  });

  it("a wrong token is reported as a refused logon", async () => {
    const err = await runDemo({ url: h.url, token: "wrong-token", quotes: new Map() }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DemoError);
    expect((err as Error).message).toMatch(/refused the logon/);
    expect((err as Error).message).not.toContain(TOKEN);
  });

  it("without any market price it says how to give one and places nothing", async () => {
    const before = h.engine.store.liveSet().size;
    await expect(runDemo({ url: h.url, token: TOKEN, quotes: new Map() })).rejects.toThrow(/--venue/);
    expect(h.engine.store.liveSet().size).toBe(before);
  });

  it("refuses a venue that is not on this host unless --live is given", async () => {
    const venue = { hftBaseUrl: "https://dma.example.com", streamUrl: "https://ws.example.com" };
    await expect(runDemo({ url: h.url, token: TOKEN, venue })).rejects.toThrow(/--live/);
  });

  it("the command exits 2 with a message when the gateway is unreachable", async () => {
    const port = await closedPort();
    const code = await demoCommand([
      "--url",
      `ws://127.0.0.1:${port}`,
      "--token",
      "x",
      "--file",
      join(dir, "missing.json"),
    ]);
    expect(code).toBe(2);
  });
});

describe("connection resolution", () => {
  const file = () => join(dir, "gateway.json");

  it("flags win over the environment and the file", () => {
    writeFileSync(file(), JSON.stringify({ url: "ws://127.0.0.1:1/v1/ws", token: "from-file" }));
    const t = resolveTarget({
      url: "ws://127.0.0.1:2",
      token: "from-flag",
      env: { HFTGATE_URL: "ws://127.0.0.1:3", HFTGATE_TOKEN: "from-env" },
      file: file(),
    });
    expect(t).toMatchObject({ url: "ws://127.0.0.1:2", token: "from-flag", source: "flags" });
  });

  it("the environment wins over the file; the file is the last resort", () => {
    writeFileSync(
      file(),
      JSON.stringify({ url: "ws://127.0.0.1:1/v1/ws", token: "from-file", venue: "sim" }),
    );
    const e = resolveTarget({ env: { HFTGATE_URL: "ws://127.0.0.1:3", HFTGATE_TOKEN: "t" }, file: file() });
    expect(e).toMatchObject({ url: "ws://127.0.0.1:3", token: "t", source: "env" });
    const f = resolveTarget({ env: {}, file: file() });
    expect(f).toMatchObject({
      url: "ws://127.0.0.1:1/v1/ws",
      token: "from-file",
      source: "file",
      venueKind: "sim",
    });
    expect(f.venue).toBeUndefined();
  });

  it("reads the venue URL from the flag, the environment or the file", () => {
    writeFileSync(
      file(),
      JSON.stringify({ url: "ws://127.0.0.1:1", token: "x", venueUrl: "http://127.0.0.1:9" }),
    );
    expect(resolveTarget({ env: {}, file: file() }).venue).toEqual({
      hftBaseUrl: "http://127.0.0.1:9",
      streamUrl: "http://127.0.0.1:9",
    });
    expect(resolveTarget({ venue: "http://127.0.0.1:8", env: {}, file: file() }).venue?.hftBaseUrl).toBe(
      "http://127.0.0.1:8",
    );
  });

  it("says what is missing when nothing is configured, and rejects a malformed file", () => {
    expect(() => resolveTarget({ env: {}, file: join(dir, "none.json") })).toThrow(/no gateway URL/);
    expect(() =>
      resolveTarget({ env: { HFTGATE_URL: "ws://127.0.0.1:1" }, file: join(dir, "none.json") }),
    ).toThrow(/no gateway token/);
    expect(() =>
      resolveTarget({ url: "http://x", token: "t", env: {}, file: join(dir, "none.json") }),
    ).toThrow(/ws:\/\//);
    writeFileSync(file(), "not json");
    expect(() => resolveTarget({ env: {}, file: file() })).toThrow(DemoError);
  });
});

describe("order plan", () => {
  const spot = {
    instrumentId: 1,
    surface: Surface.Spot,
    active: 1,
    symbol: "BTC/INR",
    venue: "coinswitchx",
    tickSize: "1",
    qtyStep: "0.00001",
    minQty: "0.00001",
    maxQty: "50",
    minNotional: "100",
  };

  it("rests below the bid, crosses above the ask, and meets the minimum order value", () => {
    const plan = planOrders(spot, { bid: 5_400_000, ask: 5_400_010 });
    const rest = plan.find((p) => p.intent === "rests")!;
    const cross = plan.find((p) => p.intent === "crosses")!;
    expect(rest.priceTicks).toBeLessThan(5_400_000);
    expect(cross.priceTicks).toBeGreaterThan(5_400_010);
    for (const p of [rest, cross]) expect(p.priceTicks * p.qtyLots * 0.00001).toBeGreaterThanOrEqual(100);
    expect(plan.find((p) => p.intent === "too small")?.qtyLots).toBe(1);
  });
});

describe("market data through the gateway (no venue URL)", () => {
  it("prices its orders from the gateway's TopOfBook and trades", async () => {
    const r = await runDemo({ url: h.url, token: TOKEN, venueKind: "sim", sessionName: "demo-gw-md" });
    expect(r.traded.length).toBeGreaterThan(0);
    for (const t of r.traded) expect(t.quote.bid).toBeGreaterThan(0);
    expect(r.orders.some((o) => o.intent === "price probe")).toBe(false);
    expect(r.allFinal).toBe(true);
  }, 30_000);

  it("refuses to place orders when the gateway's venue is not known to be the simulator", async () => {
    const before = h.engine.store.liveSet().size;
    await expect(runDemo({ url: h.url, token: TOKEN, sessionName: "demo-unknown" })).rejects.toThrow(
      /--live/,
    );
    expect(h.engine.store.liveSet().size).toBe(before);
  });
});
