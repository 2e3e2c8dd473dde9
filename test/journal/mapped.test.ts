/**
 * The mapped journal (writeMode "map", docs/reliability.md): records are encoded straight into the file
 * through a mapped window and are in the file as soon as `append` returns, with no write(2); a killed
 * process leaves them and a zero tail that the start-up scan takes as a torn tail; a clean close cuts
 * the file to its records; the bytes are those write(2) would have written; a window that cannot be
 * reserved (the file may not grow) turns the rest of the file back to write(2) with nothing lost or
 * repeated. Skipped where the native part is not built.
 */
import { spawn } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  classify,
  encodeBinary,
  Journal,
  type JournalOptions,
  readJournal,
  scanJournal,
} from "../../src/journal/index.js";
import { windowAddon } from "../../src/journal/mappedWindow.js";
import { fileSizeLimit, PRLIMIT } from "./fileSizeLimit.js";
import { appendNotes, noteHeads, tempDirs } from "./journalFiles.js";

const newDir = tempDirs("hftgate-mapped-");
const BUILT = windowAddon() !== undefined;
const DIST_JOURNAL = join(process.cwd(), "dist", "src", "journal", "index.js");

afterEach(() => {
  if (PRLIMIT) fileSizeLimit("unlimited");
});

const T0 = Date.UTC(2026, 10, 27, 9);
function open(over: Partial<JournalOptions> = {}): { j: Journal; warnings: string[] } {
  const warnings: string[] = [];
  const j = Journal.open({
    dir: newDir(),
    fsync: "none",
    writeMode: "map",
    windowBytes: 64 * 1024,
    now: () => T0,
    onWarning: (m) => warnings.push(m),
    ...over,
  });
  return { j, warnings };
}

/** Notes from..from+n-1 of about 70 bytes each. */
const notes = (j: Journal, from: number, n: number) => appendNotes(j, from, n, 5);
const texts = (path: string) => noteHeads(path, 5);
const expected = (n: number) => Array.from({ length: n }, (_, i) => `note ${String(i).padStart(5, "0")}`);

describe.skipIf(!BUILT)("the mapped journal", () => {
  it("records are in the file when append returns; the window's unused part reads as a torn tail; close cuts it", async () => {
    const { j } = open();
    expect(j.mode).toBe("map");
    notes(j, 0, 3000); // ~210 kB: four windows of 64 KiB
    expect(j.stats.writes).toBe(0);
    const size = statSync(j.path).size;
    expect(size).toBeGreaterThan(j.position);
    const live = readJournal(j.path);
    expect(live.records.map((r) => r.seq)).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1));
    expect(live.fault).toMatchObject({ offset: j.position, after: 0, tail: true });
    const position = j.position;
    await j.close();
    expect(statSync(j.path).size).toBe(position);
    const read = readJournal(j.path);
    expect([read.fault, read.tornBytes]).toEqual([undefined, 0]);
    expect(texts(j.path)).toEqual(expected(3000));
  });

  it("writes the same bytes as write(2) would", async () => {
    const records = (j: Journal) => {
      notes(j, 0, 1500);
      j.command({ session: "s1", op: "new", clientId: "hg-1", symbol: "BTCUSDT", side: "buy", qty: "0.5" });
      j.response({
        clientId: "hg-1",
        op: "create",
        status: 200,
        body: `{"data":{"order_id":"é${"y".repeat(900)}"}}`,
      });
      j.out(
        "s1",
        Uint8Array.from({ length: 300 }, (_, i) => i & 0xff),
      );
    };
    const identity = { venue: "sim", url: "embedded", account: "embedded" };
    const mapped = open({ identity }).j;
    const written = Journal.open({ dir: newDir(), fsync: "none", now: () => T0, identity });
    records(mapped);
    records(written);
    await Promise.all([mapped.close(), written.close()]);
    expect(readFileSync(mapped.path).equals(readFileSync(written.path))).toBe(true);
  });

  it("a record refused halfway leaves no byte behind: the file reads clean up to the next record", async () => {
    const { j } = open();
    notes(j, 0, 10);
    const at = j.position;
    expect(() =>
      j.command({ session: "s", op: "new", clientId: "hg-2", qty: 5 as unknown as string }),
    ).toThrow(/expected string/);
    expect(j.position).toBe(at);
    const tail = readFileSync(j.path).subarray(at);
    expect(tail.every((b) => b === 0)).toBe(true);
    notes(j, 10, 1);
    await j.close();
    expect(texts(j.path)).toEqual(expected(11));
    expect(readJournal(j.path).records.map((r) => r.seq)).toEqual(
      Array.from({ length: 11 }, (_, i) => i + 1),
    );
  });

  it("fsync every: a record is durable only after the fdatasync", async () => {
    const { j } = open({ fsync: "every" });
    notes(j, 0, 1);
    expect(j.flushSync()).toBe(false);
    const durable = await new Promise<boolean>((resolve) => j.onDurable(() => resolve(true)));
    expect(durable).toBe(true);
    expect(j.stats.syncs).toBeGreaterThanOrEqual(1);
    expect(j.flushSync()).toBe(true);
    await j.close();
  });

  it("killed with SIGKILL: every appended record is in the file, the zero tail is the newest file's torn tail", async () => {
    const dir = newDir();
    const script = `
      import { Journal } from ${JSON.stringify(pathToFileURL(DIST_JOURNAL).href)};
      const j = Journal.open({ dir: ${JSON.stringify(dir)}, fsync: "none", writeMode: "map", windowBytes: 65536 });
      for (let i = 0; i < 2500; i++) j.note({ text: "note " + String(i).padStart(5, "0") + " " + "x".repeat(40) });
      process.stdout.write(JSON.stringify({ path: j.path, position: j.position, mode: j.mode, writes: j.stats.writes }) + "\\n");
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let buf = "";
      child.stdout.on("data", (d: Buffer) => {
        buf += d.toString();
        if (buf.includes("\n")) resolve(buf.split("\n")[0]!);
      });
      child.on("exit", (code) => reject(new Error(`child exited ${code} before it wrote`)));
    });
    const told = JSON.parse(line) as { path: string; position: number; mode: string; writes: number };
    expect([told.mode, told.writes]).toEqual(["map", 0]);
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    expect(statSync(told.path).size).toBeGreaterThan(told.position);
    expect(texts(told.path)).toEqual(expected(2500));
    const { damage, tornTail } = classify([scanJournal(told.path)]);
    expect(damage).toEqual([]);
    expect(tornTail).toMatchObject({ file: told.path, offset: told.position });
  });

  it("a record whose kind byte is still 0 is a torn tail at the end of the newest file, damage anywhere else", async () => {
    const { j } = open();
    notes(j, 0, 5);
    await j.close();
    const whole = readFileSync(j.path);
    // A record as a killed writer leaves it: every byte but the kind byte, which is written last.
    const rec = Buffer.alloc(200);
    const end = encodeBinary(rec, 0, "note", 6, T0, { text: "cut before its kind byte" });
    const cut = Buffer.from(rec.subarray(0, end));
    cut[8] = 0;
    writeFileSync(j.path, Buffer.concat([whole, cut, Buffer.alloc(4096)]));
    const atEnd = scanJournal(j.path);
    expect(atEnd.fault).toMatchObject({ offset: whole.length, tail: true, after: 0 });
    expect(atEnd.records).toBe(5);
    // The same bytes with a whole record after them: not what a killed writer leaves.
    writeFileSync(j.path, Buffer.concat([whole, cut, rec.subarray(0, end)]));
    const inside = scanJournal(j.path);
    expect(inside.fault).toMatchObject({ offset: whole.length, tail: false, after: 1 });
  });

  it("encodeBinary sets the kind byte last: a record that does not fit, or is refused, leaves it 0", () => {
    const small = Buffer.alloc(40);
    expect(encodeBinary(small, 0, "note", 1, T0, { text: "x".repeat(100) })).toBe(-1);
    expect(small[8]).toBe(0);
    expect(small.readDoubleLE(9)).toBe(1); // the head was written: only the kind byte is missing
    const big = Buffer.alloc(200);
    expect(() => encodeBinary(big, 0, "cmd", 1, T0, { session: "s", op: "new", qty: 5 })).toThrow();
    expect(big[8]).toBe(0);
  });

  it.skipIf(!PRLIMIT)(
    "a window the file may not grow to: write(2) from that byte on, every record once, in order",
    async () => {
      const { j, warnings } = open();
      notes(j, 0, 1200); // ~84 kB: the second window is mapped
      const windowEnd = statSync(j.path).size;
      expect(windowEnd).toBeGreaterThan(j.position);
      // The next window's reservation fails with EFBIG; writes still fit up to the limit.
      expect(fileSizeLimit(windowEnd + 2048)).toBe(true);
      notes(j, 1200, 1000);
      expect(j.mode).toBe("write");
      expect(
        warnings.some((w) => /no mapped window at byte \d+ .*writing with write\(2\) from here/.test(w)),
      ).toBe(true);
      fileSizeLimit("unlimited");
      await j.flush();
      notes(j, 2200, 10);
      await j.close();
      const read = readJournal(j.path);
      expect([read.fault, read.tornBytes]).toEqual([undefined, 0]);
      expect(texts(j.path)).toEqual(expected(2210));
      expect(read.records.map((r) => r.seq)).toEqual(Array.from({ length: 2210 }, (_, i) => i + 1));
    },
  );
});
