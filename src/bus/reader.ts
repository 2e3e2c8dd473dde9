/**
 * Reading an account's drop copy (`hftgate tail`, risk and P&L services, the tests): an ordered
 * JetStream consumer from a stream sequence. A reader that keeps the last stream sequence it handled
 * and starts again from the next one reads every event exactly once, in order, also after its own
 * restart; `streamSeq` has no gaps while the stream's retention has not removed anything.
 */

import { type ConsumerMessages, DeliverPolicy, jetstream } from "@nats-io/jetstream";
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
}

export async function readDropCopy(nc: NatsConnection, o: ReadOptions): Promise<DropCopyReading> {
  const js = jetstream(nc, { timeout: 5000 });
  const from = Math.max(1, o.fromSeq ?? 1);
  const consumer = await js.consumers.get(streamName(o.account), {
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: from,
  });
  let lastSeq = from - 1;
  let msgs: ConsumerMessages | undefined = await consumer.consume({ max_messages: 512, expires: 2000 });
  const loop = (async () => {
    for await (const m of msgs!) {
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
  })();
  return {
    get lastSeq() {
      return lastSeq;
    },
    async stop() {
      const x = msgs;
      msgs = undefined;
      await x?.close();
      await loop.catch(() => {});
    },
  };
}
