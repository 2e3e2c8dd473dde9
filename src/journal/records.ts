/**
 * Journal record kinds and their fields, as one table. Writers copy exactly these fields from
 * what they are given, so anything else on the input (headers, signatures, keys) can never reach
 * the file: the whitelist is the schema.
 */

export type RecordKind = "cmd" | "req" | "res" | "evt" | "note" | "out" | "ses";
/** s: UTF-8 string; n: number (f64); b: raw bytes (binary: as they are; NDJSON: base64). */
type FieldType = "s" | "n" | "b";

export const SCHEMA: Readonly<Record<RecordKind, readonly (readonly [string, FieldType])[]>> = {
  /** A strategy command the gateway accepted. Prices and quantities as decimal strings. */
  cmd: [
    ["session", "s"],
    ["op", "s"],
    ["clientId", "s"],
    ["symbol", "s"],
    ["side", "s"],
    ["type", "s"],
    ["price", "s"],
    ["qty", "s"],
    ["tif", "s"],
    ["reason", "s"],
  ],
  /** A request about to leave for the exchange (never its headers). */
  req: [
    ["clientId", "s"],
    ["op", "s"],
    ["method", "s"],
    ["path", "s"],
    ["attempt", "n"],
  ],
  /**
   * The exchange's answer (status 0 = no answer: timeout or reset; REFUSED_LOCALLY = the gateway
   * refused the request itself and nothing reached the exchange: limiter, local validation, clock
   * guard, connect error).
   */
  res: [
    ["clientId", "s"],
    ["op", "s"],
    ["status", "n"],
    ["latencyUs", "n"],
    ["body", "s"],
    // 1: `body` is the venue's answer as it arrived (its envelope included); absent: the parsed
    // payload as JSON (older journals, and answers with no text to keep).
    ["raw", "n"],
  ],
  /** A stream or poll event from the exchange. */
  evt: [
    ["source", "s"],
    ["clientId", "s"],
    ["body", "s"],
  ],
  /** Gateway facts worth keeping: start, trading-state changes, kill switch. */
  note: [
    ["text", "s"],
    ["clientId", "s"],
  ],
  /**
   * A sequenced gateway → strategy frame of a resumable (named) session, byte for byte as sent: its
   * header carries the session id and seq, so a restart rebuilds the session's resume ring from these.
   */
  out: [
    ["session", "s"],
    ["frame", "b"],
  ],
  /** A gateway session event: op logon / logoff / release of a named session, anon for an anonymous logon. */
  ses: [
    ["session", "s"],
    ["op", "s"],
    ["sid", "n"],
    ["admin", "n"],
    // Logon options of a logon (LogonOptions bits); absent in older journals: 0.
    ["options", "n"],
  ],
};

/** `res` status of a request the gateway refused itself (nothing sent): replayed as a refusal. */
export const REFUSED_LOCALLY = 1;

export const KIND_CODE: Readonly<Record<RecordKind, number>> = {
  cmd: 1,
  req: 2,
  res: 3,
  evt: 4,
  note: 5,
  out: 6,
  ses: 7,
};
export const CODE_KIND: readonly (RecordKind | undefined)[] = [
  undefined,
  "cmd",
  "req",
  "res",
  "evt",
  "note",
  "out",
  "ses",
];

export interface CommandInput {
  session: string | number;
  op: string;
  clientId?: string;
  symbol?: string;
  side?: string;
  type?: string;
  price?: string;
  qty?: string;
  tif?: string;
  reason?: string;
}
const NEW_ORDER_NO = /(?:^|;)no=(\d+)/;
const REPLACEMENT_NO = /(?:^|;)new=(\d+)/;

/**
 * The client order number a command used, from its `reason` as the engine writes it: `no=N;…` of a
 * new order, `…;new=N` of an amend's replacement. 0 for any other command, or none written.
 */
export function commandOrderNo(op: string, reason: string | undefined): number {
  const re = op === "new" ? NEW_ORDER_NO : op === "amend" ? REPLACEMENT_NO : undefined;
  return Number(re?.exec(reason ?? "")?.[1] ?? 0);
}

export interface RequestInput {
  clientId?: string;
  op: string;
  method: string;
  /** Path with its query string; the API key and signature travel in headers and are not taken. */
  path: string;
  attempt?: number;
}
export interface ResponseInput {
  clientId?: string;
  op?: string;
  status: number;
  latencyUs?: number;
  /** Text, or its UTF-8 bytes (the answer as read off the socket): read back as text either way. */
  body?: string | Uint8Array;
  /** 1 when `body` is the venue's answer text as received (see SCHEMA.res). */
  raw?: number;
}
export interface EventInput {
  source: string;
  clientId?: string;
  body: string;
}
export interface NoteInput {
  text: string;
  clientId?: string;
}

export interface OutboundInput {
  session: string;
  frame: Uint8Array;
}
export type SessionOp = "logon" | "logoff" | "release" | "anon";
export interface SessionInput {
  session: string;
  op: SessionOp;
  sid: number;
  /** 1 for a session created with the admin token. */
  admin?: number;
  /** A logon's LogonOptions bits (restored with the session after a restart). */
  options?: number;
}

interface Base {
  readonly seq: number;
  /** Wall-clock ms since the epoch. */
  readonly ts: number;
}
export type CommandRecord = Base & { readonly k: "cmd"; readonly session: string } & Readonly<
    Omit<CommandInput, "session">
  >;
export type RequestRecord = Base & { readonly k: "req" } & Readonly<RequestInput>;
/** `body` reads back as text whichever form it was written in. */
export type ResponseRecord = Base & { readonly k: "res"; readonly body?: string } & Readonly<
    Omit<ResponseInput, "body">
  >;
export type EventRecord = Base & { readonly k: "evt" } & Readonly<EventInput>;
export type NoteRecord = Base & { readonly k: "note" } & Readonly<NoteInput>;
/** `frame` is a view into the bytes read (copy it to keep it beyond the read). */
export type OutboundRecord = Base & {
  readonly k: "out";
  readonly session: string;
  readonly frame: Buffer;
  readonly clientId?: undefined;
};
export type SessionRecord = Base & {
  readonly k: "ses";
  readonly clientId?: undefined;
} & Readonly<SessionInput>;
export type JournalRecord =
  | CommandRecord
  | RequestRecord
  | ResponseRecord
  | EventRecord
  | NoteRecord
  | OutboundRecord
  | SessionRecord;

export class JournalError extends Error {
  override name = "JournalError";
}
