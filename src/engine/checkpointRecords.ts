/**
 * What a checkpoint holds: the journal records start-up still needs, chosen from the journal read in
 * order (the previous checkpoint's records first). Fed to the same consumers as the journal (order
 * replay, session restorer, told-vs-known ledger), they rebuild what the whole journal would:
 *  - every record of the orders in `keep` (live when the checkpoint was taken, or with messages still
 *    owed to their session) and of the orders created since `recentTs` (finished or not: Query still
 *    answers for them after a restart), including the `out` frames that told their session about them;
 *  - per session name: its last logon and its last other session event (logoff, release), the last
 *    `ring` frames (the resume ring), the last record of each other command without an order
 *    (logon's cancel-on-disconnect, the trading state);
 *  - the highest order number each session used (the head's `orderNumbers`), and a closing note that
 *    carries the last record's time (sessions' idle time).
 * Everything else (finished orders, notes, old frames) is left out.
 */
import { commandOrderNo, type JournalRecord } from "../journal/records.js";
import { decodeG2C } from "../protocol/codec.js";

/** Frames about an order (their body's `clOrdNo` names it). */
const ORDER_FRAMES = new Set([
  "Ack",
  "Reject",
  "OrderUpdate",
  "Fill",
  "AmendAck",
  "AmendReject",
  "CancelReject",
]);

export interface CompactResult {
  readonly records: JournalRecord[];
  readonly orderNumbers: Record<string, number>;
}

export class Compactor {
  private readonly slots: (JournalRecord | undefined)[] = [];
  /** Slot of the last record per key (commands without an order, session events). */
  private readonly last = new Map<string, number>();
  /** Per session name: slots of its last frames not pinned by a kept order (oldest first). */
  private readonly rings = new Map<string, number[]>();
  /** `session|clOrdNo` of the kept orders. */
  private readonly keptNos = new Set<string>();
  private readonly numbers: Record<string, number>;
  /** Client ids whose records are kept: `keep`, and the orders created since `recentTs`. */
  private readonly kept = new Set<string>();
  private lastTs = 0;
  private anonSid = -1;
  private anonSlot = -1;

  constructor(
    private readonly keep: ReadonlySet<string>,
    private readonly ring: number,
    orderNumbers: Readonly<Record<string, number>> = {},
    /** Orders created at or after this wall-clock ms are kept finished or not (default: none). */
    private readonly recentTs = Number.POSITIVE_INFINITY,
  ) {
    this.numbers = { ...orderNumbers };
  }

  add(r: JournalRecord): void {
    if (r.ts > this.lastTs) this.lastTs = r.ts;
    switch (r.k) {
      case "cmd": {
        const no = commandOrderNo(r.op, r.reason);
        if (no > (this.numbers[r.session] ?? 0)) this.numbers[r.session] = no;
        if (r.clientId) {
          if (r.op === "new" && (this.keep.has(r.clientId) || r.ts >= this.recentTs)) {
            this.kept.add(r.clientId);
            if (no > 0) this.keptNos.add(`${r.session}|${no}`);
          }
          if (this.kept.has(r.clientId)) this.slots.push(r);
        } else this.replace(`cmd|${r.session}|${r.op}`, r);
        return;
      }
      case "req":
      case "res":
      case "evt":
        if (r.clientId && this.kept.has(r.clientId)) this.slots.push(r);
        return;
      case "note":
        return;
      case "ses": {
        if (r.op === "anon") {
          if (r.sid <= this.anonSid) return;
          if (this.anonSlot >= 0) this.slots[this.anonSlot] = undefined;
          this.anonSid = r.sid;
          this.anonSlot = this.slots.push(r) - 1;
          return;
        }
        if (r.op === "release") {
          // Gone for the restorer: its earlier events and frames no longer matter (kept orders' frames do).
          this.drop(`ses|logon|${r.session}`);
          for (const s of this.rings.get(r.session) ?? []) this.slots[s] = undefined;
          this.rings.delete(r.session);
        }
        this.replace(`ses|${r.op === "logon" ? "logon" : "other"}|${r.session}`, r);
        return;
      }
      case "out": {
        const kept = { ...r, frame: Buffer.from(r.frame) };
        if (this.aboutKeptOrder(r)) {
          this.slots.push(kept);
          return;
        }
        if (this.ring === 0) return;
        let q = this.rings.get(r.session);
        if (q === undefined) {
          q = [];
          this.rings.set(r.session, q);
        }
        q.push(this.slots.push(kept) - 1);
        if (q.length > this.ring) this.slots[q.shift()!] = undefined;
        return;
      }
    }
  }

  private aboutKeptOrder(r: JournalRecord & { k: "out" }): boolean {
    if (this.keptNos.size === 0) return false;
    const m = decodeG2C(r.frame);
    if (m.name === undefined || !ORDER_FRAMES.has(m.name)) return false;
    const no = (m.body as { clOrdNo?: unknown }).clOrdNo;
    return this.keptNos.has(`${r.session}|${String(no)}`);
  }

  private replace(key: string, r: JournalRecord): void {
    this.drop(key);
    this.last.set(key, this.slots.push(r) - 1);
  }

  private drop(key: string): void {
    const at = this.last.get(key);
    if (at !== undefined) this.slots[at] = undefined;
    this.last.delete(key);
  }

  /** The orders whose records are kept (their `cmd new` was seen). */
  get orders(): ReadonlySet<string> {
    return this.kept;
  }

  result(): CompactResult {
    const records: JournalRecord[] = [];
    for (const r of this.slots) if (r !== undefined) records.push(r);
    // The last record's time: what a session connected at the end is idle since.
    if (this.lastTs > 0)
      records.push({ k: "note", seq: 0, ts: this.lastTs, text: "checkpoint: journal end" });
    return { records, orderNumbers: this.numbers };
  }
}
