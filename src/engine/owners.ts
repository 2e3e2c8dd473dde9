/**
 * Session ownership and the outbox. An order belongs to an owner key (the store's `sessionId`) derived
 * from the session's name, so it outlives reconnects and restarts; messages for an owner without a
 * session are kept and delivered at its next logon (or, when the gateway restored the owner's session
 * from the journal, sequenced into it at once). Also re-arms cancel-on-disconnect after a restart,
 * and holds the reserved owner of orphans: venue orders the gateway adopted (restart.ts).
 */
import type { Logger } from "pino";
import type { EngineMessage, SessionInfo, SessionSink } from "../gateway/engineApi.js";
import type { Journal } from "../journal/writer.js";
import type { Order, OrderStore } from "../orders/index.js";
import { type Body, LogonOptions } from "../protocol/schema.js";
import type { RunState } from "./runState.js";

/** Messages kept per owner while it has no session (see toOwner). */
const OUTBOX_MAX = 10_000;

/**
 * The owner key of orphans. No session name maps to it (name keys start at 1), so no strategy can log
 * on as it; admin sessions see its orders (Query, /admin/state) and cancel them (CancelAll, Kill).
 */
export const ORPHAN_OWNER = 0;
/** How the orphans' owner is shown (admin state, `hftgate top`). */
export const ORPHAN_OWNER_NAME = "(orphans)";

const NOOP_SINK: SessionSink = {
  send: () => 0,
  broadcast: () => 0,
  cork: (_id, fn) => fn(),
  session: () => undefined,
  sessions: () => [],
};

export interface OwnersDeps {
  store: OrderStore;
  journal: Journal | undefined;
  log: Logger;
  run: RunState;
  /** Cancels one live order (cancel path, no CancelReject on refusal): restart cancel-on-disconnect. */
  cancel: (o: Order) => void;
}

export class Owners {
  private sink: SessionSink = NOOP_SINK;
  /** Session name → owner key (the store's `sessionId`); stable across reconnects and restarts. */
  private readonly ownerByName = new Map<string, number>();
  private readonly nameByOwner = new Map<number, string>();
  private readonly ownerToSession = new Map<number, number>();
  private readonly sessionToOwner = new Map<number, number>();
  private readonly lastNo = new Map<number, number>();
  private readonly outbox = new Map<number, { name: EngineMessage; body: Body<EngineMessage> }[]>();
  private readonly restartCod = new Map<string, number>();
  private readonly codTimers = new Set<NodeJS.Timeout>();
  /** Owners whose restart cancel-on-disconnect is armed and has not fired. */
  private readonly codArmed = new Set<number>();

  constructor(private readonly d: OwnersDeps) {}

  /**
   * The gateway's sessions (set once the gateway exists; it is built around the engine). What was
   * kept for an owner whose session the gateway restored from the journal (fills found by the start-up
   * reconciliation) goes into that session now: sequenced after its old messages, journaled, delivered
   * at its logon.
   */
  attach(sink: SessionSink): void {
    this.sink = sink;
    for (const [owner, box] of this.outbox) {
      const sid = sink.sessionIdOf?.(this.ownerName(owner)) ?? 0;
      if (sid === 0) continue;
      this.outbox.delete(owner);
      for (const m of box) sink.send(sid, m.name, m.body);
    }
  }

  /**
   * The gateway let a session go (anonymous and disconnected, or named past its retention): unbound,
   * so later messages for its orders reach the next session of that name (outbox until it logs on);
   * an anonymous owner can never log on again, so its messages are dropped.
   */
  release(s: SessionInfo): void {
    const owner = this.sessionToOwner.get(s.sessionId);
    this.sessionToOwner.delete(s.sessionId);
    if (owner === undefined) return;
    if (this.ownerToSession.get(owner) === s.sessionId) this.ownerToSession.delete(owner);
    if (s.anonymous) {
      this.unreachable.add(owner);
      this.outbox.delete(owner);
    }
  }
  private readonly unreachable = new Set<number>();

  /** Stops delivering (shutdown) and drops the restart cancel-on-disconnect timers. */
  detach(): void {
    this.sink = NOOP_SINK;
    for (const t of this.codTimers) clearTimeout(t);
    this.codTimers.clear();
    this.codArmed.clear();
  }

  get sessions(): SessionSink {
    return this.sink;
  }

  ownerOf(name: string): number {
    let k = this.ownerByName.get(name);
    if (k === undefined) {
      k = this.ownerByName.size + 1;
      this.ownerByName.set(name, k);
      this.nameByOwner.set(k, name);
    }
    return k;
  }

  ownerName(owner: number): string {
    if (owner === ORPHAN_OWNER) return ORPHAN_OWNER_NAME;
    return this.nameByOwner.get(owner) ?? `owner-${owner}`;
  }

  /** The number the next adopted orphan gets (orphans are numbered 1.. under their own owner). */
  nextOrphanNo(): number {
    const n = (this.lastNo.get(ORPHAN_OWNER) ?? 0) + 1;
    this.lastNo.set(ORPHAN_OWNER, n);
    return n;
  }

  /** Highest client order number an owner has used (orders created this run and replayed from the journal). */
  noteOrderNo(owner: number, clOrdNo: number): void {
    if (clOrdNo > (this.lastNo.get(owner) ?? 0)) this.lastNo.set(owner, clOrdNo);
  }

  lastClOrdNo(sessionName: string): number {
    const owner = this.ownerByName.get(sessionName);
    return owner === undefined ? 0 : (this.lastNo.get(owner) ?? 0);
  }

  ownerOfSession(s: SessionInfo): number {
    return this.sessionToOwner.get(s.sessionId) ?? this.bind(s);
  }

  /** Binds a session to its owner key; returns the key. */
  bind(s: SessionInfo): number {
    const k = this.ownerOf(s.name);
    this.ownerToSession.set(k, s.sessionId);
    this.sessionToOwner.set(s.sessionId, k);
    return k;
  }

  /** A logon's cancel-on-disconnect policy, journaled: replay re-arms it after a crash. */
  journalLogon(s: SessionInfo, heartbeatMs: number): void {
    this.d.journal?.command({ session: s.name, op: "logon", reason: `cod=${s.codPolicy};hb=${heartbeatMs}` });
  }

  /** What is kept for an owner until its session is there (read at restart by toldVsKnown). */
  kept(owner: number): readonly { name: EngineMessage; body: Body<EngineMessage> }[] {
    return this.outbox.get(owner) ?? [];
  }

  /** Each order message kept for an owner that is away: its owner and client order number (the checkpoint). */
  forEachKept(fn: (owner: number, clOrdNo: number) => void): void {
    for (const [owner, box] of this.outbox)
      for (const m of box) {
        const no = orderNoOf(m);
        if (no !== undefined) fn(owner, no);
      }
  }

  /** True while a message about this order waits in its owner's outbox (the order must stay known). */
  owes(owner: number, clOrdNo: number): boolean {
    const box = this.outbox.get(owner);
    if (box === undefined) return false;
    for (const m of box) if (orderNoOf(m) === clOrdNo) return true;
    return false;
  }

  /** Delivers what was kept for an owner while it had no session (at its logon). */
  flushOutbox(owner: number, sid: number): void {
    const box = this.outbox.get(owner);
    if (box === undefined) return;
    this.outbox.delete(owner);
    for (const m of box) this.sink.send(sid, m.name, m.body);
  }

  /**
   * Sends an order's message to its owner's session; while the owner has no session (after a restart,
   * before it logs on again) the message is kept and delivered at its logon (bounded per owner).
   */
  toOwner<N extends EngineMessage>(o: Order, name: N, body: Body<N>, recvNs = 0): void {
    // Orphans have no session to tell: admins read them from the store (Query, /admin/state).
    if (o.sessionId === ORPHAN_OWNER) return;
    const sid = this.reach(o);
    if (sid !== 0) {
      this.sink.send(sid, name, body, recvNs);
      return;
    }
    if (this.unreachable.has(o.sessionId)) return;
    let box = this.outbox.get(o.sessionId);
    if (box === undefined) {
      box = [];
      this.outbox.set(o.sessionId, box);
    }
    if (box.length >= OUTBOX_MAX) box.shift();
    box.push({ name, body: { ...body } as unknown as Body<EngineMessage> });
  }

  /** The session an order's messages go to: its owner's, or one restored for it and not logged on yet; 0 for none. */
  private reach(o: Order): number {
    return this.sid(o) || this.heldSession(o.sessionId);
  }

  /** A session the gateway holds for the owner's name without a logon yet (restored after a restart). */
  private heldSession(owner: number): number {
    return this.sink.sessionIdOf?.(this.ownerName(owner)) ?? 0;
  }

  /**
   * False when the order's owner asked at its latest logon not to be sent the updates that acknowledge
   * a cancel or amend the gateway sends for it (LogonOptions.NoPendingUpdates); a session restored
   * after a restart keeps what its latest logon asked. An owner with no session is sent everything.
   */
  wantsPending(o: Order): boolean {
    const sid = this.reach(o);
    const s = sid === 0 ? undefined : this.sink.session(sid);
    return s === undefined || (s.options & LogonOptions.NoPendingUpdates) === 0;
  }

  /** Gateway session id of an order's owner, 0 when that owner has not logged on (since a restart). */
  sid(o: Order): number {
    return this.ownerToSession.get(o.sessionId) ?? 0;
  }

  /**
   * Start-up: sessions whose latest logon asked for cancel-on-disconnect (from the journal) lost their
   * connection with the previous process. `armRestartCod` gives each `graceMs` to log on again, then
   * cancels its live orders, as the gateway does after missed heartbeats.
   */
  noteRestartCod(sessionName: string, graceMs: number | undefined): void {
    if (graceMs === undefined) this.restartCod.delete(sessionName);
    else this.restartCod.set(sessionName, graceMs);
  }

  armRestartCod(): number {
    let armed = 0;
    for (const [name, graceMs] of this.restartCod) {
      const owner = this.ownerOf(name);
      if (this.d.store.liveOrders(owner).length === 0) continue;
      armed++;
      this.codArmed.add(owner);
      const t = setTimeout(() => {
        this.codTimers.delete(t);
        this.codArmed.delete(owner);
        if (this.d.run.dead || this.ownerToSession.has(owner)) return; // it came back: its policy applies again
        const list = this.d.store.liveOrders(owner);
        this.d.log.info(
          { session: name, orders: list.length },
          "cancel on disconnect (not back after restart)",
        );
        this.d.journal?.command({ session: name, op: "cancelAll", reason: "cod after restart" });
        for (const o of list) this.d.cancel(o);
      }, graceMs);
      t.unref();
      this.codTimers.add(t);
    }
    this.restartCod.clear();
    return armed;
  }

  /** Owners armed by `armRestartCod` that have not logged on again and whose grace has not run out. */
  restartCodPending(): number[] {
    return [...this.codArmed].filter((owner) => !this.ownerToSession.has(owner));
  }
}

/** The client order number a kept message is about (undefined for one about no order). */
function orderNoOf(m: { body: Body<EngineMessage> }): number | undefined {
  const no = (m.body as { clOrdNo?: unknown }).clOrdNo;
  return typeof no === "number" ? no : undefined;
}
