/**
 * The journal at start: opening this run's file, then the one read of the earlier files. Every record
 * goes, in journal order, to each of: the order replay (rebuilds the store, risk and owners; venue
 * `exchange` only, since the embedded simulator starts empty and has nothing to reconcile against),
 * the session restorer (named sessions resume: seq, resume ring) and the told-vs-known ledger (what
 * each session was told). With a usable checkpoint (startCheck.ts) the read is its records, then the
 * journal after its position; its order numbers and positions are set first. Nothing else at start
 * reads the journal.
 */
import { basename } from "node:path";
import type { Logger } from "pino";
import type { Config } from "../config/load.js";
import { SessionRestorer } from "../gateway/restore.js";
import type { Checkpoint } from "../journal/checkpoint.js";
import { chronological, listJournals } from "../journal/files.js";
import type { JournalIdentity } from "../journal/identity.js";
import { windowAddon, windowAddonMissing } from "../journal/mappedWindow.js";
import { type JournalConsumer, type JournalPart, readJournalsInto } from "../journal/reader.js";
import { Journal } from "../journal/writer.js";
import type { RiskGate } from "../risk/riskGate.js";
import type { Surfaces } from "../venue/surface.js";
import type { Engine } from "./engine.js";
import type { InstrumentBook } from "./instruments.js";
import type { JournalHalt } from "./journalHalt.js";
import { orderReplay, type ReplaySummary } from "./orderReplay.js";
import { ToldLedger } from "./toldVsKnown.js";

/** What the start-up read hands to the rest of the restart. */
export interface JournalStart {
  /** The order replay's summary; undefined when orders are not replayed. */
  replay: ReplaySummary | undefined;
  /** Orders rebuilt live (resolved by client id before anything is re-sent). */
  replayedIds: readonly string[];
  /** Named sessions of earlier runs (`result()` when the gateway is built); undefined = none read. */
  sessions: SessionRestorer | undefined;
  ledger: ToldLedger;
}

/**
 * Opens this run's journal file. Opened before the earlier files are listed, and excluded by path
 * from the read, so the read never sees what this run writes.
 */
export function openJournal(
  config: Pick<Config, "journal">,
  halt: Pick<JournalHalt, "onError" | "onRecover">,
  /** This venue's and account's identity, written in the new file's head (journalGate.ts). */
  identity: JournalIdentity,
  log: Logger,
  cleanups: (() => Promise<void> | void)[],
): Journal | undefined {
  if (!config.journal.enabled) return undefined;
  const j = config.journal;
  const journal = Journal.open({
    dir: j.dir,
    identity,
    fsync: j.fsync === "interval" ? { intervalMs: j.fsyncIntervalMs } : j.fsync,
    onWarning: (msg) => log.warn({}, msg),
    // A write that fails halts trading until a retried write succeeds (journalHalt.ts).
    onError: halt.onError,
    onRecover: halt.onRecover,
    retryIntervalMs: j.retryIntervalMs,
    writeMode:
      j.writeMode === "write" || (j.writeMode === "auto" && windowAddon() === undefined) ? "sync" : "map",
  });
  cleanups.push(() => journal.close());
  log.info(
    {
      file: journal.path,
      writeMode: journal.mode,
      ...(journal.mode === "write" && { mapped: windowAddonMissing() ?? "off" }),
    },
    "journal opened",
  );
  return journal;
}

/**
 * The files the start reads, oldest first: every earlier file of `journal.dir`, or with a checkpoint
 * the file it covers from its position on and the files after it.
 */
export function filesToRead(dir: string, current: Journal, checkpoint?: Checkpoint): JournalPart[] {
  const files = chronological(listJournals(dir).filter((f) => f !== current.path));
  if (checkpoint === undefined) return files;
  const { file, offset } = checkpoint.head.covers;
  const at = files.findIndex((f) => basename(f) === file);
  if (at < 0) return files;
  return [{ path: files[at]!, from: offset }, ...files.slice(at + 1)];
}

/** The one start-up pass over the journal directory (the file just opened by this run excluded). */
export function readJournalAtStart(
  engine: Engine,
  book: InstrumentBook,
  surfaces: Surfaces,
  config: Pick<Config, "journal" | "engine" | "venue" | "gateway">,
  journal: Journal | undefined,
  log: Logger,
  checkpoint?: Checkpoint & { readonly path: string },
  risk?: Pick<RiskGate, "setPosition">,
): JournalStart {
  const ledger = new ToldLedger();
  const none: JournalStart = { replay: undefined, replayedIds: [], sessions: undefined, ledger };
  if (journal === undefined || !config.engine.replayJournal) return none;
  const files = filesToRead(config.journal.dir, journal, checkpoint);
  const sessions = new SessionRestorer({ ...config.gateway, nowMs: Date.now() });
  const orders = config.venue.kind === "exchange" ? orderReplay(engine, book, surfaces) : undefined;
  const consumers: JournalConsumer[] = orders === undefined ? [sessions, ledger] : [orders, sessions, ledger];
  // In replay mode: no requests, no messages (only the store, risk and owners are rebuilt).
  const read = engine.run.replay(() => {
    if (checkpoint !== undefined)
      seed(checkpoint, engine, book, orders === undefined ? undefined : risk, consumers, log);
    const r = readJournalsInto(files, consumers);
    return checkpoint === undefined ? r : { ...r, records: r.records + checkpoint.records.length };
  });
  if (orders === undefined) return { ...none, sessions };
  const r = orders.finish({ files: files.length, ...read }, log);
  return { replay: r.summary, replayedIds: r.replayedIds, sessions, ledger };
}

/** The checkpoint first: order numbers, the positions its records do not rebuild, then its records. */
function seed(
  c: Checkpoint & { readonly path: string },
  engine: Engine,
  book: InstrumentBook,
  risk: Pick<RiskGate, "setPosition"> | undefined,
  consumers: readonly JournalConsumer[],
  log: Logger,
): void {
  for (const [name, no] of Object.entries(c.head.orderNumbers)) engine.noteOrderNo(engine.ownerOf(name), no);
  for (const [key, lots] of Object.entries(c.head.positions)) {
    const e = book.byKey(key);
    if (e !== undefined) risk?.setPosition(e.inst.id, lots);
  }
  for (const r of c.records) for (const k of consumers) k.add(r);
  log.info(
    {
      checkpoint: c.path,
      covers: c.head.covers,
      records: c.records.length,
      coveredBytes: c.head.coveredBytes,
    },
    "journal checkpoint read: the journal after its position follows",
  );
}
