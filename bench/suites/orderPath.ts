/**
 * The order path's own per-create costs in one process, as CPU time (process.cpuUsage, median of
 * repeated blocks: steadier than wall time on a shared machine) and, where it matters, bytes allocated:
 * the create's journal work (command + request, one writeSync; response + the sequenced frame, one
 * writeSync), a lone 42-byte frame sent through the uWS transport outside a uWS callback (an ack of an
 * HTTP answer), and OrderStore.create. Floor in the same run: one bare writeSync of the same bytes.
 * Compare builds by running this suite from each build's dist, back to back.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Conn, startUwsTransport } from "../../src/gateway/transport.js";
import { Journal } from "../../src/journal/index.js";
import { OrderStore } from "../../src/orders/index.js";
import { monoNs } from "../../src/protocol/clock.js";
import { WS_PATH } from "../../src/protocol/schema.js";

export const name = "orderPath";

const cpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const round2 = (x: number): number => Math.round(x * 100) / 100;
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

const BODY =
  '{"data":{"order_id":"6f1f6a7e-5b1c-4b8e-9f4e-1c2d3e4f5a6b","symbol":"BTC/INR","price":"5000000",' +
  '"average_price":"0","orig_qty":"0.001","executed_qty":"0","status":"OPEN","side":"BUY"}}';

/** CPU µs per call of `fn`, median over `blocks` blocks of `n` calls, one event-loop turn between blocks. */
async function cpuPer(n: number, blocks: number, fn: (i: number) => void): Promise<number> {
  const per: number[] = [];
  let k = 0;
  for (let b = 0; b < blocks; b++) {
    await turn();
    const c0 = cpuUs();
    for (let i = 0; i < n; i++) fn(k++);
    per.push((cpuUs() - c0) / n);
  }
  return round2(median(per));
}

async function journalPath(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), "hftgate-bench-orderpath-"));
  // fsync none: the encode and the writes on the event loop; fdatasync runs on the thread pool and
  // its CPU (counted by cpuUsage) depends on the disk, not on the journal's code.
  const j = Journal.open({ dir, fsync: "none" });
  const frame = new Uint8Array(42).fill(7);
  const create = (i: number): void => {
    const id = `hg${i.toString(36)}`;
    j.command({
      session: "s1",
      op: "new",
      clientId: id,
      symbol: "BTC/INR",
      side: "buy",
      type: "limit",
      price: "5000000",
      qty: "0.001",
      tif: "GTC",
      reason: "no=1;inst=1;pos=0",
    });
    j.request({ clientId: id, op: "create", method: "POST", path: "/trade/api/v2/order", attempt: 1 });
    j.flushSync(); // before the HTTP write
    j.response({ clientId: id, op: "create", status: 200, latencyUs: 80, body: BODY });
    j.out("s1", frame);
    j.flushSync(); // before the ack
  };
  await cpuPer(2_000, 2, create); // warm-up
  const perCreate = await cpuPer(4_000, 9, create);
  const bytes = j.stats.bytes / j.stats.records;
  await j.close();
  // Floor: the same two writes per create with nothing encoded (one buffer of the same size each).
  const fd = openSync(join(dir, "floor"), "a");
  const half = Buffer.alloc(Math.round(bytes * 2));
  const floor = await cpuPer(4_000, 9, () => {
    writeSync(fd, half);
    writeSync(fd, half);
  });
  closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
  return { cpu_us_per_create: perCreate, floor_two_writeSync_us: floor, bytes_per_record: Math.round(bytes) };
}

async function loneSend(): Promise<Record<string, number>> {
  let conn: Conn | undefined;
  const t = await startUwsTransport(
    { host: "127.0.0.1", port: 0, maxPayload: 1 << 16, maxBackpressure: 1 << 24 },
    {
      open: (c) => {
        conn = c;
        return {};
      },
      message: () => {},
      close: () => {},
      http: () => ({ body: "" }),
    },
  );
  const s = connect(t.port, "127.0.0.1");
  await new Promise((r) => s.once("connect", r));
  s.on("data", () => {}); // drained, not parsed
  s.write(
    `GET ${WS_PATH} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
  );
  while (conn === undefined) await new Promise((r) => setTimeout(r, 5));
  const c = conn;
  const frame = new Uint8Array(42).fill(1);
  await cpuPer(500, 2, () => c.send(frame));
  const per = await cpuPer(500, 21, () => c.send(frame));
  s.destroy();
  await t.close();
  return { cpu_us_per_frame: per };
}

async function storeCreate(): Promise<Record<string, number>> {
  const st = new OrderStore();
  const req = {
    sessionId: 1,
    clientOrderNo: 0,
    instrumentId: 1,
    symbol: "BTC/INR",
    surface: "spot" as const,
    side: "buy" as const,
    type: "limit" as const,
    tif: "GTC" as const,
    priceTicks: 100,
    qtyLots: 1,
  };
  const per = await cpuPer(5_000, 9, (i) => {
    req.clientOrderNo = i + 1;
    st.create(req, monoNs());
  });
  return { cpu_us_per_create: per };
}

export async function run(): Promise<Record<string, unknown>> {
  return {
    journal_create_path: await journalPath(),
    lone_frame_send: await loneSend(),
    store_create: await storeCreate(),
  };
}
