/**
 * The engine's run state, shared by its parts: replaying the journal (no requests, no messages),
 * accepting new orders (off at shutdown), stopped (late REST answers ignored).
 */
export class RunState {
  private replayingNow = false;
  private acceptingNow = true;
  private stoppedNow = false;
  /**
   * The HFT private stream is up and reconciled: it reports HFT orders, so no query follows an HFT
   * ack (the HFT rate bucket is left to creates and cancels).
   */
  hftPushTrusted = false;
  /** Told the exchange and client ids of each HFT create acked while the stream is trusted (its silence watch). */
  hftEchoExpected: ((exchangeId: string, clientId: string) => void) | undefined = undefined;

  get replaying(): boolean {
    return this.replayingNow;
  }
  get accepting(): boolean {
    return this.acceptingNow;
  }
  get dead(): boolean {
    return this.stoppedNow;
  }

  /** Runs `fn` with the engine in replay mode (journal replay at start). */
  replay<T>(fn: () => T): T {
    this.replayingNow = true;
    try {
      return fn();
    } finally {
      this.replayingNow = false;
    }
  }
  stopAccepting(): void {
    this.acceptingNow = false;
  }
  stop(): void {
    this.stoppedNow = true;
  }
}
