/**
 * What start-up asks of the journal directory before it opens a new file in it (the lock is taken
 * before): every file belongs to this venue and account, no file is damaged, and the newest file's torn
 * tail (a crash mid-write) is cut off. Damage refuses the start unless the operator asked to recover
 * from the venue: then the damaged file and every later one are moved aside (never deleted), the
 * damaged file's readable start is kept, and the restart takes the venue's listings as the truth.
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, truncateSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type Checkpoint, loadCheckpoint } from "./checkpoint.js";
import { journalFiles } from "./files.js";
import { describeIdentity, type JournalIdentity, sameIdentity, VENUE_PLACEHOLDER } from "./identity.js";
import { DAMAGE_HINT, readableRecords } from "./reader.js";
import { commandOrderNo, JournalError } from "./records.js";
import { PRUNE_MARKER, readPruneMarker } from "./retention.js";
import {
  classify,
  type Damage,
  describeDamage,
  type FileScan,
  JournalDamageError,
  scanJournal,
} from "./scan.js";

export interface StartCheckOptions {
  /** The journal directory (`{venue}` expanded). */
  readonly dir: string;
  /** `journal.dir` as configured: when it ends in `{venue}`, its parent is searched for older files. */
  readonly template: string;
  /** This start's venue and account. */
  readonly identity: JournalIdentity;
  /** Move damaged files aside and start without them (`hftgate start --recover-from-venue`). */
  readonly recoverFromVenue: boolean;
  readonly log: {
    info(o: object, msg: string): void;
    warn(o: object, msg: string): void;
  };
  /** Wall clock (names the damaged-files directory); injectable for tests. */
  readonly now?: () => number;
}

/** Damage moved aside by `--recover-from-venue`: the restart takes the venue's listings as the truth. */
export interface JournalRecovery {
  /** Where the files went: `<dir>/damaged-<UTC time>`. */
  readonly movedTo: string;
  /** The files moved, oldest first: the first damaged one and every later one. */
  readonly moved: readonly string[];
  readonly damage: readonly Damage[];
  /** The first damaged file's readable start, kept in the journal under its name; undefined if it had none. */
  readonly kept: { readonly file: string; readonly bytes: number; readonly records: number } | undefined;
  /**
   * The highest client order number each session (by name) used in the moved files, as far as they
   * read: the restart never accepts these numbers again, so a session's numbering does not go back.
   */
  readonly orderNumbers: Readonly<Record<string, number>>;
}

export interface StartCheck {
  /** Journal files found (before any was moved). */
  readonly files: number;
  /** The newest file's torn tail, cut off. */
  readonly tornTail: { readonly file: string; readonly offset: number; readonly bytes: number } | undefined;
  /** Files without an identity (written by an older version), replayed as this venue's and account's. */
  readonly unidentified: number;
  /** Set when damage was moved aside (the restart reports every venue order the journal does not know). */
  readonly recovery: JournalRecovery | undefined;
  /**
   * The checkpoint the restart starts from (its records, then the journal after its position); the
   * files it covers wholly were neither scanned nor are read. Undefined: every file is read.
   */
  readonly checkpoint: (Checkpoint & { readonly path: string }) | undefined;
}

/** The journal belongs to another venue or account: refused, nothing replayed or moved. */
export class JournalIdentityError extends JournalError {
  override name = "JournalIdentityError";
}

export function checkJournalAtStart(o: StartCheckOptions): StartCheck {
  checkOlderLayout(o);
  const files = journalFiles(o.dir);
  const checkpoint = usableCheckpoint(o);
  const at =
    checkpoint === undefined ? -1 : files.findIndex((f) => basename(f) === checkpoint.head.covers.file);
  // What a checkpoint covers is not read at all: the covered file from its position, then the later files.
  const scans =
    at < 0
      ? files.map((f) => scanJournal(f))
      : [
          { ...scanJournal(files[at]!, checkpoint!.head.covers.offset), identity: checkpoint!.head.identity },
          ...files.slice(at + 1).map((f) => scanJournal(f)),
        ];
  const unidentified = checkIdentity(scans, o);
  const { damage, tornTail } = classify(scans);
  let recovery: JournalRecovery | undefined;
  if (damage.length > 0) {
    if (!o.recoverFromVenue) throw new JournalDamageError(damage, DAMAGE_HINT);
    recovery = moveAside(o.dir, scans, damage, o.now ?? Date.now);
    o.log.warn(
      {
        damage: damage.map(describeDamage),
        movedTo: recovery.movedTo,
        moved: recovery.moved.map((f) => basename(f)),
        kept: recovery.kept,
        orderNumbers: recovery.orderNumbers,
      },
      `journal damaged: ${recovery.moved.length} file(s) moved to ${recovery.movedTo}` +
        (recovery.kept
          ? `, the first ${recovery.kept.records} records of ${basename(recovery.kept.file)} kept`
          : "") +
        "; starting from the venue's listings",
    );
  } else if (tornTail !== undefined) {
    truncateSync(tornTail.file, tornTail.offset);
    o.log.warn(tornTail, "journal: the newest file ended in a torn record (a crash mid-write): cut off");
  }
  if (unidentified > 0)
    o.log.warn(
      { files: unidentified, as: describeIdentity(o.identity) },
      "journal files without a venue/account identity (written by an older version): replayed as this start's",
    );
  return {
    files: files.length,
    tornTail: recovery ? undefined : tornTail,
    unidentified,
    recovery,
    checkpoint: at < 0 ? undefined : checkpoint,
  };
}

/**
 * The newest usable checkpoint. None usable while files were pruned (under a checkpoint): the journal
 * left has a hole at its start, so the start is refused unless the operator recovers from the venue.
 */
function usableCheckpoint(o: StartCheckOptions): (Checkpoint & { readonly path: string }) | undefined {
  const load = loadCheckpoint(o.dir, o.identity);
  for (const r of load.rejected)
    o.log.warn({ checkpoint: r.path, why: r.why }, "journal checkpoint not usable: ignored");
  if (load.checkpoint !== undefined) return load.checkpoint;
  const pruned = readPruneMarker(o.dir);
  if (pruned === undefined) return undefined;
  const why = load.rejected.map((r) => `${basename(r.path)}: ${r.why}`).join("; ") || "none found";
  const text =
    `journal files up to ${pruned.through} were pruned under a checkpoint, and no checkpoint is usable now (${why}): ` +
    "reading the files left would forget what the pruned ones held";
  if (!o.recoverFromVenue)
    throw new JournalError(
      `${text}. \`hftgate start --recover-from-venue\` starts from the files left and the venue's listings ` +
        `(the pruned files are in ${pruned.archive ?? "no archive: they were deleted"}; ${join(o.dir, PRUNE_MARKER)} records them)`,
    );
  o.log.warn({ pruned }, `${text}; recovering from the venue's listings`);
  return undefined;
}

/** Counts the files without an identity; throws on a file of another venue or account. */
function checkIdentity(scans: readonly FileScan[], o: StartCheckOptions): number {
  let unidentified = 0;
  for (const s of scans) {
    if (s.identity !== undefined) {
      if (!sameIdentity(s.identity, o.identity)) throw foreign(s, describeIdentity(s.identity), o);
    } else if (s.startVenue !== undefined && s.startVenue !== o.identity.venue) {
      throw foreign(s, `venue ${s.startVenue} (an older version's file)`, o);
    } else if (s.records > 0) unidentified++;
  }
  return unidentified;
}

function foreign(s: FileScan, theirs: string, o: StartCheckOptions): JournalIdentityError {
  return new JournalIdentityError(
    `journal ${o.dir} belongs to ${theirs} (${basename(s.path)}), not to this start's ${describeIdentity(o.identity)}: ` +
      "refusing to replay another venue's or account's orders. Point journal.dir at this venue's journal " +
      `(default var/journal/${VENUE_PLACEHOLDER}), or move that directory aside`,
  );
}

/**
 * `journal.dir` used to default to `var/journal` for every venue. Files an older version left there
 * are not read from the per-venue directory: for a real venue that would forget its live orders, so
 * the start is refused until they are moved; files of another venue kind are only mentioned.
 */
function checkOlderLayout(o: StartCheckOptions): void {
  if (basename(o.template) !== VENUE_PLACEHOLDER || o.template === VENUE_PLACEHOLDER) return;
  const parent = dirname(o.dir);
  const older = journalFiles(parent).map(scanJournal);
  if (older.length === 0) return;
  const ours = older.filter((s) =>
    s.identity !== undefined
      ? sameIdentity(s.identity, o.identity)
      : s.startVenue === undefined
        ? s.records > 0
        : s.startVenue === o.identity.venue,
  );
  if (ours.length > 0 && o.identity.venue !== "sim") {
    throw new JournalIdentityError(
      `${ours.length} journal file(s) of an earlier version are in ${parent}, which no longer holds journals ` +
        `(the journal is now per venue: ${o.dir}). If they belong to this venue and account, move them there ` +
        `(mv ${parent}/hftgate-* ${o.dir}/); otherwise move them elsewhere. Refusing to start without them`,
    );
  }
  o.log.warn(
    { dir: parent, files: older.length, journalDir: o.dir },
    "journal files of an earlier version are in the old shared directory and are not read (the journal is now per venue)",
  );
}

/** Moves the first damaged file and every later one to `<dir>/damaged-<time>/`; keeps the readable start. */
function moveAside(
  dir: string,
  scans: readonly FileScan[],
  damage: readonly Damage[],
  now: () => number,
): JournalRecovery {
  const first = damage[0]!;
  const from = scans.findIndex((s) => s.path === first.file);
  const stamp = new Date(now()).toISOString().replace(/[-:]/g, "");
  let movedTo = join(dir, `damaged-${stamp}`);
  for (let i = 1; existsSync(movedTo); i++) movedTo = join(dir, `damaged-${stamp}-${i}`);
  mkdirSync(movedTo, { mode: 0o700 });
  const moved: string[] = [];
  for (const s of scans.slice(from)) {
    const to = join(movedTo, basename(s.path));
    renameSync(s.path, to);
    moved.push(s.path);
  }
  // Records before the damage are what a crash at that moment would have left: replayed as such.
  let kept: JournalRecovery["kept"];
  if (first.fault.records > 0) {
    copyFileSync(join(movedTo, basename(first.file)), first.file);
    truncateSync(first.file, first.fault.offset);
    kept = { file: first.file, bytes: first.fault.offset, records: first.fault.records };
  }
  const orderNumbers = usedOrderNumbers(moved.map((f) => join(movedTo, basename(f))));
  return { movedTo, moved, damage, kept, orderNumbers };
}

/** Per session name, the highest order number the files' commands used (`no=` of a new order, `new=` of a replacement). */
function usedOrderNumbers(files: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of files)
    for (const r of readableRecords(f)) {
      if (r.k !== "cmd") continue;
      const no = commandOrderNo(r.op, r.reason);
      if (no > (out[r.session] ?? 0)) out[r.session] = no;
    }
  return out;
}
