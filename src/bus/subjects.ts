/**
 * The bus's names, as one table: NATS subjects, JetStream stream names and headers (docs/bus.md §2).
 * Every account's subjects live under `hftgate.<account>.`, so one permission line per user
 * (`hftgate.A.>`) separates accounts; the admin control plane is `hftgate.ctl.`.
 */

/** An account name is one subject token and part of a stream name: letters, digits, `_`, `-`. */
export const ACCOUNT_RE = /^[A-Za-z0-9_-]{1,32}$/;
/** A connection id is one subject token chosen by the client (random: NUID or 16+ hex). */
export const CONN_RE = /^[A-Za-z0-9_-]{8,64}$/;

export function checkAccount(name: string): string {
  if (!ACCOUNT_RE.test(name))
    throw new Error(
      `bus account must match ${ACCOUNT_RE} (one NATS subject token), got ${JSON.stringify(name)}`,
    );
  return name;
}

export const subjects = {
  /** Strategy → gateway frames of one connection (reply subject: its `out`). */
  in: (account: string, conn: string) => `hftgate.${account}.in.${conn}`,
  /** What the gateway subscribes to for remote sessions. */
  inAll: (account: string) => `hftgate.${account}.in.*`,
  /** Gateway → strategy frames of one connection. */
  out: (account: string, conn: string) => `hftgate.${account}.out.${conn}`,
  /** Drop-copy events of an account, one subject per message type (e.g. `hftgate.A.dc.Fill`). */
  dropCopy: (account: string, type: string) => `hftgate.${account}.dc.${type}`,
  dropCopyAll: (account: string) => `hftgate.${account}.dc.>`,
  /** Admin control plane: `status` (request, empty body) and `cmd` (Kill / SetTradingState frame). */
  ctl: (target: string, verb: "status" | "cmd") => `hftgate.ctl.${target}.${verb}`,
} as const;

/** Control-plane target addressing every gateway on the bus. */
export const ALL = "all";

/** JetStream stream holding one account's drop copy. */
export const streamName = (account: string) => `HFTGATE_DC_${account}`;

export const HEADER = {
  /** On an empty `out` message: the gateway ended the connection (`<code> <reason>`). */
  close: "Hftgate-Close",
  /** On drop-copy messages: the session name the event belongs to (empty for account-wide events). */
  session: "Hftgate-Session",
  /** On drop-copy messages: the gateway's drop-copy sequence (account-wide, strictly increasing). */
  dcSeq: "Hftgate-Dc-Seq",
  /** On control-plane replies: the account that answered. */
  account: "Hftgate-Account",
  /** JetStream de-duplication and optimistic concurrency (NATS's own headers). */
  msgId: "Nats-Msg-Id",
  expectedLastMsgId: "Nats-Expected-Last-Msg-Id",
} as const;

/** Drop-copy message id: unique per account for ever (the seq never restarts, see dropCopy.ts). */
export const dcMsgId = (account: string, dcSeq: number) => `${account}:${dcSeq}`;
