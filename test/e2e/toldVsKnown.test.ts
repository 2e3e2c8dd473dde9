/**
 * Told vs known at restart (restart = resume): a kill between two messages of one turn.
 * A real run fills an HFT order; its journal is then cut where a SIGKILL could have cut it (after the
 * Fill's `out` record, so the OrderUpdate Filled never went out; or before it, so the execution is
 * journaled and the Fill is not). A gateway started on the cut journal must tell the resuming
 * strategy exactly what it was due: no gap, no duplicate Fill, the order's true final state.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadKeyPair } from "../../src/auth/keys.js";
import { GatewayClient } from "../../src/client/index.js";
import { BINARY_MAGIC, decodeBinary } from "../../src/journal/codec.js";
import { listJournals } from "../../src/journal/reader.js";
import type { JournalRecord } from "../../src/journal/records.js";
import { decodeG2C, type G2CMessage } from "../../src/protocol/codec.js";
import { OrderStatus, Side } from "../../src/protocol/schema.js";
import type { V5Execution, V5List } from "../../src/rest/wire.js";
import { createRestStack } from "../../src/venue/stack.js";
import { next, until } from "./harness.js";
import { restartVenue } from "./restartFixture.js";

const v = restartVenue("told-vs-known");
const SESSION = "told";
type Fill = Extract<G2CMessage, { name: "Fill" }>;

interface FirstRun {
  file: string;
  clOrdNo: number;
  fill: Fill;
  /** Byte offsets in the journal file: start and end of the Fill's `out` record. */
  fillStart: number;
  fillEnd: number;
  /** The venue's execution ids for the order (its own listing). */
  venueExecIds: string[];
}
let run: FirstRun;

function isOut(r: JournalRecord, name: string, clOrdNo: number, status?: number): boolean {
  if (r.k !== "out" || r.session !== SESSION) return false;
  const m = decodeG2C(r.frame);
  if (m.name !== name) return false;
  const b = m.body as { clOrdNo: number; status?: number };
  return b.clOrdNo === clOrdNo && (status === undefined || b.status === status);
}

/** Records of a binary journal file with their byte ranges. */
function records(buf: Buffer): { rec: JournalRecord; start: number; end: number }[] {
  const out: { rec: JournalRecord; start: number; end: number }[] = [];
  for (let off = BINARY_MAGIC.length; off < buf.length; ) {
    const r = decodeBinary(buf, off);
    if (r === "torn" || r === "corrupt") break;
    out.push({ rec: r.rec, start: off, end: r.next });
    off = r.next;
  }
  return out;
}

beforeAll(async () => {
  const h = await v.start();
  const them = createRestStack({
    keys: loadKeyPair(v.other.secretKey),
    spotBaseUrl: v.sim.baseUrl,
    hftBaseUrl: v.sim.baseUrl,
    presign: false,
    clock: false,
  });
  try {
    const c = new GatewayClient({ url: h.url, token: h.token, sessionName: SESSION });
    await c.connect();
    const e = h.instruments.all().find((i) => i.surface === "hft" && i.symbol === "BTCUSDT")!;
    const entry = h.instruments.byId(e.id)!;
    const t = await h.rest.client.call<{ list: { lastPrice: string }[] }>("hft.tickers", [
      ["category", "linear"],
      ["symbol", "BTCUSDT"],
    ]);
    const px = Number(t.list[0]!.lastPrice);
    const ticks = Math.round(px / Number(e.tickSize));
    const ack = next(c, "ack");
    const clOrdNo = c.placeOrder({ instrumentId: e.id, side: Side.Buy, priceTicks: ticks, qtyLots: 24 });
    await ack;
    let fill: Fill | undefined;
    c.on("message", (m) => {
      if (m.name === "Fill") fill = m;
    });
    const filled = next(c, "update", (u) => u.clOrdNo === clOrdNo && u.status === OrderStatus.Filled);
    await them.client.createHftOrder(
      {
        category: "linear",
        symbol: "BTCUSDT",
        side: "sell",
        orderType: "limit",
        qty: entry.qty.format(24),
        price: entry.price.format(ticks),
        positionIdx: 0,
        timeInForce: "GTC",
      },
      entry.orderGrid,
    );
    const acked = await filled;
    expect(fill?.body.qtyLots).toBe(24);
    const execs = await h.rest.client.call<V5List<V5Execution>>("hft.executions", [
      ["category", "linear"],
      ["orderId", acked.exchangeOrderId],
    ]);
    const venueExecIds = execs.list.map((x) => x.execId);
    expect(venueExecIds.length).toBeGreaterThan(0);
    await c.close();
    await h.stop("test");
    const files = listJournals(join(v.dir, "journal"));
    expect(files.length).toBe(1);
    const file = files[0]!;
    const recs = records(readFileSync(file));
    const fi = recs.findIndex((r) => isOut(r.rec, "Fill", clOrdNo));
    const ui = recs.findIndex((r) => isOut(r.rec, "OrderUpdate", clOrdNo, OrderStatus.Filled));
    expect(fi).toBeGreaterThan(0);
    expect(ui).toBeGreaterThan(fi); // the Fill goes out first, its OrderUpdate right behind
    run = { file, clOrdNo, fill: fill!, fillStart: recs[fi]!.start, fillEnd: recs[fi]!.end, venueExecIds };
  } finally {
    await them.stop();
  }
}, 30_000);

/** A journal as a kill at byte `cut` leaves it, in its own directory; a gateway restarted on it. */
async function resumeAfterCut(cut: number, tag: string, lastSeq: number) {
  const dir = join(v.dir, tag, "journal");
  mkdirSync(dir, { recursive: true });
  const copy = join(dir, basename(run.file));
  copyFileSync(run.file, copy);
  writeFileSync(copy, readFileSync(copy).subarray(0, cut));
  const h = await v.start({ "journal.dir": dir });
  const got: G2CMessage[] = [];
  const gaps: number[][] = [];
  const c = new GatewayClient({ url: h.url, token: h.token, sessionName: SESSION, lastSeq });
  c.on("message", (m) => {
    if (m.header.seq !== 0) got.push(m);
  });
  c.on("gap", (a, b) => gaps.push([a, b]));
  try {
    const ack = await c.connect();
    expect(ack.resumed).toBe(1);
    const isFinal = (m: G2CMessage) =>
      m.name === "OrderUpdate" && m.body.clOrdNo === run.clOrdNo && m.body.status === OrderStatus.Filled;
    await until(() => got.some(isFinal), 10_000, "OrderUpdate Filled after the restart");
    // A round trip after it: anything else queued for the session has arrived.
    await c.query(run.clOrdNo);
    return { got, gaps, final: got.find(isFinal)! };
  } finally {
    await c.close();
    await h.stop("test");
  }
}

describe("told vs known at restart (a kill between two messages of one turn)", () => {
  it("Fill journaled, its OrderUpdate not: the resuming strategy gets OrderUpdate Filled, no second Fill", async () => {
    const seen = run.fill.header.seq;
    const r = await resumeAfterCut(run.fillEnd, "cut-after-fill", seen);
    const seqs = r.got.map((m) => m.header.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seen + 1 + i));
    expect(r.gaps).toEqual([]);
    expect(r.got.filter((m) => m.name === "Fill")).toEqual([]);
    expect(r.final.body).toMatchObject({ cumQtyLots: 24, leavesQtyLots: 0, lastFillQtyLots: 24 });
    expect(r.final.header.seq).toBe(seen + 1);
  }, 30_000);

  it("execution journaled, its Fill not: the strategy gets that Fill exactly once, then OrderUpdate Filled", async () => {
    const seen = run.fill.header.seq - 1;
    const r = await resumeAfterCut(run.fillStart, "cut-before-fill", seen);
    const seqs = r.got.map((m) => m.header.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seen + 1 + i));
    expect(r.gaps).toEqual([]);
    const fills = r.got.filter((m): m is Fill => m.name === "Fill");
    expect(fills.length).toBe(1);
    const { qtyLots, priceTicks, clOrdNo } = run.fill.body;
    expect(fills[0]!.body).toMatchObject({ qtyLots, priceTicks, clOrdNo });
    // The id told before the kill (never seen by the strategy here) or the venue's execution id.
    expect([run.fill.body.execId, ...run.venueExecIds]).toContain(fills[0]!.body.execId);
    expect(fills[0]!.header.seq).toBe(seen + 1);
    expect(r.final.header.seq).toBeGreaterThan(fills[0]!.header.seq);
    expect(r.final.body).toMatchObject({ cumQtyLots: 24, leavesQtyLots: 0 });
  }, 30_000);
});
