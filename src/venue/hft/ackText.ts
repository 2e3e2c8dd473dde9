/**
 * The v5 order answers (create, cancel, amend) read as bytes on the fast path: the plain success
 * `{"retCode":0,…,"result":{"orderId":"…","orderLinkId":"…"},…}` gives its `result` without decoding
 * the answer or a JSON parse; any other shape (an error code, escapes, non-ASCII ids, extra fields) is
 * left to the full parse.
 */
import type { V5OrderAck } from "../../rest/wire.js";

const OK_HEAD = Buffer.from('{"retCode":0,', "latin1");
const RESULT = Buffer.from('"result":{"orderId":"', "latin1");
const LINK = Buffer.from('","orderLinkId":"', "latin1");
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;

/** `p` at `b[at]`. Short needles: a loop beats Buffer#indexOf's call into C++. */
function startsAt(b: Uint8Array, at: number, p: Uint8Array): boolean {
  if (at + p.length > b.length) return false;
  for (let i = 0; i < p.length; i++) if (b[at + i] !== p[i]) return false;
  return true;
}

function find(b: Uint8Array, from: number, p: Uint8Array): number {
  const first = p[0];
  for (let i = from, last = b.length - p.length; i <= last; i++)
    if (b[i] === first && startsAt(b, i, p)) return i;
  return -1;
}

function quoteAt(b: Uint8Array, from: number): number {
  for (let i = from; i < b.length; i++) if (b[i] === QUOTE) return i;
  return -1;
}

/**
 * `b[from, to)` as a string of its own (nothing of the read buffer kept), when it is ASCII without an
 * escape; undefined otherwise (the full parse reads it).
 */
function plain(b: Buffer, from: number, to: number): string | undefined {
  for (let i = from; i < to; i++) {
    const c = b[i]!;
    if (c >= 0x80 || c === BACKSLASH) return undefined;
  }
  return b.toString("latin1", from, to);
}

/** The answer's last byte that is not white space closes its object (the answer came whole). */
function closed(b: Uint8Array): boolean {
  let i = b.length - 1;
  while (i >= 0 && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i--;
  return i >= 0 && b[i] === CLOSE_BRACE;
}

/** The `result` of a plainly successful v5 order answer, or undefined (then the full parse decides). */
export function scanV5Ack(body: Buffer): V5OrderAck | undefined {
  if (!startsAt(body, 0, OK_HEAD) || !closed(body)) return undefined;
  const r = find(body, OK_HEAD.length, RESULT);
  if (r < 0) return undefined;
  const idAt = r + RESULT.length;
  const idEnd = quoteAt(body, idAt);
  if (idEnd < 0 || !startsAt(body, idEnd, LINK)) return undefined;
  const linkAt = idEnd + LINK.length;
  const linkEnd = quoteAt(body, linkAt);
  if (linkEnd < 0 || body[linkEnd + 1] !== CLOSE_BRACE) return undefined;
  const orderId = plain(body, idAt, idEnd);
  const orderLinkId = plain(body, linkAt, linkEnd);
  if (orderId === undefined || orderLinkId === undefined) return undefined;
  return { orderId, orderLinkId };
}
