/**
 * One strategy connection as the gateway holds it (`Link`): its session, timers, and the frames held
 * for the end of the turn or for the journal; and the close codes a connection can end with.
 */
import type { DisconnectReason } from "./engineApi.js";
import type { Session as GatewaySession } from "./sessions.js";
import type { Conn } from "./transport.js";

export const CLOSE = {
  Normal: 1000,
  Shutdown: 1001,
  LogonRejected: 4001,
  MissedHeartbeats: 4002,
  SlowConsumer: 4008,
  /** More frames wait for a journal that cannot write than a connection may hold (PROTOCOL.md §3). */
  JournalHeld: 1011,
};

/** A session bound to the gateway's connection record. */
export type Session = GatewaySession<Link>;

export interface Link {
  readonly conn: Conn;
  session: Session | undefined;
  openedMs: number;
  lastRecvMs: number;
  lastSendMs: number;
  closed: boolean;
  /** A logon is being answered (bad-token delay running). */
  logonPending: boolean;
  /** Its LogonAck has reached the connection (heartbeats may go out while frames wait for the journal). */
  ackOut: boolean;
  closeReason: DisconnectReason;
  timer: NodeJS.Timeout | undefined;
  /** A frame went to the socket this event-loop turn: later ones wait for the turn's end (one write). */
  sentTurn: boolean;
  /** Frames held for the end of the turn, copied back to back into `heldBuf`; their lengths. */
  heldBuf: Buffer | undefined;
  heldOff: number;
  readonly heldLens: number[];
}

/** The record of a connection just opened (not logged on). */
export function newLink(conn: Conn): Link {
  const now = Date.now();
  return {
    conn,
    session: undefined,
    openedMs: now,
    lastRecvMs: now,
    lastSendMs: now,
    closed: false,
    logonPending: false,
    ackOut: false,
    closeReason: "closed",
    timer: undefined,
    sentTurn: false,
    heldBuf: undefined,
    heldOff: 0,
    heldLens: [],
  };
}
