/**
 * The journal checkpoint file and retention: the codec round-trips and refuses any damaged byte, a
 * write replaces the latest generation atomically and keeps the previous one, a damaged, foreign or
 * dangling checkpoint falls back (to the older generation, else to the full read), a journal with
 * pruned files and no usable checkpoint refuses the start, and retention only picks files both
 * generations cover and older than the retention.
 */
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import {
  CHECKPOINT_FILE,
  CHECKPOINT_PREV,
  CheckpointError,
  checkJournalAtStart,
  decodeCheckpoint,
  encodeCheckpoint,
  Journal,
  JournalError,
  journalFiles,
  journalIdentity,
  loadCheckpoint,
  PRUNE_MARKER,
  prunable,
  prune,
  readJournal,
  readPruneMarker,
  replayJournals,
  writeCheckpointFile,
} from "../../src/journal/index.js";
import { ensureBuilt } from "../chaos/harness/child.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function newDir(): string {
  const d = mkdtempSync(join(tmpdir(), "hftgate-checkpoint-"));
  dirs.push(d);
  return d;
}

const ID = journalIdentity("exchange", "http://127.0.0.1:4001/", "11".repeat(32));
const OTHER = journalIdentity("exchange", "http://127.0.0.1:4001/", "22".repeat(32));
const log = { info() {}, warn() {} };

let clock = Date.UTC(2026, 10, 21, 8);
/** One run's journal file: `n` orders (command, request, answer) and a sent frame. */
async function writeRun(dir: string, n: number): Promise<string> {
  clock += 60_000;
  const t = clock;
  const j = Journal.open({ dir, fsync: "none", now: () => t, identity: ID });
  for (let i = 0; i < n; i++) {
    const id = `hg-${t}-${i}`;
    const reason = `no=${i + 1};inst=hft:linear:BTCUSDT;pos=0`;
    j.command({ session: "s", op: "new", clientId: id, symbol: "BTCUSDT", side: "buy", qty: "1", reason });
    j.request({ clientId: id, op: "create", method: "POST", path: "/v5/order/create" });
    j.response({ clientId: id, op: "create", status: 200, body: `{"orderId":"x${i}"}` });
  }
  j.out("s", Buffer.alloc(40, 7));
  await j.close();
  return j.path;
}

function head(file: string, offset: number, records = 0) {
  return {
    identity: ID,
    covers: { file: basename(file), offset },
    takenAt: clock,
    ring: 4,
    orderNumbers: { s: 3 },
    positions: { "hft:linear:BTCUSDT": -2 },
    coveredBytes: offset + records,
  };
}

describe("the checkpoint file", () => {
  it("round-trips its head and the journal records it holds, byte fields included", async () => {
    const dir = newDir();
    const f = await writeRun(dir, 3);
    const recs = readJournal(f).records;
    const buf = encodeCheckpoint(head(f, 100), recs);
    const back = decodeCheckpoint(buf);
    expect(back.head).toMatchObject({ v: 1, ...head(f, 100), records: recs.length });
    expect(back.records).toEqual(recs);
  });

  it("refuses any flipped byte, a cut file and another file, naming why", async () => {
    const dir = newDir();
    const f = await writeRun(dir, 2);
    const buf = encodeCheckpoint(head(f, 100), readJournal(f).records);
    for (const at of [0, 5, 12, buf.length >> 1, buf.length - 9, buf.length - 1]) {
      const bad = Buffer.from(buf);
      bad[at]! ^= 0x04;
      expect(() => decodeCheckpoint(bad), `byte ${at}`).toThrow(CheckpointError);
    }
    expect(() => decodeCheckpoint(buf.subarray(0, buf.length - 3))).toThrow(/incomplete/);
    expect(() => decodeCheckpoint(Buffer.from("HGJ\u0001 something else entirely"))).toThrow(
      /not a checkpoint/,
    );
  });

  it("is written atomically: the previous generation kept, a leftover temp file ignored", async () => {
    const dir = newDir();
    const f = await writeRun(dir, 2);
    writeCheckpointFile(dir, encodeCheckpoint(head(f, 10), []));
    writeFileSync(join(dir, `${CHECKPOINT_FILE}.tmp-999999`), "half a checkpoint from a crash");
    writeCheckpointFile(dir, encodeCheckpoint(head(f, 20), []));
    const l = loadCheckpoint(dir, ID);
    expect(l.rejected).toEqual([]);
    expect(l.checkpoint?.head.covers.offset).toBe(20);
    expect(l.older?.head.covers.offset).toBe(10);
    expect(l.checkpoint?.path).toBe(join(dir, CHECKPOINT_FILE));
  });

  it("a reader beside the writer finds both generations at every instant", async () => {
    const dir = newDir();
    const f = await writeRun(dir, 2);
    writeCheckpointFile(dir, encodeCheckpoint(head(f, 10), []));
    writeCheckpointFile(dir, encodeCheckpoint(head(f, 20), []));
    // The built module in a worker thread writes generation after generation while this thread looks.
    const mod = pathToFileURL(join(dirname(ensureBuilt()), "journal", "checkpoint.js")).href;
    const done = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(
      `const { workerData: w } = require("node:worker_threads");
       import(w.mod).then(({ writeCheckpointFile }) => {
         for (let i = 0; i < w.n; i++) writeCheckpointFile(w.dir, Buffer.from(w.buf));
         Atomics.store(w.done, 0, 1);
       });`,
      { eval: true, workerData: { mod, dir, n: 300, buf: encodeCheckpoint(head(f, 30), []), done } },
    );
    let looks = 0;
    let missing = 0;
    const latest = join(dir, CHECKPOINT_FILE);
    const prev = join(dir, CHECKPOINT_PREV);
    while (Atomics.load(done, 0) === 0 && looks < 50_000_000) {
      looks++;
      if (!existsSync(latest) || !existsSync(prev)) missing++;
    }
    await worker.terminate();
    expect(Atomics.load(done, 0)).toBe(1);
    expect(missing).toBe(0);
    expect(loadCheckpoint(dir, ID).checkpoint?.head.covers.offset).toBe(30);
  });

  it("a damaged latest generation falls back to the previous one; a foreign or dangling one is not used", async () => {
    const dir = newDir();
    const f = await writeRun(dir, 2);
    writeCheckpointFile(dir, encodeCheckpoint(head(f, 10), []));
    writeCheckpointFile(dir, encodeCheckpoint(head(f, 20), []));
    const latest = join(dir, CHECKPOINT_FILE);
    const b = readFileSync(latest);
    b[b.length >> 1]! ^= 1;
    writeFileSync(latest, b);
    let l = loadCheckpoint(dir, ID);
    expect(l.checkpoint?.head.covers.offset).toBe(10);
    expect(l.older).toBeUndefined();
    expect(l.rejected).toEqual([{ path: latest, why: "CRC mismatch" }]);

    // Another account's: never used. One covering past the end of its file (the file lost bytes): neither.
    writeFileSync(latest, encodeCheckpoint({ ...head(f, 10), identity: OTHER }, []));
    writeFileSync(join(dir, CHECKPOINT_PREV), encodeCheckpoint(head(f, 1 << 20), []));
    l = loadCheckpoint(dir, ID);
    expect(l.checkpoint).toBeUndefined();
    expect(l.rejected.map((r) => r.why)).toEqual([
      expect.stringMatching(/^belongs to venue exchange at http:\/\/127\.0\.0\.1:4001, account/),
      expect.stringMatching(/is shorter \(\d+ bytes\) than the position it covers \(1048576\)/),
    ]);
  });
});

describe("start-up with a checkpoint", () => {
  it("reads the covered file from the checkpoint's position only; without a usable checkpoint, every file", async () => {
    const dir = newDir();
    const f1 = await writeRun(dir, 3);
    const f2 = await writeRun(dir, 2);
    const mid = readFileSync(f2).length;
    const f3 = await writeRun(dir, 1);
    writeCheckpointFile(dir, encodeCheckpoint(head(f2, mid), []));
    // Damage in a covered file is not read: the checkpoint holds what it said.
    const b = readFileSync(f1);
    b[30]! ^= 0xff;
    writeFileSync(f1, b);
    const c = checkJournalAtStart({ dir, template: dir, identity: ID, recoverFromVenue: false, log });
    expect(c.checkpoint?.head.covers).toEqual({ file: basename(f2), offset: mid });
    expect(c.files).toBe(3);
    // What the start then reads: the tail of f2 (nothing) and f3, from the position on.
    const read: string[] = [];
    replayJournals([{ path: f2, from: mid }, f3], (r) => read.push(r.k));
    expect(read).toEqual(readJournal(f3).records.map((r) => r.k));

    // The checkpoint damaged and no file pruned: the full read, which finds the damage.
    writeFileSync(join(dir, CHECKPOINT_FILE), "HGCP garbage");
    expect(() =>
      checkJournalAtStart({ dir, template: dir, identity: ID, recoverFromVenue: false, log }),
    ).toThrow(/journal damaged/);
  });

  it("files pruned and no usable checkpoint: refused (the files left have a hole), unless recovering from the venue", async () => {
    const dir = newDir();
    const f1 = await writeRun(dir, 1);
    const f2 = await writeRun(dir, 1);
    prune(dir, [f1], "", clock);
    expect(readPruneMarker(dir)).toMatchObject({ through: basename(f1), files: 1 });
    expect(readPruneMarker(dir)?.archive).toBeUndefined();
    writeFileSync(join(dir, CHECKPOINT_FILE), "HGCP garbage");
    const o = { dir, template: dir, identity: ID, recoverFromVenue: false, log };
    expect(() => checkJournalAtStart(o)).toThrow(JournalError);
    expect(() => checkJournalAtStart(o)).toThrow(
      new RegExp(
        `journal files up to ${basename(f1)} were pruned under a checkpoint, and no checkpoint is usable now`,
      ),
    );
    const warned: string[] = [];
    const c = checkJournalAtStart({
      ...o,
      recoverFromVenue: true,
      log: { info() {}, warn: (_, m) => warned.push(m) },
    });
    expect(c.checkpoint).toBeUndefined();
    expect(c.files).toBe(1);
    expect(journalFiles(dir)).toEqual([f2]);
    expect(warned.join("\n")).toContain("recovering from the venue's listings");
  });
});

describe("retention", () => {
  it("picks only files before the covered one and past the retention, oldest first, stopping at the first recent one", async () => {
    const dir = newDir();
    const files = [
      await writeRun(dir, 1),
      await writeRun(dir, 1),
      await writeRun(dir, 1),
      await writeRun(dir, 1),
    ];
    const now = Date.now();
    const day = 86_400_000;
    const age = [9, 3, 8, 9]; // days since last written
    for (const [i, f] of files.entries())
      utimesSync(f, new Date(now - age[i]! * day), new Date(now - age[i]! * day));
    const listed = journalFiles(dir);
    expect(listed).toEqual(files);
    const covers = { file: basename(files[3]!), offset: 10 };
    // 7 days: the first file only (the second is recent, so the third waits behind it).
    expect(prunable(listed, covers, now, 7 * day)).toEqual([files[0]]);
    expect(prunable(listed, covers, now, 2 * day)).toEqual(files.slice(0, 3));
    // Never the covered file nor anything after it, however old.
    expect(prunable(listed, { file: basename(files[1]!), offset: 0 }, now, day)).toEqual([files[0]]);
    expect(prunable(listed, { file: basename(files[0]!), offset: 0 }, now, day)).toEqual([]);
    expect(prunable(listed, { file: "hftgate-gone.hgj", offset: 0 }, now, day)).toEqual([]);
  });

  it("moves to the archive directory (or deletes) and records the marker", async () => {
    const dir = newDir();
    const f1 = await writeRun(dir, 1);
    const f2 = await writeRun(dir, 1);
    const f3 = await writeRun(dir, 1);
    const archive = join(dir, "..", `${basename(dir)}-archive`);
    dirs.push(archive);
    const bytes = readFileSync(f1);
    expect(prune(dir, [f1], archive, 1)).toBe(1);
    expect(readFileSync(join(archive, basename(f1)))).toEqual(bytes);
    expect(prune(dir, [f2], "", 2)).toBe(1);
    expect(journalFiles(dir)).toEqual([f3]);
    expect(JSON.parse(readFileSync(join(dir, PRUNE_MARKER), "utf8"))).toEqual({
      through: basename(f2),
      files: 2,
      at: 2,
    });
    expect(readdirSync(archive)).toEqual([basename(f1)]);
    truncateSync(join(dir, PRUNE_MARKER), 3);
    expect(readPruneMarker(dir)?.through).toBe("?");
  });
});
