/**
 * The HFT private NATS consumer against a NATS server — a real nats-server (when installed) and the
 * simulator's built-in endpoint, the same cases against both — (WebSocket listener, user/password auth):
 * credentials from the signature endpoint, wildcard until the sub-account id is learned, records of
 * the simulator's own orders published on the documented subjects, executions before cumulative
 * records (maker/taker kept), duplicates, a refused credential, a killed and restarted server.
 * The nats-server cases are skipped when no binary is installed (CI installs it).
 */
import { type NatsConnection, wsconnect } from "@nats-io/nats-core";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import {
  findNatsServer,
  type NatsBackend,
  type NatsBackendKind,
  type NatsUser,
  startNatsBackend,
} from "../../sim/index.js";
import { Status } from "../../src/orders/index.js";
import type { RestClient } from "../../src/rest/client.js";
import type { V5Execution, V5List, V5OrderRecord } from "../../src/rest/wire.js";
import {
  HftPrivateStream,
  InstrumentTable,
  NatsAuthError,
  OrderFeed,
  SocketCredentials,
} from "../../src/streams/index.js";
import { counterHft, DOMAIN_INSTRUMENTS, placeHft, type Rig, startRig, until } from "./helpers.js";

const BIN = findNatsServer();
if (BIN === undefined)
  console.warn("nats-server not installed: the nats-server cases are skipped (apt-get install nats-server)");

const PUB: NatsUser = { user: "sim-publisher", password: "pub-secret-0001" };
const SUB_ACCOUNT = "5501";
const P = "v1.f.ex1.private.subAccountId";

let rig: Rig | undefined;
let server: NatsBackend | undefined;
let stream: HftPrivateStream | undefined;
let pub: NatsConnection | undefined;

afterEach(async () => {
  await stream?.stop();
  await pub?.close().catch(() => {});
  await server?.stop();
  await rig?.close();
  stream = pub = server = rig = undefined;
});

const wsFactory = async (u: string) => ({
  socket: new WebSocket(u) as unknown as globalThis.WebSocket,
  encrypted: false,
});

/** A REST client stand-in that answers the signature endpoint with a fixed credential. */
function signer(c: { api_key: string; signature: string; expires: number }): RestClient {
  return { call: async () => c } as unknown as RestClient;
}

async function setup(
  kind: NatsBackendKind,
  opts: { signature?: string; subAccountId?: string; execWaitMs?: number } = {},
) {
  rig = await startRig();
  const wsUser: NatsUser = {
    user: "ws-key-1",
    password: "good-signature-123",
    permissions: {
      publish: { deny: [">"] },
      subscribe: { allow: [`${P}.*.order`, `${P}.*.trade`, `${P}.${SUB_ACCOUNT}.>`] },
    },
  };
  server = await startNatsBackend(kind, [PUB, wsUser]);
  pub = await wsconnect({
    servers: server.wsUrl,
    wsFactory,
    user: PUB.user,
    pass: PUB.password,
    reconnect: false,
  } as never);
  const feed = new OrderFeed(rig.store, new InstrumentTable(DOMAIN_INSTRUMENTS));
  const liq = new Map<string, boolean>();
  feed.tap = (kind, _s, _c, raw) => {
    if (kind === "v5Execution") liq.set((raw as V5Execution).execId, (raw as V5Execution).isMaker);
  };
  const fills: Array<{ execId: string; synthetic: boolean; lots: number }> = [];
  rig.store.setListener({
    onUpdate() {},
    onFill: (_o, f) => {
      fills.push({ execId: f.execId, synthetic: f.synthetic, lots: f.lots });
    },
    onCancelReleased() {},
  });
  const errors: Error[] = [];
  const states: string[] = [];
  const creds = new SocketCredentials({
    rest: signer({
      api_key: wsUser.user,
      signature: opts.signature ?? wsUser.password,
      expires: Date.now() + 3_600_000,
    }),
  });
  stream = new HftPrivateStream({
    url: server.wsUrl,
    feed,
    credentials: creds,
    subAccountId: opts.subAccountId,
    execWaitMs: opts.execWaitMs,
    backoff: { minMs: 20, maxMs: 200 },
    onError: (e) => errors.push(e),
    listener: {
      onUp: (_n, r) => states.push(r ? "reup" : "up"),
      onDown: (_n, why) => states.push(`down:${why}`),
    },
  });
  stream.start();
  return { feed, fills, liq, errors, states, wsUser };
}

/** The simulator's records of one order: its realtime row and its executions. */
async function venueRecords(r: Rig, orderId: string) {
  const rt = await r.stack.client.call<V5List<V5OrderRecord>>("hft.realtime", [
    ["category", "linear"],
    ["orderId", orderId],
  ]);
  const ex = await r.stack.client.call<V5List<V5Execution>>("hft.executions", [
    ["category", "linear"],
    ["startTime", "0"],
  ]);
  return { order: rt.list[0]!, execs: ex.list.filter((x) => x.orderId === orderId) };
}

function publish(subject: string, rec: unknown): void {
  pub!.publish(subject, JSON.stringify(rec));
}

const KINDS: Array<[NatsBackendKind, boolean]> = [
  ["builtin", false],
  ["nats-server", BIN === undefined],
];

for (const [kind, skip] of KINDS)
  describe.skipIf(skip)(`HFT private stream over NATS (${kind})`, () => {
    it("learns the sub-account, applies executions with maker/taker before the cumulative record, ignores duplicates", async () => {
      const t = await setup(kind);
      await until(() => stream!.up, 5_000, "stream up");
      const o = await placeHft(rig!, { symbol: "ETHUSDT", side: "buy", price: "3300", qty: "0.30" });
      await counterHft(rig!, "Sell", "3300", "0.10");
      const { order, execs } = await venueRecords(rig!, o.exchangeId);
      expect(execs.length).toBe(1);
      // The order record first (as the venue may send it), then the execution, then both again.
      publish(`${P}.${SUB_ACCOUNT}.order`, { ...order, sub_account_id: SUB_ACCOUNT });
      publish(`${P}.${SUB_ACCOUNT}.trade`, { ...execs[0], sub_account_id: SUB_ACCOUNT });
      await until(() => o.filledLots === 10 && o.status === Status.PartiallyFilled, 3_000, "fill via stream");
      expect(t.fills).toEqual([{ execId: execs[0]!.execId, synthetic: false, lots: 10 }]);
      expect(t.liq.get(execs[0]!.execId)).toBe(true);
      expect(stream!.stats.releasedByTrade).toBe(1);
      await until(() => stream!.subAccountId === SUB_ACCOUNT, 2_000, "sub-account learned");
      publish(`${P}.${SUB_ACCOUNT}.trade`, { ...execs[0], sub_account_id: SUB_ACCOUNT });
      publish(`${P}.${SUB_ACCOUNT}.order`, { ...order, sub_account_id: SUB_ACCOUNT });
      // A record of an order this gateway does not hold, on another sub-account: counted, not applied.
      publish(`${P}.${SUB_ACCOUNT}.order`, {
        ...order,
        orderId: "other",
        orderLinkId: "other",
        sub_account_id: SUB_ACCOUNT,
      });
      await until(() => stream!.stats.orders + stream!.stats.foreign >= 3, 3_000, "duplicates seen");
      expect(o.filledLots).toBe(10);
      expect(t.fills.length).toBe(1);
      expect(t.errors).toEqual([]);
    });

    it("an order record waits at most execWaitMs for its execution, then its quantity is applied", async () => {
      await setup(kind, { subAccountId: SUB_ACCOUNT, execWaitMs: 30 });
      await until(() => stream!.up, 5_000, "stream up");
      const o = await placeHft(rig!, { symbol: "ETHUSDT", side: "buy", price: "3300", qty: "0.30" });
      await counterHft(rig!, "Sell", "3300", "0.30");
      const { order } = await venueRecords(rig!, o.exchangeId);
      publish(`${P}.${SUB_ACCOUNT}.order`, order);
      await until(() => o.status === Status.Filled, 3_000, "filled from the record");
      expect(stream!.stats.releasedByTimeout).toBe(1);
      expect(o.filledLots).toBe(30);
    });

    it("a wrong signature is refused with a clear error that carries no secret", async () => {
      const t = await setup(kind, { signature: "wrong-signature-999" });
      await until(() => t.errors.length >= 2, 5_000, "refusals");
      expect(stream!.up).toBe(false);
      expect(t.errors[0]).toBeInstanceOf(NatsAuthError);
      expect(t.errors[0]!.message).toMatch(/refused the credentials/);
      for (const e of t.errors) {
        expect(e.message).not.toContain("wrong-signature-999");
        expect(e.message).not.toContain(t.wsUser.password);
      }
      expect(stream!.transport.stats.authFailures).toBeGreaterThanOrEqual(2);
    });

    it("a killed server is seen as down; it reconnects and resubscribes when the server is back", async () => {
      const t = await setup(kind, { subAccountId: SUB_ACCOUNT });
      await until(() => stream!.up, 5_000, "stream up");
      await server!.kill();
      await until(() => !stream!.up, 5_000, "down after kill");
      await server!.restart();
      await until(() => stream!.up, 10_000, "up again");
      expect(t.states[0]).toBe("up");
      expect(t.states.some((s) => s.startsWith("down:"))).toBe(true);
      expect(t.states.at(-1)).toBe("reup");
      // Subscribed again: a record published now arrives.
      await pub!.close().catch(() => {});
      pub = await wsconnect({
        servers: server!.wsUrl,
        wsFactory,
        user: PUB.user,
        pass: PUB.password,
        reconnect: false,
      } as never);
      const o = await placeHft(rig!, { symbol: "ETHUSDT", side: "buy", price: "3300", qty: "0.30" });
      await counterHft(rig!, "Sell", "3300", "0.10");
      const { execs } = await venueRecords(rig!, o.exchangeId);
      publish(`${P}.${SUB_ACCOUNT}.trade`, execs[0]);
      await until(() => o.filledLots === 10, 3_000, "fill after reconnect");
    });
  });
