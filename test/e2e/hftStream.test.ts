/**
 * HFT private streams end to end: strategy → gateway → simulator, the simulator publishing order and
 * trade events through a NATS server — a real nats-server (when installed) and the simulator's
 * built-in endpoint (always), the same cases against both — the gateway consuming them with
 * credentials from the signature endpoint. A resting order hit by another account reaches its strategy as a Fill (maker) and an
 * OrderUpdate from the stream while no HFT state query is made (poll interval: minutes); a killed
 * server makes polling resume at once and nothing is lost; the restarted stream is reconciled before
 * it is trusted; a credential presented the wrong way is refused, said clearly, and never logged.
 * The nats-server cases are skipped when no binary is installed (CI installs it); the built-in ones
 * always run.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  findNatsServer,
  type NatsBackend,
  type NatsBackendKind,
  type NatsGrant,
  simNatsOptions,
  startNatsBackend,
} from "../../sim/index.js";
import { generateKeyHex } from "../../src/auth/keygen.js";
import { loadKeyPair } from "../../src/auth/keys.js";
import type { StreamsFeed } from "../../src/engine/streamsFeed.js";
import { Liquidity, OrderStatus, Side, Tif } from "../../src/protocol/schema.js";
import { makeGrid } from "../../src/venue/orderFields.js";
import { createRestStack, type RestStack } from "../../src/venue/stack.js";
import { captureLogger, type Harness, next, recorder, startHarness, until } from "./harness.js";

const BIN = findNatsServer();
const PUBLISHER = { user: "sim-publisher", password: "e2e-publisher-pw-0042" };

let t: Harness | undefined;
let server: NatsBackend | undefined;
let other: RestStack | undefined;

afterEach(async () => {
  await other?.stop();
  await t?.close();
  await server?.stop();
  t = server = other = undefined;
});

interface Setup {
  lines: string[];
  issued: string[];
  sync: StreamsFeed["sync"];
  /** The venue sync: its poller is live for HFT unless the HFT stream is trusted. */
  venue: Harness["h"]["sync"];
}

async function setup(kind: NatsBackendKind, overrides: Record<string, unknown>): Promise<Setup> {
  server = await startNatsBackend(kind, [PUBLISHER]);
  const srv = server;
  const issued: string[] = [];
  const authority = async (users: NatsGrant[]) => {
    for (const u of users)
      if (u.user !== PUBLISHER.user && !issued.includes(u.password)) issued.push(u.password);
    await srv.setUsers(users);
  };
  const { logger, lines } = captureLogger("info");
  t = await startHarness(
    {
      "streams.pollIntervalMs": 60_000,
      "streams.auditIntervalMs": 600_000,
      "streams.hftAuditIntervalMs": 600_000,
      "log.level": "info",
      ...overrides,
    },
    {
      sim: { nats: { ...simNatsOptions(srv, PUBLISHER), authority } },
      logger,
    },
  );
  const kp = generateKeyHex();
  t.h.sim!.registerAccount(kp.apiKey);
  other = createRestStack({
    keys: loadKeyPair(kp.secretKey),
    spotBaseUrl: t.h.sim!.baseUrl,
    hftBaseUrl: t.h.sim!.baseUrl,
    presign: false,
    clock: false,
  });
  return { lines, issued, sync: (t.h.feeds[0] as StreamsFeed).sync, venue: t.h.sync };
}

const sellFromOther = () =>
  other!.client.createHftOrder(
    {
      category: "linear",
      symbol: "BTCUSDT",
      side: "sell",
      orderType: "limit",
      qty: "0.002",
      price: "64000",
      positionIdx: 0,
      timeInForce: "GTC",
    },
    makeGrid("0.1", "0.001"),
  );

const stateQueries = () =>
  t!.h.sim!.counters.requests("GET /v5/order/realtime") +
  t!.h.sim!.counters.requests("GET /v5/execution/list");

const KINDS: Array<[NatsBackendKind, boolean]> = [
  ["builtin", false],
  ["nats-server", BIN === undefined],
];

for (const [kind, skip] of KINDS)
  describe.skipIf(skip)(`HFT private streams over NATS (${kind}), end to end`, () => {
    it("a resting order hit by another account: Fill (maker) and OrderUpdate from the stream, no state query", async () => {
      const s = await setup(kind, {});
      await until(() => s.sync.hftTrusted, 10_000, "HFT stream trusted");
      const realtimeAtTrust = t!.h.sim!.counters.requests("GET /v5/order/realtime");
      const c = await t!.client("nats-maker");
      const btc = t!.inst("linear", "BTCUSDT");
      const ack = next(c, "ack");
      c.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: 640_000, qtyLots: 2 });
      await ack;
      // No query follows the ack while the stream is trusted (the stream reports the order).
      const before = stateQueries();
      expect(t!.h.sim!.counters.requests("GET /v5/order/realtime")).toBe(realtimeAtTrust);
      const fill = next(c, "fill");
      const filled = next(c, "update", (u) => u.status === OrderStatus.Filled);
      await sellFromOther();
      const f = await fill;
      await filled;
      expect(f.liquidity).toBe(Liquidity.Maker);
      expect(f.qtyLots).toBe(2);
      expect(stateQueries()).toBe(before);
      expect(s.venue.poller.live("hft")).toBe(false);
      // The execution's id: the fill came from the trade message, not from a cumulative quantity.
      const execs = (await t!.h.rest.client.executions({ category: "linear" })).list.filter((x) => x.isMaker);
      expect(execs.map((x) => x.execId)).toContain(f.execId);
    });

    it("a crossing order whose fill is pushed before the create's answer: Ack first, then Fill (taker)", async () => {
      const s = await setup(kind, {});
      await until(() => s.sync.hftTrusted, 10_000, "HFT stream trusted");
      await sellFromOther();
      const c = await t!.client("nats-taker");
      const seen = recorder(c);
      const btc = t!.inst("linear", "BTCUSDT");
      const filled = next(c, "update", (u) => u.status === OrderStatus.Filled);
      c.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: 640_000, qtyLots: 2, tif: Tif.IOC });
      await filled;
      const names = seen.map((m) => m.name);
      expect(names.indexOf("Ack")).toBeGreaterThanOrEqual(0);
      expect(names.indexOf("Ack")).toBeLessThan(names.indexOf("Fill"));
      expect(names.filter((n) => n === "Ack")).toHaveLength(1);
      expect(seen.find((m) => m.name === "Fill")?.body.liquidity).toBe(Liquidity.Taker);
    });

    it("stream silent while its connection stays up: the HFT audit finds the fill", async () => {
      const s = await setup(kind, { "streams.hftAuditIntervalMs": 300, "streams.auditIntervalMs": 100 });
      await until(() => s.sync.hftTrusted, 10_000, "HFT stream trusted");
      const c = await t!.client("nats-silent");
      const btc = t!.inst("linear", "BTCUSDT");
      const ack = next(c, "ack");
      c.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: 640_000, qtyLots: 2 });
      await ack;
      t!.h.sim!.faults.pauseNats(true);
      const fills: number[] = [];
      c.on("fill", (f) => fills.push(f.qtyLots));
      const filled = next(c, "update", (u) => u.status === OrderStatus.Filled, 10_000);
      await sellFromOther();
      await filled;
      expect(t!.h.sim!.counters.nats?.paused).toBeGreaterThan(0);
      expect(s.sync.hftStream?.up).toBe(true); // never noticed as down: the audit found it
      expect(fills).toEqual([2]);
    });

    it("duplicated and reordered stream messages: one Fill per execution, the final state right", async () => {
      // The audit repairs a message held back at the end (a reordered message waits for a next one).
      const s = await setup(kind, { "streams.hftAuditIntervalMs": 300, "streams.auditIntervalMs": 100 });
      await until(() => s.sync.hftTrusted, 10_000, "HFT stream trusted");
      // The seeded fault generator: every message either duplicated or held back behind the next one.
      t!.h.sim!.faults.setStreams({ duplicateProbability: 0.6, reorderProbability: 1 });
      const c = await t!.client("nats-dup");
      const btc = t!.inst("linear", "BTCUSDT");
      const ack = next(c, "ack");
      c.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: 640_000, qtyLots: 6 });
      await ack;
      const fills: string[] = [];
      let lots = 0;
      c.on("fill", (f) => {
        fills.push(f.execId);
        lots += f.qtyLots;
      });
      const filled = next(c, "update", (u) => u.status === OrderStatus.Filled, 10_000);
      for (let i = 0; i < 3; i++) await sellFromOther();
      await filled;
      expect(new Set(fills).size).toBe(fills.length);
      expect(lots).toBe(6);
      expect(t!.h.sim!.counters.nats?.duplicated).toBeGreaterThan(0);
      expect(t!.h.sim!.counters.nats?.reordered).toBeGreaterThan(0);
    });

    it("server killed: HFT polling resumes at once and the fill is not lost; back up: reconciled, then trusted", async () => {
      const s = await setup(kind, { "streams.pollIntervalMs": 200 });
      await until(() => s.sync.hftTrusted, 10_000, "HFT stream trusted");
      const c = await t!.client("nats-outage");
      const btc = t!.inst("linear", "BTCUSDT");
      const ack = next(c, "ack");
      c.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: 640_000, qtyLots: 2 });
      await ack;
      await server!.kill();
      await until(() => !s.sync.hftTrusted && s.venue.poller.live("hft"), 10_000, "HFT polling resumed");
      const fill = next(c, "fill", () => true, 10_000);
      await sellFromOther();
      const f = await fill; // from the poll: the stream's server is down
      expect(f.qtyLots).toBe(2);
      expect(s.sync.hftStream?.up).toBe(false);
      const reconcilesBefore = s.sync.reconciles;
      await server!.restart();
      await until(() => s.sync.hftTrusted, 15_000, "trusted again");
      expect(s.sync.reconciles).toBeGreaterThan(reconcilesBefore);
      expect(s.venue.poller.live("hft")).toBe(false);
    });

    it("a credential presented the wrong way is refused, with a clear log line and no secret in the log", async () => {
      const s = await setup(kind, { "streams.hftNats.auth": "token" });
      await until(() => s.lines.some((l) => l.includes("refused the credentials")), 10_000, "refusal logged");
      expect(s.sync.hftTrusted).toBe(false);
      expect(s.issued.length).toBeGreaterThan(0);
      const log = s.lines.join("");
      for (const secret of s.issued) expect(log).not.toContain(secret);
      // HFT stays covered by polling.
      expect(s.venue.poller.live("hft")).toBe(true);
    });
  });
