/**
 * Start-up reads the earlier journal files once. Every record goes, in journal order, to each of:
 * the order replay (rebuilds the store, risk and owners; venue `exchange` only, since the embedded
 * simulator starts empty and has nothing to reconcile against), the session restorer (named sessions
 * resume: seq, resume ring) and the told-vs-known ledger (what each session was told).
 */
import type { Logger } from "pino";
import type { Config } from "../config/load.js";
import { SessionRestorer } from "../gateway/restore.js";
import { type JournalConsumer, listJournals, readJournalsInto } from "../journal/reader.js";
import type { Journal } from "../journal/writer.js";
import type { Engine } from "./engine.js";
import type { InstrumentBook } from "./instruments.js";
import { chronological, orderReplay, type ReplaySummary } from "./recovery.js";
import { ToldLedger } from "./toldVsKnown.js";

export interface JournalStart {
  /** The order replay's summary; undefined when orders are not replayed. */
  replay: ReplaySummary | undefined;
  /** Orders rebuilt live (resolved by client id before anything is re-sent). */
  replayedIds: readonly string[];
  /** Named sessions of earlier runs (`result()` when the gateway is built); undefined = none read. */
  sessions: SessionRestorer | undefined;
  ledger: ToldLedger;
}

/** The one start-up pass over the journal directory (the file just opened by this run excluded). */
export function readJournalAtStart(
  engine: Engine,
  book: InstrumentBook,
  config: Pick<Config, "journal" | "engine" | "venue" | "gateway">,
  journal: Journal | undefined,
  log: Logger,
): JournalStart {
  const ledger = new ToldLedger();
  const none: JournalStart = { replay: undefined, replayedIds: [], sessions: undefined, ledger };
  if (journal === undefined || !config.engine.replayJournal) return none;
  const files = chronological(listJournals(config.journal.dir).filter((f) => f !== journal.path));
  const g = config.gateway;
  const sessions = new SessionRestorer({
    ring: g.resumeRing,
    retentionMs: g.sessionRetentionMs,
    maxSessions: g.maxRetainedSessions,
    nowMs: Date.now(),
  });
  const orders = config.venue.kind === "exchange" ? orderReplay(engine, book) : undefined;
  const consumers: JournalConsumer[] = orders === undefined ? [sessions, ledger] : [orders, sessions, ledger];
  // In replay mode: no requests, no messages (only the store, risk and owners are rebuilt).
  const read = engine.run.replay(() => readJournalsInto(files, consumers));
  if (orders === undefined) return { ...none, sessions };
  const r = orders.finish({ files: files.length, ...read }, log);
  return { replay: r.summary, replayedIds: r.replayedIds, sessions, ledger };
}
