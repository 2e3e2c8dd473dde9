/**
 * The append-only journal writer. `append` encodes into memory and returns at once; a flush
 * scheduled with setImmediate (or forced by `flush()`) hands the batch to the kernel with one
 * write/writev through libuv, so the hot path never waits on the disk. Records are in the journal
 * (in order, before anything else happens) when append returns; they are on disk once the batch is
 * written, and durable after the fsync the policy asks for:
 *   none      the OS decides (survives a process crash, not a power cut);
 *   interval  fdatasync every `intervalMs` while there is unsynced data;
 *   every     fdatasync after every batch; `flush()` resolves only after it.
 */
import {
  chmodSync,
  closeSync,
  existsSync,
  fchmodSync,
  fdatasync,
  fstatSync,
  mkdirSync,
  openSync,
  statSync,
  write,
  writeSync,
  writev,
  writevSync,
} from "node:fs";
import { join } from "node:path";
import { BINARY_MAGIC, binaryBound, encodeBinary, encodeNdjson, type JournalFormat } from "./codec.js";
import type {
  CommandInput,
  EventInput,
  NoteInput,
  RecordKind,
  RequestInput,
  ResponseInput,
} from "./records.js";

export type FsyncPolicy = "none" | "every" | { readonly intervalMs: number };

export interface JournalOptions {
  readonly dir: string;
  /**
   * Default "binary": in bench/suites/journal.ts it appends at ~0.6x NDJSON's p50 and writes 25 %
   * fewer bytes (docs/reliability.md). "ndjson" stays available for eyeballing with standard tools.
   */
  readonly format?: JournalFormat;
  /** Default { intervalMs: 100 }. */
  readonly fsync?: FsyncPolicy;
  /** "run": one file per process start (default); "day": one file per UTC day, appended to. */
  readonly rotate?: "run" | "day";
  /** Wall clock in ms; injectable for tests. */
  readonly now?: () => number;
  /** Non-fatal problems (a journal directory that could not be made owner-only); default process.emitWarning. */
  readonly onWarning?: (msg: string) => void;
  /** Write errors are reported here (the journal keeps buffering); default: throw asynchronously. */
  readonly onError?: (err: Error) => void;
  /**
   * "sync" (default): each batch is handed to the kernel with writeSync/writevSync on the event loop
   * (a page-cache copy of a few hundred bytes, ~2 µs) instead of a libuv thread-pool round trip, which
   * cost ~25 µs per order on a busy single vCPU in the e2e bench. "async" keeps the thread pool.
   * fdatasync always runs on the thread pool.
   */
  readonly writeMode?: "sync" | "async";
}

export interface JournalStats {
  records: number;
  bytes: number;
  writes: number;
  syncs: number;
}

const CHUNK = 256 * 1024;
/**
 * The journal holds every order, request and raw venue answer: owner-only, like the state file.
 * A directory or file found with looser bits is tightened (its owner may always chmod it).
 */
export const JOURNAL_DIR_MODE = 0o700;
export const JOURNAL_FILE_MODE = 0o600;

/**
 * Creates `dir` (and missing parents) owner-only, or tightens an existing one to 0700; a directory
 * this user may not chmod (not its owner) is used as it is, with a warning.
 */
function ownerOnlyDir(dir: string, warn: (msg: string) => void): void {
  mkdirSync(dir, { recursive: true, mode: JOURNAL_DIR_MODE });
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  try {
    chmodSync(dir, JOURNAL_DIR_MODE);
  } catch (err) {
    warn(
      `journal directory ${dir} is mode ${mode.toString(8)} and could not be made 0700: ${(err as Error).message}`,
    );
  }
}

/** `20261121T091500.123Z`: sorts like time. */
function stampMs(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, "");
}

function stamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

export class Journal {
  readonly format: JournalFormat;
  readonly fsync: FsyncPolicy;
  readonly stats: JournalStats = { records: 0, bytes: 0, writes: 0, syncs: 0 };
  private readonly opts: JournalOptions;
  private readonly now: () => number;
  private fd = -1;
  private filePath = "";
  private day = "";
  private seq = 0;
  // binary pending: slices of chunks; ndjson pending: strings
  private chunk: Buffer = Buffer.allocUnsafe(CHUNK);
  private chunkStart = 0;
  private chunkOff = 0;
  private bufs: Buffer[] = [];
  private strs: string[] = [];
  private scheduled = false;
  private writing = false;
  private writtenSeq = 0;
  private syncedSeq = 0;
  private waiters: { seq: number; durable: boolean; resolve: () => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly flushCb = () => this.flushNow();

  private constructor(opts: JournalOptions) {
    this.opts = opts;
    this.format = opts.format ?? "binary";
    this.fsync = opts.fsync ?? { intervalMs: 100 };
    this.now = opts.now ?? Date.now;
    ownerOnlyDir(opts.dir, opts.onWarning ?? ((m) => process.emitWarning(m)));
    this.openFile();
    if (typeof this.fsync === "object") {
      this.timer = setInterval(() => this.syncIfDirty(), Math.max(1, this.fsync.intervalMs));
      this.timer.unref();
    }
  }

  /** Opens (creates) the journal file for this run or day. Throws if the directory is unusable. */
  static open(opts: JournalOptions): Journal {
    return new Journal(opts);
  }

  get path(): string {
    return this.filePath;
  }

  /** Last sequence number handed out. */
  get lastSeq(): number {
    return this.seq;
  }

  command(r: CommandInput): number {
    return this.append("cmd", r);
  }
  request(r: RequestInput): number {
    return this.append("req", r);
  }
  response(r: ResponseInput): number {
    return this.append("res", r);
  }
  event(r: EventInput): number {
    return this.append("evt", r);
  }
  note(r: NoteInput): number {
    return this.append("note", r);
  }

  /** Resolves when everything appended so far is written (and fdatasync'd under "every"). */
  flush(): Promise<void> {
    return this.waitFor(this.fsync === "every");
  }

  /** Resolves when everything appended so far is written and fdatasync'd, whatever the policy. */
  sync(): Promise<void> {
    return this.waitFor(true);
  }

  /** Flushes, syncs and closes the file. Appends after close throw. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.sync();
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    closeSync(this.fd);
    this.fd = -1;
  }

  private append(kind: RecordKind, r: object): number {
    if (this.closed) throw new Error("journal is closed");
    // The sequence number is taken only once encoding succeeded: a bad record leaves no gap.
    const seq = this.seq + 1;
    const ts = this.now();
    if (this.format === "ndjson") {
      this.strs.push(encodeNdjson(kind, seq, ts, r));
    } else {
      const need = binaryBound(kind, r);
      if (this.chunkOff + need > this.chunk.length) this.newChunk(need);
      this.chunkOff = encodeBinary(this.chunk, this.chunkOff, kind, seq, ts, r);
    }
    this.seq = seq;
    this.stats.records++;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushCb);
    }
    return seq;
  }

  private newChunk(need: number): void {
    if (this.chunkOff > this.chunkStart) this.bufs.push(this.chunk.subarray(this.chunkStart, this.chunkOff));
    // The old chunk stays referenced by its pending slice; it is never written into again.
    this.chunk = Buffer.allocUnsafe(Math.max(CHUNK, need));
    this.chunkStart = 0;
    this.chunkOff = 0;
  }

  private waitFor(durable: boolean): Promise<void> {
    const seq = this.seq;
    if ((durable ? this.syncedSeq : this.writtenSeq) >= seq) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push({ seq, durable, resolve });
      this.flushNow();
    });
  }

  private flushNow(): void {
    this.scheduled = false;
    if (this.writing || this.fd < 0) return;
    const upto = this.seq;
    let data: Buffer[] | string;
    if (this.format === "ndjson") {
      if (this.strs.length === 0) {
        this.afterWrite(upto);
        return;
      }
      data = this.strs.length === 1 ? this.strs[0]! : this.strs.join("");
      this.strs = [];
    } else {
      if (this.chunkOff > this.chunkStart) {
        this.bufs.push(this.chunk.subarray(this.chunkStart, this.chunkOff));
        this.chunkStart = this.chunkOff;
      }
      if (this.bufs.length === 0) {
        this.afterWrite(upto);
        return;
      }
      data = this.bufs;
      this.bufs = [];
    }
    this.rotateIfNeeded();
    this.writing = true;
    const done = (err: NodeJS.ErrnoException | null, n: number) => {
      this.writing = false;
      if (err !== null) {
        this.fail(err);
        return;
      }
      this.stats.writes++;
      this.stats.bytes += n;
      this.writtenSeq = upto;
      if (this.fsync === "every") this.doSync(upto);
      else this.afterWrite(upto);
    };
    if (this.opts.writeMode === "async") {
      if (typeof data === "string") write(this.fd, data, null, "utf8", done);
      else writev(this.fd, data, done);
      return;
    }
    let n = 0;
    try {
      n =
        typeof data === "string"
          ? writeAllSync(this.fd, Buffer.from(data, "utf8"))
          : writevAllSync(this.fd, data);
    } catch (err) {
      done(err as NodeJS.ErrnoException, 0);
      return;
    }
    done(null, n);
  }

  /** Called when nothing more is in flight for `upto`; settles waiters and syncs if one asks. */
  private afterWrite(upto: number): void {
    if (this.waiters.some((w) => w.durable && w.seq > this.syncedSeq && w.seq <= this.writtenSeq)) {
      this.doSync(upto);
      return;
    }
    this.settle();
    // More was appended while writing: write it now rather than wait for the next append.
    if (this.seq > this.writtenSeq && !this.scheduled) this.flushNow();
  }

  private doSync(upto: number): void {
    this.writing = true;
    fdatasync(this.fd, (err) => {
      this.writing = false;
      if (err !== null) {
        this.fail(err);
        return;
      }
      this.stats.syncs++;
      if (upto > this.syncedSeq) this.syncedSeq = upto;
      this.settle();
      if (this.seq > this.writtenSeq && !this.scheduled) this.flushNow();
    });
  }

  private syncIfDirty(): void {
    if (this.writing || this.fd < 0 || this.syncedSeq >= this.writtenSeq) return;
    this.doSync(this.writtenSeq);
  }

  private settle(): void {
    if (this.waiters.length === 0) return;
    const keep: typeof this.waiters = [];
    for (const w of this.waiters) {
      if ((w.durable ? this.syncedSeq : this.writtenSeq) >= w.seq) w.resolve();
      else keep.push(w);
    }
    this.waiters = keep;
  }

  private fail(err: Error): void {
    if (this.opts.onError !== undefined) this.opts.onError(err);
    else
      setImmediate(() => {
        throw err;
      });
  }

  private rotateIfNeeded(): void {
    if (this.opts.rotate !== "day") return;
    const d = stamp(this.now()).slice(0, 8);
    if (d === this.day) return;
    // Once a day: a synchronous close/open is acceptable here.
    closeSync(this.fd);
    this.openFile();
  }

  private openFile(): void {
    const ext = this.format === "ndjson" ? "ndjson" : "hgj";
    const t = this.now();
    const ts = stamp(t);
    this.day = ts.slice(0, 8);
    // Run files sort by name in start order: milliseconds in the stamp, fixed-width pid and counter.
    const runBase = `hftgate-${stampMs(t)}-${String(process.pid).padStart(10, "0")}`;
    let name = this.opts.rotate === "day" ? `hftgate-${this.day}.${ext}` : `${runBase}-00.${ext}`;
    for (let i = 1; this.opts.rotate !== "day" && existsSync(join(this.opts.dir, name)); i++)
      name = `${runBase}-${String(i).padStart(2, "0")}.${ext}`;
    this.filePath = join(this.opts.dir, name);
    this.fd = openSync(this.filePath, "a", JOURNAL_FILE_MODE);
    const st = fstatSync(this.fd);
    if ((st.mode & 0o077) !== 0) fchmodSync(this.fd, JOURNAL_FILE_MODE); // a day file from before
    if (st.size === 0) {
      if (this.format === "binary") writeSync(this.fd, BINARY_MAGIC);
      else
        writeSync(
          this.fd,
          `${JSON.stringify({ k: "hdr", format: "hftgate-journal", v: 1, ts: t, pid: process.pid })}\n`,
        );
    }
  }
}

/** writeSync until every byte is in (a regular file takes all at once unless the disk is full). */
function writeAllSync(fd: number, buf: Buffer): number {
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off);
  return off;
}

function writevAllSync(fd: number, bufs: Buffer[]): number {
  let total = 0;
  for (const b of bufs) total += b.length;
  const n = writevSync(fd, bufs);
  if (n === total) return n;
  // Partial write: finish the remainder buffer by buffer.
  let skip = n;
  for (const b of bufs) {
    if (skip >= b.length) {
      skip -= b.length;
      continue;
    }
    writeAllSync(fd, skip > 0 ? b.subarray(skip) : b);
    skip = 0;
  }
  return total;
}
