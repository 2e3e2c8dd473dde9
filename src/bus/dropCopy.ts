/**
 * Drop copy: every order event, fill, reject, balance / position update and trading-state change of
 * every session, published to the account's JetStream stream in the order the gateway produced them.
 *
 * Each event gets an account-wide `dcSeq` (never restarts: the spool and the stream both remember
 * the last one) and goes to the spool on disk before anything else, so NATS being down costs nothing
 * but memory for the queue and disk for the spool. Publishing is pipelined with two guards from
 * JetStream itself: `Nats-Msg-Id` = `<account>:<dcSeq>` (de-duplication) and the expected last stream
 * sequence (a publish lands only directly after the one before it). Any failure (timeout, leader
 * change, wrong sequence, disconnect) stops the pipe; a resync reads the stream's last message, drops
 * what it already holds and publishes the rest: no gap, no duplicate, also across a gateway restart.
 */

import {
  DiscardPolicy,
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from "@nats-io/jetstream";
import { headers, type NatsConnection, nanos } from "@nats-io/nats-core";
import type { SessionInfo } from "../gateway/engineApi.js";
import type { FrameTap } from "../gateway/gateway.js";
import type { FsyncPolicy } from "../journal/writer.js";
import { g2cByType } from "../protocol/codec.js";
import { Spool, type SpoolEntry } from "./spool.js";
import { dcMsgId, HEADER, streamName, subjects } from "./subjects.js";

export interface DropCopyOptions {
  account: string;
  spoolDir: string;
  fsync: FsyncPolicy;
  /** Stream replicas (1 on a single server, 3 on a 3-node cluster). */
  replicas: number;
  /** Retention: messages older than this are removed (0 = keep). */
  maxAgeMs: number;
  /** Retention: at most this many messages (-1 = no limit); the oldest go first. */
  maxMsgs: number;
  /** JetStream's de-duplication window for `Nats-Msg-Id`. */
  dedupWindowMs: number;
  /** Events held unconfirmed (memory and spool) before new ones are dropped and counted as lost. */
  maxPending: number;
  /** Publishes in flight at once. */
  window?: number;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void };
}

/** Sessioned event types that go to the drop copy (Query answers and logon snapshots do not). */
const SESSION_EVENTS = new Set(["Ack", "Reject", "OrderUpdate", "Fill", "CancelReject", "OutcomeUnknown"]);
/** Account-wide broadcasts that go to the drop copy. */
const ACCOUNT_EVENTS = new Set(["BalanceUpdate", "PositionUpdate", "TradingState"]);
/** OrderUpdate.requestId offset: non-zero = an answer to a Query, not an event. */
const REQUEST_ID_AT = 40;

interface Entry extends SpoolEntry {
  /** 1 = published and awaiting its ack. */
  sent: number;
  /** When the gateway produced it (ms; for spooled ones, when this process loaded them): the lag. */
  atMs: number;
}

/**
 * Where the drop copy is (/health, /metrics): `connecting` before the bus's first NATS connection,
 * `starting` while it reads its stream, `streaming`, `disconnected` while NATS is away, `error` while
 * its stream cannot be reached or created (the reason in `error`; retried every 250 ms), `stopped`.
 */
export type DropCopyState = "connecting" | "starting" | "streaming" | "disconnected" | "error" | "stopped";

export class DropCopy {
  private readonly spool: Spool;
  private readonly queue: Entry[] = [];
  private head = 0;
  private nextDc: number;
  /** Highest dcSeq the stream holds (confirmed). */
  private ackedDc: number;
  /** Stream sequence of the last publish sent (the next one expects it as the stream's last). */
  private lastStreamSeq = -1;
  private inflight = 0;
  private nc: NatsConnection | undefined;
  private js: JetStreamClient | undefined;
  private jsm: JetStreamManager | undefined;
  private ready = false;
  private resyncing = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private down = false;
  /** The last resync's failure while it has not succeeded since (the drop copy cannot start). */
  private failure: string | undefined;
  private readonly window: number;
  private readonly stream: string;
  readonly stats = { events: 0, published: 0, lost: 0, resyncs: 0, failures: 0 };

  constructor(private readonly o: DropCopyOptions) {
    const { spool, load } = Spool.open(o.spoolDir, o.fsync);
    this.spool = spool;
    this.ackedDc = load.ackedDc;
    this.nextDc = load.lastDc + 1;
    const now = Date.now();
    for (const e of load.pending) this.queue.push({ ...e, sent: 0, atMs: now });
    this.window = o.window ?? 256;
    this.stream = streamName(o.account);
    if (load.pending.length > 0)
      o.log.info(
        { pending: load.pending.length, fromDc: load.pending[0]!.dc },
        "drop copy: events from the spool",
      );
  }

  /** The gateway tap (bound): keeps the events, in order. */
  readonly tap: FrameTap = (session: SessionInfo | undefined, name: string, frame: Uint8Array): void => {
    if (session === undefined) {
      if (!ACCOUNT_EVENTS.has(name)) return;
    } else if (!SESSION_EVENTS.has(name)) return;
    else if (name === "OrderUpdate" && readU32(frame, REQUEST_ID_AT) !== 0) return;
    this.stats.events++;
    if (this.queue.length - this.head >= this.o.maxPending) {
      this.stats.lost++;
      return;
    }
    const dc = this.nextDc++;
    const sname = session?.name ?? "";
    const copy = new Uint8Array(frame);
    this.spool.append(dc, sname, copy);
    this.queue.push({ dc, session: sname, frame: copy, sent: 0, atMs: Date.now() });
    if (this.ready && this.inflight < this.window) queueMicrotask(this.pumpCb);
  };

  /** Events not yet confirmed by the stream. */
  get pending(): number {
    return this.queue.length - this.head;
  }

  /** The stream is there and publishing runs (not during a resync or while NATS is away). */
  get streaming(): boolean {
    return this.ready;
  }

  get lastDc(): number {
    return this.nextDc - 1;
  }

  get state(): DropCopyState {
    if (this.closed) return "stopped";
    if (this.nc === undefined) return "connecting";
    if (this.failure !== undefined) return "error";
    if (this.down) return "disconnected";
    return this.ready ? "streaming" : "starting";
  }

  /** Why the stream cannot be reached, while it cannot (the NATS client's error, no secret in it). */
  get error(): string | undefined {
    return this.failure;
  }

  /** Age of the oldest event not yet confirmed by the stream, in ms (0 when none waits). */
  lagMs(now = Date.now()): number {
    return this.head < this.queue.length ? now - this.queue[this.head]!.atMs : 0;
  }

  /** Starts publishing on this connection (creates or updates the stream, then resyncs). */
  attach(nc: NatsConnection): void {
    this.nc = nc;
    this.js = jetstream(nc, { timeout: 2000 });
    this.ready = false;
    void this.resync();
  }

  /** The connection went down: stop until `reconnected`. */
  disconnected(): void {
    this.ready = false;
    this.down = true;
  }

  reconnected(): void {
    this.down = false;
    if (this.nc !== undefined && !this.closed) void this.resync();
  }

  private async ensureStream(): Promise<void> {
    this.jsm ??= await jetstreamManager(this.nc!, { timeout: 2000 });
    const cfg = {
      subjects: [subjects.dropCopyAll(this.o.account)],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      num_replicas: this.o.replicas,
      max_age: nanos(this.o.maxAgeMs),
      max_msgs: this.o.maxMsgs,
      duplicate_window: nanos(this.o.dedupWindowMs),
      discard: DiscardPolicy.Old,
    };
    try {
      await this.jsm.streams.info(this.stream);
      await this.jsm.streams.update(this.stream, cfg);
    } catch (err) {
      if (!String(err).includes("not found")) throw err;
      await this.jsm.streams.add({ name: this.stream, ...cfg });
    }
  }

  /** Reads where the stream is, drops what it already holds, then publishes the rest. */
  private async resync(): Promise<void> {
    if (this.resyncing || this.closed) return;
    this.resyncing = true;
    this.ready = false;
    this.stats.resyncs++;
    try {
      while (this.inflight > 0) await new Promise((r) => setTimeout(r, 5));
      await this.ensureStream();
      const info = await this.jsm!.streams.info(this.stream);
      const last = info.state.last_seq;
      let lastDc = 0;
      if (last > 0 && info.state.messages > 0) {
        const m = await this.jsm!.streams.getMessage(this.stream, { seq: last });
        lastDc = Number(m?.header.get(HEADER.dcSeq)) || 0;
      }
      if (lastDc > this.ackedDc) this.confirm(lastDc);
      if (lastDc >= this.nextDc) this.nextDc = lastDc + 1; // a spool lost on disk: continue the stream's numbering
      for (let i = this.head; i < this.queue.length; i++) this.queue[i]!.sent = 0;
      this.lastStreamSeq = last;
      this.ready = true;
      this.resyncing = false;
      if (this.failure !== undefined)
        this.o.log.info({ stream: this.stream }, "drop copy: stream reachable again");
      this.failure = undefined;
      this.pump();
    } catch (err) {
      this.resyncing = false;
      const why = String(err);
      // Logged when the reason changes, not at every retry; /health and /metrics show it meanwhile.
      if (why !== this.failure)
        this.o.log.warn(
          { err: why, stream: this.stream },
          "drop copy: stream not reachable, retrying every 250 ms",
        );
      this.failure = why;
      this.retryLater();
    }
  }

  private retryLater(): void {
    if (this.closed || this.retryTimer !== undefined) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.resync();
    }, 250);
    this.retryTimer.unref();
  }

  private readonly pumpCb = (): void => this.pump();

  private pump(): void {
    if (!this.ready || this.closed) return;
    const js = this.js!;
    for (let i = this.head; i < this.queue.length && this.inflight < this.window; i++) {
      const e = this.queue[i]!;
      if (e.sent !== 0) continue;
      e.sent = 1;
      this.inflight++;
      const expect = this.lastStreamSeq;
      this.lastStreamSeq++;
      const h = headers();
      h.set(HEADER.dcSeq, String(e.dc));
      h.set(HEADER.session, e.session);
      const type = g2cByType(e.frame[1]!)?.def.name ?? "Unknown";
      js.publish(subjects.dropCopy(this.o.account, type), e.frame, {
        msgID: dcMsgId(this.o.account, e.dc),
        expect: { lastSequence: expect },
        headers: h,
      }).then(
        (ack) => {
          this.inflight--;
          if (ack.duplicate) this.stats.failures++; // never expected: a resync reads the stream first
          this.confirm(e.dc);
        },
        (err: unknown) => {
          this.inflight--;
          this.stats.failures++;
          if (this.ready) {
            this.ready = false;
            this.o.log.warn({ err: String(err), dc: e.dc }, "drop copy: publish failed, resyncing");
          }
          this.retryLater();
        },
      );
    }
  }

  /** Everything up to `dc` is in the stream. */
  private confirm(dc: number): void {
    let moved = false;
    while (this.head < this.queue.length && this.queue[this.head]!.dc <= dc) {
      this.head++;
      this.stats.published++;
      moved = true;
    }
    if (dc > this.ackedDc) this.ackedDc = dc;
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    if (moved && (this.stats.published & 255) === 0) this.spool.acked(this.ackedDc);
    if (this.ready) this.pump();
  }

  /** Waits until every event so far is confirmed (or the timeout passes); true when all are. */
  async drain(timeoutMs: number): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (this.pending > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    return this.pending === 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.ready = false;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.spool.acked(this.ackedDc);
    await this.spool.close();
  }
}

function readU32(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) + b[at + 3]! * 0x1000000;
}
