/**
 * The HFT private streams of docs/venue-api.md §6.4, published by the simulator to a real nats-server it is
 * given (it connects as a publisher): every HFT order change of an account on
 * `v1.f.ex1.private.subAccountId.<id>.order` (a `/v5/order/realtime` record + `sub_account_id`) and
 * every execution on `.trade` (a `/v5/execution/list` row + `sub_account_id`) [assumed payloads].
 *
 * Credentials: `/dma/api/v1/socket/signature` issues `{api_key, expires, signature}`; when the sim
 * also controls the server's user list (`authority`), each issued credential becomes a NATS user
 * (user = api_key, password = signature, subscribe limited to the private subjects, no publish) until
 * `expires`, then it is removed: the server refuses it from then on (and ends connections that used
 * it). The server is a real nats-server (the sim connects as a publisher) or the simulator's built-in
 * endpoint (`local`: published in-process). Publisher faults (`NatsPublisherFaults`): drop /
 * duplicate / reorder (own probabilities, else the simulator's stream faults), paused (silent while
 * every connection stays up), order records before their trades, credentials issued but refused.
 */
import { createHash } from "node:crypto";
import { type NatsConnection, wsconnect } from "@nats-io/nats-core";
import WebSocket from "ws";
import type { Execution, SimAccount } from "../account.js";
import type { Faults } from "../faults.js";
import type { SimOrder } from "../order.js";
import { v5ExecutionRecord, v5Record } from "../records.js";
import { Rng } from "../rng.js";

export const PRIVATE_PREFIX = "v1.f.ex1.private.subAccountId";

/** A NATS user as the server's authorization list holds it. */
export interface NatsGrant {
  user: string;
  password: string;
  permissions?: {
    publish?: { allow?: string[]; deny?: string[] };
    subscribe?: { allow?: string[]; deny?: string[] };
  };
}

/** Rewrites the server's user list (e.g. `NatsServer.setUsers`); resolves once it is in force. */
export type NatsAuthority = (users: NatsGrant[]) => Promise<void>;

export interface SimNatsOptions {
  /** `ws://` URL of the server's WebSocket listener. */
  url: string;
  /** The simulator's own publisher account on that server. */
  user: string;
  password: string;
  /** When given, issued socket credentials are installed in (and removed from) the server. */
  authority?: NatsAuthority;
  /** The built-in endpoint: messages go to it in-process (no publisher connection); false = it is down. */
  local?: { publish(subject: string, payload: string): boolean; readonly running: boolean };
}

/** Faults of the simulator's NATS publisher (`FaultControl.setNats`). */
export interface NatsPublisherFaults {
  /** Own probabilities for the NATS subjects; undefined = the simulator's stream faults apply. */
  dropProbability?: number;
  duplicateProbability?: number;
  /** A held message goes out after the next one on its subject, or after `reorderMaxMs` (default 200). */
  reorderProbability?: number;
  reorderMaxMs?: number;
  /** Stop publishing while every connection stays up (the "silent stream"). */
  paused?: boolean;
  /** An order's record goes out before the trade messages of its executions, which follow after `tradeDelayMs`. */
  orderFirst?: boolean;
  tradeDelayMs?: number;
  /** The next N issued credentials are answered but never installed: the server refuses them. */
  refuseGrants?: number;
}

export interface SimNatsCounters {
  published: number;
  dropped: number;
  duplicated: number;
  reordered: number;
  paused: number;
  grants: number;
  revoked: number;
  /** Credentials issued but not installed (`refuseGrants`). */
  refused: number;
}

const SUB_ACCOUNT_IDS = new WeakMap<SimAccount, string>();

/** [assumed] the sub-account id: a stable number per account (the venue's is not published). */
export function subAccountIdOf(a: SimAccount): string {
  // Asked twice per published message: hashed once per account.
  let id = SUB_ACCOUNT_IDS.get(a);
  if (id === undefined) {
    id = String(
      Number.parseInt(createHash("sha256").update(a.apiKey).digest("hex").slice(0, 8), 16) % 100_000_000,
    );
    SUB_ACCOUNT_IDS.set(a, id);
  }
  return id;
}

const wsFactory = async (u: string) => ({
  socket: new WebSocket(u) as unknown as globalThis.WebSocket,
  encrypted: u.startsWith("wss://"),
});

export class SimNats {
  readonly counters: SimNatsCounters = {
    published: 0,
    dropped: 0,
    duplicated: 0,
    reordered: 0,
    paused: 0,
    grants: 0,
    revoked: 0,
    refused: 0,
  };
  /** Stop publishing (the connections stay up): the "silent stream" fault. */
  paused = false;
  private pf: NatsPublisherFaults = {};
  private readonly rng: Rng;
  private nc: NatsConnection | undefined;
  private readonly held = new Map<string, { payload: string; timer: NodeJS.Timeout | undefined }>();
  /** orderFirst: trade messages waiting for their order's record, per order id. */
  private readonly tradesWaiting = new Map<string, Array<[string, unknown]>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly grants = new Map<string, { grant: NatsGrant; expires: number }>();
  private pruneTimer: NodeJS.Timeout | undefined;
  private authChain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly o: SimNatsOptions,
    private readonly faults: Faults,
    seed = 1,
  ) {
    this.rng = new Rng(seed ^ 0x4a75);
  }

  async start(): Promise<void> {
    if (this.o.authority !== undefined) await this.o.authority(this.users());
    if (this.o.local === undefined) this.nc = await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pruneTimer !== undefined) clearTimeout(this.pruneTimer);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const h of this.held.values()) if (h.timer !== undefined) clearTimeout(h.timer);
    this.held.clear();
    await this.nc?.close().catch(() => {});
  }

  get connected(): boolean {
    if (this.o.local !== undefined) return this.o.local.running;
    return this.nc !== undefined && !this.nc.isClosed();
  }

  /** Merges publisher faults (a probability outside [0, 1] or a negative delay throws). */
  setFaults(f: NatsPublisherFaults): void {
    for (const k of ["dropProbability", "duplicateProbability", "reorderProbability"] as const) {
      const v = f[k];
      if (v !== undefined && !(v >= 0 && v <= 1)) throw new Error(`${k} must be a probability in [0, 1]`);
    }
    for (const k of ["tradeDelayMs", "reorderMaxMs", "refuseGrants"] as const) {
      const v = f[k];
      if (v !== undefined && !(Number.isInteger(v) && v >= 0))
        throw new Error(`${k} must be an integer >= 0`);
    }
    for (const k of ["paused", "orderFirst"] as const) {
      if (f[k] !== undefined && typeof f[k] !== "boolean") throw new Error(`${k} must be true or false`);
    }
    this.pf = { ...this.pf, ...f };
    if (f.paused !== undefined) this.paused = f.paused;
  }

  publisherFaults(): NatsPublisherFaults {
    return { ...this.pf, paused: this.paused };
  }

  /**
   * A credential was issued: install it (when the sim controls the server's users). The answer to the
   * signature request waits for this, so the credential works as soon as the client has it.
   */
  grant(acct: SimAccount, apiKey: string, signature: string, expires: number): Promise<void> {
    if (this.o.authority === undefined) return Promise.resolve();
    if ((this.pf.refuseGrants ?? 0) > 0) {
      this.pf.refuseGrants = this.pf.refuseGrants! - 1;
      this.counters.refused++;
      return Promise.resolve();
    }
    const sub = subAccountIdOf(acct);
    this.grants.set(apiKey, {
      expires,
      grant: {
        user: apiKey,
        password: signature,
        permissions: {
          publish: { deny: [">"] },
          // [assumed] the venue lets a client subscribe to the wildcard (to learn its id) as well as
          // to its own subjects; here the wildcard would also carry other simulated accounts' events.
          subscribe: {
            allow: [
              `${PRIVATE_PREFIX}.${sub}.>`,
              `${PRIVATE_PREFIX}.*.order`,
              `${PRIVATE_PREFIX}.*.trade`,
              "_INBOX.>",
            ],
          },
        },
      },
    });
    this.counters.grants++;
    this.schedulePrune();
    return this.applyUsers();
  }

  order(acct: SimAccount, o: SimOrder): void {
    this.send(`${PRIVATE_PREFIX}.${subAccountIdOf(acct)}.order`, {
      ...v5Record(o),
      sub_account_id: subAccountIdOf(acct),
    });
    const waiting = this.tradesWaiting.get(o.id);
    if (waiting === undefined) return;
    this.tradesWaiting.delete(o.id);
    this.later(this.pf.tradeDelayMs ?? 0, () => {
      for (const [subject, rec] of waiting) this.send(subject, rec);
    });
  }

  execution(acct: SimAccount, e: Execution): void {
    const subject = `${PRIVATE_PREFIX}.${subAccountIdOf(acct)}.trade`;
    const rec = { ...v5ExecutionRecord(e), sub_account_id: subAccountIdOf(acct) };
    if (this.pf.orderFirst === true) {
      // Every execution is followed by its order's record (maker at once, taker after its create).
      const l = this.tradesWaiting.get(e.order.id);
      if (l === undefined) this.tradesWaiting.set(e.order.id, [[subject, rec]]);
      else l.push([subject, rec]);
      return;
    }
    this.send(subject, rec);
  }

  private later(ms: number, fn: () => void): void {
    if (ms <= 0) {
      fn();
      return;
    }
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.closed) fn();
    }, ms);
    this.timers.add(t);
  }

  private fate(): "drop" | "dup" | "hold" | "send" {
    const f = this.pf;
    if (
      f.dropProbability === undefined &&
      f.duplicateProbability === undefined &&
      f.reorderProbability === undefined
    )
      return this.faults.streamFate();
    if (this.rng.next() < (f.dropProbability ?? 0)) return "drop";
    if (this.rng.next() < (f.duplicateProbability ?? 0)) return "dup";
    if (this.rng.next() < (f.reorderProbability ?? 0)) return "hold";
    return "send";
  }

  private send(subject: string, rec: unknown): void {
    if (!this.connected) {
      // The server is gone (killed in a test): the event is lost for the stream, as on a real outage;
      // the gateway's reconciliation recovers it.
      this.counters.dropped++;
      return;
    }
    if (this.paused) {
      this.counters.paused++;
      return;
    }
    const payload = JSON.stringify(rec);
    const fate = this.fate();
    if (fate === "drop") {
      this.counters.dropped++;
      return;
    }
    if (fate === "hold" && !this.held.has(subject)) {
      // Held behind the next message on the subject, or released after reorderMaxMs (never lost).
      const h = { payload, timer: undefined as NodeJS.Timeout | undefined };
      if (this.pf.reorderProbability !== undefined)
        h.timer = setTimeout(() => this.releaseHeld(subject), this.pf.reorderMaxMs ?? 200);
      this.held.set(subject, h);
      this.counters.reordered++;
      return;
    }
    this.publish(subject, payload);
    if (fate === "dup") {
      this.counters.duplicated++;
      this.publish(subject, payload);
    }
    this.releaseHeld(subject);
  }

  /**
   * Publishes one public market data message as it is (no stream faults: like the Spot public
   * streams); false when it cannot go out (server down, publishing paused).
   */
  publishPublic(subject: string, payload: string): boolean {
    if (this.paused || !this.connected) return false;
    try {
      return this.o.local !== undefined
        ? this.o.local.publish(subject, payload)
        : this.pubNc(subject, payload);
    } catch {
      return false;
    }
  }

  private releaseHeld(subject: string): void {
    const h = this.held.get(subject);
    if (h === undefined) return;
    this.held.delete(subject);
    if (h.timer !== undefined) clearTimeout(h.timer);
    if (this.connected) this.publish(subject, h.payload);
    else this.counters.dropped++;
  }

  private publish(subject: string, payload: string): void {
    try {
      const ok =
        this.o.local !== undefined ? this.o.local.publish(subject, payload) : this.pubNc(subject, payload);
      if (ok) this.counters.published++;
      else this.counters.dropped++;
    } catch {
      this.counters.dropped++;
    }
  }

  private pubNc(subject: string, payload: string): boolean {
    const nc = this.nc;
    if (nc === undefined || nc.isClosed()) return false;
    nc.publish(subject, payload);
    return true;
  }

  /** Publisher connection; re-opened in the background after the server comes back. */
  private async connect(): Promise<NatsConnection> {
    const nc = await wsconnect({
      servers: this.o.url,
      wsFactory,
      user: this.o.user,
      pass: this.o.password,
      name: "hftgate-sim",
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 100,
      waitOnFirstConnect: true,
    } as Parameters<typeof wsconnect>[0]);
    return nc;
  }

  private users(): NatsGrant[] {
    const out: NatsGrant[] = [{ user: this.o.user, password: this.o.password }];
    for (const g of this.grants.values()) out.push(g.grant);
    return out;
  }

  private applyUsers(): Promise<void> {
    const authority = this.o.authority;
    if (authority === undefined || this.closed) return Promise.resolve();
    // One rewrite at a time, in order; each one writes the list as it is when it runs.
    this.authChain = this.authChain.then(
      () => authority(this.users()),
      () => authority(this.users()),
    );
    return this.authChain;
  }

  private schedulePrune(): void {
    if (this.pruneTimer !== undefined) clearTimeout(this.pruneTimer);
    let next = Number.POSITIVE_INFINITY;
    for (const g of this.grants.values()) next = Math.min(next, g.expires);
    if (!Number.isFinite(next)) return;
    this.pruneTimer = setTimeout(() => this.prune(), Math.max(0, next - Date.now()) + 5);
    this.pruneTimer.unref();
  }

  private prune(): void {
    this.pruneTimer = undefined;
    const now = Date.now();
    let removed = 0;
    for (const [k, g] of this.grants) {
      if (g.expires > now) continue;
      this.grants.delete(k);
      removed++;
    }
    this.counters.revoked += removed;
    if (removed > 0) void this.applyUsers().catch(() => {});
    this.schedulePrune();
  }
}
