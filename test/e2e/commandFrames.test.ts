/**
 * The frames a strategy's command produces go out after the command is handled: a cancel's
 * PendingCancel update reaches the journal in the same write as the venue request, and the update is
 * sent once the journal holds both (journal before socket, one write instead of two on that turn).
 * The whole product in process, over real sockets, with its journal on: writing with write(2), and
 * through the mapped window (where the records are in the file with no write at all).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { windowAddon } from "../../src/journal/mappedWindow.js";
import { readJournal } from "../../src/journal/reader.js";
import { OrderStatus, Side } from "../../src/protocol/schema.js";
import { type Harness, next, startHarness } from "./harness.js";

const MODES = windowAddon() !== undefined ? (["write", "map"] as const) : (["write"] as const);

describe.each(MODES)("frames produced while a command is handled, journal.writeMode %s", (mode) => {
  let t: Harness;
  beforeAll(async () => {
    // Nothing journaled in the background (no polls, no query after an ack): every write is the test's.
    t = await startHarness(
      {
        "streams.enabled": false,
        "streams.pollIntervalMs": 60_000,
        "orders.hftQueryAfterAck": false,
        "journal.writeMode": mode,
      },
      {},
      true,
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it("a cancel: the PendingCancel update and the venue request in one journal write, the update after it", async () => {
    const sim = t.h.sim!;
    const journal = t.h.journal!;
    const inst = t.inst("linear", "BTCUSDT");
    const c = await t.client("frames");
    const ack = next(c, "ack");
    const no = c.placeOrder({ instrumentId: inst, side: Side.Buy, priceTicks: 600_000, qtyLots: 10 });
    const exchangeId = (await ack).exchangeOrderId;
    const clientId = t.h.engine.store.byExchangeId(exchangeId)!.clientId;
    // The venue holds the cancel, so its answer cannot add a write before the update arrives.
    sim.faults.add({ kind: "latency", endpoint: "POST /v5/order/cancel", ms: 400, count: 1 });
    const cancels = sim.counters.requests("POST /v5/order/cancel");
    await journal.flush();
    const writes = journal.stats.writes;
    const pending = next(c, "update", (u) => u.clOrdNo === no && u.status === OrderStatus.PendingCancel);
    c.cancel(no);
    await pending;
    // One write carried the command, the update frame and the request (mapped: none was needed); the
    // request had been handed to the HTTP client before the update left.
    const recs = readJournal(journal.path).records;
    expect(journal.mode).toBe(mode);
    expect(journal.stats.writes - writes).toBe(mode === "map" ? 0 : 1);
    const last = recs.slice(recs.findLastIndex((r) => r.k === "cmd" && r.clientId === clientId));
    expect(last.map((r) => (r.k === "cmd" || r.k === "req" ? `${r.k}:${r.op}` : r.k))).toEqual([
      "cmd:cancel",
      "out",
      "req:cancel",
    ]);
    const cancelled = next(c, "update", (u) => u.clOrdNo === no && u.status === OrderStatus.Cancelled, 3_000);
    await cancelled;
    expect(sim.counters.requests("POST /v5/order/cancel") - cancels).toBe(1);
  });
});
