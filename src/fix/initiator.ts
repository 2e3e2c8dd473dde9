/**
 * A minimal FIX 4.4 initiator on the gateway's codec: signed Logon, sequence numbers, heartbeats
 * answered, every message handed to a callback. For tools, benches and tests; a trading system
 * would use its own FIX engine (docs/fix.md has a QuickFIX configuration).
 */
import net from "node:net";
import tls from "node:tls";
import { FixEncoder, FixMessage, type FrameResult, fixTime, headerOf, readFrame } from "./codec.js";
import { logonPayload, signLogon } from "./logonSig.js";

export interface InitiatorOptions {
  host: string;
  port: number;
  sender: string;
  target: string;
  /** Hex 32-byte Ed25519 seed of the session's key. */
  seedHex: string;
  heartBtInt?: number;
  /** ResetSeqNumFlag(141)=Y at logon. */
  reset?: boolean;
  password?: string;
  /** Added to the clock for SendingTime (tests of the skew bound). */
  clockOffsetMs?: number;
  /** Connect with TLS, trusting this PEM certificate (the acceptor's, or its CA). */
  tlsCa?: string;
}

export class FixInitiator {
  nextOut = 1;
  private sock: net.Socket | undefined;
  private rx: Buffer = Buffer.alloc(0);
  private readonly m = new FixMessage();
  private readonly res: FrameResult = { used: 0, error: undefined };
  readonly enc = new FixEncoder();
  private readonly hdr: string;

  constructor(
    private readonly o: InitiatorOptions,
    /** Every message received (the view is valid during the call only). */
    private readonly onMessage: (m: FixMessage) => void,
  ) {
    this.hdr = headerOf(o.sender, o.target);
  }

  /** Connects and logs on; resolves with the gateway's Logon answer (or rejects with its Logout text). */
  logon(): Promise<void> {
    return new Promise((resolve, reject) => {
      const ca = this.o.tlsCa;
      const sock =
        ca === undefined
          ? net.connect(this.o.port, this.o.host)
          : tls.connect({ port: this.o.port, host: this.o.host, ca, servername: "localhost" });
      this.sock = sock;
      sock.setNoDelay(true);
      let done = false;
      sock.on("data", (d: Buffer) => {
        this.rx = this.rx.length === 0 ? d : Buffer.concat([this.rx, d]);
        let off = 0;
        while (off < this.rx.length) {
          const used = readFrame(this.rx, off, this.rx.length, this.m, this.res);
          if (used === 0) break;
          off += used;
          if (this.res.error !== undefined) continue;
          const t = this.m.type;
          if (!done && (t === "A" || t === "5")) {
            done = true;
            if (t === "A") resolve();
            else reject(new Error(`logon refused: ${this.m.str(58) ?? ""}`));
          }
          if (t === "1") this.send("0", this.enc.begin().f(112, this.m.str(112) ?? ""));
          this.onMessage(this.m);
        }
        this.rx = off >= this.rx.length ? Buffer.alloc(0) : this.rx.subarray(off);
      });
      sock.on("error", (e) => {
        if (!done) reject(e);
      });
      sock.on(ca === undefined ? "connect" : "secureConnect", () => {
        const seq = this.o.reset ? 1 : this.nextOut;
        if (this.o.reset) this.nextOut = 1;
        const now = fixTime(Date.now() + (this.o.clockOffsetMs ?? 0));
        const sig = signLogon(this.o.seedHex, logonPayload("A", this.o.sender, this.o.target, seq, now));
        const e = this.enc
          .begin()
          .f(98, 0)
          .f(108, this.o.heartBtInt ?? 30);
        if (this.o.reset) e.f(141, "Y");
        e.f(95, sig.length).f(96, sig).f(553, this.o.sender);
        if (this.o.password !== undefined) e.f(554, this.o.password);
        this.nextOut = seq + 1;
        sock.write(e.finish("A", this.hdr, seq, now));
      });
    });
  }

  /** Sends a message built on `enc` (after `enc.begin()`); returns its MsgSeqNum. */
  send(type: string, e: FixEncoder = this.enc): number {
    const seq = this.nextOut++;
    this.sock?.write(e.finish(type, this.hdr, seq, fixTime(Date.now())));
    return seq;
  }

  /** Writes raw bytes (tests of malformed input). */
  raw(b: Buffer): void {
    this.sock?.write(b);
  }

  close(): void {
    this.sock?.destroy();
  }
}
