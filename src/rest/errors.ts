/**
 * REST error hierarchy. The split that matters: a *rejection* (the exchange said no: auth, validation,
 * rate limit) versus *outcome unknown* (timeout, reset, 5xx after the request may have reached the
 * exchange), which must be resolved by client id and is never reported as a rejection. A NetworkError
 * means nothing was sent (connect failure) and is safe to retry.
 */
import type { EndpointId } from "./catalogue.js";

export class RestError extends Error {
  override name = "RestError";
  constructor(
    message: string,
    readonly endpoint: EndpointId | undefined,
    /** HTTP status, 0 when there was no response. */
    readonly status: number,
  ) {
    super(message);
  }
}

/** Bad input caught locally before sending: nothing went on the wire. */
export class InvalidRequestError extends RestError {
  override name = "InvalidRequestError";
  constructor(
    message: string,
    endpoint: EndpointId | undefined,
    readonly field: string,
  ) {
    super(message, endpoint, 0);
  }
}

/**
 * 401: bad signature, wrong key, or an epoch outside the venue's window; the venue's answer is the same
 * for all three. `epochMs` is the X-AUTH-EPOCH the refused request carried; `clockExplains`, when a
 * clock guard is wired (venue/stack.ts), settles true when a re-sync puts the 401 down to the clock.
 */
export class AuthError extends RestError {
  override name = "AuthError";
  clockExplains: Promise<boolean> | undefined = undefined;
  constructor(
    message: string,
    endpoint: EndpointId | undefined,
    status: number,
    readonly epochMs: number | undefined = undefined,
  ) {
    super(message, endpoint, status);
  }
}

/** 400 about the epoch header (HFT requires X-AUTH-EPOCH). */
export class MissingEpochError extends RestError {
  override name = "MissingEpochError";
}

/** 429 (or the v5 rate-limit code). `retryAfterMs` when the exchange said so. */
export class RateLimitedError extends RestError {
  override name = "RateLimitedError";
  constructor(
    message: string,
    endpoint: EndpointId | undefined,
    status: number,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message, endpoint, status);
  }
}

/** The exchange rejected the request: other 4xx, 422, or a non-zero v5 retCode. */
export class ValidationError extends RestError {
  override name = "ValidationError";
  constructor(
    message: string,
    endpoint: EndpointId | undefined,
    status: number,
    /** v5 retCode, or undefined on Spot. */
    readonly code: number | undefined,
    /** The exchange's own text (`message` / `retMsg`). */
    readonly exchangeMessage: string,
  ) {
    super(message, endpoint, status);
  }
}

/** Timeout, reset, socket error after the request may have been written, or 5xx: resolve by client id. */
export class OutcomeUnknownError extends RestError {
  override name = "OutcomeUnknownError";
  constructor(
    message: string,
    endpoint: EndpointId | undefined,
    status: number,
    /** Underlying error code (e.g. UND_ERR_HEADERS_TIMEOUT, ECONNRESET) when there was no response. */
    readonly cause_code: string | undefined,
  ) {
    super(message, endpoint, status);
  }
}

/** Connection could not be established; the request was never sent, so a retry is safe. */
export class NetworkError extends RestError {
  override name = "NetworkError";
  constructor(
    message: string,
    endpoint: EndpointId | undefined,
    readonly cause_code: string | undefined,
  ) {
    super(message, endpoint, 0);
  }
}

/** A 2xx whose body does not have the documented shape. The request did reach the exchange. */
export class ResponseShapeError extends RestError {
  override name = "ResponseShapeError";
}

// Errors raised before any byte of the request could have been written.
const NOT_SENT = new Set([
  // A request the connection set never handed to a connection (it closed first).
  "HFTGATE_NOT_SENT",
  "UND_ERR_CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/** Maps a transport error (undici / node) to NetworkError or OutcomeUnknownError. */
export function transportError(err: unknown, endpoint: EndpointId | undefined): RestError {
  const code = errorCode(err);
  if (code !== undefined && NOT_SENT.has(code)) {
    return new NetworkError(`connect failed (${code}); request not sent`, endpoint, code);
  }
  return new OutcomeUnknownError(
    `no response (${code ?? "unknown transport error"}); outcome unknown`,
    endpoint,
    0,
    code,
  );
}

function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 3 && e !== null && typeof e === "object"; depth++) {
    const c = (e as { code?: unknown }).code;
    if (typeof c === "string") {
      // undici wraps connect-refused inside a cause; prefer the innermost specific code.
      const inner = (e as { cause?: unknown }).cause;
      const ic = inner !== null && typeof inner === "object" ? (inner as { code?: unknown }).code : undefined;
      return typeof ic === "string" && NOT_SENT.has(ic) ? ic : c;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
