/** Order histories out of journal records, and one readable line per record (the replay tool). */
import { type JournalRecord, REFUSED_LOCALLY } from "./records.js";

/** Records grouped by client id, each group in journal order; groups in order of first appearance. */
export function orderHistories(records: Iterable<JournalRecord>): Map<string, JournalRecord[]> {
  const out = new Map<string, JournalRecord[]>();
  for (const r of records) {
    const id = r.clientId;
    if (id === undefined || id === "") continue;
    let list = out.get(id);
    if (list === undefined) {
      list = [];
      out.set(id, list);
    }
    list.push(r);
  }
  return out;
}

/** Keys under which venue bodies carry the exchange's order id (HFT `orderId`, Spot and Futures `order_id`). */
const EXCHANGE_ID_KEYS = new Set(["orderId", "order_id"]);

/** The exchange order ids named in a history's venue answers and stream events. */
export function exchangeIdsOf(history: readonly JournalRecord[]): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v !== null && typeof v === "object")
      for (const [k, x] of Object.entries(v)) {
        if (EXCHANGE_ID_KEYS.has(k) && (typeof x === "string" || typeof x === "number") && x !== "")
          out.add(String(x));
        else walk(x);
      }
  };
  for (const r of history) {
    if ((r.k !== "res" && r.k !== "evt") || r.body === undefined || r.body === "") continue;
    try {
      walk(JSON.parse(r.body));
    } catch {
      // a clipped or non-JSON body names no id
    }
  }
  return out;
}

/**
 * The history of `id`, a client order id or the exchange's order id (logs name either): the client
 * id's group first, else the one group whose venue bodies carry that exchange id.
 */
export function findOrder(
  histories: ReadonlyMap<string, JournalRecord[]>,
  id: string,
): { clientId: string; exchangeId: string | undefined; history: JournalRecord[] } | undefined {
  const own = histories.get(id);
  if (own !== undefined) return { clientId: id, exchangeId: undefined, history: own };
  for (const [clientId, history] of histories)
    if (exchangeIdsOf(history).has(id)) return { clientId, exchangeId: id, history };
  return undefined;
}

function clip(s: string | undefined, max: number): string {
  if (s === undefined) return "";
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}

/** One line: time, sequence, kind, then what happened. `bodyMax` clips exchange bodies. */
export function formatRecord(r: JournalRecord, bodyMax = 300): string {
  const head = `${new Date(r.ts).toISOString()} #${r.seq}`;
  switch (r.k) {
    case "cmd": {
      const px = r.price === undefined ? "" : ` @ ${r.price}`;
      const parts = [r.op, `session=${r.session}`, r.symbol, r.side, r.type, r.qty, px.trim(), r.tif];
      const reason = r.reason === undefined ? "" : ` (${r.reason})`;
      return `${head} command  ${parts.filter((p) => p !== undefined && p !== "").join(" ")}${reason}`;
    }
    case "req":
      return `${head} request  ${r.op} ${r.method} ${r.path}${r.attempt !== undefined ? ` attempt=${r.attempt}` : ""}`;
    case "res": {
      const status =
        r.status === 0 ? "no answer" : r.status === REFUSED_LOCALLY ? "refused locally" : `HTTP ${r.status}`;
      const lat = r.latencyUs === undefined ? "" : `in ${r.latencyUs} µs`;
      const parts = [r.op, status, lat, clip(r.body, bodyMax)].filter((p) => p !== undefined && p !== "");
      return `${head} response ${parts.join(" ")}`;
    }
    case "evt":
      return `${head} event    ${r.source} ${clip(r.body, bodyMax)}`;
    case "note":
      return `${head} note     ${r.text}`;
    case "out": {
      const f = r.frame;
      const seq = f.length >= 16 ? f.readUInt32LE(8) + f.readUInt32LE(12) * 2 ** 32 : 0;
      return `${head} sent     session=${r.session} seq=${seq} type=0x${(f[1] ?? 0).toString(16)} ${f.length} bytes`;
    }
    case "ses":
      return `${head} session  ${r.op} ${r.session} id=${r.sid}${r.admin ? " admin" : ""}`;
  }
}

export interface UnresolvedRequest {
  readonly clientId: string;
  readonly op: string;
  /** The request record (its seq and path). */
  readonly request: JournalRecord;
  /** "no-response": the journal ends before an answer (the process died); "unknown": timeout, reset or 5xx. */
  readonly why: "no-response" | "unknown";
}

/**
 * Requests whose outcome the journal does not know, last request per (client id, op). After a
 * restart these are the orders to resolve by client id (targeted query or the reconciler) before
 * anything is re-sent.
 */
export function unresolvedRequests(records: Iterable<JournalRecord>): UnresolvedRequest[] {
  const open = new Map<string, UnresolvedRequest>();
  for (const r of records) {
    if (r.clientId === undefined) continue;
    if (r.k === "req") {
      const key = `${r.clientId}|${r.op}`;
      open.delete(key); // keep insertion order = order of the latest request
      open.set(key, { clientId: r.clientId, op: r.op, request: r, why: "no-response" });
    } else if (r.k === "res") {
      const key = `${r.clientId}|${r.op ?? ""}`;
      const u = open.get(key);
      if (u === undefined) continue;
      if (r.status === 0 || r.status >= 500) open.set(key, { ...u, why: "unknown" });
      else open.delete(key);
    }
  }
  return [...open.values()];
}
