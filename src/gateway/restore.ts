/**
 * Restart = resume: the named sessions of earlier runs, rebuilt from the journal's `out` records (every
 * sequenced frame sent to a named session, byte for byte) and `ses` records (logon, logoff, release).
 * A restarted gateway continues each one: same session id, seq numbers after the last one journaled,
 * the last `ring` frames ready for a resume, the privilege level it was created with.
 */
import type { Config } from "../config/load.js";
import { type JournalConsumer, readJournalsInto } from "../journal/reader.js";
import type { JournalRecord } from "../journal/records.js";

export interface RestoredSession {
  readonly name: string;
  readonly sessionId: number;
  readonly admin: boolean;
  /** Seq the next message of the session gets (last journaled + 1). */
  readonly nextSeq: number;
  /** The last frames, oldest first, at most `ring` of them (copies). */
  readonly frames: readonly Buffer[];
  /** Wall-clock ms since when the session has had no connection (its logoff, or the journal's end). */
  readonly idleSinceMs: number;
  /** LogonOptions of its latest logon. */
  readonly options: number;
}

export interface RestoreResult {
  readonly sessions: readonly RestoredSession[];
  /** Highest session id any earlier run gave out (anonymous ones included): new ids continue above. */
  readonly maxSessionId: number;
  /** Named sessions found but not kept (idle longer than the retention, or beyond the count). */
  readonly expired: number;
}

/**
 * The config's own `gateway` knobs the restore reads: `resumeRing` frames kept per session,
 * sessions idle longer than `sessionRetentionMs` not restored, at most `maxRetainedSessions` of
 * them, the most recently active first; judged idle as of `nowMs`.
 */
export type RestoreOptions = Readonly<
  Pick<Config["gateway"], "resumeRing" | "sessionRetentionMs" | "maxRetainedSessions"> & { nowMs: number }
>;

interface Acc {
  sessionId: number;
  admin: boolean;
  nextSeq: number;
  frames: Buffer[];
  /** Index of the oldest frame in `frames` once it is full (a ring). */
  start: number;
  connected: boolean;
  idleSinceMs: number;
  options: number;
}

/** Seq of a gateway → client frame (header u64 at offset 8, < 2^53). */
export function frameSeq(f: Buffer): number {
  return f.readUInt32LE(8) + f.readUInt32LE(12) * 2 ** 32;
}
/** Session id of a gateway → client frame (header u32 at offset 4). */
function frameSessionId(f: Buffer): number {
  return f.readUInt32LE(4);
}

/** Feeds records in journal order; `result()` once all files are read. */
export class SessionRestorer implements JournalConsumer {
  private readonly byName = new Map<string, Acc>();
  private maxSid = 0;
  private lastTs = 0;

  constructor(private readonly opts: RestoreOptions) {}

  add(r: JournalRecord): void {
    if (r.ts > this.lastTs) this.lastTs = r.ts;
    if (r.k === "ses") {
      if (r.sid > this.maxSid) this.maxSid = r.sid;
      if (r.op === "anon") return;
      if (r.op === "release") {
        this.byName.delete(r.session);
        return;
      }
      const a = this.acc(r.session, r.sid);
      a.sessionId = r.sid;
      if (r.op === "logon") {
        a.admin = r.admin === 1;
        a.options = r.options ?? 0;
        a.connected = true;
      } else {
        a.connected = false;
        a.idleSinceMs = r.ts;
      }
      return;
    }
    if (r.k !== "out" || r.frame.length < 32) return;
    const sid = frameSessionId(r.frame);
    if (sid > this.maxSid) this.maxSid = sid;
    const a = this.acc(r.session, sid);
    const seq = frameSeq(r.frame);
    if (seq < a.nextSeq) return; // cannot happen in one session's journal; never go back
    a.nextSeq = seq + 1;
    if (this.opts.resumeRing === 0) return;
    const copy = Buffer.from(r.frame);
    if (a.frames.length < this.opts.resumeRing) a.frames.push(copy);
    else {
      a.frames[a.start] = copy;
      a.start = (a.start + 1) % a.frames.length;
    }
  }

  private acc(name: string, sid: number): Acc {
    let a = this.byName.get(name);
    if (a === undefined) {
      a = {
        sessionId: sid,
        admin: false,
        nextSeq: 1,
        frames: [],
        start: 0,
        connected: false,
        idleSinceMs: 0,
        options: 0,
      };
      this.byName.set(name, a);
    }
    return a;
  }

  /** The sessions to continue, judged idle or not as of `nowMs` (default: the options' `nowMs`). */
  result(nowMs: number = this.opts.nowMs): RestoreResult {
    const all: RestoredSession[] = [];
    for (const [name, a] of this.byName) {
      // Connected when the journal ends: the previous process died (or stopped) with it connected.
      const idleSinceMs = a.connected ? this.lastTs : a.idleSinceMs;
      const frames = a.frames.slice(a.start).concat(a.frames.slice(0, a.start));
      const { sessionId, admin, nextSeq, options } = a;
      all.push({ name, sessionId, admin, nextSeq, frames, idleSinceMs, options });
    }
    const o = this.opts;
    const kept = all
      .filter((s) => nowMs - s.idleSinceMs <= o.sessionRetentionMs)
      .sort((x, y) => y.idleSinceMs - x.idleSinceMs)
      .slice(0, o.maxRetainedSessions);
    return { sessions: kept, maxSessionId: this.maxSid, expired: all.length - kept.length };
  }
}

/**
 * Reads the given journal files (oldest first) on their own and returns the sessions to continue;
 * `tap` sees every record too. For tools and tests: start-up does not call it, it feeds a
 * `SessionRestorer` from its one read of the journal (engine/startJournal.ts).
 */
export function restoreSessions(
  files: readonly string[],
  opts: RestoreOptions,
  tap?: (rec: JournalRecord) => void,
): RestoreResult {
  const r = new SessionRestorer(opts);
  readJournalsInto(files, tap === undefined ? [r] : [r, { add: tap }]);
  return r.result();
}
