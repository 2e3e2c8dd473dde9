/**
 * A journal that cannot write stops the flow. The gateway already holds every frame the journal
 * lacks (gateway/durableGate.ts); this halts trading with the write error as the TradingState reason
 * (that frame waits for the journal too), gives /health its 503 reason, and when the journal's retried
 * write succeeds returns the account to the state it had — unless someone changed the state meanwhile,
 * whose decision then stands.
 */
import type { Logger } from "pino";
import type { RiskGate } from "../risk/riskGate.js";
import type { TradingState } from "../risk/tradingState.js";

export class JournalHalt {
  private reason: string | undefined;
  /** The state to return to at recovery; undefined when the halt is not the journal's alone. */
  private before: TradingState | undefined;
  private since = 0;

  constructor(
    private readonly risk: RiskGate,
    private readonly log: Logger,
  ) {
    risk.addListener({
      onTradingState: (c) => {
        if (this.reason !== undefined && c.reason !== this.reason) this.before = undefined;
      },
    });
  }

  /** The journal's `onError`: the first failed write (or sync) of an episode. */
  readonly onError = (err: Error): void => {
    const code = (err as NodeJS.ErrnoException).code;
    this.reason = `journal cannot write: ${code ?? err.message}`.slice(0, 64);
    this.since = Date.now();
    this.log.error(
      { err: err.message },
      "journal write failed: trading halted, frames held until a retried write succeeds",
    );
    this.before = this.risk.state === "halted" ? undefined : this.risk.state;
    this.risk.setState("halted", this.reason, "trigger");
  };

  /** The journal's `onRecover`: a retried write succeeded; what waited follows in order. */
  readonly onRecover = (): void => {
    const back = this.before;
    this.reason = undefined;
    this.before = undefined;
    this.log.warn({ ms: Date.now() - this.since, state: back ?? this.risk.state }, "journal writes again");
    if (back !== undefined && this.risk.state === "halted")
      this.risk.setState(back, "journal writes again", "trigger");
  };

  /** Why the flow is stopped, while the journal cannot write (/health). */
  get problem(): string | undefined {
    return this.reason;
  }
}
