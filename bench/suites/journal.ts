/**
 * Reliability hot-path costs: journal append (NDJSON vs binary, fsync none vs interval) with
 * throughput to disk, the rate limiter's grant-now path, and the pre-trade risk check. Floors in the
 * same run: one unbatched writeSync per record (what batching avoids), performance.now() (which the
 * limiter calls), and a Map lookup (what a risk check costs at least). Start-up, not the hot path:
 * the journal check's scan of a file (damage, identity) against the replay's read of the same file.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type FsyncPolicy,
  Journal,
  type JournalFormat,
  readJournal,
  scanJournal,
} from "../../src/journal/index.js";
import { windowAddon } from "../../src/journal/mappedWindow.js";
import { DEFAULT_LIMIT_TABLE, RateLimiter } from "../../src/limits/index.js";
import { type OrderIntent, RiskGate } from "../../src/risk/riskGate.js";
import { newHistogram, ratio, recordNs, summarize, timeSync } from "../lib/stats.js";

export const name = "journal";

const BODY =
  '{"data":{"order_id":"6f1f6a7e-5b1c-4b8e-9f4e-1c2d3e4f5a6b","symbol":"BTC/INR","price":"5000000","average_price":"0",' +
  '"orig_qty":"0.001","executed_qty":"0","status":"OPEN","side":"BUY","exchange":"coinswitchx","order_source":"API_TRADING",' +
  '"created_time":1763700000000,"updated_time":1763700000000}}';

/** One order's worth of records: command, request, response, stream event. */
function appendOrder(j: Journal, i: number, t: (fn: () => void) => void): void {
  const id = `hg-${i}`;
  t(() =>
    j.command({
      session: 1,
      op: "new",
      clientId: id,
      symbol: "BTC/INR",
      side: "buy",
      type: "limit",
      price: "5000000",
      qty: "0.001",
      tif: "GTC",
    }),
  );
  t(() => j.request({ clientId: id, op: "create", method: "POST", path: "/trade/api/v2/order", attempt: 1 }));
  t(() => j.response({ clientId: id, op: "create", status: 200, latencyUs: 640, body: BODY }));
  t(() => j.event({ source: "spot-orders", clientId: id, body: BODY }));
}

/** Journals go where HFTGATE_BENCH_DIR says (default: the OS temp dir); say which disk in reports. */
const baseDir = process.env.HFTGATE_BENCH_DIR ?? tmpdir();

async function journalCase(format: JournalFormat, fsync: FsyncPolicy, orders: number) {
  const dir = mkdtempSync(join(baseDir, "hftgate-bench-journal-"));
  const j = Journal.open({ dir, format, fsync });
  const h = newHistogram();
  const timed = (fn: () => void) => {
    const t0 = process.hrtime.bigint();
    fn();
    recordNs(h, process.hrtime.bigint() - t0);
  };
  // Warm-up, untimed.
  for (let i = 0; i < 2000; i++) appendOrder(j, i, (fn) => fn());
  await j.flush();
  const start = process.hrtime.bigint();
  for (let i = 0; i < orders; i++) {
    appendOrder(j, i, timed);
    // Yield like an event loop under load would, so batches get written while appending.
    if (i % 64 === 63) await new Promise((r) => setImmediate(r));
  }
  await j.flush();
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  const bytes = j.stats.bytes;
  const records = j.stats.records;
  const writes = j.stats.writes;
  const path = j.path;
  await j.close();
  const back = readJournal(path).records.length;
  rmSync(dir, { recursive: true, force: true });
  return {
    append: summarize(h),
    appends_per_s: Math.round((orders * 4) / secs),
    bytes_per_record: Math.round(bytes / records),
    records_per_write: Math.round(records / Math.max(1, writes)),
    read_back_ok: back === records,
  };
}

/**
 * The order path's journal work per create, as the engine does it: command + request, then the group
 * commit before the request leaves (`flushSync`); response + frame, then the one before the ack.
 * `write`: two write(2) calls per order; `map`: the records are in the file as they are encoded.
 */
async function orderPathCase(writeMode: "sync" | "map", orders: number) {
  const dir = mkdtempSync(join(baseDir, "hftgate-bench-journal-"));
  const j = Journal.open({ dir, fsync: { intervalMs: 100 }, writeMode });
  const frame = new Uint8Array(86);
  const h = newHistogram();
  const one = (i: number) => {
    const id = `hg-${i}`;
    j.command({
      session: 1,
      op: "new",
      clientId: id,
      symbol: "BTCUSDT",
      side: "buy",
      type: "limit",
      price: "1000.0",
      qty: "0.005",
      tif: "GTC",
    });
    j.request({ clientId: id, op: "create", method: "POST", path: "/v5/order/create", attempt: 1 });
    j.flushSync();
    j.response({ clientId: id, op: "create", status: 200, latencyUs: 80, body: BODY, raw: 1 });
    j.out("session-01", frame);
    j.flushSync();
  };
  for (let i = 0; i < 2000; i++) one(i);
  for (let i = 0; i < orders; i++) {
    const t0 = process.hrtime.bigint();
    one(i);
    recordNs(h, process.hrtime.bigint() - t0);
    if (i % 64 === 63) await new Promise((r) => setImmediate(r));
  }
  const writes = j.stats.writes;
  const mode = j.mode;
  await j.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    per_order: summarize(h),
    writes_per_order: Math.round((writes / (orders + 2000)) * 100) / 100,
    mode,
  };
}

/** Start-up's check of one binary file (scanJournal: framing and CRC) against the replay's read (readJournal). */
async function startupCheck(orders: number) {
  const dir = mkdtempSync(join(baseDir, "hftgate-bench-journal-"));
  const j = Journal.open({ dir, fsync: "none" });
  for (let i = 0; i < orders; i++) {
    appendOrder(j, i, (fn) => fn());
    if (i % 1000 === 999) await j.flush();
  }
  await j.close();
  const best = (fn: () => void) => {
    let ms = Number.POSITIVE_INFINITY;
    for (let k = 0; k < 5; k++) {
      const t0 = process.hrtime.bigint();
      fn();
      ms = Math.min(ms, Number(process.hrtime.bigint() - t0) / 1e6);
    }
    return Math.round(ms);
  };
  const mb = j.stats.bytes / 1e6;
  const scan_ms = best(() => scanJournal(j.path));
  const read_ms = best(() => readJournal(j.path));
  rmSync(dir, { recursive: true, force: true });
  return { mb: Math.round(mb), records: orders * 4, scan_ms, read_ms, scan_vs_read: ratio(scan_ms, read_ms) };
}

function unbatchedFloor(n: number) {
  const dir = mkdtempSync(join(baseDir, "hftgate-bench-journal-"));
  const fd = openSync(join(dir, "floor.ndjson"), "a");
  const line = `${JSON.stringify({ k: "res", seq: 1, ts: Date.now(), clientId: "hg-1", status: 200, body: BODY })}\n`;
  const r = timeSync(() => writeSync(fd, line), n, 1000);
  closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
  return r;
}

export async function run(): Promise<Record<string, unknown>> {
  const orders = 25_000;
  const cases: Record<string, Awaited<ReturnType<typeof journalCase>>> = {};
  // One untimed round of every case first, so no case pays for the JIT warming up the others.
  for (const format of ["ndjson", "binary"] as const) await journalCase(format, "none", 5_000);
  for (const format of ["ndjson", "binary"] as const) {
    for (const [label, fsync] of [
      ["none", "none"],
      ["interval100ms", { intervalMs: 100 }],
    ] as const) {
      cases[`${format}_fsync_${label}`] = await journalCase(format, fsync, orders);
    }
  }
  // The order path's journal work per create, write(2) against the mapped window (when it is built).
  const orderPath: Record<string, Awaited<ReturnType<typeof orderPathCase>>> = {};
  const modes = windowAddon() !== undefined ? (["sync", "map"] as const) : (["sync"] as const);
  for (const m of modes) await orderPathCase(m, 5_000);
  for (const m of modes) orderPath[m === "sync" ? "write" : "map"] = await orderPathCase(m, 25_000);
  const floor = unbatchedFloor(20_000);
  const startup = await startupCheck(100_000);

  // Limiter: grant-now path on a bucket that never fills.
  const lim = new RateLimiter({
    table: {
      ...DEFAULT_LIMIT_TABLE,
      buckets: {
        ...DEFAULT_LIMIT_TABLE.buckets,
        "hft.order": { capacity: 1_000_000, windowMs: 1, cancelReserve: 10 },
      },
    },
    marginMs: 0,
  });
  const acquire = timeSync(() => lim.acquire("hft.create"), 300_000);
  const nowFloor = timeSync(() => performance.now(), 300_000);
  lim.close();

  // Risk: a passing limit order with every check enabled.
  const gate = new RiskGate({
    duplicateWindowMs: 0,
    instruments: { "BTC/INR": { maxPosition: "10", maxSessionPosition: "5" } },
  });
  gate.addInstrument({
    id: 1,
    surface: "spot",
    symbol: "BTC/INR",
    venue: "coinswitchx",
    base: "BTC",
    quote: "INR",
    tickSize: "1",
    qtyStep: "0.0001",
    minQty: "0.0002",
    maxQty: "1",
    minNotional: "100",
    active: true,
  });
  gate.setReferencePrice(1, 5_000_000);
  gate.onOpen("x", {
    sessionId: 1,
    instrumentId: 1,
    side: "buy",
    type: "limit",
    priceTicks: 4_990_000,
    qtyLots: 5,
  });
  const o: OrderIntent = {
    sessionId: 1,
    instrumentId: 1,
    side: "buy",
    type: "limit",
    priceTicks: 5_000_000,
    qtyLots: 10,
  };
  let fails = 0;
  const risk = timeSync(() => {
    if (gate.check(o) !== null) fails++;
  }, 300_000);
  const m = new Map([[1, o]]);
  const mapFloor = timeSync(() => m.get(1), 300_000);

  const nd = cases.ndjson_fsync_none!;
  const bin = cases.binary_fsync_none!;
  return {
    journal: cases,
    order_path_per_create: orderPath,
    order_path_map_vs_write_p50:
      orderPath.map === undefined
        ? null
        : ratio(orderPath.map.per_order.p50_us, orderPath.write!.per_order.p50_us),
    unbatched_writeSync_floor: floor,
    startup_check_vs_replay_read: startup,
    ratios: {
      binary_vs_ndjson_append_p50: ratio(bin.append.p50_us, nd.append.p50_us),
      binary_vs_ndjson_appends_per_s: ratio(bin.appends_per_s, nd.appends_per_s),
      ndjson_append_p50_vs_unbatched_writeSync_p50: ratio(nd.append.p50_us, floor.p50_us),
      binary_vs_ndjson_bytes: ratio(bin.bytes_per_record, nd.bytes_per_record),
    },
    limiter_acquire: acquire,
    limiter_floor_performance_now: nowFloor,
    limiter_acquire_vs_floor_p50: ratio(acquire.p50_us, Math.max(0.01, nowFloor.p50_us)),
    risk_check: risk,
    risk_check_failures: fails,
    risk_floor_map_get: mapFloor,
    risk_check_vs_floor_p50: ratio(risk.p50_us, Math.max(0.01, mapFloor.p50_us)),
  };
}
