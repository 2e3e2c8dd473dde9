/**
 * The `lateCreate` fault: a create is held (authenticated, counted, not yet at the venue) and lands
 * only after a query by its client id has answered "not found" — the venue-side half of the
 * "rejected, but it rests at the venue" case, reproduced without any race. A held create also lands
 * when its deadline passes (`ms`, on the simulator's clock) or when released by hand; its answer is
 * sent on landing if the client is still listening.
 */
import type { ServerResponse } from "node:http";
import type { SimClock } from "./simClock.js";

/** The create endpoints the fault applies to, and where each carries its client id. */
export const CREATE_CLIENT_ID: Readonly<Record<string, string>> = {
  "POST /trade/api/v2/order": "client_order_id",
  "POST /v5/order/create": "orderLinkId",
};

/** Queries by client id that count as the venue saying "not found" while a create is held. */
export const QUERY_CLIENT_ID: Readonly<Record<string, string>> = {
  "GET /trade/api/v2/order": "client_order_id",
  "GET /v5/order/realtime": "orderLinkId",
};

interface Held {
  key: string;
  res: ServerResponse;
  land: () => void;
  queriesLeft: number;
  landed: boolean;
}

export class LateCreates {
  private readonly held = new Map<string, Held[]>();
  private readonly all = new Set<Held>();
  /** Creates held so far, and landed so far. */
  heldTotal = 0;
  landedTotal = 0;

  constructor(private readonly clock: SimClock) {}

  /**
   * Holds a create. `land` handles it and answers. It lands after `queries` not-found queries by
   * its client id (none when it has no client id), at `deadlineMs` at the latest (if given).
   */
  hold(
    account: string,
    surface: "spot" | "hft",
    clientId: string,
    res: ServerResponse,
    land: () => void,
    queries: number,
    deadlineMs: number | undefined,
  ): void {
    const key = `${account}|${surface}|${clientId}`;
    const h: Held = { key, res, land, queriesLeft: clientId === "" ? Infinity : queries, landed: false };
    let list = this.held.get(key);
    if (list === undefined) {
      list = [];
      this.held.set(key, list);
    }
    list.push(h);
    this.all.add(h);
    this.heldTotal++;
    if (deadlineMs !== undefined) this.clock.schedule(deadlineMs, () => this.landOne(h));
  }

  /** Called after a query by client id was answered: lands the creates it was waiting for. */
  queried(account: string, surface: "spot" | "hft", clientId: string): void {
    if (this.all.size === 0 || clientId === "") return;
    const list = this.held.get(`${account}|${surface}|${clientId}`);
    if (list === undefined) return;
    for (const h of [...list]) if (--h.queriesLeft <= 0) this.landOne(h);
  }

  /** Lands every held create now (oldest first); returns how many. */
  releaseAll(): number {
    const hs = [...this.all];
    for (const h of hs) this.landOne(h);
    return hs.length;
  }

  get size(): number {
    return this.all.size;
  }

  /** At stop: drops what is still held (never lands) and closes its connections. */
  discard(): void {
    for (const h of this.all) {
      h.landed = true;
      h.res.destroy();
    }
    this.all.clear();
    this.held.clear();
  }

  private landOne(h: Held): void {
    if (h.landed) return;
    h.landed = true;
    this.all.delete(h);
    const list = this.held.get(h.key);
    if (list !== undefined) {
      list.splice(list.indexOf(h), 1);
      if (list.length === 0) this.held.delete(h.key);
    }
    this.landedTotal++;
    h.land();
  }
}
