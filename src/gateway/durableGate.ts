/**
 * The journal-before-socket rule (PROTOCOL.md §3): a sequenced frame reaches a connection only once
 * the journal holds it, and everything the engine journaled before it, durably under its fsync policy.
 * With `none` or an interval that is one synchronous write of the turn's pending records (none at all
 * when the journal is mapped: its records are in the file as they are appended); with
 * `every`, frames wait for the fdatasync; while the journal cannot write at all, they wait until a
 * retried write succeeds. A crash therefore never leaves a strategy with a seq the restarted gateway
 * lacks. Connections whose frames wait are released together once the journal is durable again.
 */
import type { SessionInput } from "../journal/records.js";

/** What the gateway needs of the journal (src/journal's Journal). */
export interface SessionJournal {
  out(session: string, frame: Uint8Array): number;
  session(r: SessionInput): number;
  /** Writes what is pending now; true when it is durable under the journal's fsync policy. */
  flushSync(): boolean;
  /** Calls back once everything appended so far is durable. */
  onDurable(cb: () => void): void;
  /** Set while the journal cannot write (frames wait until a retry succeeds). */
  readonly failure?: Error | undefined;
}

export class DurableGate<L> {
  private journal: SessionJournal | undefined;
  private readonly waiting = new Set<L>();

  constructor(
    journal: SessionJournal | undefined,
    /** Writes a connection's held frames (outbound.ts's release; it asks `durable` again). */
    private readonly release: (l: L) => void,
  ) {
    this.journal = journal;
  }

  /** True when what was journaled so far is durable (this turn's records are written first). */
  durable(): boolean {
    return this.journal === undefined || this.journal.flushSync();
  }

  /** True while the journal cannot write: frames wait, only heartbeats go out. */
  get failing(): boolean {
    return this.journal?.failure !== undefined;
  }

  /** `l` holds frames that wait for durability: released once the journal has them. */
  wait(l: L): void {
    const first = this.waiting.size === 0;
    this.waiting.add(l);
    if (!first) return;
    if (this.journal === undefined) queueMicrotask(this.durableCb);
    else this.journal.onDurable(this.durableCb);
  }

  /** The gateway is closing and the journal closes after it: nothing waits for it any more. */
  detach(): void {
    this.journal = undefined;
    if (this.waiting.size > 0) queueMicrotask(this.durableCb);
  }

  private readonly durableCb = (): void => {
    const links = [...this.waiting];
    this.waiting.clear();
    for (const l of links) this.release(l);
  };
}
