/**
 * A remote strategy over NATS (one real nats-server): the gateway's own session rules on the second
 * transport — logon with a token, orders acked and cancelled, cancel-on-disconnect when the strategy
 * goes silent (its NATS connection dropped, no goodbye), and a resume from the last seq without gaps.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import type { NatsConnection } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogonRejectedError } from "../../src/client/index.js";
import type { EngineHandle } from "../../src/index.js";
import { Status } from "../../src/orders/index.js";
import { CODES, CodPolicy, OrderStatus, Side } from "../../src/protocol/schema.js";
import { next, until } from "../e2e/harness.js";
import { type BusWorld, busWorld, instId, natsAs, natsMissing, PASS, remoteClient } from "./fixture.js";

describe.skipIf(natsMissing)("remote strategy over NATS", () => {
  let w: BusWorld;
  let gw: EngineHandle;
  let nc: NatsConnection;
  beforeAll(async () => {
    w = await busWorld(1, ["A"]);
    gw = await w.gateway("A");
    nc = await natsAs(w.cluster.servers, "strat-A");
  }, 30_000);
  afterAll(async () => {
    await nc?.close();
    await w?.stop();
  });

  it("logs on with the token, trades, and is refused with a bad token", async () => {
    const c = remoteClient(nc, "A", "rs-trade");
    const gaps: number[] = [];
    c.on("gap", (e) => gaps.push(e));
    const ack = await c.connect();
    expect(ack.resumed).toBe(0);
    const eth = instId(gw, "linear", "ETHUSDT");
    const acked = next(c, "ack");
    const no = c.placeOrder({ instrumentId: eth, side: Side.Buy, priceTicks: 300_000, qtyLots: 1 });
    expect((await acked).clOrdNo).toBe(no);
    const cancelled = next(c, "update", (u) => u.clOrdNo === no && u.status === OrderStatus.Cancelled);
    c.cancel(no);
    await cancelled;
    expect(gaps).toEqual([]);
    // The same session is not open twice, over NATS or WebSocket.
    await expect(remoteClient(nc, "A", "rs-trade").connect()).rejects.toThrow(LogonRejectedError);
    await c.logout();
    const bad = remoteClient(nc, "A", "rs-bad", { token: "wrong-token-000000000" });
    await expect(bad.connect()).rejects.toMatchObject({ code: CODES.BadToken.code });
  });

  it("cancels on disconnect when the strategy goes silent, and resumes without a gap", async () => {
    const own = await natsAs(w.cluster.servers, "strat-A");
    const c = remoteClient(own, "A", "rs-cod", { codPolicy: CodPolicy.CancelOnDisconnect, heartbeatMs: 200 });
    await c.connect();
    const eth = instId(gw, "linear", "ETHUSDT");
    const acked = next(c, "ack");
    const no = c.placeOrder({ instrumentId: eth, side: Side.Buy, priceTicks: 300_000, qtyLots: 2 });
    await acked;
    const seen = c.lastSeq;
    // Silence: the strategy's NATS connection ends without a Logout or a close notice.
    await own.close();
    const owner = gw.engine.ownerOf("rs-cod");
    await until(
      () => gw.engine.store.bySessionOrder(owner, no)?.status === Status.Cancelled,
      5000,
      "cancel on disconnect",
    );
    // Back on another connection: the cancel's messages are replayed from seen + 1, in order.
    const again = remoteClient(nc, "A", "rs-cod", { lastSeq: seen });
    const seqs: number[] = [];
    again.on("message", (m) => {
      if (m.header.seq !== 0) seqs.push(m.header.seq);
    });
    const gaps: number[] = [];
    again.on("gap", (e) => gaps.push(e));
    const cancelled = next(again, "update", (u) => u.clOrdNo === no && u.status === OrderStatus.Cancelled);
    const ack = await again.connect();
    expect(ack.resumed).toBe(1);
    expect(ack.replayFromSeq).toBe(seen + 1);
    await cancelled;
    expect(seqs[0]).toBe(seen + 1);
    expect(seqs).toEqual(seqs.map((_, i) => seen + 1 + i));
    expect(gaps).toEqual([]);
    await again.logout();
  });

  it("hftgate tail prints the account's drop copy from a stream sequence, in order", async () => {
    await until(() => gw.bus!.dropCopy!.pending === 0 && gw.bus!.dropCopy!.lastDc >= 4, 5000, "published");
    const cli = new URL("../../dist/src/cli.js", import.meta.url).pathname;
    const args = ["tail", "--servers", w.cluster.servers.join(","), "--user", "risk-A", "--account", "A"];
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [cli, ...args, "--from", "2", "--count", "3", "--json"],
      {
        env: { ...process.env, HFTGATE_BUS_NATS_PASSWORD: PASS },
        timeout: 15_000,
      },
    );
    const rows = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { seq: number; dcSeq: number; type: string });
    expect(rows.map((r) => r.seq)).toEqual([2, 3, 4]);
    expect(rows[1]!.dcSeq).toBe(rows[0]!.dcSeq + 1);
    expect(rows.every((r) => typeof r.type === "string" && r.type.length > 0)).toBe(true);
    // Every field is the one docs/bus.md §4 documents, and no other.
    const doc = readFileSync(new URL("../../docs/bus.md", import.meta.url), "utf8");
    const table = doc.slice(doc.indexOf("With `--json`, one object per line:"), doc.indexOf("Retention:"));
    const documented = [...table.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
    expect(documented.length).toBeGreaterThan(5);
    for (const r of rows) expect(Object.keys(r).sort()).toEqual([...documented].sort());
  });
});
