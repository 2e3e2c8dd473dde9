/**
 * The HFT private streams of exchange-api §6.4, published by the simulator to a real nats-server it is
 * given (it connects as a publisher): every HFT order change of an account on
 * `v1.f.ex1.private.subAccountId.<id>.order` (a `/v5/order/realtime` record + `sub_account_id`) and
 * every execution on `.trade` (a `/v5/execution/list` row + `sub_account_id`) [assumed payloads].
 *
 * Credentials: `/dma/api/v1/socket/signature` issues `{api_key, expires, signature}`; when the sim
 * also controls the server's user list (`authority`), each issued credential becomes a NATS user
 * (user = api_key, password = signature, subscribe limited to the private subjects, no publish) until
 * `expires`, then it is removed: the real server refuses it from then on (and ends connections that
 * used it). Stream faults (drop / duplicate / reorder) follow the simulator's stream fault model;
 * `paused` stops publishing while every connection stays up.
 */
import { createHash } from "node:crypto";
import { type NatsConnection, wsconnect } from "@nats-io/nats-core";
import WebSocket from "ws";
import type { Execution, SimAccount } from "./account.js";
import type { Faults } from "./faults.js";
import type { SimOrder } from "./order.js";
import { v5ExecutionRecord, v5Record } from "./records.js";

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
}

export interface SimNatsCounters {
  published: number;
  dropped: number;
  duplicated: number;
  reordered: number;
  paused: number;
  grants: number;
  revoked: number;
}

/** [assumed] the sub-account id: a stable number per account (the venue's is not published). */
export function subAccountIdOf(a: SimAccount): string {
  return String(
    Number.parseInt(createHash("sha256").update(a.apiKey).digest("hex").slice(0, 8), 16) % 100_000_000,
  );
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
  };
  /** Stop publishing (the connections stay up): the "silent stream" fault. */
  paused = false;
  private nc: NatsConnection | undefined;
  private readonly held = new Map<string, string>();
  private readonly grants = new Map<string, { grant: NatsGrant; expires: number }>();
  private pruneTimer: NodeJS.Timeout | undefined;
  private authChain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly o: SimNatsOptions,
    private readonly faults: Faults,
  ) {}

  async start(): Promise<void> {
    if (this.o.authority !== undefined) await this.o.authority(this.users());
    this.nc = await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pruneTimer !== undefined) clearTimeout(this.pruneTimer);
    await this.nc?.close().catch(() => {});
  }

  get connected(): boolean {
    return this.nc !== undefined && !this.nc.isClosed();
  }

  /**
   * A credential was issued: install it (when the sim controls the server's users). The answer to the
   * signature request waits for this, so the credential works as soon as the client has it.
   */
  grant(acct: SimAccount, apiKey: string, signature: string, expires: number): Promise<void> {
    if (this.o.authority === undefined) return Promise.resolve();
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
  }

  execution(acct: SimAccount, e: Execution): void {
    this.send(`${PRIVATE_PREFIX}.${subAccountIdOf(acct)}.trade`, {
      ...v5ExecutionRecord(e),
      sub_account_id: subAccountIdOf(acct),
    });
  }

  private send(subject: string, rec: unknown): void {
    const nc = this.nc;
    if (nc === undefined || nc.isClosed()) {
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
    const fate = this.faults.streamFate();
    if (fate === "drop") {
      this.counters.dropped++;
      return;
    }
    if (fate === "hold" && !this.held.has(subject)) {
      this.held.set(subject, payload);
      this.counters.reordered++;
      return;
    }
    this.publish(nc, subject, payload);
    if (fate === "dup") {
      this.counters.duplicated++;
      this.publish(nc, subject, payload);
    }
    const held = this.held.get(subject);
    if (held !== undefined) {
      this.held.delete(subject);
      this.publish(nc, subject, held);
    }
  }

  /**
   * Publishes one public market data message as it is (no stream faults: like the Spot public
   * streams); false when it cannot go out (server down, publishing paused).
   */
  publishPublic(subject: string, payload: string): boolean {
    const nc = this.nc;
    if (nc === undefined || nc.isClosed() || this.paused) return false;
    try {
      nc.publish(subject, payload);
      return true;
    } catch {
      return false;
    }
  }

  private publish(nc: NatsConnection, subject: string, payload: string): void {
    try {
      nc.publish(subject, payload);
      this.counters.published++;
    } catch {
      this.counters.dropped++;
    }
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
