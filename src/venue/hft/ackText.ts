/**
 * The v5 order answers (create, cancel, amend) read as text on the fast path: the plain success
 * `{"retCode":0,…,"result":{"orderId":"…","orderLinkId":"…"},…}` gives its `result` without a JSON
 * parse; any other shape (an error code, escapes, extra fields) is left to the full parse.
 */
import type { V5OrderAck } from "../../rest/wire.js";

const OK_HEAD = '{"retCode":0,';
const RESULT = '"result":{"orderId":"';
const LINK = '","orderLinkId":"';

/**
 * The `result` of a plainly successful v5 order answer, or undefined (then the full parse decides).
 * With the answer's bytes (`body`), the order id is copied out of them: the order keeps it for its
 * whole life, and a slice of `text` would keep the whole answer alive with it.
 */
export function scanV5Ack(text: string, body?: Buffer): V5OrderAck | undefined {
  if (!text.startsWith(OK_HEAD)) return undefined;
  const r = text.indexOf(RESULT, OK_HEAD.length);
  if (r < 0) return undefined;
  const idAt = r + RESULT.length;
  const idEnd = text.indexOf('"', idAt);
  if (idEnd < 0 || !text.startsWith(LINK, idEnd)) return undefined;
  const linkAt = idEnd + LINK.length;
  const linkEnd = text.indexOf('"', linkAt);
  if (linkEnd < 0 || text.charCodeAt(linkEnd + 1) !== 0x7d) return undefined;
  // One byte per character (the whole answer): the text's offsets are the bytes'.
  const orderId =
    body !== undefined && body.length === text.length
      ? body.toString("utf8", idAt, idEnd)
      : text.slice(idAt, idEnd);
  const orderLinkId = text.slice(linkAt, linkEnd);
  // An escape inside either id: the full parse reads it.
  if (orderId.includes("\\") || orderLinkId.includes("\\")) return undefined;
  return { orderId, orderLinkId };
}
