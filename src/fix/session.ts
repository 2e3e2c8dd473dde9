/**
 * One FIX connection as a transport of the gateway's session layer: FIX in is read, checked at the
 * session level (sequence numbers, resend, logon signature) and turned into the binary protocol's
 * commands for the gateway; the gateway's frames come back through `Conn.send` and leave as FIX
 * (reports.ts). The FIX sequence numbers and every message sent are kept in the session's store.
 */
import type { Socket } from "node:net";
import type { Instrument } from "../domain/types.js";
import type { Conn, SendStatus, TransportHandlers } from "../gateway/transport.js";
import { encodeC2G } from "../protocol/codec.js";
import { CancelAllScope, CodPolicy, LogonOptions, OrdType, QueryScope } from "../protocol/schema.js";
import {
  asPossDup,
  clean,
  FixEncoder,
  FixMessage,
  type FrameResult,
  fixTime,
  headerOf,
  MAX_MESSAGE,
  parseFixTime,
  readFrame,
} from "./codec.js";
import type { FixContext, FixPeer } from "./context.js";
import { toUnits } from "./decimal.js";
import { logonPayload, verifyLogon } from "./logonSig.js";
import { Reports } from "./reports.js";
import { type FixStore, newOrder } from "./store.js";
import { ORDER_TYPES, ORDTYPE_IN, SIDE_IN, SRR, TIF_IN } from "./tags.js";

type State = "new" | "logon" | "active" | "closed";

/** Printable ASCII without space: ClOrdIDs are echoed and stored, so nothing else is taken. */
const ID_RE = /^[!-~]{1,64}$/;

export class FixSession implements Conn, FixPeer {
  private state: State = "new";
  private link: unknown;
  private rx: Buffer = Buffer.alloc(0);
  private readonly m = new FixMessage();
  private readonly res: FrameResult = { used: 0, error: undefined };
  readonly enc = new FixEncoder();
  compId = "";
  hdr = "";
  store: FixStore | undefined;
  private reports: Reports | undefined;
  /** Binary frames with seq at or below this were delivered before (or are left to a resend). */
  private binFloor = 0;
  private lastNo = 0;
  private nextReq = 1;
  private logonSeq = 0;
  private logonReset = false;
  private heartBtInt = 30;
  private triedResume = 0;
  private retrying = false;
  private queued: Buffer[] = [];
  private gapTo = 0;
  private sessionId = 0;
  private corking = false;
  /** A Logout was sent: the gateway's close that follows sends no second one. */
  private loggingOut = false;

  constructor(
    private readonly sock: Socket,
    private readonly ctx: FixContext,
    private readonly h: TransportHandlers<unknown>,
  ) {
    sock.setNoDelay(true);
    sock.on("data", (d: Buffer) => this.onData(d));
    sock.on("error", () => sock.destroy());
    sock.on("close", () => this.onClosed());
  }

  // ---- Conn (the gateway's side) ----

  send(frame: Uint8Array): SendStatus {
    if (this.state === "closed") return 2;
    this.fromGateway(frame as Buffer);
    return this.sock.writableLength > this.ctx.maxBufferedBytes ? 0 : 1;
  }
  buffered(): number {
    return this.sock.writableLength;
  }
  end(_code: number, reason: string): void {
    if (this.retrying) return;
    if (this.state === "active" && !this.loggingOut)
      this.sendAdmin("5", this.enc.begin().f(58, clean(reason)));
    this.close();
  }
  cork(fn: () => void): void {
    if (this.corking) {
      fn();
      return;
    }
    this.corking = true;
    this.sock.cork();
    try {
      fn();
    } finally {
      this.corking = false;
      this.sock.uncork();
    }
  }
  corked(): boolean {
    return this.corking;
  }

  // ---- bytes in ----

  private onData(d: Buffer): void {
    this.rx = this.rx.length === 0 ? d : Buffer.concat([this.rx, d]);
    let off = 0;
    const len = this.rx.length;
    while (off < len && this.state !== "closed") {
      const used = readFrame(this.rx, off, len, this.m, this.res);
      if (used === 0) break;
      if (this.res.error !== undefined) this.garbled(this.res.error);
      else this.onMessage(this.m);
      off += used;
    }
    this.rx = off >= len ? Buffer.alloc(0) : this.rx.subarray(off);
    if (this.rx.length > MAX_MESSAGE * 4) this.close();
  }

  private garbled(why: string): void {
    // The sequence number of a damaged message cannot be trusted: it is not counted (a resend fills it).
    if (this.state !== "active") {
      this.close();
      return;
    }
    this.sendAdmin("3", this.enc.begin().f(45, this.m.seq).f(373, SRR.Other).f(58, why));
  }

  private onMessage(m: FixMessage): void {
    if (this.state === "new") {
      this.onLogon(m);
      return;
    }
    if (this.state !== "active") return;
    if (m.type === "2") this.onResendRequest(m); // answered whatever its own sequence number
    const seq = m.seq;
    const st = this.store!;
    if (m.type === "4" && !m.is(123, "Y")) {
      const n = m.int(36);
      if (n > st.nextIn) st.nextIn = n;
      this.touch();
      return;
    }
    if (seq <= 0) {
      this.reject(m, 34, SRR.RequiredTagMissing, "MsgSeqNum missing");
      return;
    }
    if (seq < st.nextIn) {
      if (m.is(43, "Y")) return; // a resent message already processed
      this.logout(`MsgSeqNum too low, expecting ${st.nextIn} but received ${seq}`);
      return;
    }
    if (seq > st.nextIn) {
      this.queued.push(Buffer.from(m.bytes()));
      if (this.gapTo === 0) {
        this.gapTo = seq;
        this.sendAdmin("2", this.enc.begin().f(7, st.nextIn).f(16, 0));
      }
      return;
    }
    this.inOrder(m);
    this.drainQueue();
  }

  private drainQueue(): void {
    const st = this.store!;
    while (this.queued.length > 0 && this.state === "active") {
      const i = this.queued.findIndex((b) => seqOf(b) <= st.nextIn);
      if (i < 0) return;
      const b = this.queued.splice(i, 1)[0]!;
      if (readFrame(b, 0, b.length, this.m, this.res) > 0 && this.res.error === undefined) {
        if (this.m.seq === st.nextIn) this.inOrder(this.m);
      }
    }
    if (this.queued.length === 0) this.gapTo = 0;
  }

  /** A message with the expected sequence number. */
  private inOrder(m: FixMessage): void {
    const st = this.store!;
    st.nextIn = m.seq + 1;
    switch (m.type) {
      case "0":
      case "2":
      case "3":
        this.touch();
        return;
      case "1":
        this.touch();
        this.sendAdmin("0", this.enc.begin().f(112, m.str(112) ?? ""));
        return;
      case "4": {
        const n = m.int(36);
        if (n > st.nextIn) st.nextIn = n;
        this.touch();
        return;
      }
      case "5":
        st.inbound(st.nextIn);
        this.sendAdmin("5", this.enc.begin());
        this.loggingOut = true;
        this.toGateway(encodeC2G("Logout", {}));
        this.close();
        return;
      case "A": {
        this.reject(m, 35, SRR.ValueIncorrect, "already logged on");
        return;
      }
    }
    if (this.ctx.dropCopy.has(this.compId)) {
      this.touch();
      if (ORDER_TYPES.has(m.type)) {
        this.businessReject(m, 3, "drop-copy session: orders are refused");
        return;
      }
      this.businessReject(m, 3, "unsupported message type");
      return;
    }
    switch (m.type) {
      case "D": {
        this.onNewOrder(m);
        return;
      }
      case "F": {
        this.onCancel(m);
        return;
      }
      case "G": {
        this.onReplace(m);
        return;
      }
      case "q": {
        this.onMassCancel(m);
        return;
      }
      case "H": {
        this.onStatus(m);
        return;
      }
    }
    this.touch();
    this.businessReject(m, 3, "unsupported message type");
  }

  // ---- logon ----

  private onLogon(m: FixMessage): void {
    if (m.type !== "A") {
      this.close();
      return;
    } // the first message must be a Logon
    const sender = m.str(49) ?? "";
    const target = m.str(56) ?? "";
    const c = this.ctx;
    const key = c.keys.get(sender);
    const sendingTime = m.str(52) ?? "";
    const sig = m.str(96) ?? "";
    let problem = "";
    if (target !== c.compId) problem = "unknown TargetCompID";
    else if (key === undefined) problem = "unknown SenderCompID";
    else if (
      Math.abs(parseFixTime(sendingTime) - Date.now()) > c.maxSkewMs ||
      Number.isNaN(parseFixTime(sendingTime))
    )
      problem = "SendingTime outside the allowed skew";
    else if (!verifyLogon(key, logonPayload("A", sender, target, m.seq, sendingTime), sig))
      problem = "bad logon signature";
    else if (c.token !== undefined && m.str(554) !== c.token) problem = "bad password";
    const hb = m.int(108);
    if (problem === "" && (hb < 1 || hb > 60)) problem = "HeartBtInt must be 1..60";
    if (problem !== "") {
      c.log.warn({ compId: clean(sender).slice(0, 32), reason: problem }, "FIX logon refused");
      this.state = "logon";
      // Answered after a delay, as a bad token is: guessing is slow.
      setTimeout(() => this.refuseLogon(sender, target, m.seq, problem), c.badLogonDelayMs).unref();
      return;
    }
    this.compId = sender;
    this.hdr = headerOf(target, sender);
    this.heartBtInt = hb;
    this.logonSeq = m.seq;
    if (c.sessions.has(sender)) {
      this.refuseLogon(sender, target, m.seq, "session already connected");
      return;
    }
    c.sessions.set(sender, this);
    this.store = c.store(sender);
    this.reports = new Reports(this, c);
    if (m.is(141, "Y")) {
      if (m.seq !== 1) {
        this.refuseLogon(sender, target, m.seq, "ResetSeqNumFlag needs MsgSeqNum 1");
        return;
      }
      this.store.reset();
      this.logonReset = true;
    }
    this.state = "logon";
    if (c.dropCopy.has(sender)) {
      this.loggedOn(0, 0);
      return;
    }
    this.codPolicy = m.is(8013, "Y") ? CodPolicy.CancelOnDisconnect : CodPolicy.None;
    this.binaryLogon(this.store.lastBin > 0 ? this.store.lastBin + 1 : 0);
  }
  private codPolicy: number = CodPolicy.None;

  private binaryLogon(resumeFrom: number): void {
    this.triedResume = resumeFrom;
    this.link = this.h.open(this);
    this.toGateway(
      encodeC2G("Logon", {
        token: this.ctx.gatewayToken,
        sessionName: this.compId,
        heartbeatMs: this.heartBtInt * 1000,
        codPolicy: this.codPolicy,
        resumeFromSeq: resumeFrom,
        // A FIX counterparty is sent its Pending Cancel / Pending Replace execution reports.
        options: LogonOptions.None,
      }),
    );
  }

  private refuseLogon(sender: string, target: string, seq: number, text: string): void {
    if (this.state === "closed") return;
    // A Logout to a refused logon: it carries the counterparty's own ids back, seq 1 (nothing is kept).
    this.enc.begin().f(58, text);
    const msg = this.enc.finish(
      "5",
      headerOf(target, clean(sender).slice(0, 32)),
      Math.max(1, seq),
      fixTime(Date.now()),
    );
    this.sock.write(msg);
    if (this.ctx.sessions.get(sender) === this) this.ctx.sessions.delete(sender);
    this.close();
  }

  /** The gateway took the logon: the Logon answer, then a ResendRequest if the client is ahead. */
  private loggedOn(nextBinSeq: number, lastClOrdNo: number): void {
    const st = this.store!;
    this.state = "active";
    let top = Math.max(this.lastNo, lastClOrdNo);
    for (const no of st.orders.keys()) if (no > top) top = no;
    this.lastNo = top;
    const e = this.enc.begin().f(98, 0).f(108, this.heartBtInt);
    if (this.logonReset) e.f(141, "Y");
    this.sendAdmin("A", e);
    this.ctx.log.info(
      { compId: this.compId, nextOut: st.nextOut, nextIn: st.nextIn, nextBinSeq },
      "FIX session logged on",
    );
    const seq = this.logonSeq;
    if (seq > st.nextIn) {
      this.gapTo = seq;
      this.sendAdmin("2", this.enc.begin().f(7, st.nextIn).f(16, 0));
    } else st.nextIn = seq + 1;
    st.inbound(st.nextIn);
    if (this.ctx.dropCopy.has(this.compId)) this.ctx.drop?.attach(this);
  }

  // ---- the gateway's frames ----

  private fromGateway(f: Buffer): void {
    const type = f[1]!;
    if (type === 0x41) {
      // LogonAck: nextSeq u64 @32, replayFromSeq @40, replayCount @48, lastClOrdNo @52, ..., resumed @77
      const next = f.readUInt32LE(32) + f.readUInt32LE(36) * 2 ** 32;
      const replayFrom = f.readUInt32LE(40) + f.readUInt32LE(44) * 2 ** 32;
      const replayCount = f.readUInt32LE(48);
      const lastNo = f.readUInt32LE(52) + f.readUInt32LE(56) * 2 ** 32;
      const resumed = f[f.length - 1]!;
      this.sessionId = f.readUInt32LE(4);
      const st = this.store!;
      if (resumed === 0 && st.lastBin > 0) st.binaryRestart();
      this.binFloor = (replayCount > 0 ? replayFrom : next) - 1;
      if (this.triedResume === 0 && st.lastBin > this.binFloor && resumed === 1) this.binFloor = st.lastBin;
      this.loggedOn(next, lastNo);
      return;
    }
    if (type === 0x42) {
      const code = f.readUInt16LE(32);
      if (code === 104 && this.triedResume > 0) {
        // Older than the gateway's ring: continue without (an OrderStatusRequest tells the rest).
        this.retrying = true;
        queueMicrotask(() => {
          this.retrying = false;
          this.h.close(this.link, 4001);
          this.binaryLogon(0);
        });
        return;
      }
      const text = f.toString("latin1", 34, 34 + 64).replace(/\0+$/, "");
      const sender = this.compId;
      if (this.ctx.sessions.get(sender) === this) this.ctx.sessions.delete(sender);
      this.refuseLogon(sender, this.ctx.compId, this.logonSeq, text);
      return;
    }
    if (type === 0x4d) {
      if (this.state === "active") this.sendAdmin("0", this.enc.begin());
      return;
    }
    if (this.state !== "active") return;
    const seq = f.readUInt32LE(8) + f.readUInt32LE(12) * 2 ** 32;
    if (seq !== 0 && seq <= this.binFloor) return;
    this.reports!.frame(f, seq);
  }

  // ---- sending ----

  /** An admin message: its MsgSeqNum is recorded as admin (a resend gap-fills it). */
  sendAdmin(type: string, e: FixEncoder): void {
    if (this.state === "closed" || this.store === undefined) return;
    const st = this.store;
    const seq = st.nextOut;
    const msg = e.finish(type, this.hdr, seq, fixTime(Date.now()));
    st.admin(seq);
    this.sock.write(msg);
  }

  /** An application message: stored with its binary seq (0 = none), then written. */
  sendApp(type: string, e: FixEncoder, binSeq: number): Buffer | undefined {
    if (this.store === undefined) return undefined;
    const st = this.store;
    const seq = st.nextOut;
    const msg = e.finish(type, this.hdr, seq, fixTime(Date.now()));
    st.sent(seq, binSeq, msg);
    if (this.state === "active") this.sock.write(msg);
    if ((type === "8" || type === "9") && !this.ctx.dropCopy.has(this.compId))
      this.ctx.drop?.copy(this.compId, type, e.bodyView());
    return msg;
  }

  private onResendRequest(m: FixMessage): void {
    const st = this.store!;
    const begin = Math.max(1, m.int(7));
    const endReq = m.int(16);
    const last = st.nextOut - 1;
    const end = endReq <= 0 || endReq > last ? last : endReq;
    const now = fixTime(Date.now());
    let gapFrom = 0;
    const flushGap = (upTo: number) => {
      if (gapFrom === 0) return;
      const e = this.enc.begin().f(123, "Y").f(36, upTo);
      this.sock.write(e.finish("4", this.hdr, gapFrom, now, now));
      gapFrom = 0;
    };
    for (let s = begin; s <= end; s++) {
      const msg = st.message(s);
      if (msg === null || msg === undefined) {
        if (gapFrom === 0) gapFrom = s;
        continue;
      }
      flushGap(s);
      this.sock.write(asPossDup(msg, now));
    }
    flushGap(end + 1);
  }

  // ---- application messages in ----

  private onNewOrder(m: FixMessage): void {
    const st = this.store!;
    const id = m.str(11);
    if (id === undefined) {
      this.reject(m, 11, SRR.RequiredTagMissing, "ClOrdID missing");
      return;
    }
    if (!ID_RE.test(id)) {
      this.reject(m, 11, SRR.ValueIncorrect, "ClOrdID: 1-64 printable characters");
      return;
    }
    if (st.byClOrdID.has(id)) {
      this.touch();
      if (m.is(43, "Y")) return; // a resent order already taken
      this.reports!.localReject(m, id, "6", "duplicate ClOrdID");
      return;
    }
    const side = SIDE_IN[m.str(54) ?? ""];
    if (side === undefined) {
      this.reject(m, 54, SRR.ValueIncorrect, "Side must be 1 or 2");
      return;
    }
    const ordType = ORDTYPE_IN[m.str(40) ?? ""];
    if (ordType === undefined) {
      this.reject(m, 40, SRR.ValueIncorrect, "OrdType must be 1 or 2");
      return;
    }
    const tifS = m.str(59);
    const tif = tifS === undefined ? 1 : TIF_IN[tifS];
    if (tif === undefined) {
      this.reject(m, 59, SRR.ValueIncorrect, "TimeInForce must be 1, 3 or 4");
      return;
    }
    const inst = this.ctx.instrument(m.str(55) ?? "", m.str(207));
    this.touch();
    if (inst === undefined) {
      this.reports!.localReject(m, id, "1", "unknown symbol");
      return;
    }
    const g = this.ctx.grids(inst.id)!;
    const qty = toUnits(m.str(38) ?? "", g.qty);
    if (qty <= 0) {
      this.reports!.localReject(m, id, "13", "OrderQty missing or not on the quantity grid");
      return;
    }
    let px = 0;
    if (ordType === OrdType.Limit) {
      px = toUnits(m.str(44) ?? "", g.px);
      if (px <= 0) {
        this.reports!.localReject(m, id, "99", "Price missing or not on the tick grid");
        return;
      }
    }
    const no = ++this.lastNo;
    const ei = m.str(18) ?? "";
    const flags = (ei.includes("6") ? 2 : 0) | (ei.includes("E") ? 1 : 0);
    st.addOrder(newOrder(no, id, "", inst.id, side, ordType, tif, px, qty, no), m.seq);
    this.toGateway(
      encodeC2G("NewOrder", {
        clOrdNo: no,
        instrumentId: inst.id,
        side,
        ordType,
        tif,
        positionIdx: 0,
        priceTicks: px,
        qtyLots: qty,
        flags,
      }),
    );
  }

  /**
   * F and G: the new ClOrdID(11) must be a valid id and OrigClOrdID(41) present; a bad one gets
   * Reject 3 and undefined, else the OrigClOrdID.
   */
  private origOf(m: FixMessage, id: string | undefined): string | undefined {
    if (id === undefined || !ID_RE.test(id)) {
      this.reject(m, 11, SRR.RequiredTagMissing, "ClOrdID missing or bad");
      return undefined;
    }
    const orig = m.str(41);
    if (orig === undefined) this.reject(m, 41, SRR.RequiredTagMissing, "OrigClOrdID missing");
    return orig;
  }

  private onCancel(m: FixMessage): void {
    const st = this.store!;
    const id = m.str(11);
    const orig = this.origOf(m, id);
    if (id === undefined || orig === undefined) return;
    this.touch();
    if (st.cancelIds.has(id) && m.is(43, "Y")) return;
    const o = st.byClOrdID.get(orig);
    if (o === undefined) {
      this.reports!.cancelRejectLocal(id, orig, "1", "1", "unknown order");
      return;
    }
    st.addCancel(o.no, id, m.seq);
    o.cancelClOrdID = id;
    this.toGateway(encodeC2G("Cancel", { clOrdNo: o.no, exchangeOrderId: "" }));
  }

  private onReplace(m: FixMessage): void {
    const st = this.store!;
    const id = m.str(11);
    const orig = this.origOf(m, id);
    if (id === undefined || orig === undefined) return;
    this.touch();
    if (st.byClOrdID.has(id)) {
      if (m.is(43, "Y")) return;
      this.reports!.cancelRejectLocal(id, orig, "2", "99", "duplicate ClOrdID");
      return;
    }
    const o = st.byClOrdID.get(orig);
    if (o === undefined) {
      this.reports!.cancelRejectLocal(id, orig, "2", "1", "unknown order");
      return;
    }
    const g = this.ctx.grids(o.instId)!;
    const pxS = m.str(44);
    const qtyS = m.str(38);
    const px = pxS === undefined ? o.priceTicks : toUnits(pxS, g.px);
    const qty = qtyS === undefined ? o.qtyLots : toUnits(qtyS, g.qty);
    if (px <= 0 || qty <= 0) {
      this.reports!.cancelRejectLocal(id, orig, "2", "99", "Price or OrderQty not on the instrument's grid");
      return;
    }
    const flags = (px !== o.priceTicks ? 1 : 0) | (qty !== o.qtyLots ? 2 : 0);
    const spot = this.ctx.instrumentById(o.instId)?.surface === "spot";
    let newNo = 0;
    if (spot) {
      newNo = ++this.lastNo;
      const child = newOrder(
        newNo,
        id,
        o.clOrdID,
        o.instId,
        o.side,
        o.ordType,
        o.tif,
        px,
        qty - o.cumLots,
        o.root,
      );
      st.addOrder(child, m.seq);
    } else st.addAlias(o.no, id, m.seq);
    o.replaceClOrdID = id;
    o.replacePx = px;
    o.replaceQty = qty;
    this.toGateway(
      encodeC2G("Amend", {
        clOrdNo: o.no,
        newClOrdNo: newNo,
        flags: flags === 0 ? 1 : flags,
        priceTicks: px,
        qtyLots: qty,
      }),
    );
  }

  private onMassCancel(m: FixMessage): void {
    const id = m.str(11) ?? "";
    const kind = m.str(530) ?? "";
    this.touch();
    let inst: Instrument | undefined;
    if (kind === "1") inst = this.ctx.instrument(m.str(55) ?? "", m.str(207));
    const ok = kind === "7" || (kind === "1" && inst !== undefined);
    if (ok) {
      this.toGateway(
        encodeC2G("CancelAll", {
          scope: inst === undefined ? CancelAllScope.Session : CancelAllScope.SessionInstrument,
          instrumentId: inst?.id ?? 0,
        }),
      );
    }
    const e = this.enc
      .begin()
      .f(11, clean(id))
      .f(37, "NONE")
      .f(530, clean(kind))
      .f(531, ok ? kind : "0");
    if (!ok)
      e.f(532, kind === "1" ? 1 : 99).f(
        58,
        kind === "1" ? "unknown symbol" : "MassCancelRequestType must be 1 or 7",
      );
    if (inst !== undefined) e.f(55, inst.symbol);
    this.sendApp("r", e, 0);
  }

  private onStatus(m: FixMessage): void {
    const id = m.str(11) ?? "";
    this.touch();
    const o = this.store!.byClOrdID.get(id);
    if (o === undefined) {
      this.reports!.statusUnknown(id, m.str(790));
      return;
    }
    const requestId = this.nextReq++;
    this.reports!.pendingStatus(requestId, o, m.str(790));
    this.toGateway(encodeC2G("Query", { requestId, scope: QueryScope.One, clOrdNo: o.no }));
  }

  // ---- helpers ----

  /** Tells the gateway the connection is alive (a message that carries no command). */
  private touch(): void {
    if (this.link !== undefined) this.toGateway(encodeC2G("Heartbeat", { echo: 0 }));
  }

  private toGateway(frame: Buffer): void {
    if (this.link !== undefined) this.h.message(this.link, frame, true);
  }

  /** Reject(3): a well-formed message the session layer cannot take; its sequence number is used. */
  private reject(m: FixMessage, tag: number, reason: number, text: string): void {
    this.touch();
    this.sendAdmin(
      "3",
      this.enc.begin().f(45, m.seq).f(371, tag).f(372, clean(m.type)).f(373, reason).f(58, text),
    );
  }

  businessReject(m: FixMessage, reason: number, text: string): void {
    this.sendApp("j", this.enc.begin().f(45, m.seq).f(372, clean(m.type)).f(380, reason).f(58, text), 0);
  }

  private logout(text: string): void {
    this.sendAdmin("5", this.enc.begin().f(58, text));
    this.loggingOut = true;
    this.toGateway(encodeC2G("Logout", {}));
    this.close();
  }

  close(): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.sock.end();
    setTimeout(() => this.sock.destroy(), 1000).unref();
  }

  private onClosed(): void {
    this.state = "closed";
    if (this.ctx.sessions.get(this.compId) === this) this.ctx.sessions.delete(this.compId);
    if (this.store !== undefined) this.store.inbound(this.store.nextIn);
    this.ctx.drop?.detach(this);
    if (this.link !== undefined) {
      const l = this.link;
      this.link = undefined;
      this.h.close(l, 1006);
    }
  }

  /** A message for a drop-copy session (already stored by the hub). */
  write(msg: Buffer): void {
    if (this.state === "active") this.sock.write(msg);
  }

  get gatewaySessionId(): number {
    return this.sessionId;
  }
}

/** MsgSeqNum of a stored raw message (0 when absent). */
function seqOf(b: Buffer): number {
  const i = b.indexOf("\x0134=", 0, "latin1");
  if (i < 0) return 0;
  const e = b.indexOf(1, i + 4);
  return Number(b.toString("latin1", i + 4, e));
}
