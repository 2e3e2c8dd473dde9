/**
 * Start-up's hold on the journal directory, before anything reads or writes it: `{venue}` in
 * `journal.dir` expanded, the directory locked for the process lifetime (one gateway per journal),
 * then, once the keys are known, the files checked (this venue and account's, undamaged, torn tail
 * cut; damage moved aside only on `journal.recoverFromVenue`). Journal problems become StartupErrors.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import type { Config } from "../config/load.js";
import { expandJournalDir, type JournalIdentity, journalIdentity } from "../journal/identity.js";
import { InstanceLock } from "../journal/lock.js";
import { JournalError } from "../journal/records.js";
import { checkJournalAtStart, type StartCheck } from "../journal/startCheck.js";
import { JOURNAL_DIR_MODE } from "../journal/writer.js";
import { StartupError } from "./startupError.js";

/** The lock file in the journal directory (not a journal file: listJournals skips it). */
export const JOURNAL_LOCK = "gateway.lock";

export interface JournalHold {
  /** The configuration with `journal.dir` expanded. */
  readonly config: Config;
  /** Held until stop; undefined when the journal is off. */
  readonly lock: InstanceLock | undefined;
}

function startupError(err: unknown): unknown {
  return err instanceof JournalError ? new StartupError(err.message, { cause: err }) : err;
}

/** Expands `{venue}` and locks the journal directory (created owner-only if missing). */
export function holdJournal(config: Config, log: Logger): JournalHold {
  try {
    const dir = expandJournalDir(config.journal.dir, config.venue.kind, config.venue.spotBaseUrl);
    const expanded = dir === config.journal.dir ? config : { ...config, journal: { ...config.journal, dir } };
    if (!config.journal.enabled) return { config: expanded, lock: undefined };
    mkdirSync(dir, { recursive: true, mode: JOURNAL_DIR_MODE });
    const lock = InstanceLock.acquire(join(dir, JOURNAL_LOCK), `journal directory ${dir}`, (old) =>
      log.warn(
        { lock: join(dir, JOURNAL_LOCK), pid: old?.pid, since: old?.startedAt },
        "journal directory lock left by a process that is gone: taken over",
      ),
    );
    return { config: expanded, lock };
  } catch (err) {
    throw startupError(err);
  }
}

/**
 * The journal's files against this start (before the new file is opened): returns what was found,
 * cut or moved aside, and this start's identity for the new file's head.
 */
export function checkJournal(
  hold: JournalHold,
  template: string,
  apiKey: string,
  log: Logger,
): { check: StartCheck | undefined; identity: JournalIdentity } {
  const c = hold.config;
  const identity = journalIdentity(c.venue.kind, c.venue.spotBaseUrl, apiKey);
  if (hold.lock === undefined) return { check: undefined, identity };
  try {
    const check = checkJournalAtStart({
      dir: c.journal.dir,
      template,
      identity,
      recoverFromVenue: c.journal.recoverFromVenue,
      log: { info: (o, m) => log.info(o, m), warn: (o, m) => log.warn(o, m) },
    });
    return { check, identity };
  } catch (err) {
    throw startupError(err);
  }
}
