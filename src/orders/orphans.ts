/**
 * Venue events that arrive before the store knows their order (a stream beating the create's answer,
 * a record of an order the store never created): copied and kept, bounded overall (the oldest go
 * first), under the exchange id or, without one, the client id; handed back when that order is
 * created or learns its exchange id, or all at once to the reconciler (`takeAll`).
 */
import { copyEvent, type OrderEvent } from "./event.js";
import { DROP_REASON_INDEX } from "./transitions.js";

/** The events kept under one id; `seq` orders ids by when their first event was kept. */
interface Kept {
  readonly seq: number;
  readonly events: OrderEvent[];
}

export class OrphanBuffer {
  // Two maps rather than one with prefixed keys: a create looks its own client id up as it is, with
  // no key string built per order, and not at all while no event is kept by client id.
  private readonly byExchange = new Map<string, Kept>();
  private readonly byClient = new Map<string, Kept>();
  private seq = 0;
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

  /** Keeps a copy of `ev` under its exchange id, else its client id; false when it names neither. */
  keep(ev: OrderEvent): boolean {
    const byExchange = ev.exchangeId !== "";
    if (!byExchange && ev.clientId === "") return false;
    const map = byExchange ? this.byExchange : this.byClient;
    const id = byExchange ? ev.exchangeId : ev.clientId;
    let kept = map.get(id);
    if (kept === undefined) {
      kept = { seq: this.seq++, events: [] };
      map.set(id, kept);
    }
    kept.events.push(copyEvent(ev));
    this.total++;
    while (this.total > this.max) this.evictOldest();
    return true;
  }

  /** Removes and returns what was kept for this client id (undefined: nothing). */
  takeClient(clientId: string): OrderEvent[] | undefined {
    return this.byClient.size === 0 ? undefined : this.take(this.byClient, clientId);
  }

  /** Removes and returns what was kept for this exchange id (undefined: nothing). */
  takeExchange(exchangeId: string): OrderEvent[] | undefined {
    return this.byExchange.size === 0 ? undefined : this.take(this.byExchange, exchangeId);
  }

  /** Removes and returns every kept event, ids in the order they were first kept. */
  takeAll(): OrderEvent[] {
    const kept = [...this.byExchange.values(), ...this.byClient.values()].sort((a, b) => a.seq - b.seq);
    const out: OrderEvent[] = [];
    for (const k of kept) for (const e of k.events) out.push(e);
    this.byExchange.clear();
    this.byClient.clear();
    this.total = 0;
    return out;
  }

  private take(map: Map<string, Kept>, id: string): OrderEvent[] | undefined {
    const kept = map.get(id);
    if (kept === undefined) return undefined;
    map.delete(id);
    this.total -= kept.events.length;
    return kept.events;
  }

  /** Drops the oldest event of the id kept longest (over the bound). */
  private evictOldest(): void {
    const x = this.byExchange.entries().next();
    const y = this.byClient.entries().next();
    const fromExchange = y.done === true || (x.done !== true && x.value[1].seq < y.value[1].seq);
    const map = fromExchange ? this.byExchange : this.byClient;
    const [id, kept] = (fromExchange ? x.value : y.value) as [string, Kept];
    kept.events.shift();
    this.total--;
    this.dropCounts[DROP_REASON_INDEX.orphan_evicted]! += 1;
    if (kept.events.length === 0) map.delete(id);
  }
}
