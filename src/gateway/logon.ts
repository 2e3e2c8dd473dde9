/**
 * Logon: the token checks (constant time, a delay before a bad token is answered), binding a
 * connection to a new or resumed session, the LogonAck and the replay of what it is owed.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { type Body, CODES, type CodeName, TradingStateValue } from "../protocol/schema.js";
import type { GatewayEngine } from "./engineApi.js";
import { CLOSE, type Link, type Session } from "./link.js";
import type { GatewayLogger, GatewaySettings, GatewayStats } from "./options.js";
import type { Outbound } from "./outbound.js";
import { frameSeq } from "./restore.js";
import type { SessionTable } from "./sessions.js";

/** What a token shown at logon (or to a venue read) grants. */
export type TokenRole = "admin" | "user" | undefined;

function sha256(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

export class LogonDesk {
  private readonly tokenDigest: Buffer;
  private readonly adminDigest: Buffer | undefined;

  constructor(
    private readonly engine: GatewayEngine,
    private readonly table: SessionTable<Link>,
    private readonly out: Outbound,
    private readonly cfg: GatewaySettings,
    private readonly log: GatewayLogger,
    private readonly stats: GatewayStats,
  ) {
    this.tokenDigest = sha256(cfg.token);
    this.adminDigest = cfg.adminToken ? sha256(cfg.adminToken) : undefined;
  }

  /** "admin" when it is the admin token, else "user" when it is the token, else undefined. */
  role(token: string): TokenRole {
    const given = sha256(token);
    // Both comparisons always run, in constant time, so timing says nothing about which token matched.
    const isUser = timingSafeEqual(given, this.tokenDigest);
    const isAdmin = this.adminDigest ? timingSafeEqual(given, this.adminDigest) : false;
    return isAdmin ? "admin" : isUser ? "user" : undefined;
  }

  onLogon(l: Link, b: Body<"Logon">, recvNs: number): void {
    if (l.session || l.logonPending) {
      this.out.sendError(l, "AlreadyLoggedOn", 0x01, recvNs);
      return;
    }
    const role = this.role(b.token);
    if (role === undefined) {
      this.stats.badTokens++;
      l.logonPending = true;
      l.timer = setTimeout(() => this.logonReject(l, "BadToken", recvNs), this.cfg.badTokenDelayMs);
      return;
    }
    const isAdmin = role === "admin";
    const existing = this.table.named(b.sessionName);
    if (existing?.link) {
      this.logonReject(l, "SessionInUse", recvNs);
      return;
    }
    const from = b.resumeFromSeq;
    if (from > 0) {
      const next = existing ? existing.nextSeq : 1;
      const oldest = existing ? existing.ring.oldestSeq() || next : 1;
      if (from > next || from < oldest) {
        this.logonReject(l, "ResumeOutOfRange", recvNs);
        return;
      }
    }
    if (existing && existing.admin !== isAdmin) {
      this.logonReject(l, "SessionInUse", recvNs); // a session name belongs to one privilege level
      return;
    }
    const s = existing ?? this.table.create(b.sessionName, isAdmin);
    s.options = b.options; // journaled with the logon
    this.table.loggedOn(s);
    s.lastClOrdNo = Math.max(s.lastClOrdNo, this.engineLastClOrdNo(s));
    s.codPolicy = b.codPolicy;
    s.heartbeatMs =
      b.heartbeatMs === 0 ? this.cfg.heartbeatMs : Math.min(60_000, Math.max(100, b.heartbeatMs));
    s.link = l;
    l.session = s;
    // Without a resume, what was sequenced for it since the restart (before this logon) still goes out.
    const replayFrom = from > 0 ? from : s.undeliveredFrom;
    s.awaitingLogon = false;
    s.undeliveredFrom = 0;
    const replay = replayFrom > 0 ? [...s.ring.from(replayFrom)] : [];
    const resumed = existing !== undefined;
    l.conn.cork(() => {
      this.out.sendUnseq(
        l,
        "LogonAck",
        {
          nextSeq: s.nextSeq,
          replayFromSeq: replay.length > 0 ? frameSeq(replay[0]!) : 0,
          replayCount: replay.length,
          lastClOrdNo: s.lastClOrdNo,
          heartbeatMs: s.heartbeatMs,
          wallClockMs: Date.now(),
          tradingState: this.engine.tradingState?.() ?? TradingStateValue.Active,
          resumed: resumed ? 1 : 0,
        },
        recvNs,
      );
      l.ackOut = l.heldLens.length === 0; // else it waits for the journal with the frames after it
      for (const f of replay) this.out.transmit(l, f);
    });
    try {
      this.engine.onLogon(s, resumed);
    } catch (err) {
      this.log.warn({ sessionId: s.sessionId, err: String(err) }, "engine.onLogon threw");
    }
  }

  /** What the engine remembers of the session's numbering (e.g. from before a restart); 0 on failure. */
  private engineLastClOrdNo(s: Session): number {
    try {
      const n = this.engine.lastClOrdNo?.(s.name) ?? 0;
      return Number.isSafeInteger(n) && n > 0 ? n : 0;
    } catch (err) {
      this.log.warn({ sessionId: s.sessionId, err: String(err) }, "engine.lastClOrdNo threw");
      return 0;
    }
  }

  private logonReject(l: Link, code: CodeName, recvNs: number): void {
    l.timer = undefined;
    if (l.closed) return;
    const c = CODES[code];
    this.out.sendUnseq(l, "LogonReject", { code: c.code, text: c.text }, recvNs);
    this.out.release(l);
    l.closed = true;
    l.conn.end(CLOSE.LogonRejected, c.text);
  }
}
