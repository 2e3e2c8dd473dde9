/**
 * Start-up's check of the journal directory (checkJournalAtStart): the torn tail cut, damage refused or
 * (recoverFromVenue) moved aside without deleting a byte, and a journal of another venue or account
 * refused; files of older versions (no identity) handled as documented in docs/reliability.md.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkJournalAtStart,
  Journal,
  JournalDamageError,
  type JournalIdentity,
  JournalIdentityError,
  journalFiles,
  journalIdentity,
  readJournal,
  type StartCheckOptions,
} from "../../src/journal/index.js";
import { recordStarts, tempDirs } from "./journalFiles.js";

const newDir = tempDirs("hftgate-startcheck-");

const KEY_A = "11".repeat(32);
const KEY_B = "22".repeat(32);
const VENUE_A = journalIdentity("exchange", "http://127.0.0.1:4001/", KEY_A);

let clock = Date.UTC(2026, 10, 21, 8);
/** The session's client order numbers, counting up across runs (as a strategy's do). */
let orderNo = 0;
async function writeRun(dir: string, n: number, identity?: JournalIdentity, start?: string): Promise<string> {
  clock += 60_000;
  const t = clock;
  const j = Journal.open({ dir, fsync: "none", now: () => t, identity });
  if (start !== undefined) j.note({ text: `start venue=${start} instruments=3` });
  for (let i = 0; i < n; i++) {
    const id = `hg-${t}-${i}`;
    const reason = `no=${++orderNo};inst=hft:linear:BTCUSDT;pos=0`;
    j.command({ session: "s", op: "new", clientId: id, symbol: "BTCUSDT", side: "buy", qty: "1", reason });
    j.response({ clientId: id, op: "create", status: 200, body: `{"orderId":"x${i}"}` });
  }
  await j.close();
  return j.path;
}

function logs() {
  const lines: { level: string; o: object; msg: string }[] = [];
  return {
    lines,
    log: {
      info: (o: object, msg: string) => lines.push({ level: "info", o, msg }),
      warn: (o: object, msg: string) => lines.push({ level: "warn", o, msg }),
    },
  };
}

function opts(dir: string, over: Partial<StartCheckOptions> = {}): StartCheckOptions {
  return { dir, template: dir, identity: VENUE_A, recoverFromVenue: false, log: logs().log, ...over };
}

describe("journal check at start", () => {
  it("a new gateway's files carry its identity and pass; an empty or missing directory passes", async () => {
    const dir = newDir();
    expect(checkJournalAtStart(opts(join(dir, "none")))).toMatchObject({ files: 0, recovery: undefined });
    const f = await writeRun(dir, 3, VENUE_A);
    expect(readJournal(f).identity).toEqual(VENUE_A);
    expect(VENUE_A.account).toMatch(/^[0-9a-f]{16}$/);
    expect(readFileSync(f).includes(KEY_A)).toBe(false);
    expect(checkJournalAtStart(opts(dir))).toEqual({
      files: 1,
      tornTail: undefined,
      unidentified: 0,
      recovery: undefined,
    });
  });

  it("cuts the newest file's torn tail at the last whole record and logs it", async () => {
    const dir = newDir();
    const f = await writeRun(dir, 5, VENUE_A);
    const last = recordStarts(f).at(-1)!;
    truncateSync(f, readFileSync(f).length - 5);
    const l = logs();
    const c = checkJournalAtStart(opts(dir, { log: l.log }));
    expect(c.tornTail).toEqual({
      file: f,
      offset: last,
      bytes: readFileSync(f).length === last ? c.tornTail!.bytes : -1,
    });
    expect(readFileSync(f).length).toBe(last);
    expect(l.lines).toEqual([
      expect.objectContaining({ level: "warn", msg: expect.stringContaining("torn record") }),
    ]);
    // A later run's file now follows a clean one: nothing to refuse.
    await writeRun(dir, 1, VENUE_A);
    expect(checkJournalAtStart(opts(dir)).tornTail).toBeUndefined();
  });

  it("refuses damage, naming the file and offset, and changes nothing", async () => {
    const dir = newDir();
    const f1 = await writeRun(dir, 5, VENUE_A);
    const f2 = await writeRun(dir, 5, VENUE_A);
    const at = recordStarts(f1)[4]!;
    const buf = readFileSync(f1);
    buf[at + 12] ^= 0xff;
    writeFileSync(f1, buf);
    const before = readdirSync(dir).sort();
    expect(() => checkJournalAtStart(opts(dir))).toThrow(JournalDamageError);
    try {
      checkJournalAtStart(opts(dir));
    } catch (e) {
      expect((e as JournalDamageError).file).toBe(f1);
      expect((e as JournalDamageError).offset).toBe(at);
      expect((e as Error).message).toContain("4 records before it, 6 readable after it");
    }
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(readFileSync(f1)).toEqual(buf);
    expect(existsSync(f2)).toBe(true);
  });

  it("recoverFromVenue moves the damaged file and every later one aside, byte for byte, and keeps the readable start", async () => {
    const dir = newDir();
    const f0 = await writeRun(dir, 3, VENUE_A);
    const f1 = await writeRun(dir, 5, VENUE_A);
    const f2 = await writeRun(dir, 2, VENUE_A);
    const lastNo = orderNo;
    const at = recordStarts(f1)[6]!;
    const damaged = readFileSync(f1);
    damaged[at + 20] ^= 0x01;
    writeFileSync(f1, damaged);
    const later = readFileSync(f2);
    const l = logs();
    const c = checkJournalAtStart(
      opts(dir, { recoverFromVenue: true, log: l.log, now: () => Date.UTC(2026, 10, 22, 9, 30) }),
    );
    const aside = join(dir, "damaged-20261122T093000.000Z");
    expect(c.recovery).toMatchObject({
      movedTo: aside,
      moved: [f1, f2],
      kept: { file: f1, bytes: at, records: 6 },
      // The numbers the moved files used, read past the damage too: never accepted again.
      orderNumbers: { s: lastNo },
    });
    expect(c.recovery!.damage[0]).toMatchObject({ file: f1, fault: { offset: at, kind: "checksum" } });
    expect(readFileSync(join(aside, basename(f1)))).toEqual(damaged);
    expect(readFileSync(join(aside, basename(f2)))).toEqual(later);
    // What stays: the earlier file whole, and the damaged file's first 6 records (identity note included).
    expect(journalFiles(dir)).toEqual([f0, f1]);
    expect(readFileSync(f1)).toEqual(damaged.subarray(0, at));
    expect(readJournal(f1).records).toHaveLength(6);
    const warn = l.lines.find((x) => x.msg.includes("journal damaged"))!;
    expect(warn.msg).toContain(`2 file(s) moved to ${aside}`);
    expect(warn.msg).toContain("starting from the venue's listings");
    // The next start finds a clean journal.
    expect(checkJournalAtStart(opts(dir)).recovery).toBeUndefined();
  });

  it("the order numbers a damaged file used after its damage still count", async () => {
    const dir = newDir();
    const f = await writeRun(dir, 8, VENUE_A);
    const last = orderNo;
    const at = recordStarts(f)[3]!; // the second order's command: 6 orders' records follow
    const buf = readFileSync(f);
    buf[at + 30] ^= 0x10;
    writeFileSync(f, buf);
    const c = checkJournalAtStart(opts(dir, { recoverFromVenue: true }));
    expect(c.recovery?.kept?.records).toBe(3);
    expect(c.recovery?.orderNumbers).toEqual({ s: last });
  });

  it("refuses a journal of another account, another venue URL, or the simulator", async () => {
    for (const theirs of [
      journalIdentity("exchange", "http://127.0.0.1:4001", KEY_B),
      journalIdentity("exchange", "http://127.0.0.1:4002", KEY_A),
      journalIdentity("sim", "", ""),
    ]) {
      const dir = newDir();
      await writeRun(dir, 2, theirs);
      const files = readdirSync(dir);
      expect(() => checkJournalAtStart(opts(dir))).toThrow(JournalIdentityError);
      try {
        checkJournalAtStart(opts(dir));
      } catch (e) {
        expect((e as Error).message).toMatch(
          /belongs to .*not to this start's venue exchange at http:\/\/127\.0\.0\.1:4001, account/,
        );
        expect((e as Error).message).not.toContain(KEY_A);
      }
      expect(readdirSync(dir)).toEqual(files);
    }
  });

  it("an identity mismatch is refused before damage would be moved aside", async () => {
    const dir = newDir();
    const f = await writeRun(dir, 3, journalIdentity("exchange", "http://127.0.0.1:4001", KEY_B));
    truncateSync(f, readFileSync(f).length - 3);
    await writeRun(dir, 1, VENUE_A);
    expect(() => checkJournalAtStart(opts(dir, { recoverFromVenue: true }))).toThrow(JournalIdentityError);
    expect(readdirSync(dir).some((n) => n.startsWith("damaged-"))).toBe(false);
  });

  it("files of older versions (no identity): their start note's venue must match; otherwise accepted with a warning", async () => {
    const dir = newDir();
    await writeRun(dir, 2, undefined, "exchange");
    await writeRun(dir, 2);
    const l = logs();
    expect(checkJournalAtStart(opts(dir, { log: l.log })).unidentified).toBe(2);
    expect(
      l.lines.some((x) => x.level === "warn" && x.msg.includes("without a venue/account identity")),
    ).toBe(true);
    await writeRun(dir, 2, undefined, "sim");
    expect(() => checkJournalAtStart(opts(dir))).toThrow(/belongs to venue sim \(an older version's file\)/);
  });

  it("journal.dir with {venue}: an older version's files in the old shared directory refuse a real venue's start", async () => {
    const root = newDir();
    const parent = join(root, "journal");
    mkdirSync(parent);
    await writeRun(parent, 2, undefined, "exchange");
    const dir = join(parent, "127.0.0.1_4001");
    const o = opts(dir, { template: join(parent, "{venue}") });
    expect(() => checkJournalAtStart(o)).toThrow(
      /journal file\(s\) of an earlier version are in .*move them there/,
    );
    // The simulator's own older files are only mentioned.
    const l = logs();
    checkJournalAtStart({
      ...o,
      dir: join(parent, "sim"),
      identity: journalIdentity("sim", "", ""),
      log: l.log,
    });
    expect(l.lines.some((x) => x.msg.includes("not read"))).toBe(true);
  });
});
