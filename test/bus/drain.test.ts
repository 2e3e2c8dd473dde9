/**
 * Stop = drain on the NATS transport (one real nats-server): a remote session's creates in flight at
 * the stop are answered before the gateway ends the connection with the close header carrying 1001,
 * and its cancel-on-disconnect orders are cancelled and answered first (docs/reliability.md).
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineHandle } from "../../src/index.js";
import { CodPolicy, OrderStatus, Side } from "../../src/protocol/schema.js";
import { until } from "../e2e/harness.js";
import { type BusWorld, busWorld, instId, natsAs, natsMissing, remoteClient } from "./fixture.js";

describe.skipIf(natsMissing)("stop = drain over NATS", () => {
  let w: BusWorld;
  let gw: EngineHandle;
  let nc: NatsConnection;
  beforeAll(async () => {
    w = await busWorld(1, ["A"]);
    gw = await w.gateway("A", { "shutdown.timeoutMs": 5_000 });
    nc = await natsAs(w.cluster.servers, "strat-A");
  }, 30_000);
  afterAll(async () => {
    await nc?.close();
    await w?.stop();
  });

  it("a remote cancel-on-disconnect session gets every answer, its orders cancelled, then the 1001 close", async () => {
    const c = remoteClient(nc, "A", "rs-drain", { codPolicy: CodPolicy.CancelOnDisconnect });
    const status = new Map<number, number>();
    c.on("ack", (b) => status.set(b.clOrdNo, OrderStatus.New));
    c.on("reject", (b) => status.set(b.clOrdNo, OrderStatus.Rejected));
    c.on("update", (b) => {
      if (b.requestId === 0) status.set(b.clOrdNo, b.status);
    });
    let atClose = new Map<number, number>();
    const closed = new Promise<number>((r) =>
      c.once("close", (code) => {
        atClose = new Map(status);
        r(code);
      }),
    );
    await c.connect();
    const eth = instId(gw, "linear", "ETHUSDT");
    w.sim.faults.add({ kind: "latency", endpoint: "POST /v5/order/create", ms: 300, count: 10 });
    const nos = [0, 1, 2, 3].map((i) =>
      c.placeOrder({ instrumentId: eth, side: Side.Buy, priceTicks: 300_000 - 100 * i, qtyLots: 1 }),
    );
    await until(() => gw.engine.store.liveSet().size === 4, 3_000, "the creates at the engine");
    await gw.stop("test drain");
    expect(await closed).toBe(1001);
    expect(nos.map((n) => atClose.get(n))).toEqual(nos.map(() => OrderStatus.Cancelled));
  }, 20_000);
});
