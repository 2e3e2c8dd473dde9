/**
 * The order engine: the composition of its parts, seen from outside as the gateway's `GatewayEngine`
 * (strategy commands in) and the order store's `OrderListener` (state changes out). docs/engine.md
 * has the picture; each part owns one thing:
 *
 *   parts.ts       the parts built and wired together over one order store
 *   owners.ts      session ownership, outbox, restart cancel-on-disconnect, the orphans' owner
 *   createPath.ts  NewOrder → risk → store → venue; create answers and failures
 *   cancelPath.ts  Cancel / CancelAll → cancel guard → venue; cancel answers and failures
 *   amendPath.ts   Amend → in place at the venue, or cancel-replace (replacePath.ts)
 *   notifier.ts    store changes → Ack / Reject / OutcomeUnknown / OrderUpdate / Fill, latency stamps
 *   account.ts     balances, positions, credit
 *   control.ts     kill switch, trading states
 */
import type { Logger } from "pino";
import type {
  AmendCmd,
  CancelAllCmd,
  CancelCmd,
  DisconnectReason,
  GatewayEngine,
  KillCmd,
  NewOrderCmd,
  OrderUpdateBody,
  QueryCmd,
  SessionInfo,
  SessionSink,
  SetTradingStateCmd,
} from "../gateway/engineApi.js";
import type { Journal } from "../journal/writer.js";
import type { LimitClass } from "../limits/index.js";
import type {
  ApplyResult,
  CreateAnswer,
  FillReport,
  Order,
  OrderEvent,
  OrderListener,
  OrderStore,
  Status,
} from "../orders/index.js";
import type { Ev } from "../orders/status.js";
import { type Body, CancelAllScope, QueryScope } from "../protocol/schema.js";
import type { V5Position } from "../rest/wire.js";
import type { VenueIngest } from "../venue/ingest.js";
import type { VenueSurface } from "../venue/surface.js";
import type { Account } from "./account.js";
import type { AmendPath } from "./amendPath.js";
import type { CancelPath } from "./cancelPath.js";
import type { Control } from "./control.js";
import type { CreatePath } from "./createPath.js";
import type { InstrumentBook } from "./instruments.js";
import type { Notifier } from "./notifier.js";
import { ORPHAN_OWNER, type Owners } from "./owners.js";
import { buildParts, type EngineDeps } from "./parts.js";
import { RunState } from "./runState.js";

export type { EngineDeps, EngineLinks, EngineOptions } from "./parts.js";

import { updateBody } from "./wireMap.js";

export class Engine implements GatewayEngine, OrderListener {
  readonly store: OrderStore;
  readonly run = new RunState();
  readonly owners: Owners;
  readonly account: Account;
  readonly notifier: Notifier;
  readonly creates: CreatePath;
  readonly cancels: CancelPath;
  readonly amends: AmendPath;
  readonly control: Control;
  /**
   * The engine's way into the store for venue records it holds itself: the records create and cancel
   * answers carry, and (for the restart's replay) records read back from the journal.
   */
  readonly ingest: VenueIngest;
  private readonly book: InstrumentBook;
  private readonly journal: Journal | undefined;
  private readonly log: Logger;

  constructor(d: EngineDeps) {
    this.book = d.instruments;
    this.journal = d.journal;
    this.log = d.log;
    const p = buildParts(d, this.run, this);
    this.store = p.store;
    this.owners = p.owners;
    this.account = p.account;
    this.notifier = p.notifier;
    this.ingest = p.ingest;
    this.creates = p.creates;
    this.cancels = p.cancels;
    this.amends = p.amends;
    this.control = p.control;
  }

  // ---------------------------------------------------------------- wiring and life

  attach(sink: SessionSink): void {
    this.owners.attach(sink);
  }

  /** Stops taking new orders (shutdown); cancels still pass. */
  stopAccepting(): void {
    this.run.stopAccepting();
  }

  /** After shutdown: late REST answers are ignored (the journal and sockets are closed). */
  detach(): void {
    this.run.stop();
    this.owners.detach();
    this.account.close();
  }

  /** True while the journal is replayed: no requests, no messages. */
  get replaying(): boolean {
    return this.run.replaying;
  }

  // ---------------------------------------------------------------- GatewayEngine

  instruments() {
    return this.book.all();
  }

  lastClOrdNo(sessionName: string): number {
    return this.owners.lastClOrdNo(sessionName);
  }

  tradingState(): number {
    return this.control.tradingState();
  }

  onLogon(session: SessionInfo, _resumed: boolean): void {
    const owner = this.owners.bind(session);
    // The policy outlives this process: after a crash, replay re-arms cancel-on-disconnect from it.
    const hb = session.heartbeatMs ?? 1000;
    this.owners.journalLogon(session, hb);
    this.account.sendSnapshot(session.sessionId);
    this.owners.flushOutbox(owner, session.sessionId);
    this.account.sendCredit(
      session.sessionId,
      this.book.all()[0]?.surface === "spot" ? "spot.create" : "hft.create",
    );
  }

  onNewOrder(session: SessionInfo, cmd: NewOrderCmd, recvNs: number): void {
    this.creates.onNewOrder(session, cmd, recvNs);
  }

  onCancel(session: SessionInfo, cmd: CancelCmd, recvNs: number): void {
    // A cancel of an order being replaced drops the replacement (its cancel is already on the way).
    const o = this.store.bySessionOrder(this.owners.ownerOfSession(session), cmd.clOrdNo);
    if (o === undefined || !this.amends.replaces.cancelDuringReplace(o))
      this.cancels.onCancel(session, cmd, recvNs);
  }

  onAmend(session: SessionInfo, cmd: AmendCmd, recvNs: number): void {
    this.amends.onAmend(session, cmd, recvNs);
  }

  onCancelAll(session: SessionInfo, cmd: CancelAllCmd, _recvNs: number): void {
    const owner = this.owners.ownerOfSession(session);
    this.journal?.command({ session: session.name, op: "cancelAll", reason: `scope=${cmd.scope}` });
    if (cmd.scope === CancelAllScope.Account && session.admin) {
      this.control.kill(`kill switch from session ${session.name}`);
      return;
    }
    this.cancels.cancelScope(owner, cmd.scope, cmd.instrumentId);
    // An admin's session-scoped CancelAll includes the orphans (adopted venue orders) in its scope.
    if (session.admin) this.cancels.cancelScope(ORPHAN_OWNER, cmd.scope, cmd.instrumentId);
  }

  onKill(session: SessionInfo, cmd: KillCmd, _recvNs: number): void {
    this.control.onKill(session, cmd);
  }

  onSetTradingState(session: SessionInfo, cmd: SetTradingStateCmd, _recvNs: number): void {
    this.control.onSetTradingState(session, cmd);
  }

  onQuery(session: SessionInfo, cmd: QueryCmd): readonly OrderUpdateBody[] {
    const owner = this.owners.ownerOfSession(session);
    if (cmd.scope === QueryScope.One) {
      const o = this.store.bySessionOrder(owner, cmd.clOrdNo);
      return o ? [updateBody(o, this.book.byId(o.instrumentId))] : [];
    }
    const live = this.store.liveOrders(owner);
    // An admin session also sees the orphans: venue orders the gateway adopted (told apart by exchange id).
    if (session.admin) for (const o of this.store.liveOrders(ORPHAN_OWNER)) live.push(o);
    return live.map((o) => updateBody(o, this.book.byId(o.instrumentId)));
  }

  onRelease(session: SessionInfo): void {
    this.owners.release(session);
  }

  onDisconnect(session: SessionInfo, reason: DisconnectReason, cancelOrders: boolean): void {
    if (!cancelOrders) return;
    const owner = this.owners.ownerOfSession(session);
    const n = this.store.liveOrders(owner).length;
    if (n > 0) this.log.info({ session: session.name, reason, orders: n }, "cancel on disconnect");
    this.cancels.cancelAll(owner);
  }

  // ---------------------------------------------------------------- OrderListener

  onCreateAnswer(o: Order, prev: Status, answer: CreateAnswer): void {
    this.notifier.onCreateAnswer(o, prev, answer);
  }

  onUpdate(o: Order, prev: Status, cause: Ev): void {
    // A cancel-replace settles its side before (cancel refused) and after (final) the strategy is told.
    const replacing = o.extra.replacedBy > 0 && !this.run.replaying;
    if (replacing) this.amends.replaces.beforeUpdate(o);
    this.notifier.onUpdate(o, prev, cause);
    if (replacing) this.amends.replaces.afterUpdate(o);
  }

  onFill(o: Order, f: FillReport): void {
    this.notifier.onFill(o, f);
  }

  onCancelReleased(o: Order): void {
    this.cancels.release(o);
  }

  // ---------------------------------------------------------------- for the restart, the sync and the order replay

  ownerOf(name: string): number {
    return this.owners.ownerOf(name);
  }
  noteOrderNo(owner: number, clOrdNo: number): void {
    this.owners.noteOrderNo(owner, clOrdNo);
  }
  noteRestartCod(sessionName: string, graceMs: number | undefined): void {
    this.owners.noteRestartCod(sessionName, graceMs);
  }
  armRestartCod(): number {
    return this.owners.armRestartCod();
  }
  riskOpen(o: Order): void {
    this.creates.riskOpen(o);
  }
  resendCreate(o: Order): void {
    this.creates.resend(o);
  }
  /** The resolver's same-id resend of a cancel (it spends the surface's cancel class, `_cls`). */
  doSendCancel(o: Order, _cls: LimitClass): void {
    this.cancels.sendNow(o);
  }
  /** The resolver's record for an in-place amend left unanswered; true when decided. */
  resolveAmend(o: Order, s: VenueSurface, rec: unknown, deadlinePassed: boolean): boolean {
    return this.amends.resolveWith(o, s, rec, deadlinePassed);
  }
  restoreTradingState(state: "active" | "reducing" | "halted", healsTo?: "active" | "reducing"): void {
    this.control.restoreTradingState(state, healsTo);
  }
  kill(reason: string): number {
    return this.control.kill(reason);
  }
  /** Cancels every live order (shutdown); returns how many were live. */
  cancelEverything(): number {
    return this.cancels.cancelAll();
  }
  noteVenueEvent(tsNs: number): void {
    this.notifier.noteVenueEvent(tsNs);
  }
  applyVenueEvent(ev: OrderEvent): ApplyResult {
    return this.notifier.applyVenueEvent(ev);
  }
  broadcastCredit(cls: LimitClass): void {
    this.account.broadcastCredit(cls);
  }
  onBalances(rows: readonly { currency: string; available: string; blocked: string }[]): void {
    this.account.onBalances(rows);
  }
  onPositions(rows: readonly V5Position[]): void {
    this.account.onPositions(rows);
  }
  positionBodies(): Body<"PositionUpdate">[] {
    return this.account.positionBodies();
  }
  /** Orders whose first answer is still owed (for tests and health). */
  get unanswered(): number {
    return this.notifier.unanswered;
  }
}
