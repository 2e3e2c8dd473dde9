/**
 * The append-only journal writer. `append` encodes into memory and returns at once; a flush
 * scheduled with setImmediate (or forced by `flush()`) hands the batch to the kernel with one
 * write/writev through libuv, so the hot path never waits on the disk. Records are in the journal
 * (in order, before anything else happens) when append returns; they are on disk once the batch is
 * written, and durable after the fsync the policy asks for:
 *   none      the OS decides (survives a process crash, not a power cut);
 *   interval  fdatasync every `intervalMs` while there is unsynced data;
 *   every     fdatasync after every batch; `flush()` resolves only after it.
 * A write the kernel refuses (disk full, file size limit, I/O error) is not lost and not skipped: what
 * it did not write is kept, appends keep buffering in memory, nothing counts as durable, and the write
 * is retried every `retryIntervalMs` until it succeeds (`onError` once, then `onRecover`). Only the
 * unwritten remainder is retried, so a partial write never leaves a repeated byte in the file.
 */
import {
  chmodSync,
  closeSync,
  existsSync,
  fchmodSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
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
import { identityText, type JournalIdentity } from "./identity.js";
import { type WindowAddon, windowAddon, windowAddonMissing } from "./mappedWindow.js";
import {
  type CommandInput,
  type EventInput,
  JournalError,
  type NoteInput,
  type OutboundInput,
  type RecordKind,
  type RequestInput,
  type ResponseInput,
  type SessionInput,
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
  /**
   * A write (or fdatasync) failed: reported once per failure (in a microtask, never inside the call
   * that wrote), then the journal keeps buffering and retries every `retryIntervalMs`; default: throw
   * asynchronously.
   */
  readonly onError?: (err: Error) => void;
  /** The retried write succeeded: everything appended meanwhile follows in order. */
  readonly onRecover?: () => void;
  /** Retry interval while writes fail; default 1000 ms. */
  readonly retryIntervalMs?: number;
  /**
   * "sync" (default): each batch is handed to the kernel with writeSync/writevSync on the event loop
   * (a page-cache copy of a few hundred bytes, ~2 µs) instead of a libuv thread-pool round trip, which
   * cost ~25 µs per order on a busy single vCPU in the e2e bench. "async" keeps the thread pool.
   * fdatasync always runs on the thread pool.
   * "map" (binary, one file per run): records are encoded straight into the file through a mapped
   * window (mappedWindow.ts), in the page cache as soon as `append` returns, with no system call per
   * batch; needs the native addon (throws without it). A window that cannot be reserved (disk full)
   * turns the rest of the file back to "sync" writes.
   */
  readonly writeMode?: "sync" | "async" | "map";
  /** "map": bytes per mapped window, a multiple of the page size (default 4 MiB). */
  readonly windowBytes?: number;
  /**
   * The venue and account this journal belongs to, written at the head of every file it creates
   * (binary: a `note` with seq 0; NDJSON: in the `hdr` line). Start-up compares it (startCheck.ts).
   */
  readonly identity?: JournalIdentity;
}

export interface JournalStats {
  records: number;
  bytes: number;
  writes: number;
  syncs: number;
}

const CHUNK = 256 * 1024;
/** The mapped window's size: a reservation, fallocate and mmap once per this many bytes of records. */
const WINDOW = 4 * 1024 * 1024;
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
  // binary pending: slices of chunks; ndjson pending: strings. Mapped, `chunk` views the window and
  // `chunkOff` is the end of the records in it; nothing is pending, so `chunkStart` is not used.
  private chunk: Buffer = Buffer.allocUnsafe(CHUNK);
  private chunkStart = 0;
  private chunkOff = 0;
  private bufs: Buffer[] = [];
  private strs: string[] = [];
  /** An asynchronous write (writeMode "async") is in flight: the next batch waits for it. */
  private writing = false;
  /** An fdatasync is in flight; synchronous writes go on meanwhile (the next sync covers them). */
  private syncing = false;
  private writtenSeq = 0;
  private syncedSeq = 0;
  private waiters: { seq: number; durable: boolean; resolve: () => void }[] = [];
  /** onDurable callbacks, by the sequence number they wait for. */
  private durableCbs: { seq: number; cb: () => void }[] = [];
  /** Why writes fail now; undefined while they succeed. */
  private failed: Error | undefined = undefined;
  /** Bytes of the failed batch the kernel did not take, in order, and the sequence number it ends at. */
  private unwritten: Buffer[] = [];
  private unwrittenUpto = 0;
  /** The failure was an fdatasync: the retry syncs again. */
  private syncFailed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Called back when writes fail (close() stops waiting for a sync that cannot come). */
  private failWaiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The turn's scheduled flush (setImmediate), while pending. */
  private immediate: NodeJS.Immediate | undefined;
  private readonly flushCb = () => {
    this.immediate = undefined;
    this.flushNow();
  };
  private readonly outScratch: OutboundInput = { session: "", frame: new Uint8Array(0) };
  /** The mapped window ("map" mode) that `chunk` views, and its file offset; undefined: write(2). */
  private window: ArrayBuffer | undefined;
  private windowAt = 0;
  private readonly addon: WindowAddon | undefined;

  private constructor(opts: JournalOptions) {
    this.opts = opts;
    this.format = opts.format ?? "binary";
    this.fsync = opts.fsync ?? { intervalMs: 100 };
    this.now = opts.now ?? Date.now;
    if (opts.writeMode === "map") {
      if (this.format !== "binary" || opts.rotate === "day")
        throw new JournalError('journal writeMode "map" needs the binary format and one file per run');
      this.addon = windowAddon();
      if (this.addon === undefined)
        throw new JournalError(`journal writeMode "map": ${windowAddonMissing()}`);
    }
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

  /** Bytes of the current file that hold records (its size, less a mapped window's unused part). */
  get position(): number {
    return this.window !== undefined ? this.windowAt + this.chunkOff : statSync(this.filePath).size;
  }

  /** How records reach the kernel now: "map" while a mapped window holds them, else "write". */
  get mode(): "map" | "write" {
    return this.window !== undefined ? "map" : "write";
  }

  /** Last sequence number handed out. */
  get lastSeq(): number {
    return this.seq;
  }

  /** Why the journal cannot write now (nothing it holds since is durable), or undefined. */
  get failure(): Error | undefined {
    return this.failed;
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
   * for "every" (so false until that sync completes: wait with `onDurable`). False while writes fail:
   * nothing appended since is durable until a retry succeeds.
   */
  flushSync(): boolean {
    if (this.failed !== undefined) return false;
    if (this.seq > this.writtenSeq && !this.writing && this.opts.writeMode !== "async") {
      this.flushNow();
      this.dropIdleFlush();
    }
    return (this.fsync === "every" ? this.syncedSeq : this.writtenSeq) >= this.seq;
  }

  /** Calls `cb` once everything appended so far is durable as `flushSync` means it (after a failure: once a retry succeeded). */
  onDurable(cb: () => void): void {
    if (this.flushSync()) {
      cb();
      return;
    }
    this.durableCbs.push({ seq: this.seq, cb });
    if (this.seq > this.writtenSeq) this.flushNow();
  }

  /**
   * Flushes, syncs and closes the file. Appends after close throw. While writes fail it tries once
   * more; what still cannot be written is reported (onWarning) and dropped with the process.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.failed !== undefined) this.retryNow();
    if (this.failed === undefined)
      await new Promise<void>((resolve) => {
        this.failWaiters.push(resolve);
        this.waitFor(true).then(resolve);
      });
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.retryTimer !== undefined) clearInterval(this.retryTimer);
    // An fdatasync started after the one awaited (by a later batch) must end before the fd does.
    while (this.syncing) await new Promise((r) => setTimeout(r, 1));
    if (this.failed !== undefined) {
      const lost = this.seq - (this.syncFailed ? this.syncedSeq : this.writtenSeq);
      (this.opts.onWarning ?? ((m) => process.emitWarning(m)))(
        `journal closed while it could not write (${this.failed.message}): its last ${lost} record(s) may be missing`,
      );
    }
    if (this.window !== undefined) this.leaveWindow();
    closeSync(this.fd);
    this.fd = -1;
  }

  private append(kind: RecordKind, r: object): number {
    if (this.closed) throw new Error("journal is closed");
    // The sequence number is taken only once encoding succeeded: a bad record leaves no gap.
    const seq = this.seq + 1;
    const ts = this.now();
    if (this.window !== undefined) return this.appendMapped(kind, seq, ts, r);
    if (this.format === "ndjson") {
      this.strs.push(encodeNdjson(kind, seq, ts, r));
    } else {
      // Straight into the batch buffer; a record that might not fit starts a new one, sized to hold it.
      let end = encodeBinary(this.chunk, this.chunkOff, kind, seq, ts, r);
      if (end < 0) {
        this.newChunk(binaryBound(kind, r));
        end = encodeBinary(this.chunk, this.chunkOff, kind, seq, ts, r);
      }
      this.chunkOff = end;
    }
    this.seq = seq;
    this.stats.records++;
    if (this.immediate === undefined) {
      this.immediate = setImmediate(this.flushCb);
    }
    return seq;
  }

  /**
   * "map" mode: the record is encoded into the file's page cache and is written when this returns. A
   * record that does not fit moves the window on (a window that cannot be had: write(2) from here).
   */
  private appendMapped(kind: RecordKind, seq: number, ts: number, r: object): number {
    const from = this.chunkOff;
    let end: number;
    try {
      end = encodeBinary(this.chunk, from, kind, seq, ts, r);
      if (end < 0) {
        this.nextWindow(binaryBound(kind, r));
        if (this.window === undefined) return this.append(kind, r);
        end = encodeBinary(this.chunk, this.chunkOff, kind, seq, ts, r);
      }
    } catch (err) {
      // A record refused halfway left bytes after the last whole record: back to the zeros a tail must be.
      if (this.window !== undefined) this.chunk.fill(0, this.chunkOff);
      throw err;
    }
    this.stats.bytes += end - this.chunkOff;
    this.chunkOff = end;
    this.seq = seq;
    this.writtenSeq = seq;
    this.stats.records++;
    // Only "every" has anything left to do: the fdatasync, started from the turn's flush.
    if (this.fsync === "every" && this.immediate === undefined) this.immediate = setImmediate(this.flushCb);
    return seq;
  }

  /** Maps the window that holds the file from `at` on; false (and a warning) when it cannot be had. */
  private mapAt(at: number, need: number): boolean {
    const page = this.addon!.pageSize();
    const base = at - (at % page);
    const len = Math.max(this.opts.windowBytes ?? WINDOW, Math.ceil((at - base + need) / page) * page);
    let next: ArrayBuffer;
    try {
      next = this.addon!.map(this.fd, base, len);
    } catch (err) {
      // A reservation made before the mapping failed would leave zeros between records: cut back.
      ftruncateSync(this.fd, at);
      (this.opts.onWarning ?? ((m) => process.emitWarning(m)))(
        `journal: no mapped window at byte ${at} (${(err as Error).message}); writing with write(2) from here`,
      );
      return false;
    }
    if (this.window !== undefined) this.addon!.unmap(this.window);
    this.window = next;
    this.windowAt = base;
    this.chunk = Buffer.from(next);
    this.chunkOff = at - base;
    return true;
  }

  /** The window is full: the next one starts at the first byte not written. */
  private nextWindow(need: number): void {
    const at = this.windowAt + this.chunkOff;
    if (!this.mapAt(at, need)) this.leaveWindow();
  }

  /**
   * Back to write(2): the window is unmapped and the file cut to its records (the fd appends, so the
   * next write lands right after them).
   */
  private leaveWindow(): void {
    const at = this.windowAt + this.chunkOff;
    this.addon!.unmap(this.window!);
    this.window = undefined;
    ftruncateSync(this.fd, at);
    this.chunk = Buffer.allocUnsafe(CHUNK);
    this.chunkStart = 0;
    this.chunkOff = 0;
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
    // While writes fail only the retry timer writes (what failed first, then the rest, in order).
    if (this.writing || this.fd < 0 || this.failed !== undefined) return;
    if (this.window !== undefined) {
      // Mapped: everything appended is in the file already; what is left is the policy's sync.
      this.writtenSeq = this.seq;
      this.afterWrite();
      return;
    }
    const upto = this.seq;
    if (this.format === "binary" && this.bufs.length === 0 && this.opts.writeMode !== "async") {
      this.flushChunkSync(upto);
      return;
    }
    let data: Buffer[];
    if (this.format === "ndjson") {
      if (this.strs.length === 0) {
        this.afterWrite();
        return;
      }
      // As bytes: a partial write's remainder is exact.
      data = [Buffer.from(this.strs.length === 1 ? this.strs[0]! : this.strs.join(""), "utf8")];
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
      this.stats.bytes += n;
      if (err !== null || n < byteLength(data)) {
        // The kernel took `n` bytes: the rest is kept and retried (a short write is retried at once).
        this.unwritten = skipBytes(data, n);
        this.unwrittenUpto = upto;
        if (err !== null) this.fail(err);
        else this.retryShort();
        return;
      }
      this.stats.writes++;
      this.writtenSeq = upto;
      this.afterWrite();
    };
    if (this.opts.writeMode === "async") {
      this.writing = true;
      if (data.length === 1) write(this.fd, data[0]!, 0, data[0]!.length, null, done);
      else writev(this.fd, data, done);
      return;
    }
    const r = writeAllSync(this.fd, data);
    done(r.err, r.n);
  }

  /**
   * The common case (binary, synchronous, the batch inside one buffer): one writeSync from the batch
   * buffer, with no view, array or closure per batch. A refused or short write falls back to the
   * general handling of what the kernel did not take.
   */
  private flushChunkSync(upto: number): void {
    const from = this.chunkStart;
    const len = this.chunkOff - from;
    if (len === 0) {
      this.afterWrite();
      return;
    }
    this.chunkStart = this.chunkOff;
    this.rotateIfNeeded();
    let n = 0;
    let err: NodeJS.ErrnoException | null = null;
    try {
      n = writeSync(this.fd, this.chunk, from, len);
    } catch (e) {
      err = e as NodeJS.ErrnoException;
    }
    if (err === null && n === len) {
      this.stats.bytes += n;
      this.stats.writes++;
      this.writtenSeq = upto;
      this.afterWrite();
      return;
    }
    const batch = this.chunk.subarray(from, from + len);
    if (err === null) {
      const r = writeAllSync(this.fd, [batch.subarray(n)]);
      n += r.n;
      err = r.err;
    }
    this.stats.bytes += n;
    if (err === null) {
      this.stats.writes++;
      this.writtenSeq = upto;
      this.afterWrite();
      return;
    }
    this.unwritten = skipBytes([batch], n);
    this.unwrittenUpto = upto;
    this.fail(err);
  }

  /** An asynchronous write took part of the batch without an error: write the rest now, synchronously. */
  private retryShort(): void {
    const r = writeAllSync(this.fd, this.unwritten);
    this.stats.bytes += r.n;
    if (r.err !== null) {
      this.unwritten = skipBytes(this.unwritten, r.n);
      this.fail(r.err);
      return;
    }
    this.unwritten = [];
    this.stats.writes++;
    this.writtenSeq = this.unwrittenUpto;
    this.afterWrite();
  }

  /**
   * The retry while writes fail: the failed batch's remainder, then (a failed fdatasync) a sync; on
   * success the journal is healthy again and writes what was appended meanwhile.
   */
  private retryNow(): void {
    const failed = this.failed;
    if (failed === undefined || this.writing || this.fd < 0) return;
    if (this.unwritten.length > 0) {
      const r = writeAllSync(this.fd, this.unwritten);
      this.stats.bytes += r.n;
      this.unwritten = skipBytes(this.unwritten, r.n);
      if (r.err !== null) {
        this.failed = r.err;
        return;
      }
      this.stats.writes++;
      this.writtenSeq = this.unwrittenUpto;
    }
    if (this.syncFailed) {
      try {
        // [assumed] after a failed fdatasync the kernel may have dropped the dirty pages; a later
        // successful sync covers what was written since, which is all a retry can establish.
        fdatasyncSync(this.fd);
      } catch (err) {
        this.failed = err as Error;
        return;
      }
      this.syncFailed = false;
      this.stats.syncs++;
      this.syncedSeq = this.writtenSeq;
    }
    this.failed = undefined;
    if (this.retryTimer !== undefined) clearInterval(this.retryTimer);
    this.retryTimer = undefined;
    const onRecover = this.opts.onRecover;
    if (onRecover !== undefined) queueMicrotask(onRecover);
    this.afterWrite();
    if (this.seq > this.writtenSeq) this.flushNow();
  }

  /** After a write (or nothing to write): sync if the policy or a waiter asks, settle the rest. */
  private afterWrite(): void {
    if (this.writtenSeq > this.syncedSeq && (this.fsync === "every" || this.syncWanted())) this.doSync();
    this.settle();
    // More was appended while an async write was out: write it now rather than wait for the next append.
    if (this.seq > this.writtenSeq && this.immediate === undefined && !this.writing) {
      this.immediate = setImmediate(this.flushCb);
    }
  }

  /**
   * Everything appended is with the kernel: the turn's scheduled flush would find nothing to write, and
   * a pending immediate costs the event loop one more iteration (a zero-timeout poll) per turn.
   */
  private dropIdleFlush(): void {
    if (this.immediate === undefined || this.writtenSeq < this.seq || this.writing) return;
    clearImmediate(this.immediate);
    this.immediate = undefined;
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
        this.syncFailed = true;
        this.fail(err);
        return;
      }
      this.stats.syncs++;
      if (upto > this.syncedSeq) this.syncedSeq = upto;
      this.afterWrite();
    });
  }

  private syncIfDirty(): void {
    if (this.fd < 0 || this.failed !== undefined || this.syncedSeq >= this.writtenSeq) return;
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
      const ready = this.durableCbs.filter((d) => d.seq <= upto);
      if (ready.length === 0) return;
      this.durableCbs = this.durableCbs.filter((d) => d.seq > upto);
      for (const d of ready) d.cb();
    }
  }

  /** Writes fail: nothing more is durable until `retryNow` succeeds; reported once per failure. */
  private fail(err: Error): void {
    const first = this.failed === undefined;
    this.failed = err;
    if (!first) return;
    this.retryTimer = setInterval(() => this.retryNow(), Math.max(1, this.opts.retryIntervalMs ?? 1_000));
    this.retryTimer.unref();
    for (const w of this.failWaiters.splice(0)) w();
    // Reported after the caller's stack (often a flushSync inside a send) has unwound.
    const onError = this.opts.onError;
    if (onError !== undefined) queueMicrotask(() => onError(err));
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
    // A mapping writes through the fd: it must be open for reading too.
    const mapped = this.addon !== undefined;
    this.fd = openSync(this.filePath, mapped ? "a+" : "a", JOURNAL_FILE_MODE);
    const st = fstatSync(this.fd);
    if ((st.mode & 0o077) !== 0) fchmodSync(this.fd, JOURNAL_FILE_MODE); // a day file from before
    let size = st.size;
    if (size === 0) size = writeSync(this.fd, this.fileHead(t));
    if (mapped) this.mapAt(size, 0);
  }

  /** A new file's first bytes: the format's head, then the identity when there is one. */
  private fileHead(t: number): Buffer {
    const id = this.opts.identity;
    if (this.format === "ndjson") {
      const hdr = { k: "hdr", format: "hftgate-journal", v: 1, ts: t, pid: process.pid, identity: id };
      return Buffer.from(`${JSON.stringify(hdr)}\n`, "utf8");
    }
    if (id === undefined) return BINARY_MAGIC;
    const note = { text: identityText(id) };
    const buf = Buffer.alloc(BINARY_MAGIC.length + binaryBound("note", note));
    BINARY_MAGIC.copy(buf);
    return buf.subarray(0, encodeBinary(buf, BINARY_MAGIC.length, "note", 0, t, note));
  }
}

function byteLength(bufs: readonly Buffer[]): number {
  let n = 0;
  for (const b of bufs) n += b.length;
  return n;
}

/** What is left of `bufs` after its first `n` bytes (views, no copy). */
function skipBytes(bufs: readonly Buffer[], n: number): Buffer[] {
  const out: Buffer[] = [];
  let skip = n;
  for (const b of bufs) {
    if (skip >= b.length) {
      skip -= b.length;
      continue;
    }
    out.push(skip > 0 ? b.subarray(skip) : b);
    skip = 0;
  }
  return out;
}

/**
 * Writes `bufs` in order until every byte is in or the kernel refuses (a regular file takes all at
 * once unless the disk is full or the file may not grow); returns the bytes written and the refusal.
 */
function writeAllSync(fd: number, bufs: readonly Buffer[]): { n: number; err: NodeJS.ErrnoException | null } {
  const total = byteLength(bufs);
  let n = 0;
  try {
    n = bufs.length === 1 ? writeSync(fd, bufs[0]!) : writevSync(fd, bufs as Buffer[]);
    while (n < total) {
      // Partial write: the remainder buffer by buffer; the next refusal throws.
      const rest = skipBytes(bufs, n)[0]!;
      n += writeSync(fd, rest);
    }
  } catch (err) {
    return { n, err: err as NodeJS.ErrnoException };
  }
  return { n, err: null };
}
