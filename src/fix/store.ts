/**
 * One FIX session's durable state, as an append-only text file beside the journal: every message sent
 * (byte for byte, with its binary seq), the sequence numbers used by admin messages (gap-filled on
 * resend), the inbound sequence reached, and the ClOrdID ↔ clOrdNo map with what each order was.
 * Written synchronously before the message reaches the socket, so a crash never leaves a FIX client
 * with a sequence number the restarted gateway does not hold.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { FixMessage, type FrameResult, readFrame } from "./codec.js";
import { type Grid, toUnits } from "./decimal.js";

/** An instrument's price and quantity grids (and their steps as numbers, for AvgPx). */
export interface InstrumentGrids {
  readonly px: Grid;
  readonly qty: Grid;
  readonly pxStep: number;
  readonly qtyStep: number;
}

/** One order as the FIX session placed it (prices in ticks, quantities in lots). */
export interface FixOrder {
  readonly no: number;
  clOrdID: string;
  origClOrdID: string;
  readonly instId: number;
  readonly side: number;
  readonly ordType: number;
  readonly tif: number;
  priceTicks: number;
  qtyLots: number;
  /** clOrdNo of the first order of a cancel-replace chain: OrderID(37) stays the same across it. */
  readonly root: number;
  /** ClOrdID of the cancel (F) in flight, "" when none. */
  cancelClOrdID: string;
  /** ClOrdID of an in-place replace (G) in flight, "" when none. */
  replaceClOrdID: string;
  replacePx: number;
  replaceQty: number;
  venueId: string;
  cumLots: number;
  /** Σ fill price × qty in ticks × lots, for AvgPx. */
  pxQty: number;
  /** OrdStatus(39) last sent. */
  status: string;
}

export function newOrder(
  no: number,
  clOrdID: string,
  origClOrdID: string,
  instId: number,
  side: number,
  ordType: number,
  tif: number,
  priceTicks: number,
  qtyLots: number,
  root: number,
): FixOrder {
  return {
    no,
    clOrdID,
    origClOrdID,
    instId,
    side,
    ordType,
    tif,
    priceTicks,
    qtyLots,
    root,
    cancelClOrdID: "",
    replaceClOrdID: "",
    replacePx: 0,
    replaceQty: 0,
    venueId: "",
    cumLots: 0,
    pxQty: 0,
    status: "A",
  };
}

const safeName = (s: string) => s.replace(/[^A-Za-z0-9_.-]/g, "_");

export class FixStore {
  /** Next outbound MsgSeqNum. */
  nextOut = 1;
  /** Next inbound MsgSeqNum expected. */
  nextIn = 1;
  /** Highest binary seq delivered as FIX (frames up to it are not sent again as new messages). */
  lastBin = 0;
  /** Messages of this sequence epoch by MsgSeqNum − `base`; null = an admin message (gap-filled). */
  private msgs: (Buffer | null)[] = [];
  private base = 1;
  readonly orders = new Map<number, FixOrder>();
  readonly byClOrdID = new Map<string, FixOrder>();
  /** ClOrdIDs of cancels already taken (a resent F is not sent twice). */
  readonly cancelIds = new Set<string>();
  private fd: number | undefined;

  constructor(
    readonly path: string,
    /** Messages kept for resend; older ones are gap-filled. */
    private readonly keep: number,
    private readonly grids: (instId: number) => InstrumentGrids | undefined,
  ) {}

  static open(
    dir: string,
    compId: string,
    keep: number,
    grids: (instId: number) => InstrumentGrids | undefined,
  ): FixStore {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const s = new FixStore(join(dir, `${safeName(compId)}.fixs`), keep, grids);
    if (existsSync(s.path)) s.load(readFileSync(s.path, "latin1"));
    s.fd = openSync(s.path, "a", 0o600);
    return s;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private write(line: string): void {
    if (this.fd !== undefined) writeSync(this.fd, line, null, "latin1");
  }

  /** An application message sent with the next MsgSeqNum (from binary seq `binSeq`, 0 = none). */
  sent(seq: number, binSeq: number, msg: Buffer): void {
    this.write(`M ${seq} ${binSeq} ${msg.toString("latin1", 0, msg.length)}\n`);
    this.put(seq, msg);
    if (binSeq > this.lastBin) this.lastBin = binSeq;
  }

  /** An admin message took MsgSeqNum `seq` (gap-filled on resend). */
  admin(seq: number): void {
    this.write(`A ${seq}\n`);
    this.put(seq, null);
  }

  /** Inbound sequence reached (written with the messages that change state, and at logon/logout). */
  inbound(next: number): void {
    this.write(`I ${next}\n`);
  }

  /** Both sequences start over at 1 (ResetSeqNumFlag). Orders and their ids are kept. */
  reset(): void {
    this.write("R\n");
    this.nextOut = 1;
    this.nextIn = 1;
    this.msgs = [];
    this.base = 1;
  }

  /** The binary session started over (released and created again): its seqs begin at 1. */
  binaryRestart(): void {
    this.write("B 0\n");
    this.lastBin = 0;
  }

  addOrder(o: FixOrder, inSeq: number): void {
    this.write(
      `O ${o.no}\t${inSeq}\t${o.clOrdID}\t${o.origClOrdID}\t${o.instId}\t${o.side}\t${o.ordType}\t${o.tif}\t${o.priceTicks}\t${o.qtyLots}\t${o.root}\n`,
    );
    this.index(o);
  }

  /** A cancel (F) of order `no` with its own ClOrdID. */
  addCancel(no: number, clOrdID: string, inSeq: number): void {
    this.write(`C ${no}\t${inSeq}\t${clOrdID}\n`);
    this.cancelIds.add(clOrdID);
  }

  /** An in-place replace (G) of order `no`: the new ClOrdID names the same order from now on. */
  addAlias(no: number, clOrdID: string, inSeq: number): void {
    this.write(`L ${no}\t${inSeq}\t${clOrdID}\n`);
    const o = this.orders.get(no);
    if (o) this.byClOrdID.set(clOrdID, o);
  }

  private index(o: FixOrder): void {
    this.orders.set(o.no, o);
    this.byClOrdID.set(o.clOrdID, o);
  }

  private put(seq: number, msg: Buffer | null): void {
    if (this.msgs.length === 0) this.base = seq;
    const i = seq - this.base;
    if (i < 0) return;
    while (this.msgs.length < i) this.msgs.push(null);
    this.msgs[i] = msg;
    if (seq >= this.nextOut) this.nextOut = seq + 1;
    // Trimmed in chunks (a quarter of `keep` at a time): one splice per many messages, not per message.
    if (this.msgs.length > this.keep + (this.keep >> 2)) {
      const drop = this.msgs.length - this.keep;
      this.msgs.splice(0, drop);
      this.base += drop;
    }
  }

  /** The message sent with `seq`: a Buffer, null for admin, undefined when no longer kept. */
  message(seq: number): Buffer | null | undefined {
    const i = seq - this.base;
    if (i < 0 || i >= this.msgs.length) return undefined;
    return this.msgs[i];
  }
  /** Oldest MsgSeqNum still kept. */
  get oldest(): number {
    return this.base;
  }

  private load(text: string): void {
    const m = new FixMessage();
    const res: FrameResult = { used: 0, error: undefined };
    for (const line of text.split("\n")) {
      if (line.length < 1) continue;
      const k = line[0];
      if (k === "M") {
        const a = line.indexOf(" ", 2);
        const b = line.indexOf(" ", a + 1);
        if (a < 0 || b < 0) continue;
        const seq = Number(line.slice(2, a));
        const bin = Number(line.slice(a + 1, b));
        const msg = Buffer.from(line.slice(b + 1), "latin1");
        this.put(seq, msg);
        if (bin > this.lastBin) this.lastBin = bin;
        if (readFrame(msg, 0, msg.length, m, res) > 0 && res.error === undefined) this.learn(m);
      } else if (k === "A") this.put(Number(line.slice(2)), null);
      else if (k === "I") this.nextIn = Math.max(this.nextIn, Number(line.slice(2)));
      else if (k === "R") {
        this.nextOut = 1;
        this.nextIn = 1;
        this.msgs = [];
        this.base = 1;
      } else if (k === "B") this.lastBin = 0;
      else if (k === "O") {
        const f = line.slice(2).split("\t");
        if (f.length < 11) continue;
        const n = f.map(Number);
        this.nextIn = Math.max(this.nextIn, n[1]! + 1);
        this.index(newOrder(n[0]!, f[2]!, f[3]!, n[4]!, n[5]!, n[6]!, n[7]!, n[8]!, n[9]!, n[10]!));
      } else if (k === "C" || k === "L") {
        const f = line.slice(2).split("\t");
        if (f.length < 3) continue;
        this.nextIn = Math.max(this.nextIn, Number(f[1]) + 1);
        if (k === "C") this.cancelIds.add(f[2]!);
        else {
          const o = this.orders.get(Number(f[0]));
          if (o) this.byClOrdID.set(f[2]!, o);
        }
      }
    }
  }

  /** An ExecutionReport sent before a restart: the order's state as it was told. */
  private learn(m: FixMessage): void {
    if (m.type !== "8") return;
    const id = m.str(11);
    const o = id === undefined ? undefined : this.byClOrdID.get(id);
    if (o === undefined) return;
    const g = this.grids(o.instId);
    if (g === undefined) return;
    const cum = m.str(14);
    const avg = m.str(6);
    if (cum !== undefined) {
      const lots = toUnits(cum, g.qty);
      if (lots >= 0) {
        o.cumLots = lots;
        const a = avg === undefined ? 0 : Number(avg);
        o.pxQty = (a * lots * g.qtyStep) / g.pxStep;
      }
    }
    const px = m.str(44);
    const qty = m.str(38);
    if (px !== undefined && toUnits(px, g.px) > 0) o.priceTicks = toUnits(px, g.px);
    if (qty !== undefined && toUnits(qty, g.qty) > 0) o.qtyLots = toUnits(qty, g.qty);
    o.venueId = m.str(198) ?? o.venueId;
    o.status = m.str(39) ?? o.status;
    o.clOrdID = id!;
  }
}
