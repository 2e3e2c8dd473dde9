/**
 * `hftgate replay <journal file or directory> [--order <id>] [--full]`: prints each order's
 * full history (commands, requests, responses, stream events) from a journal, oldest first, as far as
 * each file reads; `--order` takes the client order id or the exchange's order id. `--check [dir]`
 * instead checks a journal directory the way start-up does (damage, the newest file's torn tail, whose
 * journal it is, the checkpoint generations and what retention pruned) and exits non-zero when a start
 * would be refused.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { CHECKPOINT_FILE, CHECKPOINT_PREV, decodeCheckpoint, readCheckpoint } from "../journal/checkpoint.js";
import { journalFiles, listJournals } from "../journal/files.js";
import { findOrder, formatRecord, orderHistories } from "../journal/history.js";
import { describeIdentity } from "../journal/identity.js";
import { readJournal } from "../journal/reader.js";
import type { JournalRecord } from "../journal/records.js";
import { readPruneMarker } from "../journal/retention.js";
import { classify, describeDamage, type FileScan, scanJournal } from "../journal/scan.js";
import { bool, type CommandSpec, command, str, UsageError } from "./args.js";

export const spec: CommandSpec = {
  name: "replay",
  summary: "print each order's history from a journal, or check a journal directory (--check)",
  positionals: "<journal file or directory>",
  options: {
    order: {
      type: "string",
      value: "ID",
      help: "only this order: its client order id or the exchange's order id",
    },
    full: {
      type: "boolean",
      help: "print request and response bodies in full (default: first 300 characters)",
    },
    check: {
      type: "boolean",
      help: "check the directory as start-up does (damage, torn tail, identity); exit 1 if a start would be refused",
    },
    config: {
      type: "string",
      value: "FILE",
      help: "with --check and no directory: check the journal.dir of this configuration (and the environment)",
    },
  },
  notes: [
    "Exit codes: 0 readable (--check: OK), 1 an unknown --order (--check: damage found), 2 a missing or unreadable file.",
  ],
};

export const run = command(spec, async (args) => {
  if (bool(args, "check")) return check(args.positionals[0] ?? (await configuredDir(str(args, "config"))));
  const target = args.positionals[0];
  if (target === undefined) throw new UsageError(`missing argument: ${spec.positionals}`);
  let files: string[];
  let pruned: string | undefined;
  try {
    const isDir = statSync(target).isDirectory();
    files = isDir ? listJournals(target) : [target];
    pruned = isDir ? prunedNote(target) : undefined;
  } catch {
    process.stderr.write(`replay: cannot read ${target}\n`);
    return 2;
  }
  const records: JournalRecord[] = [];
  let torn = 0;
  const damaged: string[] = [];
  try {
    // Every file as far as it reads: after an incident the readable part is what matters.
    for (const f of files) {
      const r = readJournal(f);
      records.push(...r.records);
      if (r.fault !== undefined && !r.fault.tail) damaged.push(describeDamage({ file: f, fault: r.fault }));
      else torn += r.tornBytes;
    }
  } catch (err) {
    process.stderr.write(`replay: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  const bodyMax = bool(args, "full") ? Number.POSITIVE_INFINITY : 300;
  const histories = orderHistories(records);
  const only = str(args, "order");
  const out: string[] = [];
  if (only !== undefined) {
    const found = findOrder(histories, only);
    if (found === undefined) {
      process.stderr.write(
        `replay: no order ${JSON.stringify(only)} (client or exchange id) in ${files.length} journal file(s)\n`,
      );
      return 1;
    }
    const h = found.history;
    const named = found.exchangeId === undefined ? "" : `, exchange id ${found.exchangeId}`;
    out.push(`order ${found.clientId}${named} (${h.length} records)`);
    for (const r of h) out.push(`  ${formatRecord(r, bodyMax)}`);
  } else {
    for (const [id, h] of histories) {
      out.push(`order ${id} (${h.length} records)`);
      for (const r of h) out.push(`  ${formatRecord(r, bodyMax)}`);
      out.push("");
    }
    const notes = records.filter((r) => r.k === "note" && r.clientId === undefined);
    if (notes.length > 0) {
      out.push("gateway notes");
      for (const r of notes) out.push(`  ${formatRecord(r, bodyMax)}`);
      out.push("");
    }
    out.push(
      `${records.length} records, ${histories.size} orders, ${files.length} file(s)` +
        (torn > 0 ? `, torn tail of ${torn} bytes ignored` : "") +
        (damaged.length > 0 ? `, damaged (read up to the damage): ${damaged.join("; ")}` : ""),
    );
  }
  if (pruned !== undefined) process.stderr.write(`replay: ${pruned}\n`);
  process.stdout.write(`${out.join("\n")}\n`);
  return 0;
});

/** The configured journal directory (`{venue}` expanded), as `hftgate start` would use it. */
async function configuredDir(file: string | undefined): Promise<string> {
  const { ConfigError, loadConfig } = await import("../config/load.js");
  const { expandJournalDir } = await import("../journal/identity.js");
  try {
    const c = loadConfig({ file });
    return expandJournalDir(c.journal.dir, c.venue.kind, c.venue.spotBaseUrl);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}

/** `--check`: one line per file, then OK or what a start would refuse; exit 0, 1 (refused) or 2 (unreadable). */
function check(dir: string): number {
  let scans: FileScan[];
  try {
    if (!statSync(dir).isDirectory()) throw new Error("not a directory");
    scans = journalFiles(dir).map(scanJournal);
  } catch (err) {
    process.stderr.write(`replay --check: cannot read ${dir}: ${(err as Error).message}\n`);
    return 2;
  }
  const { damage, tornTail } = classify(scans);
  const out = [`journal ${dir}: ${scans.length} file(s)`];
  const identities = new Set<string>();
  for (const s of scans) {
    const who = s.identity
      ? describeIdentity(s.identity)
      : s.startVenue
        ? `no identity (older version, venue ${s.startVenue})`
        : "no identity";
    if (s.identity) identities.add(who);
    out.push(`  ${basename(s.path)}  ${s.size} bytes, ${s.records} records, ${who}`);
  }
  for (const d of damage) out.push(`DAMAGED: ${describeDamage(d)}`);
  if (tornTail)
    out.push(
      `torn tail: ${basename(tornTail.file)} ends in ${tornTail.bytes} bytes of an incomplete record at byte ${tornTail.offset} (the newest file: cut at the next start)`,
    );
  if (identities.size > 1)
    out.push(`MIXED: files of ${identities.size} venues/accounts: ${[...identities].join("; ")}`);
  const bad = damage.length > 0 || identities.size > 1;
  if (damage.length > 0)
    out.push(
      `${damage.length} damaged file(s): hftgate start refuses this journal; ` +
        "`hftgate start --recover-from-venue` moves the damaged file and every later one aside (never deleted) and starts from the venue's listings",
    );
  const cp = checkpointLines(dir);
  out.push(...cp.lines);
  if (cp.refused) out.push(cp.refused);
  if (!bad && cp.refused === undefined) out.push("OK");
  process.stdout.write(`${out.join("\n")}\n`);
  return bad || cp.refused !== undefined ? 1 : 0;
}

/** What retention took from a directory, for the order histories read from what is left. */
function prunedNote(dir: string): string | undefined {
  const m = readPruneMarker(dir);
  if (m === undefined) return undefined;
  const where = m.archive === undefined ? "deleted" : `moved to ${m.archive}`;
  return (
    `${m.files} older journal file(s), up to ${m.through}, were pruned by retention (${where}): ` +
    "the histories above are those of the files left; orders live when the checkpoint was taken are in its records (hftgate start reads them)"
  );
}

/** `--check`'s checkpoint lines: each generation, what it covers or why it cannot be used; and what retention took. */
function checkpointLines(dir: string): { lines: string[]; refused: string | undefined } {
  const lines: string[] = [];
  let usable = 0;
  for (const name of [CHECKPOINT_FILE, CHECKPOINT_PREV]) {
    const path = join(dir, name);
    if (!existsSync(path)) continue;
    try {
      const own = decodeCheckpoint(readFileSync(path)).head.identity;
      const c = readCheckpoint(path, dir, own);
      const h = c.head;
      usable++;
      lines.push(
        `  ${name}  covers ${h.covers.file} up to byte ${h.covers.offset} (${h.coveredBytes} bytes of journal), ` +
          `${h.records} records, taken ${new Date(h.takenAt).toISOString()}, ${describeIdentity(own)}`,
      );
    } catch (err) {
      lines.push(
        `  ${name}  NOT USABLE: ${err instanceof SyntaxError ? "malformed head" : (err as Error).message}`,
      );
    }
  }
  const pruned = prunedNote(dir);
  if (pruned !== undefined) lines.push(`pruned: ${pruned}`);
  const refused =
    pruned !== undefined && usable === 0
      ? "NO USABLE CHECKPOINT while files were pruned: hftgate start refuses (the files left have a hole); `hftgate start --recover-from-venue` starts from them and the venue's listings"
      : undefined;
  return { lines, refused };
}
