/**
 * The bare forwarder: the least a Node process can do to turn a strategy's order into a venue order
 * and its answer into an ack, measured beside the gateway as its floor. uWebSockets.js receives the
 * NewOrder frame → a pre-built HTTP/1.1 POST (a template with a pre-signed signature and epoch, the
 * body written in place) on a persistent `net.Socket` → the 200 scanned for `orderId` → the binary
 * Ack, sent directly. A Cancel goes the same way as the Spot DELETE and comes back as an OrderUpdate
 * (Cancelled). Several sockets, one request in flight on each, a FIFO when all are busy (the gateway's
 * connection rule). No validation, no risk, no order store, no recovery: only the wire.
 *
 * The journaled variant ("sync") writes a 64-byte record with `writeSync` before the HTTP write and
 * another before the ack, and `fdatasync`s every 100 ms while unsynced (the gateway journal's rule).
 *
 * The "work" variant (diagnosis, HFTGATE_BENCH_BARE_WORK=1) does the gateway's per-order component work
 * on the same wire: see bareWork.ts.
 *
 * argv: venue port, API key hex, "off" | "sync" | "work[-A+B]", connections. Ready info: { port, pid }.
 * `startBare` runs one inside another process (the bench's gateway process, for a like-for-like
 * control of the process around it: HFTGATE_BENCH_BARE_IN_GATEWAY).
 */
import { fdatasync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMPILED, encodeG2C, patchSendNs, writeInt53 } from "../../../src/protocol/codec.js";
import { OrderStatus, WS_PATH } from "../../../src/protocol/schema.js";
import { GatewayWork, type WorkRequest, workSkips } from "../bareWork.js";
import { callCountHandlers } from "../calls.js";
import { failChild, serveChild } from "../child.js";

interface UwsSocket {
  send(m: ArrayBufferLike | Uint8Array, isBinary: boolean): number;
}
interface UwsLike {
  App(): {
    ws(
      path: string,
      o: {
        compression: number;
        idleTimeout: number;
        maxPayloadLength: number;
        message: (ws: UwsSocket, m: ArrayBuffer, b: boolean) => void;
        close: (ws: UwsSocket) => void;
      },
    ): { listen(host: string, port: number, cb: (ls: unknown) => void): void };
  };
  DISABLED: number;
  us_socket_local_port(ls: unknown): number;
  us_listen_socket_close(ls: unknown): void;
}

let venuePort = 0;
let apiKey = "";
let journaled = false;
/** The "work" variant's components (bareWork.ts), undefined in the other two. */
let work: GatewayWork | undefined;
const uws = createRequire(import.meta.url)("uWebSockets.js") as UwsLike;

const T_NEW_ORDER = 0x02;
const T_CANCEL = 0x03;
const OP_CREATE = 0;
const OP_CANCEL = 1;
const ID_LEN = 40;

// ---- request templates: headers fixed at start (pre-signed signature and epoch slots), body in place

/** A fixed-length create body; the order's link id digits are written at `linkAt` per request. */
const CREATE_BODY =
  '{"category":"linear","symbol":"BTCUSDT","side":"Buy","orderType":"Limit","qty":"0.005","price":"1000.0","positionIdx":0,"timeInForce":"GTC","orderLinkId":"bare-00000000000000000000"}';
const LINK_DIGITS = 20;
/** The cancel body: the venue id, then spaces after the closing brace up to a fixed length. */
const CANCEL_BODY = `{"order_id":"${" ".repeat(ID_LEN)}"}`;
const CANCEL_ID_AT = 13;

interface Template {
  buf: Buffer;
  sigAt: number;
  epochAt: number;
  /** Where the content-length's digits start (the head before them is the same for every body). */
  lengthAt: number;
  bodyAt: number;
}

function template(method: string, path: string, body: string): Template {
  const head =
    `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1:${venuePort}\r\nconnection: keep-alive\r\n` +
    `content-type: application/json\r\nx-auth-apikey: ${apiKey}\r\nx-auth-signature: `;
  const sigAt = head.length;
  const mid = `${"0".repeat(128)}\r\nx-auth-epoch: `;
  const epochAt = sigAt + mid.length;
  const lengthKey = `${"0".repeat(13)}\r\ncontent-length: `;
  const lengthAt = epochAt + lengthKey.length;
  const raw = `${head}${mid}${lengthKey}${body.length}\r\n\r\n${body}`;
  return { buf: Buffer.from(raw, "latin1"), sigAt, epochAt, lengthAt, bodyAt: raw.length - body.length };
}

/** Stand-in for the pre-signer's ring: one signature and epoch per request, copied into the slots. */
const PRESIGNED_SIG = Buffer.from("ab".repeat(64), "latin1");

// ---- the ack and cancel answers, pre-encoded once and patched per order

const H0 = { sessionId: 1, seq: 0, recvNs: 0, sendNs: 0 };
const ACK = Buffer.from(encodeG2C("Ack", H0, { clOrdNo: 0, instrumentId: 1, exchangeOrderId: "" }));
const UPDATE = Buffer.from(
  encodeG2C("OrderUpdate", H0, {
    clOrdNo: 0,
    requestId: 0,
    instrumentId: 1,
    status: OrderStatus.Cancelled,
    side: 1,
    ordType: 1,
    tif: 1,
    exchangeOrderId: "",
    priceTicks: 0,
    qtyLots: 0,
    cumQtyLots: 0,
    leavesQtyLots: 0,
    avgPxMantissa: 0,
    avgPxExponent: 0,
    lastFillPriceTicks: 0,
    lastFillQtyLots: 0,
    reasonCode: 0,
  }),
);
const offOf = (msg: "Ack" | "OrderUpdate", field: string) =>
  COMPILED[msg].ops.find((o) => o.name === field)!.off;
const ACK_CLORD = offOf("Ack", "clOrdNo");
const ACK_ID = offOf("Ack", "exchangeOrderId");
const UPD_CLORD = offOf("OrderUpdate", "clOrdNo");
const UPD_ID = offOf("OrderUpdate", "exchangeOrderId");
let seq = 0;

function monoNs(): number {
  return Number(process.hrtime.bigint());
}

// ---- the journal (sync variant)

const REC = Buffer.alloc(64);
let jfd = -1;
let jdir = "";
let dirty = false;
let syncing = false;
function journal(kind: number, clOrdNo: number, t: number): void {
  REC[0] = kind;
  writeInt53(REC, 8, clOrdNo, false);
  writeInt53(REC, 16, t, false);
  writeSync(jfd, REC, 0, 64);
  dirty = true;
}
function syncTick(): void {
  if (!dirty || syncing) return;
  dirty = false;
  syncing = true;
  fdatasync(jfd, () => {
    syncing = false;
  });
}

// ---- connections: one request in flight on each, a FIFO when all are busy

interface Pending {
  op: number;
  ws: UwsSocket;
  clOrdNo: number;
  recvNs: number;
  /** The venue id a cancel names (latin1, ≤ 40). */
  id: string;
  /** The "work" variant: the order and the create's body. */
  w: WorkRequest | undefined;
  sentNs: number;
}

class Conn {
  readonly create = template("POST", "/v5/order/create", CREATE_BODY);
  readonly cancel = template("DELETE", "/trade/api/v2/order", CANCEL_BODY);
  /** The "work" variant's create: the template's head, then the body's length and the body per order. */
  private readonly workBuf = Buffer.alloc(4096);
  cur: Pending | undefined;
  sock: Socket | undefined;
  /** Connected; a socket the stub closed (idle past its headers timeout: a 408) reopens at once. */
  ready = false;
  private acc: Buffer | undefined;

  open(): Promise<void> {
    const s = connect(venuePort, "127.0.0.1");
    s.setNoDelay(true);
    this.sock = s;
    return new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.once("connect", () => {
        s.off("error", reject);
        s.on("error", () => {});
        s.on("data", (d: Buffer) => this.onData(d));
        s.on("close", () => this.onClose(s));
        this.ready = true;
        resolve();
        next(this);
      });
    });
  }

  private onClose(s: Socket): void {
    if (this.sock !== s || stopping) return;
    this.ready = false;
    this.acc = undefined;
    if (this.cur !== undefined) fail(this.cur);
    this.cur = undefined;
    void this.open().catch(() => {});
  }

  send(p: Pending): void {
    this.cur = p;
    if (p.w !== undefined && p.op === OP_CREATE) {
      this.sendWork(p, p.w.body);
      return;
    }
    const t = p.op === OP_CREATE ? this.create : this.cancel;
    PRESIGNED_SIG.copy(t.buf, t.sigAt);
    t.buf.write(String(Date.now()), t.epochAt, 13, "latin1");
    if (p.op === OP_CREATE) {
      const digits = String(p.clOrdNo).padStart(LINK_DIGITS, "0");
      t.buf.write(digits, t.bodyAt + CREATE_BODY.length - 2 - LINK_DIGITS, LINK_DIGITS, "latin1");
    } else {
      const at = t.bodyAt + CANCEL_ID_AT;
      t.buf.fill(0x20, at, at + ID_LEN + 2);
      const n = t.buf.write(p.id, at, ID_LEN, "latin1");
      t.buf.write('"}', at + n, 2, "latin1");
    }
    if (SPIN_BEFORE) spin();
    if (journaled) journal(1, p.clOrdNo, p.recvNs);
    // Only the work variant times the round trip (for its response record): the floors read no clock here.
    if (p.w !== undefined) p.sentNs = monoNs();
    this.sock!.write(t.buf);
  }

  /** The create's head as the template has it, up to its content-length, then the order's body. */
  private sendWork(p: Pending, body: string): void {
    const t = this.create;
    const b = this.workBuf;
    PRESIGNED_SIG.copy(t.buf, t.sigAt);
    t.buf.write(String(Date.now()), t.epochAt, 13, "latin1");
    t.buf.copy(b, 0, 0, t.lengthAt);
    let n = t.lengthAt + b.write(`${body.length}\r\n\r\n`, t.lengthAt, "latin1");
    n += b.write(body, n, "latin1");
    p.sentNs = monoNs();
    this.sock!.write(b.subarray(0, n));
  }

  private onData(d: Buffer): void {
    let b = d;
    if (this.acc !== undefined) {
      b = Buffer.concat([this.acc, d]);
      this.acc = undefined;
    }
    const h = b.indexOf("\r\n\r\n", 0, "latin1");
    if (h < 0) {
      this.acc = b;
      return;
    }
    const head = b.toString("latin1", 0, h).toLowerCase();
    const cl = head.indexOf("content-length:");
    const len = cl < 0 ? 0 : Number.parseInt(head.slice(cl + 15), 10);
    const end = h + 4 + len;
    if (b.length < end) {
      this.acc = b;
      return;
    }
    const p = this.cur;
    if (p === undefined) {
      // An answer with no request in flight: reported, never taken for another order's.
      process.stderr.write(
        `bare forwarder: unexpected bytes ${JSON.stringify(b.toString("latin1", 0, 120))}\n`,
      );
      return;
    }
    if (b.length > end) {
      process.stderr.write(`bare forwarder: ${b.length - end} bytes after an answer\n`);
    }
    this.cur = undefined;
    answer(p, b, h + 4, end);
    next(this);
  }
}

const ORDER_ID = Buffer.from('"orderId":"', "latin1");
const SPOT_ID = Buffer.from('"order_id":"', "latin1");
const CANCELLED = Buffer.from('"status":"CANCELLED"', "latin1");

/** Where the answer's `orderId` value starts in `b` (it ends at `idEnd`), or -1: none in the answer. */
function idStart(b: Buffer, from: number, end: number): number {
  const k = b.indexOf(ORDER_ID, from);
  return k < 0 || k > end ? -1 : k + ORDER_ID.length;
}
function idEnd(b: Buffer, s: number): number {
  return Math.min(b.indexOf(0x22, s), s + ID_LEN);
}

function answer(p: Pending, b: Buffer, from: number, end: number): void {
  if (p.w !== undefined) {
    answerWork(p, p.w, b, from, end);
    return;
  }
  if (p.op === OP_CREATE) {
    const s = idStart(b, from, end);
    if (s < 0) {
      fail(p);
      return;
    }
    ACK.fill(0, ACK_ID, ACK_ID + ID_LEN);
    b.copy(ACK, ACK_ID, s, idEnd(b, s));
    writeInt53(ACK, ACK_CLORD, p.clOrdNo, false);
    reply(p, ACK);
  } else {
    if (b.indexOf(CANCELLED, from) < 0) {
      fail(p);
      return;
    }
    const k = b.indexOf(SPOT_ID, from);
    const s = k + SPOT_ID.length;
    UPDATE.fill(0, UPD_ID, UPD_ID + ID_LEN);
    if (k >= 0) b.copy(UPDATE, UPD_ID, s, Math.min(b.indexOf(0x22, s), s + ID_LEN));
    writeInt53(UPDATE, UPD_CLORD, p.clOrdNo, false);
    reply(p, UPDATE);
  }
}

/** The "work" variant's answer: the components apply, journal and encode it (bareWork.ts). */
function answerWork(p: Pending, w: WorkRequest, b: Buffer, from: number, end: number): void {
  const rtt = monoNs() - p.sentNs;
  const body = b.subarray(from, end);
  let frame: Buffer;
  if (p.op === OP_CREATE) {
    const s = idStart(b, from, end);
    if (s < 0) {
      fail(p);
      return;
    }
    const id = b.toString("latin1", s, idEnd(b, s));
    frame = work!.created(w, body, id, p.recvNs, rtt);
  } else {
    if (b.indexOf(CANCELLED, from) < 0) {
      fail(p);
      return;
    }
    frame = work!.cancelled(w, body, p.recvNs, rtt);
  }
  patchSendNs(frame, monoNs());
  p.ws.send(frame, true);
}

function reply(p: Pending, frame: Buffer): void {
  if (journaled) journal(2, p.clOrdNo, p.recvNs);
  writeInt53(frame, 8, ++seq, false);
  writeInt53(frame, 16, p.recvNs, false);
  writeInt53(frame, 24, monoNs(), false);
  p.ws.send(frame, true);
  if (SPIN_AFTER) spin();
  if (POLLUTE > 0) pollute();
  if (CODE.length > 0) runCode();
}

// Diagnosis: the journal-off variant runs HFTGATE_BENCH_BARE_CODE_FNS distinct generated functions
// per answer (each its own machine code, a few hundred bytes): a forwarder with a large code path.
const CODE: ((x: number) => number)[] = [];
function makeCode(n: number): void {
  for (let i = 0; i < n; i++) {
    let body = `let y = x + ${i};`;
    for (let k = 0; k < 12; k++)
      body += `if ((y & ${1 << (k % 8)}) !== 0) y = (y * ${k + 3 + i}) ^ ${i * 31 + k}; else y = y + ${k * 7 + i};`;
    CODE.push(new Function("x", `${body} return y | 0;`) as (x: number) => number);
  }
}
let codeAcc = 0;
function runCode(): void {
  let x = codeAcc;
  for (let i = 0; i < CODE.length; i++) x = CODE[i]!(x);
  codeAcc = x & 0xffff;
}

// Diagnosis: the journal-off variant writes POLLUTE bytes of fresh memory per answer (a 64 MB ring,
// one store per 64-byte line), as a forwarder that allocates that much per order would.
let POLLUTE = 0;
let RING = Buffer.alloc(0);
let ringAt = 0;
function pollute(): void {
  for (let i = 0; i < POLLUTE; i += 64) {
    RING[ringAt] = i;
    ringAt = (ringAt + 64) & ((64 << 20) - 1);
  }
}

// Diagnosis: the journal-off variant burns SPIN_NS of CPU per order, before the HTTP write or after the ack.
let SPIN_NS = 0;
let SPIN_AFTER = false;
let SPIN_BEFORE = false;
function spin(): void {
  const until = monoNs() + SPIN_NS;
  while (monoNs() < until);
}

/** The diagnosis knobs, read from the environment by the journal-off forwarder's own process only. */
function configureKnobs(variant: string): void {
  if (variant !== "off") return;
  makeCode(Number(process.env.HFTGATE_BENCH_BARE_CODE_FNS ?? 0));
  POLLUTE = Number(process.env.HFTGATE_BENCH_BARE_POLLUTE_KB ?? 0) * 1024;
  if (POLLUTE > 0) RING = Buffer.alloc(64 << 20);
  SPIN_NS = Number(process.env.HFTGATE_BENCH_BARE_SPIN_US ?? 0) * 1000;
  SPIN_AFTER = SPIN_NS > 0 && process.env.HFTGATE_BENCH_BARE_SPIN_AT === "after";
  SPIN_BEFORE = SPIN_NS > 0 && !SPIN_AFTER;
}

/** Anything but the expected answer: the bare forwarder has no recovery; the strategy sees no ack. */
function fail(p: Pending): void {
  process.stderr.write(`bare forwarder: unexpected answer for ${p.clOrdNo}\n`);
}

const conns: Conn[] = [];
let stopping = false;
const fifo: Pending[] = [];
let fifoHead = 0;

function next(c: Conn): void {
  if (fifoHead < fifo.length && c.ready && c.cur === undefined) {
    const p = fifo[fifoHead++]!;
    if (fifoHead === fifo.length) {
      fifo.length = 0;
      fifoHead = 0;
    }
    c.send(p);
  }
}

function submit(p: Pending): void {
  if (fifoHead === fifo.length) {
    for (let i = 0; i < conns.length; i++) {
      const c = conns[i]!;
      if (c.ready && c.cur === undefined) {
        c.send(p);
        return;
      }
    }
  }
  fifo.push(p);
}

function onMessage(ws: UwsSocket, msg: ArrayBuffer): void {
  const recvNs = monoNs();
  const b = Buffer.from(msg);
  const type = b[1];
  const clOrdNo = b.readUInt32LE(8) + b.readUInt32LE(12) * 4294967296;
  let w: WorkRequest | undefined;
  if (work !== undefined && (type === T_NEW_ORDER || type === T_CANCEL)) {
    w = type === T_NEW_ORDER ? work.create(msg, recvNs) : work.cancel(msg);
    if (w === undefined) {
      process.stderr.write(`bare forwarder (work): frame type ${type} for ${clOrdNo} refused\n`);
      return;
    }
  }
  if (type === T_NEW_ORDER) submit({ op: OP_CREATE, ws, clOrdNo, recvNs, id: "", w, sentNs: 0 });
  else if (type === T_CANCEL) {
    let e = 16;
    while (e < 16 + ID_LEN && b[e] !== 0) e++;
    submit({ op: OP_CANCEL, ws, clOrdNo, recvNs, id: b.toString("latin1", 16, e), w, sentNs: 0 });
  }
}

export interface BareOptions {
  venuePort: number;
  apiKey: string;
  /** "work" or "work-A+B" (bareWork.ts). */
  journal: string;
  connections: number;
}

/** Starts a bare forwarder in this process (one per process): its WebSocket port, and its stop. */
export async function startBare(
  o: BareOptions,
): Promise<{ port: number; stop: () => void /** The work variant's journal file. */; journal?: string }> {
  venuePort = o.venuePort;
  apiKey = o.apiKey;
  journaled = o.journal === "sync";
  if (o.journal.startsWith("work")) work = new GatewayWork(workSkips(o.journal));
  let timer: NodeJS.Timeout | undefined;
  if (journaled) {
    jdir = mkdtempSync(join(tmpdir(), "hftgate-bare-"));
    jfd = openSync(join(jdir, "journal"), "a");
    timer = setInterval(syncTick, 100);
  }
  for (let i = 0; i < Math.max(1, o.connections); i++) {
    const c = new Conn();
    await c.open();
    conns.push(c);
  }
  return new Promise((resolve, reject) => {
    uws
      .App()
      .ws(WS_PATH, {
        compression: uws.DISABLED,
        idleTimeout: 0,
        maxPayloadLength: 1024,
        message: onMessage,
        close: () => {},
      })
      .listen("127.0.0.1", 0, (ls) => {
        if (!ls) return reject(new Error("bare forwarder could not listen"));
        resolve({
          port: uws.us_socket_local_port(ls),
          journal: work?.journal.path,
          stop: () => {
            stopping = true;
            clearInterval(timer);
            uws.us_listen_socket_close(ls);
            for (const c of conns) c.sock?.destroy();
            work?.close();
            if (jdir !== "") rmSync(jdir, { recursive: true, force: true });
          },
        });
      });
  });
}

async function main(): Promise<void> {
  const [portArg = "0", key = "", journalArg = "off", connsArg = "4"] = process.argv.slice(2);
  journaled = journalArg === "sync";
  configureKnobs(journalArg);
  const b = await startBare({
    venuePort: Number(portArg),
    apiKey: key,
    journal: journalArg,
    connections: Number(connsArg),
  });
  serveChild({ port: b.port, pid: process.pid }, callCountHandlers(), async () => b.stop());
}

if (process.argv[1]?.endsWith(join("procs", "bare.js"))) main().catch(failChild);
