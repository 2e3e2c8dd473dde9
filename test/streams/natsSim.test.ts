/**
 * The simulator publishing the HFT private streams to a NATS server it controls the users of (a real
 * nats-server when installed, and its built-in endpoint always: the same cases against both),
 * and the gateway's consumer fetching real credentials from the simulator's signature endpoint:
 * a resting order hit by a counterparty reaches the store from the stream with maker/taker; a
 * tampered signature is refused by the server; an expiring credential is replaced and the stream
 * comes back. The nats-server cases are skipped when no binary is installed (CI installs it).
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  findNatsServer,
  type NatsBackend,
  type NatsBackendKind,
  simNatsOptions,
  startNatsBackend,
} from "../../sim/index.js";
import { Status } from "../../src/orders/index.js";
import type { RestClient } from "../../src/rest/client.js";
import type { V5Execution } from "../../src/rest/wire.js";
import {
  HftPrivateStream,
  InstrumentTable,
  NatsAuthError,
  OrderFeed,
  SocketCredentials,
} from "../../src/streams/index.js";
import { counterHft, DOMAIN_INSTRUMENTS, placeHft, type Rig, startRig, until } from "./helpers.js";

const BIN = findNatsServer();
const PUBLISHER = { user: "sim-publisher", password: "sim-publisher-pw-1" };

let rig: Rig | undefined;
let server: NatsBackend | undefined;
let stream: HftPrivateStream | undefined;
let creds: SocketCredentials | undefined;

afterEach(async () => {
  await stream?.stop();
  creds?.stop();
  await rig?.close();
  await server?.stop();
  stream = server = rig = creds = undefined;
});

async function setup(kind: NatsBackendKind, o: { ttlS?: number; tamper?: boolean } = {}) {
  server = await startNatsBackend(kind, [{ user: PUBLISHER.user, password: PUBLISHER.password }]);
  rig = await startRig({ nats: simNatsOptions(server, PUBLISHER) });
  const real = rig.stack.client;
  const rest = o.tamper
    ? ({
        call: async (...a: Parameters<RestClient["call"]>) => ({
          ...(await real.call<Record<string, unknown>>(...a)),
          signature: "f".repeat(64),
        }),
      } as unknown as RestClient)
    : real;
  creds = new SocketCredentials({ rest, ttlS: o.ttlS ?? 300 });
  const feed = new OrderFeed(rig.store, new InstrumentTable(DOMAIN_INSTRUMENTS));
  const liq = new Map<string, boolean>();
  feed.tap = (kind, _s, _c, raw) => {
    if (kind === "v5Execution") liq.set((raw as V5Execution).execId, (raw as V5Execution).isMaker);
  };
  const errors: Error[] = [];
  const states: string[] = [];
  stream = new HftPrivateStream({
    url: server.wsUrl,
    feed,
    credentials: creds,
    backoff: { minMs: 20, maxMs: 200 },
    onError: (e) => errors.push(e),
    listener: {
      onUp: (_n, r) => states.push(r ? "reup" : "up"),
      onDown: (_n, why) => states.push(`down:${why}`),
    },
  });
  stream.start();
  return { liq, errors, states };
}

const KINDS: Array<[NatsBackendKind, boolean]> = [
  ["builtin", false],
  ["nats-server", BIN === undefined],
];

for (const [kind, skip] of KINDS)
  describe.skipIf(skip)(`simulator → NATS → HFT private stream (${kind})`, () => {
    it("a resting order hit by a counterparty is filled from the stream, as maker, with no poll", async () => {
      const t = await setup(kind);
      await until(() => stream!.up, 5_000, "stream up");
      const o = await placeHft(rig!, { symbol: "ETHUSDT", side: "buy", price: "3300", qty: "0.30" });
      const realtimeBefore = rig!.sim.counters.requests("GET /v5/order/realtime");
      await counterHft(rig!, "Sell", "3300", "0.30");
      await until(() => o.status === Status.Filled, 3_000, "filled from the stream");
      expect(o.filledLots).toBe(30);
      expect([...t.liq.values()]).toEqual([true]);
      expect(rig!.sim.counters.requests("GET /v5/order/realtime")).toBe(realtimeBefore);
      expect(rig!.sim.counters.requests("GET /v5/execution/list")).toBe(0);
      expect(stream!.subAccountId).toMatch(/^\d+$/);
      expect(t.errors).toEqual([]);
    });

    it("a credential with a wrong signature is refused by the server, with no secret in the error", async () => {
      const t = await setup(kind, { tamper: true });
      await until(() => t.errors.length >= 1, 5_000, "refusal");
      expect(stream!.up).toBe(false);
      expect(t.errors[0]).toBeInstanceOf(NatsAuthError);
      for (const e of t.errors) expect(e.message).not.toContain("f".repeat(16));
    });

    it("an expiring credential is refreshed and the connection rolled onto it before it expires: no down", async () => {
      const t = await setup(kind, { ttlS: 2 });
      await until(() => stream!.up, 5_000, "stream up");
      await until(() => (rig!.sim.counters.nats?.revoked ?? 0) >= 2, 10_000, "two credentials expired");
      expect(creds!.stats.fetches).toBeGreaterThanOrEqual(3);
      expect(stream!.transport.stats.rolls).toBeGreaterThanOrEqual(2);
      // The server revoked each old credential after the connection had moved off it.
      expect(t.states).toEqual(["up"]);
      expect(stream!.up).toBe(true);
      // Still delivering.
      const o = await placeHft(rig!, { symbol: "ETHUSDT", side: "buy", price: "3300", qty: "0.30" });
      await counterHft(rig!, "Sell", "3300", "0.10");
      await until(() => o.filledLots === 10, 3_000, "fill after the refresh");
    });

    it("a refused credential is dropped: the next connect fetches a fresh one and the stream comes back", async () => {
      const t = await setup(kind, { ttlS: 2 });
      await until(() => stream!.up, 5_000, "stream up");
      // The refresh's credential is refused: the roll fails, the old one expires, the stream goes down.
      rig!.sim.faults.setNats({ refuseGrants: 1 });
      await until(() => t.states.includes("reup"), 10_000, "back after the refusal");
      expect(rig!.sim.counters.nats?.refused).toBe(1);
      expect(t.errors.some((e) => e instanceof NatsAuthError)).toBe(true);
      expect(t.states.filter((s) => s.startsWith("down:"))).toHaveLength(1);
      // Presented once: the refused credential was dropped, not offered again on the reconnect.
      expect(stream!.transport.stats.authFailures).toBe(1);
    });
  });
