/**
 * The REST layer's one entry point for signatures: picks the epoch by policy, checks the clock guard,
 * takes a pre-signed signature from the ring when the request is a fixed hot-path prefix, and
 * otherwise signs inline with the native signer.
 */
import type { EpochSource } from "./epoch.js";
import type { Presigner } from "./presigner.js";
import { signedMessage } from "./signedMessage.js";
import type { Signer } from "./signer.js";

/** Anything that can veto signing (the clock guard); throws a typed error to refuse. */
export interface SignGuard {
  assertCanSign(): void;
}

/** Result of one signing. The facade reuses one instance: read it before the next `signFor`. */
export interface SignedStamp {
  epoch: string;
  signature: string;
}

export class RequestSigner {
  /** Inline signatures (dynamic targets and ring misses). */
  inline = 0;
  private readonly stamp: SignedStamp = { epoch: "", signature: "" };

  constructor(
    private readonly signer: Signer,
    readonly epochs: EpochSource,
    private readonly presigner?: Presigner,
    private readonly guard?: SignGuard,
  ) {}

  /**
   * Signs one request. `prefixId` is the pre-signer prefix index when `method + wireTarget` is exactly
   * that prefix (no query), or -1. Throws whatever the guard throws (ClockError).
   */
  signFor(method: string, wireTarget: string, prefixId: number): SignedStamp {
    this.guard?.assertCanSign();
    const ms = this.epochs.next();
    const epoch = this.epochs.toStr(ms);
    let sig: string | undefined;
    if (prefixId >= 0 && this.presigner !== undefined) sig = this.presigner.get(prefixId, ms);
    if (sig === undefined) {
      this.inline++;
      sig = this.signer.signHex(signedMessage(method, wireTarget, epoch));
    }
    this.stamp.epoch = epoch;
    this.stamp.signature = sig;
    return this.stamp;
  }
}
