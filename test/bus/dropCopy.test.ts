/**
 * Drop copy on a real 3-node NATS cluster with a stream replicated 3 ways: a burst of orders while
 * the node the gateway is connected to is killed, then a burst while the cluster has no quorum and
 * the gateway is restarted. A reader sees every event once and in order: stream sequences 1..n with
 * no gap, drop-copy sequences strictly increasing with no gap and no repeat, and for the strategy's
 * session exactly the frames (seq by seq) the strategy itself received.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DropCopyEvent, DropCopyReading } from "../../src/bus/reader.js";
import { readDropCopy } from "../../src/bus/reader.js";
import { GatewayClient } from "../../src/client/index.js";
import type { EngineHandle } from "../../src/index.js";
import { OrderStatus, Side } from "../../src/protocol/schema.js";
import { next, until } from "../e2e/harness.js";
import { type BusWorld, busWorld, instId, natsAs, natsMissing, TOKEN } from "./fixture.js";

/** Session events as the strategy saw them: seq and message type. */
function sessionLog(c: GatewayClient): string[] {
  const log: string[] = [];
  c.on("message", (m) => {
    if (m.header.seq === 0) return;
    if (m.name === "OrderUpdate" && m.body.requestId !== 0) return;
    if (["Ack", "Reject", "OrderUpdate", "Fill", "CancelReject", "OutcomeUnknown"].includes(m.name))
      log.push(`${m.header.seq}:${m.name}`);
  });
  return log;
}

/** Places `n` resting orders and cancels each once acked; resolves when all are cancelled. */
const rejects: number[] = [];
async function burst(
  c: GatewayClient,
  inst: number,
  n: number,
  mid?: () => Promise<void>,
): Promise<number[]> {
  const nos: number[] = [];
  const done = new Set<number>();
  const onAck = (a: { clOrdNo: number }) => c.cancel(a.clOrdNo);
  const onUpd = (u: { clOrdNo: number; status: number }) => {
    if (u.status === OrderStatus.Cancelled) done.add(u.clOrdNo);
  };
  const onRej = (r: { clOrdNo: number; code: number }) => {
    rejects.push(r.code);
    done.add(r.clOrdNo);
  };
  c.on("ack", onAck);
  c.on("update", onUpd);
  c.on("reject", onRej);
  for (let i = 0; i < n; i++) {
    nos.push(c.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 300_000 + i, qtyLots: 1 }));
    if (i === Math.floor(n / 2) && mid) await mid();
    await new Promise((r) => setTimeout(r, 5));
  }
  await until(
    () => nos.every((x) => done.has(x)),
    15_000,
    `burst settled (${done.size}/${n}, rejects ${rejects})`,
  );
  c.off("ack", onAck);
  c.off("update", onUpd);
  c.off("reject", onRej);
  return nos;
}

/** What a failed wait reports: where the drop copy is, and the gateways' last warnings. */
function dcState(w: BusWorld, gw: EngineHandle): string {
  const dc = gw.bus!.dropCopy!;
  const at = { state: dc.state, error: dc.error, pending: dc.pending, lastDc: dc.lastDc, ...dc.stats };
  return `${JSON.stringify(at)}\n${w.warnings().join("\n")}`;
}

function checkStream(events: DropCopyEvent[], lastDc: number): void {
  expect(events.map((e) => e.streamSeq)).toEqual(events.map((_, i) => i + 1));
  const first = events[0]!.dcSeq;
  expect(events.map((e) => e.dcSeq)).toEqual(events.map((_, i) => first + i));
  expect(events.at(-1)!.dcSeq).toBe(lastDc);
}

describe.skipIf(natsMissing)("drop copy on a 3-node cluster", () => {
  let w: BusWorld;
  let gw: EngineHandle;
  let risk: NatsConnection;
  let reading: DropCopyReading;
  const events: DropCopyEvent[] = [];
  // The tests' bursts (40, then 20 creates) can fall inside one HFT rate window (45 creates a second
  // with the cancel reserve): a create waits for room instead of being refused, so that what a test
  // sees does not hang on how quickly the one before it ended. Drop copy is the subject here.
  const GW = { "bus.dropCopy.dedupWindowMs": 60_000, "limits.createWaitMs": 2_000 };
  beforeAll(async () => {
    w = await busWorld(3, ["A"]);
    gw = await w.gateway("A", GW);
    risk = await natsAs(w.cluster.servers, "risk-A");
    await until(() => gw.bus!.dropCopy!.streaming, 20_000, "stream ready");
    reading = await readDropCopy(risk, { account: "A", onEvent: (e) => events.push(e) });
  }, 60_000);
  afterAll(async () => {
    await reading?.stop();
    await risk?.close();
    await w?.stop();
  });

  it("a node killed mid-burst: every event once, in order, as the strategy saw it", async () => {
    const c = new GatewayClient({ url: gw.url, token: TOKEN, sessionName: "dc-1" });
    const seen = sessionLog(c);
    await c.connect();
    const eth = instId(gw, "linear", "ETHUSDT");
    const victim = w.cluster.servers.indexOf(gw.bus!.server);
    expect(victim).toBeGreaterThanOrEqual(0);
    await burst(c, eth, 40, () => w.cluster.kill(victim));
    await until(
      () => gw.bus!.dropCopy!.pending === 0,
      30_000,
      () => `drop copy published: ${dcState(w, gw)}`,
    );
    // The reader's consumer may have lived on the killed node: it is recreated after missed
    // heartbeats, once the stream has a leader again. On a loaded 2-core CI machine with three
    // servers that once took longer than 30 s, so it gets 45.
    await until(() => events.at(-1)?.dcSeq === gw.bus!.dropCopy!.lastDc, 45_000, "reader caught up");
    checkStream(events, gw.bus!.dropCopy!.lastDc);
    const dc = events.filter((e) => e.session === "dc-1").map((e) => `${e.msg.header.seq}:${e.msg.name}`);
    expect(dc).toEqual(seen);
    expect(dc.filter((x) => x.endsWith(":Ack")).length).toBeGreaterThan(0);
    // The gateway's own server was the one killed: it carried on through another node.
    expect(gw.bus!.server).not.toBe(w.cluster.servers[victim]);
    await c.logout();
    await w.cluster.restart(victim);
  }, 90_000);

  it("no quorum, then the gateway restarted mid-burst: the spool fills the stream with no gap or repeat", async () => {
    const before = events.length;
    const c = new GatewayClient({ url: gw.url, token: TOKEN, sessionName: "dc-2" });
    const seen = sessionLog(c);
    await c.connect();
    const eth = instId(gw, "linear", "ETHUSDT");
    // Two of three nodes down: the stream cannot take writes; events wait in the gateway's spool.
    await w.cluster.kill(1);
    await w.cluster.kill(2);
    const r0 = rejects.length;
    const nos = await burst(c, eth, 20);
    // No drop-copy quorum is no reason to refuse an order: every one of the burst is acked (a refusal
    // here names its codes rather than surfacing later as a missing Ack).
    expect(rejects.slice(r0), "reject codes during the burst").toEqual([]);
    expect(gw.bus!.dropCopy!.pending).toBeGreaterThan(0);
    const lastBefore = gw.bus!.dropCopy!.lastDc;
    await c.close();
    await gw.stop("restart");
    await w.cluster.restart(1);
    await w.cluster.restart(2);
    gw = await w.gateway("A", GW);
    // The restarted gateway publishes the spool, then its own events continue the numbering.
    const c2 = new GatewayClient({ url: gw.url, token: TOKEN, sessionName: "dc-2", lastSeq: c.lastSeq });
    await c2.connect();
    const acked = next(c2, "ack");
    const no = c2.placeOrder({ instrumentId: eth, side: Side.Buy, priceTicks: 300_500, qtyLots: 1 });
    await acked;
    c2.cancel(no);
    // Two of three nodes came back from a SIGKILL: the stream needs its leader again before it takes
    // writes. That took more than 20 s once on a loaded 2-core machine, so it gets 60.
    await until(
      () => gw.bus!.dropCopy!.pending === 0 && gw.bus!.dropCopy!.lastDc > lastBefore,
      60_000,
      () => `spool published: ${dcState(w, gw)}`,
    );
    await until(
      () => events.at(-1)?.dcSeq === gw.bus!.dropCopy!.lastDc,
      30_000,
      () =>
        `reader caught up ${events.length} ${events.at(-1)?.dcSeq} ${gw.bus!.dropCopy!.lastDc} ${reading.lastSeq}`,
    );
    checkStream(events, gw.bus!.dropCopy!.lastDc);
    const mine = events.slice(before).filter((e) => e.session === "dc-2");
    const dcSeen = mine.map((e) => `${e.msg.header.seq}:${e.msg.name}`);
    expect(dcSeen.slice(0, seen.length)).toEqual(seen);
    const acks = mine
      .filter((e) => e.msg.name === "Ack")
      .map((e) => (e.msg.body as { clOrdNo: number }).clOrdNo);
    // Every order acked once, the one placed after the restart last. Creates go out on several
    // connections at once, so the venue may answer two of them in either order; the order the strategy
    // saw them in is the one checked above (dcSeen against seen).
    expect([...acks].sort((a, b) => a - b)).toEqual([...nos, no].sort((a, b) => a - b));
    expect(acks.at(-1)).toBe(no);
    await c2.logout();
  }, 150_000);
});
