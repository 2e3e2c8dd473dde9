/**
 * What happens at restart, in order. Every start runs it (an empty journal directory is a restart with
 * nothing to restore); `lifecycle.boot` calls it once the engine and the venue sync exist.
 *
 *  1. The journal is read once (startJournal.ts): one pass feeds the order replay (orderReplay.ts),
 *     the session restorer (gateway/restore.ts) and the told-vs-known ledger (toldVsKnown.ts); with
 *     a checkpoint, its records and then the journal after its position.
 *  2. Replayed live orders are marked replayed: resolved by client id, never re-sent.
 *  3. Reconciliation (venue/sync.ts): the open lists read, every replayed or unanswered order asked
 *     for by client id before anything else happens.
 *  4. Orphans adopted (orphans.ts): venue orders open at the venue that the gateway does not know.
 *  5. The push feeds start; each reconciles as it starts.
 *  6. HFT positions loaded (startPositions.ts): the venue's snapshot replaces what replayed fills added.
 *  7. Sessions restored with their resume rings; the command API is built around them.
 *  8. Told vs known: what each restored session was due before the crash and never told is sent.
 *  9. The engine is attached to the command API, which starts listening.
 * 10. Cancel-on-disconnect re-armed: sessions whose last logon asked for it get their allowance now.
 */
import type { Logger } from "pino";
import type { Config } from "../config/load.js";
import type { SessionSink } from "../gateway/engineApi.js";
import type { RestoreResult } from "../gateway/restore.js";
import type { StartCheck } from "../journal/startCheck.js";
import type { Journal } from "../journal/writer.js";
import { TERMINAL } from "../orders/index.js";
import type { RiskGate } from "../risk/riskGate.js";
import { unheldOrders } from "../venue/orphans.js";
import type { RestStack } from "../venue/stack.js";
import type { Surfaces } from "../venue/surface.js";
import type { VenueSync } from "../venue/sync.js";
import type { Engine } from "./engine.js";
import type { InstrumentBook } from "./instruments.js";
import type { ReplaySummary } from "./orderReplay.js";
import { adoptOrphans, type OrphanSummary } from "./orphans.js";
import { readJournalAtStart } from "./startJournal.js";
import { loadPositions } from "./startPositions.js";
import { type ToldSummary, tellWhatWasDue } from "./toldVsKnown.js";

/** What a restart found and did (on the engine handle: `restart`). */
export interface RestartSummary {
  /** The order replay's counts; undefined when orders are not replayed (venue `sim`, journal off). */
  replay: ReplaySummary | undefined;
  /** Named sessions continued (seq, resume ring), and those found but past their retention. */
  sessions: { restored: number; expired: number };
  /** Messages due before the crash and sent to restored sessions now. */
  due: ToldSummary;
  /** Cancel-on-disconnect sessions given their allowance to come back. */
  codArmed: number;
  /** Venue orders the gateway did not know (a surface that could not be listed is retried). */
  orphans: OrphanSummary;
}

/** The parts the restart works on (built by lifecycle.boot before it). */
export interface RestartParts {
  config: Config;
  engine: Engine;
  sync: VenueSync;
  surfaces: Surfaces;
  instruments: InstrumentBook;
  rest: RestStack;
  risk: RiskGate;
  journal: Journal | undefined;
  /** What start-up's check found in the journal directory (`recovery`: damage moved aside). */
  journalCheck: StartCheck | undefined;
  log: Logger;
  cleanups: (() => Promise<void> | void)[];
}

/** The steps that are not the restart's own, called at their place in the sequence. */
export interface RestartSteps<A extends { readonly gateway: SessionSink }> {
  /** Starts the push feeds (they reconcile as they start). */
  startFeeds(): Promise<void>;
  /** Builds the command API around the restored sessions (not listening yet). */
  commandApi(restored: RestoreResult | undefined): A;
  /** The command API starts listening. */
  listen(api: A): Promise<void>;
}

/** A surface whose open list failed at the restart is listed again this often until it answers. */
const ORPHAN_RETRY_MS = 5_000;

export async function restart<A extends { readonly gateway: SessionSink }>(
  p: RestartParts,
  steps: RestartSteps<A>,
): Promise<{ api: A; summary: RestartSummary }> {
  const { config, engine, sync, instruments, journal, log } = p;
  // 1. the journal, once
  const cp = p.journalCheck?.checkpoint;
  const read = readJournalAtStart(engine, instruments, p.surfaces, config, journal, log, cp, p.risk);
  // 2. replayed live orders: resolved by client id, never re-sent
  for (const id of read.replayedIds) sync.markReplayed(id);
  // Numbers a moved-aside journal used are never accepted again (LogonAck.lastClOrdNo does not go back).
  const recovery = p.journalCheck?.recovery;
  for (const [name, no] of Object.entries(recovery?.orderNumbers ?? {}))
    engine.noteOrderNo(engine.ownerOf(name), no);
  journal?.note({ text: `start venue=${config.venue.kind} instruments=${instruments.size}` });
  if (recovery)
    journal?.note({
      text: `recovered from venue: ${recovery.moved.length} damaged journal file(s) moved to ${recovery.movedTo}`,
    });
  // 3. reconciliation: the replayed and unanswered orders settled with the venue first
  await sync.start();
  await sync.reconcile();
  // 4. orphans: what the venue has open and the gateway does not know
  const adopt = { engine, book: instruments, journal, log };
  const orphans = adoptOrphans(adopt, await sync.unheld());
  for (const f of orphans.unlisted)
    log.error({ surface: f.surface, err: f.err }, "orphan check: open orders not listed; retrying");
  if (orphans.unlisted.length > 0) retryOrphans(p, orphans);
  // 5. push feeds
  await steps.startFeeds();
  // 6. positions, after replay and reconciliation (the venue's snapshot, no double count)
  if (config.venue.surfaces.includes("hft")) {
    const category = config.venue.hftCategories[0] ?? "linear";
    await loadPositions(p.rest, instruments, p.risk, engine, category, log);
  }
  const replay = read.replay;
  if (replay && replay.live > 0) {
    let live = 0;
    for (const o of engine.store.liveSet()) if (!TERMINAL[o.status]) live++;
    log.info({ replayedLive: replay.live, liveAfterReconcile: live }, "restart reconciliation done");
  }
  // 7. sessions with their resume rings, and the command API around them
  const restored = read.sessions?.result(Date.now());
  if (restored && (restored.sessions.length > 0 || restored.expired > 0))
    log.info(
      { sessions: restored.sessions.length, expired: restored.expired },
      "sessions restored from the journal (resumable)",
    );
  const api = steps.commandApi(restored);
  // 8. told vs known: what a restored session was due before the crash and never told
  const due: ToldSummary = { acks: 0, rejects: 0, fills: 0, updates: 0, requestRejects: 0 };
  if (restored && restored.sessions.length > 0) {
    const names = restored.sessions.map((s) => ({ name: s.name, options: s.options }));
    Object.assign(
      due,
      tellWhatWasDue({ store: engine.store, owners: engine.owners, book: instruments }, read.ledger, names),
    );
    if (due.acks + due.rejects + due.fills + due.updates + due.requestRejects > 0)
      log.info(due, "restart: messages due before the crash sent to restored sessions");
  }
  // 9. attach (what was kept for restored sessions is sequenced now), then listen
  engine.attach(api.gateway);
  await steps.listen(api);
  // 10. cancel-on-disconnect sessions of the previous process: their heartbeat allowance starts now
  const codArmed = engine.armRestartCod();
  if (codArmed > 0) log.info({ sessions: codArmed }, "cancel-on-disconnect re-armed after restart");
  const sessions = { restored: restored?.sessions.length ?? 0, expired: restored?.expired ?? 0 };
  return { api, summary: { replay, sessions, due, codArmed, orphans } };
}

/**
 * A surface the restart could not list may hold orphans: it is listed again until it answers, and
 * what it holds is adopted and added to the summary (never left unknown).
 */
function retryOrphans(p: RestartParts, summary: OrphanSummary): void {
  let running = false;
  const timer = setInterval(() => {
    if (p.engine.run.dead) clearInterval(timer); // stopped: nothing to adopt into
    if (running || p.engine.run.dead) return;
    running = true;
    const left = summary.unlisted.map((u) => p.surfaces[u.surface]);
    void unheldOrders(left, p.engine.store)
      .then((listing) => {
        if (p.engine.run.dead) return;
        const found = adoptOrphans(
          { engine: p.engine, book: p.instruments, journal: p.journal, log: p.log },
          listing,
        );
        summary.count += found.count;
        summary.adopted.push(...found.adopted);
        summary.notAdopted.push(...found.notAdopted);
        summary.unlisted = found.unlisted;
        if (found.unlisted.length > 0) return;
        clearInterval(timer);
        p.log.info({ orphans: summary.count }, "orphan check complete: every surface listed");
      })
      .catch((err) => p.log.error({ err: String(err) }, "orphan check failed"))
      .finally(() => {
        running = false;
      });
  }, ORPHAN_RETRY_MS);
  timer.unref();
  p.cleanups.push(() => clearInterval(timer));
}
