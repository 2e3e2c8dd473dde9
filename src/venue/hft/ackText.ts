/**
 * The v5 order answers (create, cancel, amend) read as text on the fast path: the plain success
 * `{"retCode":0,…,"result":{"orderId":"…","orderLinkId":"…"},…}` gives its `result` without a JSON
 * parse; any other shape (an error code, escapes, extra fields) is left to the full parse.
 */
import type { V5OrderAck } from "../../rest/wire.js";

const OK_HEAD = '{"retCode":0,';
const RESULT = '"result":{"orderId":"';
const LINK = '","orderLinkId":"';

/** The `result` of a plainly successful v5 order answer, or undefined (then the full parse decides). */
export function scanV5Ack(text: string): V5OrderAck | undefined {
  if (!text.startsWith(OK_HEAD)) return undefined;
  const r = text.indexOf(RESULT, OK_HEAD.length);
  if (r < 0) return undefined;
  const idAt = r + RESULT.length;
  const idEnd = text.indexOf('"', idAt);
  if (idEnd < 0 || !text.startsWith(LINK, idEnd)) return undefined;
  const linkAt = idEnd + LINK.length;
  const linkEnd = text.indexOf('"', linkAt);
  if (linkEnd < 0 || text.charCodeAt(linkEnd + 1) !== 0x7d) return undefined;
  const orderId = text.slice(idAt, idEnd);
  const orderLinkId = text.slice(linkAt, linkEnd);
  // An escape inside either id: the full parse reads it.
  if (orderId.includes("\\") || orderLinkId.includes("\\")) return undefined;
  return { orderId, orderLinkId };
}
