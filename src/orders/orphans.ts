/**
 * Venue events that arrive before the store knows their order (a stream beating the create's answer,
 * a record of an order the store never created): copied and kept, bounded overall (the oldest go
 * first), under the exchange id or, without one, `c:<client id>`; handed back when that order is
 * created or learns its exchange id, or all at once to the reconciler (`takeAll`).
 */
import { copyEvent, type OrderEvent } from "./event.js";
import { DROP_REASON_INDEX } from "./transitions.js";

export class OrphanBuffer {
  private readonly pending = new Map<string, OrderEvent[]>();
  private total = 0;

  constructor(
    private readonly max: number,
    /** The store's drop counters (`orphan_evicted`). */
    private readonly dropCounts: Float64Array,
  ) {}

  /** Events kept, across all ids. */
  get count(): number {
    return this.total;
  }

  /** Ids with events kept. */
  get size(): number {
    return this.pending.size;
  }

  /** Keeps a copy of `ev` under its exchange id, else its client id; false when it names neither. */
  keep(ev: OrderEvent): boolean {
    const key = ev.exchangeId !== "" ? ev.exchangeId : ev.clientId !== "" ? `c:${ev.clientId}` : "";
    if (key === "") return false;
    let list = this.pending.get(key);
    if (list === undefined) {
      list = [];
      this.pending.set(key, list);
    }
    list.push(copyEvent(ev));
    this.total++;
    while (this.total > this.max) {
      const [k, l] = this.pending.entries().next().value as [string, OrderEvent[]];
      l.shift();
      this.total--;
      this.dropCounts[DROP_REASON_INDEX.orphan_evicted]! += 1;
      if (l.length === 0) this.pending.delete(k);
    }
    return true;
  }

  /** Removes and returns what was kept under this key (an exchange id or `c:<client id>`). */
  take(key: string): OrderEvent[] | undefined {
    const list = this.pending.get(key);
    if (list === undefined) return undefined;
    this.pending.delete(key);
    this.total -= list.length;
    return list;
  }

  /** Removes and returns every kept event, ids in the order they were first kept. */
  takeAll(): OrderEvent[] {
    const out: OrderEvent[] = [];
    for (const list of this.pending.values()) for (const e of list) out.push(e);
    this.pending.clear();
    this.total = 0;
    return out;
  }
}
