/**
 * The drop copy's buffer on disk, written with the journal's writer (its own directory, its fsync
 * policy): an `out` record per event (session name; frame = 8-byte dcSeq, then the protocol frame)
 * and a `note` "acked <dcSeq>" when the stream confirmed everything up to there. At start the
 * unconfirmed tail of older files is copied into the new file and the older files are removed, so the
 * spool holds what NATS has not confirmed plus this run's events.
 */
import { mkdirSync, rmSync } from "node:fs";
import { listJournals, readJournal } from "../journal/reader.js";
import { type FsyncPolicy, Journal } from "../journal/writer.js";

export interface SpoolEntry {
  readonly dc: number;
  readonly session: string;
  /** The protocol frame (a G2C message with its header). */
  readonly frame: Uint8Array;
}

export interface SpoolLoad {
  /** Events not confirmed by the stream, oldest first. */
  pending: SpoolEntry[];
  /** Highest dcSeq ever written (0 = none). */
  lastDc: number;
  /** Highest dcSeq the stream confirmed, as last noted. */
  ackedDc: number;
}

const ACKED = "acked ";

export class Spool {
  private constructor(private readonly j: Journal) {}

  /** Opens the spool in `dir`, carrying the unconfirmed events of earlier runs into this run's file. */
  static open(dir: string, fsync: FsyncPolicy): { spool: Spool; load: SpoolLoad } {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const older = listJournals(dir);
    const byDc = new Map<number, SpoolEntry>();
    let lastDc = 0;
    let ackedDc = 0;
    for (const f of older) {
      for (const r of readJournal(f).records) {
        if (r.k === "out" && r.frame.length > 8) {
          const dc = r.frame.readDoubleLE(0);
          byDc.set(dc, { dc, session: r.session, frame: new Uint8Array(r.frame.subarray(8)) });
          if (dc > lastDc) lastDc = dc;
        } else if (r.k === "note" && r.text.startsWith(ACKED)) {
          ackedDc = Math.max(ackedDc, Number(r.text.slice(ACKED.length)) || 0);
        }
      }
    }
    const pending = [...byDc.values()].filter((e) => e.dc > ackedDc).sort((a, b) => a.dc - b.dc);
    const spool = new Spool(Journal.open({ dir, fsync, rotate: "run" }));
    spool.acked(ackedDc);
    for (const e of pending) spool.append(e.dc, e.session, e.frame);
    spool.j.flushSync();
    for (const f of older) rmSync(f, { force: true });
    return { spool, load: { pending, lastDc, ackedDc } };
  }

  /** Appends one event (in memory at once, on disk at the journal's next flush, this turn). */
  append(dc: number, session: string, frame: Uint8Array): void {
    const b = Buffer.allocUnsafe(8 + frame.length);
    b.writeDoubleLE(dc, 0);
    b.set(frame, 8);
    this.j.out(session, b);
  }

  acked(dc: number): void {
    this.j.note({ text: `${ACKED}${dc}` });
  }

  flush(): boolean {
    return this.j.flushSync();
  }

  get path(): string {
    return this.j.path;
  }

  close(): Promise<void> {
    return this.j.close();
  }
}

/** Removes a spool directory (tests). */
export function removeSpool(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
