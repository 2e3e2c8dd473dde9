/**
 * The exchange's signed message: METHOD + form-decoded(path + query) + epoch, UTF-8, no separators.
 * The body is never part of it. The wire URL stays encoded; only the signed copy is decoded.
 */

const PLUS = /\+/g;

/**
 * Form-decodes a request target the way the exchange's reference client does ("unquote plus"):
 * `+` becomes a space, then `%XX` sequences become bytes, then the bytes are read as UTF-8.
 * A malformed escape (e.g. `%G1` or a lone `%`) is kept literally rather than throwing, which is
 * what Python's `unquote_plus` does too.
 */
export function formDecode(target: string): string {
  if (target.indexOf("%") === -1 && target.indexOf("+") === -1) return target;
  const spaced = target.replace(PLUS, " ");
  if (spaced.indexOf("%") === -1) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return lenientPercentDecode(spaced);
  }
}

function lenientPercentDecode(s: string): string {
  // Decode valid %XX runs byte-wise as UTF-8; leave invalid escapes untouched.
  const out: number[] = [];
  const bytes = Buffer.from(s, "utf8");
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0x25 && i + 2 < bytes.length + 0 && isHex(bytes[i + 1]!) && isHex(bytes[i + 2]!)) {
      out.push(Number.parseInt(String.fromCharCode(bytes[i + 1]!, bytes[i + 2]!), 16));
      i += 2;
    } else {
      out.push(b);
    }
  }
  return Buffer.from(out).toString("utf8");
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** The string that gets signed, from the wire request-target (path plus optional `?query`). */
export function signedMessage(method: string, wireTarget: string, epoch: string): string {
  return method.toUpperCase() + formDecode(wireTarget) + epoch;
}

/**
 * Encodes query parameters for the wire the way Python's `urlencode` does (quote_plus: space -> `+`,
 * reserved characters percent-encoded), keeping the caller's order. Returns "" for no params.
 */
export function encodeQuery(params: ReadonlyArray<readonly [string, string]>): string {
  if (params.length === 0) return "";
  let s = "";
  for (let i = 0; i < params.length; i++) {
    const [k, v] = params[i]!;
    s += (i === 0 ? "" : "&") + quotePlus(k) + "=" + quotePlus(v);
  }
  return s;
}

/** quote_plus: unreserved characters `A-Za-z0-9_.-~` stay, space becomes `+`, the rest is %XX (UTF-8). */
export function quotePlus(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%20/g, "+");
}

/** Joins a path and encoded query into a wire target: `path?query`, or `path&query` if path already has `?`. */
export function wireTarget(path: string, encodedQuery: string): string {
  if (encodedQuery === "") return path;
  return path + (path.includes("?") ? "&" : "?") + encodedQuery;
}
