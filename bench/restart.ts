/**
 * Restart time against journal history: `node dist/bench/restart.js [MB]` (default 1024). Writes that
 * much history with the journal's own writer (finished HFT orders of a named session over seven days,
 * several run files, as a week of trading leaves them), then times `hftgate start` (spawn to the
 * command API listening) against `hftgate sim`: first with no checkpoint (every file read), then once
 * a checkpoint covers the history (its records and the journal after it). Each start ends with a
 * SIGKILL, so no stop checkpoint changes what the next one reads. Prints and writes
 * bench/results/restart.json; the page cache is warm for both (the history was just written).
 */
import { mkdtempSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { cpus, hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  CHECKPOINT_FILE,
  CHECKPOINT_PREV,
  Journal,
  journalFiles,
  journalIdentity,
} from "../src/journal/index.js";
import { encodeG2C } from "../src/protocol/codec.js";
import { GatewayProcess } from "../test/chaos/harness/child.js";
import { gatewayConfig } from "../test/chaos/harness/processRig.js";
import { SimProcess } from "../test/chaos/harness/simProcess.js";
import { newKeys, secretHex } from "../test/chaos/harness/venue.js";

const MB = Number(process.argv[2] ?? process.env.HFTGATE_BENCH_RESTART_MB ?? 1024);
const FILES = 8;
/** Starts timed per case (HFTGATE_BENCH_RESTART_RUNS). */
const RUNS = Number(process.env.HFTGATE_BENCH_RESTART_RUNS ?? 3);
const DAY = 86_400_000;
const baseDir = process.env.HFTGATE_BENCH_DIR ?? tmpdir();

const V5_RECORD = (id: string, link: string, status: string) =>
  `{"orderId":"${id}","orderLinkId":"${link}","symbol":"ETHUSDT","side":"Buy","orderType":"Limit","price":"3000.00","qty":"0.05","cumExecQty":"0","cumExecValue":"0","avgPrice":"0","orderStatus":"${status}","timeInForce":"GTC","positionIdx":0,"createdTime":"1763700000000","updatedTime":"1763700000000","category":"linear"}`;

/** One finished order as the gateway journals it: command, create and its answer, stream records, a cancel, the frames told. */
function writeOrder(j: Journal, no: number, seqOut: { n: number }): void {
  const id = `hg-bench-${no}`;
  const ex = `00000000-0000-4000-8000-${String(no).padStart(12, "0")}`;
  const reason = `no=${no};inst=hft:linear:ETHUSDT;pos=0`;
  j.command({
    session: "desk",
    op: "new",
    clientId: id,
    symbol: "ETHUSDT",
    side: "buy",
    type: "limit",
    price: "3000.00",
    qty: "0.05",
    tif: "GTC",
    reason,
  });
  j.request({ clientId: id, op: "create", method: "POST", path: "/v5/order/create", attempt: 1 });
  j.response({
    clientId: id,
    op: "create",
    status: 200,
    latencyUs: 700,
    body: `{"retCode":0,"retMsg":"OK","result":{"orderId":"${ex}","orderLinkId":"${id}"},"retExtInfo":{},"time":1763700000000}`,
  });
  j.event({ source: "hft-stream", clientId: id, body: V5_RECORD(ex, id, "New") });
  j.out(
    "desk",
    encodeG2C(
      "Ack",
      { sessionId: 1, seq: ++seqOut.n, recvNs: 0, sendNs: 0 },
      { clOrdNo: no, instrumentId: 1, exchangeOrderId: ex },
    ),
  );
  j.command({ session: "desk", op: "cancel", clientId: id });
  j.request({ clientId: id, op: "cancel", method: "POST", path: "/v5/order/cancel", attempt: 1 });
  j.response({
    clientId: id,
    op: "cancel",
    status: 200,
    latencyUs: 650,
    body: `{"retCode":0,"retMsg":"OK","result":{"orderId":"${ex}","orderLinkId":"${id}"},"retExtInfo":{},"time":1763700000000}`,
  });
  j.event({ source: "hft-stream", clientId: id, body: V5_RECORD(ex, id, "Cancelled") });
  const h = { sessionId: 1, seq: ++seqOut.n, recvNs: 0, sendNs: 0 };
  j.out("desk", encodeG2C("OrderUpdate", h, { ...UPDATE, clOrdNo: no, exchangeOrderId: ex }));
}

/** What the strategy is told when its order is cancelled (OrderStatus.Cancelled, nothing filled). */
const UPDATE = {
  clOrdNo: 0,
  requestId: 0,
  instrumentId: 1,
  status: 6,
  side: 1,
  ordType: 2,
  tif: 1,
  exchangeOrderId: "",
  priceTicks: 300000,
  qtyLots: 5,
  cumQtyLots: 0,
  leavesQtyLots: 0,
  avgPxMantissa: 0,
  avgPxExponent: 0,
  lastFillPriceTicks: 0,
  lastFillQtyLots: 0,
  reasonCode: 0,
};

/** History of about `mb` MB over `FILES` run files spread across seven days; returns bytes and orders. */
async function writeHistory(dir: string, identity: ReturnType<typeof journalIdentity>, mb: number) {
  const perFile = (mb * 1024 * 1024) / FILES;
  let no = 0;
  let bytes = 0;
  const seqOut = { n: 0 };
  for (let f = 0; f < FILES; f++) {
    let t = Date.now() - 7 * DAY + f * ((7 * DAY) / FILES);
    const j = Journal.open({ dir, fsync: "none", identity, now: () => t });
    j.session({ session: "desk", op: "logon", sid: 1 });
    j.command({ session: "desk", op: "logon", reason: "cod=0;hb=1000" });
    for (let start = statSync(j.path).size; j.stats.bytes + start < perFile; ) {
      for (let i = 0; i < 256; i++) writeOrder(j, ++no, seqOut);
      t += 500;
      await j.flush();
    }
    j.session({ session: "desk", op: "logoff", sid: 1 });
    await j.close();
    bytes += statSync(j.path).size;
  }
  return { bytes, orders: no };
}

/** Spawn to the command API listening, in ms; the journal lines it logged. */
async function timedStart(gp: GatewayProcess): Promise<{ ms: number; log: string }> {
  const mark = gp.output.length;
  const t0 = performance.now();
  await gp.start(600_000);
  const ms = performance.now() - t0;
  return { ms, log: gp.output.slice(mark) };
}

function line(log: string, msg: string): Record<string, unknown> | undefined {
  for (const l of log.split("\n"))
    if (l.includes(`"msg":"${msg}`)) {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        return undefined;
      }
    }
  return undefined;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function main(): Promise<void> {
  const keys = newKeys();
  const sim = await SimProcess.start({ seed: 7, apiKeys: [keys.apiKey] });
  const root = mkdtempSync(join(baseDir, "hftgate-bench-restart-"));
  const cfgFile = join(root, "config.json");
  // A full read of a large history holds every record until the replay ends: room for it.
  const heap = { NODE_OPTIONS: "--max-old-space-size=12288" };
  const gp = new GatewayProcess(cfgFile, { HFTGATE_SECRET_KEY: secretHex(keys), ...heap });
  const base = gatewayConfig(sim.baseUrl, root, 0);
  const config = (journal: Record<string, unknown>) =>
    writeFileSync(
      cfgFile,
      JSON.stringify({
        ...base,
        gateway: { ...base.gateway, port: 0 },
        journal: { ...base.journal, ...journal },
        log: { level: "info", pretty: "false" },
        shutdown: { timeoutMs: 120_000 },
      }),
    );
  try {
    const jdir = join(root, "journal");
    const identity = journalIdentity("exchange", sim.baseUrl, keys.apiKey);
    const t0 = performance.now();
    const history = await writeHistory(jdir, identity, MB);
    const writeMs = performance.now() - t0;
    process.stdout.write(
      `history: ${(history.bytes / 1e6).toFixed(0)} MB, ${history.orders} orders, ${FILES} files, written in ${(writeMs / 1000).toFixed(1)} s\n`,
    );

    // Before: no checkpoint, every file read at start.
    config({ checkpointIntervalMs: 0, checkpointMinBytes: 2 ** 40 });
    const before: number[] = [];
    let replayed: Record<string, unknown> | undefined;
    for (let i = 0; i < RUNS; i++) {
      const r = await timedStart(gp);
      before.push(r.ms);
      replayed ??= line(r.log, "journal replayed");
      await gp.kill();
      process.stdout.write(`  full read: start ${r.ms.toFixed(0)} ms\n`);
    }

    // The first checkpoint over the whole history, taken by a running gateway (in the background).
    config({ checkpointIntervalMs: 1_000 });
    let r = await timedStart(gp);
    const cpStart = Date.now();
    while (!gp.output.slice(gp.output.length - 100_000).includes("journal checkpoint written")) {
      if (Date.now() - cpStart > 600_000) throw new Error("no checkpoint within 10 minutes");
      await new Promise((res) => setTimeout(res, 100));
    }
    const written = line(
      gp.output.slice(gp.output.lastIndexOf("journal checkpoint written") - 2_000),
      "journal checkpoint written",
    );
    await gp.kill();

    // After: the checkpoint and the journal after it.
    config({ checkpointIntervalMs: 0 });
    const after: number[] = [];
    let cpRead: Record<string, unknown> | undefined;
    for (let i = 0; i < RUNS; i++) {
      r = await timedStart(gp);
      after.push(r.ms);
      cpRead ??= line(r.log, "journal checkpoint read");
      await gp.kill();
      process.stdout.write(`  checkpoint: start ${r.ms.toFixed(0)} ms\n`);
    }
    const files = journalFiles(jdir).length;
    const result = {
      machine: `${hostname()}: ${cpus().length} vCPU ${cpus()[0]?.model ?? ""}`.trim(),
      nodeOptions: heap.NODE_OPTIONS,
      historyMB: Math.round(history.bytes / 1e6),
      historyOrders: history.orders,
      journalFiles: files,
      startMs: {
        fullRead: { runs: before.map(Math.round), median: Math.round(median(before)) },
        checkpoint: { runs: after.map(Math.round), median: Math.round(median(after)) },
      },
      fullReadReplay: replayed,
      firstCheckpoint: written && {
        ms: written.ms,
        read: written.read,
        records: written.records,
        bytes: written.bytes,
        coveredBytes: written.coveredBytes,
      },
      checkpointRead: cpRead && { records: cpRead.records, coveredBytes: cpRead.coveredBytes },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    const out = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bench", "results", "restart.json");
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    for (const f of [CHECKPOINT_FILE, CHECKPOINT_PREV]) rmIfThere(join(jdir, f));
  } finally {
    await gp.kill();
    await sim.stop();
    if (process.env.HFTGATE_BENCH_KEEP === undefined) rmSync(root, { recursive: true, force: true });
    else process.stdout.write(`kept ${root}\n`);
  }
}

function rmIfThere(p: string): void {
  try {
    unlinkSync(p);
  } catch {
    // not there
  }
}

await main();
