/**
 * Two accounts on one 3-node cluster: a gateway per account (own keys, journal, limiter, risk) and
 * strategies on the bus trading through both; isolation enforced by the NATS server's permissions
 * (A's strategy user can neither read B's session subjects, nor publish to B's gateway, nor read B's
 * drop copy); the bus admin sees both accounts' trading states and halts one, then all.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountStates, killAccount, setAccountState } from "../../src/bus/admin.js";
import { readDropCopy } from "../../src/bus/reader.js";
import type { EngineHandle } from "../../src/index.js";
import { Status } from "../../src/orders/index.js";
import { encodeC2G } from "../../src/protocol/codec.js";
import { Side, TradingStateValue } from "../../src/protocol/schema.js";
import { next, until } from "../e2e/harness.js";
import { type BusWorld, busWorld, instId, natsAs, natsMissing, remoteClient } from "./fixture.js";

describe.skipIf(natsMissing)("many accounts on one bus", () => {
  let w: BusWorld;
  let gwA: EngineHandle;
  let gwB: EngineHandle;
  let ncA: NatsConnection;
  let ncB: NatsConnection;
  let admin: NatsConnection;
  beforeAll(async () => {
    w = await busWorld(3, ["A", "B"]);
    [gwA, gwB] = await Promise.all([w.gateway("A"), w.gateway("B")]);
    ncA = await natsAs(w.cluster.servers, "strat-A");
    ncB = await natsAs(w.cluster.servers, "strat-B");
    admin = await natsAs(w.cluster.servers, "admin");
  }, 60_000);
  afterAll(async () => {
    for (const nc of [ncA, ncB, admin]) await nc?.close();
    await w?.stop();
  });

  it("strategies of two accounts trade through their own gateways over the cluster", async () => {
    const a = remoteClient(ncA, "A", "acct-a");
    const b = remoteClient(ncB, "B", "acct-b");
    await Promise.all([a.connect(), b.connect()]);
    const eth = instId(gwA, "linear", "ETHUSDT");
    const [ackA, ackB] = [next(a, "ack"), next(b, "ack")];
    const noA = a.placeOrder({ instrumentId: eth, side: Side.Buy, priceTicks: 300_000, qtyLots: 1 });
    const noB = b.placeOrder({
      instrumentId: instId(gwB, "linear", "ETHUSDT"),
      side: Side.Buy,
      priceTicks: 300_001,
      qtyLots: 1,
    });
    await Promise.all([ackA, ackB]);
    // Each order is held by its own account's gateway only.
    expect(gwA.engine.store.bySessionOrder(gwA.engine.ownerOf("acct-a"), noA)?.status).toBe(Status.New);
    expect(gwB.engine.store.bySessionOrder(gwB.engine.ownerOf("acct-a"), noA)).toBeUndefined();
    expect(gwB.engine.store.bySessionOrder(gwB.engine.ownerOf("acct-b"), noB)?.status).toBe(Status.New);
    await a.logout();
    await b.logout();
  });

  it("A cannot see or touch B: the NATS server refuses the subjects, not only our code", async () => {
    const errors: string[] = [];
    void (async () => {
      for await (const s of ncA.status()) if (s.type === "error") errors.push(String(s.error));
    })();
    // A's user cannot even open a session link on B's subjects (subscription refused by the server).
    await expect(remoteClient(ncA, "B", "intruder").connect()).rejects.toThrow(/permission/i);
    // A raw Cancel published to B's gateway is dropped by the server: B's gateway never sees it.
    const b = remoteClient(ncB, "B", "victim");
    await b.connect();
    const acked = next(b, "ack");
    const no = b.placeOrder({
      instrumentId: instId(gwB, "linear", "ETHUSDT"),
      side: Side.Buy,
      priceTicks: 300_002,
      qtyLots: 1,
    });
    await acked;
    const heardBefore = gwB.gateway.stats.framesIn;
    ncA.publish(
      "hftgate.B.in.AAAAAAAAAAAAAAAAAAAAAA",
      new Uint8Array(encodeC2G("CancelAll", { scope: 3, instrumentId: 0 })),
    );
    await until(() => errors.some((e) => /publish/i.test(e)), 3000, "publish violation");
    await ncA.flush();
    expect(gwB.gateway.stats.framesIn).toBe(heardBefore);
    expect(gwB.engine.store.bySessionOrder(gwB.engine.ownerOf("victim"), no)?.status).toBe(Status.New);
    // B's drop copy is not readable with A's user.
    await expect(readDropCopy(ncA, { account: "B", onEvent: () => {} })).rejects.toThrow();
    b.cancel(no);
    await b.logout();
  }, 30_000);

  it("the bus admin sees every account's state and halts one, then all", async () => {
    // A gateway's control subscription reaches the cluster's other nodes a moment after it is made,
    // and the admin may be connected to another node: ask again until both could have answered.
    let states = await accountStates(admin);
    for (let i = 0; i < 10 && states.length < 2; i++) states = await accountStates(admin);
    expect(states).toMatchObject([
      { account: "A", state: TradingStateValue.Active },
      { account: "B", state: TradingStateValue.Active },
    ]);
    expect(await setAccountState(admin, "B", TradingStateValue.Halted, "desk: B halted")).toMatchObject([
      { account: "B", state: TradingStateValue.Halted },
    ]);
    expect(gwB.risk.state).toBe("halted");
    expect(gwA.risk.state).toBe("active");
    // A strategy may not use the control plane (refused by the server): nothing changes.
    ncA.publish("hftgate.ctl.all.cmd", new Uint8Array(encodeC2G("Kill", { reason: "not mine" })));
    await ncA.flush();
    expect(gwA.risk.state).toBe("active");
    const killed = await killAccount(admin, "all", "desk: everything off");
    expect(killed.map((s) => [s.account, s.state])).toEqual([
      ["A", TradingStateValue.Halted],
      ["B", TradingStateValue.Halted],
    ]);
    expect(gwA.risk.state).toBe("halted");
  });
});
