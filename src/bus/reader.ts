/**
 * Reading an account's drop copy (`hftgate tail`, risk and P&L services, the tests): an ordered
 * JetStream consumer from a stream sequence. A reader that keeps the last stream sequence it handled
 * and starts again from the next one reads every event exactly once, in order, also after its own
 * restart; `streamSeq` has no gaps while the stream's retention has not removed anything.
 */

import { type ConsumerMessages, DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { decodeG2C, type G2CMessage } from "../protocol/codec.js";
import { HEADER, streamName } from "./subjects.js";

export interface DropCopyEvent {
  /** The stream's sequence (1, 2, 3, ... per account). */
  streamSeq: number;
  /** The gateway's drop-copy sequence (strictly increasing per account). */
  dcSeq: number;
  /** Session name ("" for account-wide events: balances, positions, trading state). */
  session: string;
  /** The protocol message as the session received it (header sessionId/seq 0 for account-wide). */
  msg: G2CMessage;
  /** Stream time, ms since the epoch. */
  timeMs: number;
}

export interface DropCopyReading {
  /** Last stream sequence handed to `onEvent` (0 = none yet). */
  readonly lastSeq: number;
  stop(): Promise<void>;
}

export interface ReadOptions {
  account: string;
  /** First stream sequence to read (default 1: everything retained). */
  fromSeq?: number;
  onEvent(e: DropCopyEvent): void;
  /**
   * How long the reader may make no progress while the stream holds events past the last one it
   * handled before it drops its consumer and starts a fresh one from the next sequence (default 3000).
   */
  stallMs?: number;
}

export async function readDropCopy(nc: NatsConnection, o: ReadOptions): Promise<DropCopyReading> {
  const js = jetstream(nc, { timeout: 5000 });
  const stream = streamName(o.account);
  let lastSeq = Math.max(1, o.fromSeq ?? 1) - 1;
  let stopped = false;
  const open = async (): Promise<ConsumerMessages> => {
    const consumer = await js.consumers.get(stream, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: lastSeq + 1,
    });
    const msgs = await consumer.consume({ max_messages: 512, expires: 2000 });
    // The library recreates an ordered consumer itself; if that keeps failing (its node gone, no
    // quorum for a while), start a fresh one from the next sequence instead of waiting for ever.
    void (async () => {
      for await (const s of msgs.status()) {
        if (s.type === "heartbeats_missed" && s.count >= 3) msgs.stop();
      }
    })().catch(() => {});
    return msgs;
  };
  let msgs: ConsumerMessages | undefined = await open(); // the first failure (e.g. permission) is the caller's
  // Progress watchdog. After a node loss the library's own recovery can leave a consumer that neither
  // delivers nor reports missed heartbeats; the stream's last sequence says whether anything is owed.
  const jsm = await jetstreamManager(nc, { timeout: 2000, checkAPI: false });
  const stallMs = o.stallMs ?? 3000;
  let seenAt = Date.now();
  let seenSeq = lastSeq;
  let checking = false;
  const watchdog = setInterval(
    () => {
      if (lastSeq !== seenSeq) {
        seenSeq = lastSeq;
        seenAt = Date.now();
        return;
      }
      if (checking || stopped || Date.now() - seenAt < stallMs) return;
      checking = true;
      jsm.streams
        .info(stream)
        .then((info) => {
          if (!stopped && lastSeq === seenSeq && info.state.last_seq > lastSeq) {
            seenAt = Date.now();
            msgs?.stop();
          }
        })
        .catch(() => {}) // no leader yet: the next tick asks again
        .finally(() => {
          checking = false;
        });
    },
    Math.max(100, Math.floor(stallMs / 3)),
  );
  watchdog.unref();
  const loop = (async () => {
    while (!stopped) {
      try {
        msgs ??= await open();
        for await (const m of msgs) {
          const seq = m.seq;
          if (seq <= lastSeq) continue; // an ordered consumer never repeats; guard anyway
          lastSeq = seq;
          const msg = decodeG2C(m.data);
          if (msg.name === undefined) continue;
          o.onEvent({
            streamSeq: seq,
            dcSeq: Number(m.headers?.get(HEADER.dcSeq)) || 0,
            session: m.headers?.get(HEADER.session) ?? "",
            msg,
            timeMs: Math.floor(m.info.timestampNanos / 1e6),
          });
        }
      } catch {
        // recreated below
      }
      msgs = undefined;
      if (!stopped) await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return {
    get lastSeq() {
      return lastSeq;
    },
    async stop() {
      stopped = true;
      clearInterval(watchdog);
      await msgs?.close();
      await loop.catch(() => {});
    },
  };
}
