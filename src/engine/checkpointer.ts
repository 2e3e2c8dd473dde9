/**
 * Takes the journal's checkpoint (journal/checkpoint.ts) every `journal.checkpointIntervalMs` and at
 * a clean stop, then applies the retention (journal/retention.ts). Off the hot path: one synchronous
 * moment fixes the position (the journal written up to here) and what is live then; the journal is
 * fsync'd, then read from the previous checkpoint's position to that one a chunk per event-loop turn,
 * reduced to what start-up needs (checkpointRecords.ts) and written atomically.
 */
import { statSync } from "node:fs";
import { basename } from "node:path";
import type { Logger } from "pino";
import type { Config } from "../config/load.js";
import {
  type Checkpoint,
  encodeCheckpoint,
  type JournalPosition,
  loadCheckpoint,
  writeCheckpointFile,
} from "../journal/checkpoint.js";
import { journalFiles } from "../journal/files.js";
import type { JournalIdentity } from "../journal/identity.js";
import { readRange } from "../journal/rangeRead.js";
import type { JournalRecord } from "../journal/records.js";
import { prunable, prune } from "../journal/retention.js";
import type { Journal } from "../journal/writer.js";
import { type Order, TERMINAL } from "../orders/index.js";
import type { RiskGate } from "../risk/riskGate.js";
import { Compactor } from "./checkpointRecords.js";
import type { Engine } from "./engine.js";
import type { InstrumentBook } from "./instruments.js";

export interface CheckpointerOptions {
  readonly dir: string;
  readonly identity: JournalIdentity;
  /** 0: no periodic checkpoint (one is still taken at a clean stop unless `enabled` is false). */
  readonly intervalMs: number;
  /** Files wholly covered and not written for this long are pruned. */
  readonly retentionMs: number;
  /** "" deletes pruned files; otherwise they are moved here. */
  readonly archiveDir: string;
  /** Frames kept per session (the resume ring). */
  readonly ring: number;
  /** Orders created this recently are kept finished or not (Query answers for them after a restart). */
  readonly finishedMs: number;
  /** A checkpoint is written only once the journal it would cover grew by this much since the last one. */
  readonly minBytes: number;
  readonly now?: () => number;
}

export interface CheckpointerParts {
  readonly engine: Pick<Engine, "store" | "owners">;
  readonly risk: Pick<RiskGate, "exposure">;
  readonly book: InstrumentBook;
  readonly journal: Journal;
  readonly log: Logger;
  /** The checkpoint start-up used: the next one reads the journal from its position. */
  readonly start: Checkpoint | undefined;
}

/** The checkpointer's knobs from the configuration (`journal.dir` expanded). */
export function checkpointOptions(
  config: Pick<Config, "journal" | "gateway">,
  identity: JournalIdentity,
): CheckpointerOptions {
  const j = config.journal;
  return {
    dir: j.dir,
    identity,
    intervalMs: j.checkpointIntervalMs,
    retentionMs: j.retentionDays * 86_400_000,
    archiveDir: j.archiveDir,
    ring: config.gateway.resumeRing,
    finishedMs: j.checkpointFinishedMs,
    minBytes: j.checkpointMinBytes,
  };
}

/** What one checkpoint came to (logged; the bench and tests read it). */
export interface CheckpointTaken {
  readonly path: string;
  readonly covers: JournalPosition;
  readonly records: number;
  /** Journal records read to build it (the previous checkpoint's position to this one). */
  readonly read: number;
  readonly ms: number;
  readonly pruned: number;
}

/** A live order at the checkpoint: its fills are rebuilt by replaying its records, so they are not in the seed. */
interface Held {
  readonly key: string;
  readonly signedLots: number;
}

export class Checkpointer {
  private prev: Checkpoint | undefined;
  private running: Promise<CheckpointTaken | undefined> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(
    private readonly o: CheckpointerOptions,
    private readonly p: CheckpointerParts,
  ) {
    this.prev = p.start;
    this.now = o.now ?? Date.now;
  }

  /** Starts the periodic checkpoint and applies the retention once. */
  start(): void {
    this.applyRetention();
    if (this.o.intervalMs <= 0) return;
    this.timer = setInterval(() => void this.take("periodic"), this.o.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The clean stop's checkpoint: no more periodic ones, one under way finished first, then one to the journal's end. */
  async atStop(): Promise<CheckpointTaken | undefined> {
    this.stop();
    if (this.running !== undefined) await this.running;
    return this.take("stop");
  }

  /** One checkpoint (a second call while one is under way waits for it); undefined when none could be taken. */
  take(why: string): Promise<CheckpointTaken | undefined> {
    if (this.running !== undefined) return this.running;
    this.running = this.build(why)
      .catch((err: unknown) => {
        this.p.log.error({ err: String(err), why }, "journal checkpoint failed: the previous one stays");
        return undefined;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async build(why: string): Promise<CheckpointTaken | undefined> {
    const { journal, engine, log } = this.p;
    const t0 = performance.now();
    // The one synchronous moment: the position, what is live and the positions, as of the same record.
    if (!journal.flushSync() && journal.failure !== undefined) return undefined;
    if (journal.failure !== undefined) return undefined;
    const covers: JournalPosition = { file: basename(journal.path), offset: journal.position };
    // A short journal is read whole at start as fast as a checkpoint: none until there is enough of it.
    const grown =
      coveredBytes(this.o.dir, covers) - (this.prev ? coveredBytes(this.o.dir, this.prev.head.covers) : 0);
    if (grown < Math.max(1, this.o.minBytes)) return undefined;
    const keep = new Set<string>();
    const held = new Map<string, Held>();
    const hold = (clientId: string): void => {
      const o = engine.store.byClientId(clientId);
      if (o === undefined || keep.has(clientId)) return;
      keep.add(clientId);
      const h = heldNow(o, this.p.book);
      if (h !== undefined) held.set(clientId, h);
    };
    for (const o of engine.store.liveSet()) if (!TERMINAL[o.status]) hold(o.clientId);
    // Messages still owed to a session that is away: its order stays until they are told.
    engine.owners.forEachKept((owner, clOrdNo) => {
      const o = engine.store.bySessionOrder(owner, clOrdNo);
      if (o !== undefined) hold(o.clientId);
    });
    const positions = new Map<string, number>();
    for (const inst of this.p.book.all()) {
      const lots = this.p.risk.exposure(inst.id)?.position ?? 0;
      if (lots !== 0) positions.set(this.p.book.byId(inst.id)!.key, lots);
    }
    // What the checkpoint covers is on disk before the checkpoint says so.
    await journal.sync();
    const prev = this.prev;
    const recent = Date.now() - this.o.finishedMs;
    const c = new Compactor(keep, this.o.ring, prev?.head.orderNumbers, recent);
    for (const r of prev?.records ?? []) c.add(r);
    const read = await this.readUpTo(prev?.head.covers, covers, (r) => c.add(r));
    const { records, orderNumbers } = c.result();
    // Fills of the orders kept are replayed from their records: the seed is the rest of the position
    // (as of the checkpoint's moment: an order finished then has not changed since).
    for (const id of c.orders) {
      const h = held.get(id) ?? heldNow(engine.store.byClientId(id), this.p.book);
      if (h !== undefined) positions.set(h.key, (positions.get(h.key) ?? 0) - h.signedLots);
    }
    const covered = coveredBytes(this.o.dir, covers);
    const head = {
      identity: this.o.identity,
      covers,
      takenAt: this.now(),
      ring: this.o.ring,
      orderNumbers,
      positions: Object.fromEntries([...positions].filter(([, v]) => v !== 0)),
      coveredBytes: covered,
    };
    const buf = encodeCheckpoint(head, records);
    const path = writeCheckpointFile(this.o.dir, buf);
    this.prev = { head: { ...head, v: 1, records: records.length }, records };
    const pruned = this.applyRetention();
    const taken: CheckpointTaken = {
      path,
      covers,
      records: records.length,
      read,
      ms: Math.round(performance.now() - t0),
      pruned,
    };
    log.info({ why, ...taken, bytes: buf.length, coveredBytes: covered }, "journal checkpoint written");
    return taken;
  }

  /** Feeds every journal record after `from` (the start of the journal when undefined) up to `to`. */
  private async readUpTo(
    from: JournalPosition | undefined,
    to: JournalPosition,
    onRecord: (r: JournalRecord) => void,
  ): Promise<number> {
    const files = journalFiles(this.o.dir);
    let i = from === undefined ? 0 : files.findIndex((f) => basename(f) === from.file);
    if (i < 0) throw new Error(`the previous checkpoint's journal file ${from!.file} is gone`);
    let n = 0;
    for (; i < files.length; i++) {
      const f = files[i]!;
      const last = basename(f) === to.file;
      const start = from !== undefined && basename(f) === from.file ? from.offset : 0;
      n += await readRange(f, start, last ? to.offset : statSync(f).size, onRecord);
      if (last) return n;
    }
    throw new Error(`journal file ${to.file} not found`);
  }

  /** Prunes what both checkpoint generations cover and is older than the retention; returns how many files. */
  private applyRetention(): number {
    if (this.o.retentionMs <= 0) return 0;
    try {
      const older = loadCheckpoint(this.o.dir, this.o.identity).older;
      if (older === undefined) return 0;
      const now = this.now();
      const files = prunable(journalFiles(this.o.dir), older.head.covers, now, this.o.retentionMs);
      const n = prune(this.o.dir, files, this.o.archiveDir, now);
      if (n > 0)
        this.p.log.info(
          { files: files.map((f) => basename(f)), to: this.o.archiveDir || "deleted" },
          "journal retention: files covered by the checkpoint and past the retention pruned",
        );
      return n;
    } catch (err) {
      this.p.log.error({ err: String(err) }, "journal retention failed: nothing more pruned");
      return 0;
    }
  }
}

function heldNow(o: Order | undefined, book: InstrumentBook): Held | undefined {
  const e = o === undefined ? undefined : book.byId(o.instrumentId);
  if (o === undefined || e === undefined) return undefined;
  return { key: e.key, signedLots: o.side === "buy" ? o.filledLots : -o.filledLots };
}

/** Bytes of the files before the covered one, plus the covered stretch. */
function coveredBytes(dir: string, covers: JournalPosition): number {
  let n = 0;
  for (const f of journalFiles(dir)) {
    if (basename(f) === covers.file) return n + covers.offset;
    n += statSync(f).size;
  }
  return n;
}
