/** Request context handed to endpoint handlers, and the reply builders for both surfaces. */
import type { SimAccount } from "./account.js";
import type { Exchange } from "./exchange.js";

export interface Reply {
  status: number;
  body: string;
  /** Send only once this settles (a credential being installed elsewhere); rejected = 503. */
  ready?: Promise<void>;
}

export interface Req {
  method: string;
  path: string;
  /** Decoded query parameters (last value wins). */
  query: Map<string, string>;
  /** Parsed JSON body, or {} when there is none. */
  body: Record<string, unknown>;
  /** null on unauthenticated endpoints. */
  account: SimAccount | null;
  exchange: Exchange;
  /** Server time incl. injected clock skew (what /time reports). */
  serverNow: number;
}

export type Handler = (req: Req) => Reply;

export function spotOk(data: unknown): Reply {
  return { status: 200, body: JSON.stringify({ data }) };
}

export function message(status: number, text: string): Reply {
  return { status, body: JSON.stringify({ message: text }) };
}

export function v5Ok(result: unknown, now: number): Reply {
  return {
    status: 200,
    body: `{"retCode":0,"retMsg":"OK","result":${JSON.stringify(result)},"retExtInfo":{},"time":${now}}`,
  };
}

/** HFT errors: HTTP 200 with a non-zero retCode [assumed, Bybit-style] unless `status` says otherwise. */
export function v5Err(retCode: number, retMsg: string, now: number, status = 200): Reply {
  return { status, body: JSON.stringify({ retCode, retMsg, result: {}, retExtInfo: {}, time: now }) };
}

/** Typed reads of body/query fields; each returns a value or an error text naming the field. */
export type Field<T> = { ok: true; v: T } | { ok: false; msg: string };

export function reqString(
  src: Record<string, unknown> | Map<string, string>,
  name: string,
  required: boolean,
): Field<string | undefined> {
  const v = src instanceof Map ? src.get(name) : src[name];
  if (v === undefined || v === null || v === "") {
    return required ? { ok: false, msg: `Input ${name} is missing` } : { ok: true, v: undefined };
  }
  if (typeof v !== "string") return { ok: false, msg: `Input ${name} must be a string` };
  return { ok: true, v };
}

/** Numbers may arrive as JSON numbers or numeric strings [assumed lenient]. */
export function reqNumber(
  src: Record<string, unknown> | Map<string, string>,
  name: string,
  required: boolean,
): Field<number | undefined> {
  const v = src instanceof Map ? src.get(name) : src[name];
  if (v === undefined || v === null || v === "") {
    return required ? { ok: false, msg: `Input ${name} is missing` } : { ok: true, v: undefined };
  }
  const n =
    typeof v === "number"
      ? v
      : typeof v === "string" && /^-?[0-9]+(\.[0-9]+)?$/.test(v.trim())
        ? Number(v)
        : Number.NaN;
  if (!Number.isFinite(n)) return { ok: false, msg: `Input ${name} is not a valid number` };
  return { ok: true, v: n };
}

export interface RouteDef {
  method: string;
  path: string;
  handler: Handler;
  /** Rate-limit bucket name (config.rateLimits.buckets). */
  bucket: string;
  auth: "required" | "none" | "optional";
}
