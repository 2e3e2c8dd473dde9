/**
 * SIGINT / SIGTERM for a running gateway: the first one drains and stops it (`stop`, bounded by
 * `shutdown.timeoutMs`); a second one during the drain ends the process at once, exit code 128 + the
 * signal's number, after journaling why (`forceStop`).
 */
import { constants } from "node:os";

export interface Stoppable {
  stop(reason?: string): Promise<void>;
  /** Notes a forced stop (journal, log) synchronously: the process exits right after. */
  forceStop(reason: string): void;
}

/** Installs the handlers; `exit` gets 0 after a completed stop, 128 + n after a forced one. */
export function onStopSignals(h: Stoppable, exit: (code: number) => void): () => void {
  let stopping = false;
  const onSignal = (sig: NodeJS.Signals) => {
    if (stopping) {
      h.forceStop(`second ${sig}`);
      exit(128 + (constants.signals[sig] ?? 0));
      return;
    }
    stopping = true;
    void h.stop(sig).then(() => exit(0));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
}
