/**
 * The gateway's sessions and their lifetime: created at logon, continued from the journal after a
 * restart, kept for resume while disconnected (named ones, within a retention of time and count),
 * released when they can no longer be resumed (anonymous ones at once, when their connection ends).
 */
import type { SessionInput } from "../journal/records.js";
import { CodPolicy, LogonOptions } from "../protocol/schema.js";
import type { SessionInfo } from "./engineApi.js";
import { frameSeq, type RestoreResult } from "./restore.js";
import { ReplayRing } from "./ring.js";

/** One strategy session; `L` is the gateway's connection record. */
export class Session<L = unknown> implements SessionInfo {
  nextSeq = 1;
  lastClOrdNo = 0;
  codPolicy: number = CodPolicy.None;
  options: number = LogonOptions.None;
  heartbeatMs = 1000;
  link: L | undefined;
  readonly ring: ReplayRing;
  /** Restored from the journal and not logged on since: what it is sent meanwhile waits for its logon. */
  awaitingLogon = false;
  /** First seq sequenced while `awaitingLogon` (0 = none): delivered at that logon even without resume. */
  undeliveredFrom = 0;
  /** Frames are journaled (named session, journal configured). */
  readonly journaled: boolean;
  constructor(
    readonly sessionId: number,
    readonly name: string,
    ringSize: number,
    readonly admin: boolean,
    /** Logged on without a name: can never be resumed, released when its connection ends. */
    readonly anonymous: boolean,
    journaled: boolean,
  ) {
    this.ring = new ReplayRing(ringSize);
    this.journaled = journaled && !anonymous;
  }
  get connected(): boolean {
    return this.link !== undefined;
  }
}

export interface SessionTableOptions {
  /** Frames kept per session for resume. */
  ring: number;
  /** A disconnected named session is released after this long. */
  retentionMs: number;
  /** Disconnected named sessions kept; beyond this the longest idle one is released. */
  maxRetained: number;
  /** Session events are journaled here (and frames of named sessions, by the gateway). */
  journal: { session(r: SessionInput): number } | undefined;
  /** Told once a session is gone (the engine unbinds it). */
  onRelease(s: Session<never>): void;
  logInfo(obj: object, msg: string): void;
}

export class SessionTable<L> {
  private readonly byId = new Map<number, Session<L>>();
  private readonly byName = new Map<string, Session<L>>();
  /** Disconnected named sessions, longest idle first (Map order), with the time they went idle. */
  private readonly idle = new Map<Session<L>, number>();
  private nextId = 1;
  private lastExpiryMs = 0;

  constructor(private readonly o: SessionTableOptions) {}

  get(id: number): Session<L> | undefined {
    return this.byId.get(id);
  }
  named(name: string): Session<L> | undefined {
    return name === "" ? undefined : this.byName.get(name);
  }
  values(): IterableIterator<Session<L>> {
    return this.byId.values();
  }
  get size(): number {
    return this.byId.size;
  }
  get retained(): number {
    return this.idle.size;
  }

  /** A new session (an empty name makes an anonymous one, named `anon-<id>`). */
  create(name: string, admin: boolean): Session<L> {
    const id = this.nextId++;
    const anonymous = name === "";
    const s = new Session<L>(
      id,
      anonymous ? `anon-${id}` : name,
      this.o.ring,
      admin,
      anonymous,
      this.o.journal !== undefined,
    );
    this.byId.set(id, s);
    this.byName.set(s.name, s);
    return s;
  }

  /** Continues the named sessions of earlier runs: same ids, seq after the last journaled frame. */
  restore(r: RestoreResult): void {
    this.nextId = Math.max(this.nextId, r.maxSessionId + 1);
    // Into `idle` longest idle first, the order retention walks it in.
    for (const x of [...r.sessions].sort((a, b) => a.idleSinceMs - b.idleSinceMs)) {
      const s = new Session<L>(
        x.sessionId,
        x.name,
        this.o.ring,
        x.admin,
        false,
        this.o.journal !== undefined,
      );
      s.nextSeq = x.nextSeq;
      // Until it logs on again, what it asked at its latest logon before the restart applies.
      s.options = x.options;
      for (const f of x.frames) s.ring.push(frameSeq(f), f);
      s.awaitingLogon = true;
      this.byId.set(s.sessionId, s);
      this.byName.set(s.name, s);
      this.idle.set(s, x.idleSinceMs);
    }
  }

  /** The session got a connection: no longer idle; journaled (anonymous ones only for their id). */
  loggedOn(s: Session<L>): void {
    this.idle.delete(s);
    this.o.journal?.session({
      session: s.name,
      op: s.anonymous ? "anon" : "logon",
      sid: s.sessionId,
      admin: s.admin ? 1 : 0,
      options: s.options,
    });
  }

  /** Its connection ended: an anonymous session is freed, a named one kept for resume (bounded). */
  disconnected(s: Session<L>, now: number): void {
    if (s.anonymous) {
      this.forget(s);
      return;
    }
    this.idle.set(s, now);
    this.o.journal?.session({ session: s.name, op: "logoff", sid: s.sessionId });
    for (const [old] of this.idle) {
      if (this.idle.size <= this.o.maxRetained) break;
      this.release(old, "count");
    }
  }

  /** Releases named sessions idle longer than the retention (does the work about once a second). */
  expire(now: number): void {
    if (now - this.lastExpiryMs < 1000) return;
    this.lastExpiryMs = now;
    for (const [s, since] of this.idle) {
      if (now - since <= this.o.retentionMs) break; // Map order: longest idle first
      this.release(s, "age");
    }
  }

  /** Drops the journal reference (the gateway is closing; the journal closes after it). */
  detachJournal(): void {
    this.o.journal = undefined;
  }

  private release(s: Session<L>, why: "age" | "count"): void {
    this.o.logInfo(
      { sessionId: s.sessionId, name: s.name, why },
      "session released (resume no longer possible)",
    );
    this.o.journal?.session({ session: s.name, op: "release", sid: s.sessionId });
    this.forget(s);
  }

  private forget(s: Session<L>): void {
    this.byId.delete(s.sessionId);
    if (this.byName.get(s.name) === s) this.byName.delete(s.name);
    this.idle.delete(s);
    this.o.onRelease(s as Session<never>);
  }
}
