/**
 * Damage is not a torn tail: the reader (replayJournals, scanJournal) accepts an incomplete last record
 * of the newest file only; a flipped byte mid-file, a bad record at the end of a file, or a torn tail of
 * an earlier file refuse with the file and the byte offset of the first bad record.
 */
import { appendFileSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  Journal,
  JournalDamageError,
  type JournalFormat,
  journalFiles,
  readJournal,
  replayJournals,
  scanJournal,
} from "../../src/journal/index.js";
import { recordStarts as starts, tempDirs } from "./journalFiles.js";

const newDir = tempDirs("hftgate-damage-");

let clock = Date.UTC(2026, 10, 21, 8);
/** A journal file of `n` orders (4 records each) in `dir`; each call is a later run. */
async function writeRun(dir: string, n: number, format: JournalFormat = "binary"): Promise<string> {
  clock += 60_000;
  const t = clock;
  const j = Journal.open({ dir, format, fsync: "none", now: () => t });
  for (let i = 0; i < n; i++) {
    const id = `hg-${t}-${i}`;
    j.command({ session: "s", op: "new", clientId: id, symbol: "BTCUSDT", side: "buy", qty: "1" });
    j.request({ clientId: id, op: "create", method: "POST", path: "/v5/order/create" });
    j.response({ clientId: id, op: "create", status: 200, body: `{"orderId":"x${i}"}` });
    j.event({ source: "hft-poll", clientId: id, body: '{"orderStatus":"New"}' });
  }
  await j.close();
  return j.path;
}

function flip(path: string, at: number): void {
  const buf = readFileSync(path);
  buf[at] = buf[at]! ^ 0x5a;
  writeFileSync(path, buf);
}

function refusal(files: string[]): JournalDamageError {
  try {
    replayJournals(files, () => {});
  } catch (err) {
    if (err instanceof JournalDamageError) return err;
    throw err;
  }
  throw new Error("the damaged journal was replayed");
}

describe("damage is not a torn tail (binary)", () => {
  it("a byte flipped in the middle of the newest file refuses, naming the file and the record's offset", async () => {
    const dir = newDir();
    const f = await writeRun(dir, 50);
    const s = starts(f);
    flip(f, s[100]! + 30); // inside record 101's body: its CRC fails, 99 records follow
    const e = refusal(journalFiles(dir));
    expect(e.file).toBe(f);
    expect(e.offset).toBe(s[100]);
    expect(e.message).toContain(
      `${f} at byte ${s[100]} (a CRC mismatch): 100 records before it, 99 readable after it`,
    );
    expect(e.message).toContain("hftgate replay --check");
  });

  it("a flipped length field mid-file (the record seems to run past the end) is damage, not a torn tail", async () => {
    const dir = newDir();
    const f = await writeRun(dir, 50);
    const s = starts(f);
    flip(f, s[60]! + 3); // the high byte of record 61's length
    const scan = scanJournal(f);
    expect(scan.fault).toMatchObject({
      offset: s[60],
      kind: "incomplete",
      records: 60,
      after: 139,
      tail: false,
    });
    expect(refusal([f]).offset).toBe(s[60]);
    // The lenient read (the replay tool) still stops there.
    expect(readJournal(f).records).toHaveLength(60);
  });

  it("an incomplete last record of the newest file is a torn tail: accepted, its size reported", async () => {
    const dir = newDir();
    await writeRun(dir, 10);
    const f = await writeRun(dir, 10);
    const size = readFileSync(f).length;
    truncateSync(f, size - 7);
    const seen: string[] = [];
    const r = replayJournals(journalFiles(dir), (rec) => seen.push(rec.k));
    expect(r.records).toBe(79); // 40 + 39: the cut record is the only loss
    expect(r.tornBytes).toBe(size - 7 - starts(f).at(-1)!);
    expect(seen).toHaveLength(79);
  });

  it("a zero-filled tail of the newest file (a crash after the size was extended) is a torn tail", async () => {
    const dir = newDir();
    const f = await writeRun(dir, 5);
    appendFileSync(f, Buffer.alloc(4096));
    expect(scanJournal(f).fault).toMatchObject({ kind: "malformed", after: 0, tail: true });
    expect(replayJournals([f], () => {}).records).toBe(20);
  });

  it("the same torn tail in an earlier file refuses: a later run wrote after it", async () => {
    const dir = newDir();
    const first = await writeRun(dir, 10);
    await writeRun(dir, 10);
    truncateSync(first, readFileSync(first).length - 7);
    const e = refusal(journalFiles(dir));
    expect(e.file).toBe(first);
    expect(e.offset).toBe(starts(first).at(-1));
    expect(e.message).toContain("(a record cut short): 39 records before it, 0 readable after it");
  });

  it("a complete last record with a bad CRC is damage, even at the end of the newest file", async () => {
    const dir = newDir();
    const f = await writeRun(dir, 3);
    const buf = readFileSync(f);
    flip(f, buf.length - 2);
    const e = refusal([f]);
    expect(e.offset).toBe(starts(f).at(-1));
    expect(e.message).toContain("a CRC mismatch");
  });
});

describe("the scan of a large file", () => {
  it("walks records across its 1 MiB reads, one record larger than a read, and finds damage far in", async () => {
    const dir = newDir();
    const j = Journal.open({ dir, fsync: "none" });
    for (let i = 0; i < 6000; i++)
      j.event({ source: "hft-poll", clientId: `c${i}`, body: "x".repeat(300 + (i % 7)) });
    j.response({ clientId: "big", op: "query", status: 200, body: "y".repeat(1_500_000) });
    for (let i = 0; i < 3000; i++) j.event({ source: "hft-poll", clientId: `d${i}`, body: "z".repeat(200) });
    await j.close();
    const f = j.path;
    expect(readFileSync(f).length).toBeGreaterThan(3_000_000);
    expect(scanJournal(f)).toMatchObject({ records: 9001, fault: undefined });
    const s = starts(f);
    flip(f, s[8500]! + 25);
    expect(scanJournal(f).fault).toMatchObject({
      offset: s[8500],
      kind: "checksum",
      records: 8500,
      after: 500,
    });
  });
});

describe("damage is not a torn tail (NDJSON)", () => {
  it("a line that does not parse mid-file refuses; a last line without its newline is a torn tail", async () => {
    const dir = newDir();
    const f = await writeRun(dir, 5, "ndjson");
    const text = readFileSync(f, "utf8");
    const lines = text.split("\n");
    const offset = Buffer.byteLength(lines.slice(0, 6).join("\n")) + 1;
    lines[6] = `${lines[6]!.slice(0, 10)}#${lines[6]!.slice(11)}`;
    writeFileSync(f, lines.join("\n"));
    const e = refusal([f]);
    expect(e.offset).toBe(offset);
    expect(e.message).toContain("(a line that does not parse): 5 records before it, 14 readable after it");

    const g = await writeRun(dir, 5, "ndjson");
    truncateSync(g, readFileSync(g).length - 4);
    expect(scanJournal(g).fault).toMatchObject({ kind: "incomplete", tail: true, records: 19 });
    expect(replayJournals([g], () => {}).records).toBe(19);
  });
});
