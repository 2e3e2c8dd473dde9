/**
 * The boundary between the strategy-facing gateway and the order engine.
 *
 * The gateway decodes and validates frames, owns sessions (identity, sequencing, replay, heartbeats,
 * back-pressure) and calls a `GatewayEngine` only with well-formed commands from logged-on sessions.
 * The engine answers through the `SessionSink` (implemented by the gateway), addressing sessions by
 * id. Command objects passed to the engine are fresh plain objects the engine may keep.
 */
import type { Instrument } from "../domain/types.js";
import type { Body } from "../protocol/schema.js";

export type NewOrderCmd = Body<"NewOrder">;
export type CancelCmd = Body<"Cancel">;
export type AmendCmd = Body<"Amend">;
export type CancelAllCmd = Body<"CancelAll">;
export type QueryCmd = Body<"Query">;
export type KillCmd = Body<"Kill">;
export type SetTradingStateCmd = Body<"SetTradingState">;
/** One order's state as the engine reports it (`requestId` is filled in by the gateway for queries). */
export type OrderUpdateBody = Body<"OrderUpdate">;

/** A strategy session as the engine sees it. `name` is the identity a reconnect resumes. */
export interface SessionInfo {
  readonly sessionId: number;
  readonly name: string;
  /** CodPolicy: 0 none, 1 cancel the session's live orders on disconnect / missed heartbeats. */
  readonly codPolicy: number;
  /** LogonOptions bits of its latest logon (NoPendingUpdates: see PROTOCOL.md, Logon). */
  readonly options: number;
  readonly connected: boolean;
  /** Logged on with the admin token (may use kill switch / trading-state commands the engine offers). */
  readonly admin: boolean;
  /** The session's heartbeat interval (ms) as agreed at its latest logon. */
  readonly heartbeatMs?: number;
  /** Logged on without a name: never resumable, released when its connection ends. */
  readonly anonymous?: boolean;
}

/** Why a session's connection ended (passed to `onDisconnect`). */
export type DisconnectReason = "closed" | "logout" | "missed-heartbeats" | "slow-consumer" | "shutdown";

/**
 * Implemented by the engine; every method is called synchronously from the gateway's event loop.
 * If a command handler throws, the gateway logs it and answers Reject/Error code 500 (Internal).
 */
export interface GatewayEngine {
  /**
   * Tradable instruments. Used to validate `NewOrder.instrumentId` / `CancelAll` and to answer
   * InstrumentsRequest. Return the same array object while nothing changes (the gateway caches by identity).
   */
  instruments(): readonly Instrument[];
  /** Account trading state for LogonAck (TradingState enum: 1 active, 2 reducing, 3 halted); default 1. */
  tradingState?(): number;
  /**
   * Highest client order number the engine knows for a session name (journal replay, order store); the
   * gateway continues above it at logon, so a number used before a restart is refused. Default 0.
   */
  lastClOrdNo?(sessionName: string): number;
  /** A session logged on (`resumed` = it existed before, e.g. a reconnect). */
  onLogon(session: SessionInfo, resumed: boolean): void;
  /**
   * A validated new order: clOrdNo strictly increasing for the session, known active instrument,
   * qtyLots ≥ 1, priceTicks ≥ 1 for limits. Answer with Ack / Reject / OutcomeUnknown via the sink.
   */
  onNewOrder(session: SessionInfo, cmd: NewOrderCmd, recvNs: number): void;
  /**
   * Cancel by clOrdNo (≠ 0; the gateway already refused numbers the session never used) or by
   * exchangeOrderId (clOrdNo = 0). Answer with OrderUpdate or CancelReject. An exchangeOrderId that is not
   * this session's order must be refused as UnknownOrder (sessions never touch each other's orders).
   */
  onCancel(session: SessionInfo, cmd: CancelCmd, recvNs: number): void;
  /**
   * Amend of a working order (PROTOCOL.md §3 Amend): clOrdNo is one the session used; a non-zero
   * newClOrdNo is greater than every number it used before (and is now used up). Answer with
   * OrderUpdate(s) or AmendReject. Optional: without it the gateway answers Error UnknownType.
   */
  onAmend?(session: SessionInfo, cmd: AmendCmd, recvNs: number): void;
  /**
   * Scope 1 session, 2 session+instrument (instrument known), 3 the whole account (the engine decides
   * whether a non-admin session may do that). Results as OrderUpdates to each owning session.
   */
  onCancelAll(session: SessionInfo, cmd: CancelAllCmd, recvNs: number): void;
  /**
   * Admin `Kill` (the gateway already refused non-admin sessions with Error NotAdmin): halt trading and
   * cancel every live order of the account; answer with a TradingState broadcast. Optional: without
   * it the gateway answers Error UnknownType.
   */
  onKill?(session: SessionInfo, cmd: KillCmd, recvNs: number): void;
  /**
   * Admin `SetTradingState` (state already validated as 1..3, session already checked as admin);
   * answer with a TradingState broadcast, also when the state does not change. Optional, as onKill.
   */
  onSetTradingState?(session: SessionInfo, cmd: SetTradingStateCmd, recvNs: number): void;
  /**
   * Synchronous state query: scope 1 → the order `cmd.clOrdNo` (or none), scope 2 → every live order of
   * the session. The gateway sends one OrderUpdate per entry (with `requestId`) and then QueryEnd.
   */
  onQuery(session: SessionInfo, cmd: QueryCmd): readonly OrderUpdateBody[];
  /**
   * The session's connection ended. When `cancelOrders` is true (policy 1) the engine must cancel the
   * session's live orders; the results are sequenced into the session and replayed on resume.
   * Never called re-entrantly: a slow consumer detected inside `sink.send` is reported in a microtask.
   */
  onDisconnect(session: SessionInfo, reason: DisconnectReason, cancelOrders: boolean): void;
  /**
   * The gateway no longer holds the session (after `onDisconnect`): an anonymous one whose connection
   * ended, or a named one past its retention. Its id is never used again; messages for its orders go
   * to the next session of the same name (a named one logging on again). Optional.
   */
  onRelease?(session: SessionInfo): void;
}

/** Messages the engine may push to a session. */
export type EngineMessage =
  | "Ack"
  | "Reject"
  | "OrderUpdate"
  | "Fill"
  | "CancelReject"
  | "AmendReject"
  | "OutcomeUnknown"
  | "BalanceUpdate"
  | "PositionUpdate"
  | "TradingState"
  | "Credit";

/** Implemented by the gateway; the engine's only way to reach strategies. */
export interface SessionSink {
  /**
   * Sequences `body` into the session (stored for replay) and sends it when connected. `recvNs` is the
   * gateway receive time of the command this answers (0 / omitted when unsolicited). Returns the seq,
   * or 0 when the session id is unknown.
   */
  send<N extends EngineMessage>(sessionId: number, name: N, body: Body<N>, recvNs?: number): number;
  /** Sends to every known session (e.g. TradingState, Credit); returns how many sessions got it. */
  broadcast<N extends EngineMessage>(name: N, body: Body<N>): number;
  /** Runs `fn` with the session's socket corked so a burst (Ack + OrderUpdate + Fill) leaves in one write. */
  cork(sessionId: number, fn: () => void): void;
  session(sessionId: number): SessionInfo | undefined;
  sessions(): readonly SessionInfo[];
  /**
   * Id of the held session with this name (connected, or kept for resume, e.g. restored from the
   * journal after a restart and not logged on yet), 0 when none. Messages sent to it are sequenced,
   * journaled and delivered at its logon. Optional.
   */
  sessionIdOf?(name: string): number;
}

/** Plain-HTTP routes served on the gateway's port; the engine / telemetry provide the content. */
export interface HttpReply {
  status?: number;
  contentType?: string;
  body: string;
}
export interface HttpHooks {
  health?: () => HttpReply;
  metrics?: () => HttpReply;
  /** GET /admin/state; `authorization` is the request's header (the hook checks the admin token). */
  admin?: (authorization: string | undefined) => HttpReply;
  /** A venue read for an authenticated caller (`GET /v1/venue/<name>`); absent = 404. */
  venue?: (name: string, query: URLSearchParams) => Promise<HttpReply>;
}
