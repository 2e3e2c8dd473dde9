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
  OutboundInput,
  RecordKind,
  RequestInput,
  ResponseInput,
  SessionInput,
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
  /** An asynchronous write (writeMode "async") is in flight: the next batch waits for it. */
  private writing = false;
  /** An fdatasync is in flight; synchronous writes go on meanwhile (the next sync covers them). */
  private syncing = false;
  private writtenSeq = 0;
  private syncedSeq = 0;
  private waiters: { seq: number; durable: boolean; resolve: () => void }[] = [];
  /** onDurable callbacks, by the sequence number they wait for. */
  private durableCbs: { seq: number; cb: () => void }[] = [];
  private failed = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly flushCb = () => {
    this.scheduled = false;
    this.flushNow();
  };
  private readonly outScratch: OutboundInput = { session: "", frame: new Uint8Array(0) };

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
  /** A sequenced frame as sent to a resumable session (hot path: no object per call). */
  out(session: string, frame: Uint8Array): number {
    const o = this.outScratch;
    o.session = session;
    o.frame = frame;
    return this.append("out", o);
  }
  session(r: SessionInput): number {
    return this.append("ses", r);
  }

  /** Resolves when everything appended so far is written (and fdatasync'd under "every"). */
  flush(): Promise<void> {
    return this.waitFor(this.fsync === "every");
  }

  /** Resolves when everything appended so far is written and fdatasync'd, whatever the policy. */
  sync(): Promise<void> {
    return this.waitFor(true);
  }

  /**
   * Hands what was appended so far to the kernel now, on the caller's turn (writeMode "sync"), and
   * says whether it is then durable under the policy: written for "none" and an interval, fdatasync'd
   * for "every" (so false until that sync completes: wait with `onDurable`). After a write failure it
   * answers true: the journal no longer holds anything back (the failure was reported to onError).
   */
  flushSync(): boolean {
    if (this.failed) return true;
    if (this.seq > this.writtenSeq && !this.writing && this.opts.writeMode !== "async") this.flushNow();
    return (this.fsync === "every" ? this.syncedSeq : this.writtenSeq) >= this.seq;
  }

  /** Calls `cb` once everything appended so far is durable as `flushSync` means it (or writing failed). */
  onDurable(cb: () => void): void {
    if (this.flushSync()) {
      cb();
      return;
    }
    this.durableCbs.push({ seq: this.seq, cb });
    if (this.seq > this.writtenSeq) this.flushNow();
  }

  /** Flushes, syncs and closes the file. Appends after close throw. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.sync();
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    // An fdatasync started after the one awaited (by a later batch) must end before the fd does.
    while (this.syncing) await new Promise((r) => setTimeout(r, 1));
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
    if (this.writing || this.fd < 0) return;
    const upto = this.seq;
    let data: Buffer[] | string;
    if (this.format === "ndjson") {
      if (this.strs.length === 0) {
        this.afterWrite();
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
        this.afterWrite();
        return;
      }
      data = this.bufs;
      this.bufs = [];
    }
    this.rotateIfNeeded();
    const done = (err: NodeJS.ErrnoException | null, n: number) => {
      this.writing = false;
      if (err !== null) {
        this.fail(err);
        return;
      }
      this.stats.writes++;
      this.stats.bytes += n;
      this.writtenSeq = upto;
      this.afterWrite();
    };
    if (this.opts.writeMode === "async") {
      this.writing = true;
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

  /** After a write (or nothing to write): sync if the policy or a waiter asks, settle the rest. */
  private afterWrite(): void {
    if (this.writtenSeq > this.syncedSeq && (this.fsync === "every" || this.syncWanted())) this.doSync();
    this.settle();
    // More was appended while an async write was out: write it now rather than wait for the next append.
    if (this.seq > this.writtenSeq && !this.scheduled && !this.writing) {
      this.scheduled = true;
      setImmediate(this.flushCb);
    }
  }

  private syncWanted(): boolean {
    for (const w of this.waiters)
      if (w.durable && w.seq > this.syncedSeq && w.seq <= this.writtenSeq) return true;
    return false;
  }

  /** fdatasync of everything written so far; one at a time (a later batch gets its own after it). */
  private doSync(): void {
    if (this.syncing) return; // the callback below starts the next one if still needed
    const upto = this.writtenSeq;
    this.syncing = true;
    fdatasync(this.fd, (err) => {
      this.syncing = false;
      if (err !== null) {
        this.fail(err);
        return;
      }
      this.stats.syncs++;
      if (upto > this.syncedSeq) this.syncedSeq = upto;
      this.afterWrite();
    });
  }

  private syncIfDirty(): void {
    if (this.fd < 0 || this.syncedSeq >= this.writtenSeq) return;
    this.doSync();
  }

  private settle(): void {
    if (this.waiters.length > 0) {
      const keep: typeof this.waiters = [];
      for (const w of this.waiters) {
        if ((w.durable ? this.syncedSeq : this.writtenSeq) >= w.seq) w.resolve();
        else keep.push(w);
      }
      this.waiters = keep;
    }
    if (this.durableCbs.length > 0) {
      const upto = this.fsync === "every" ? this.syncedSeq : this.writtenSeq;
      const ready = this.durableCbs.filter((d) => d.seq <= upto || this.failed);
      if (ready.length === 0) return;
      this.durableCbs = this.durableCbs.filter((d) => d.seq > upto && !this.failed);
      for (const d of ready) d.cb();
    }
  }

  private fail(err: Error): void {
    this.failed = true;
    this.settle();
    if (this.opts.onError !== undefined) this.opts.onError(err);
    else
      setImmediate(() => {
        throw err;
      });
  }

  private rotateIfNeeded(): void {
    // Not while an fdatasync holds the fd: the batch goes to the old day's file, the next one rotates.
    if (this.opts.rotate !== "day" || this.syncing) return;
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
