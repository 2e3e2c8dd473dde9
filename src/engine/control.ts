/**
 * Control: the kill switch, trading states (admin commands, risk triggers, restored from the journal)
 * and their TradingState broadcast. Every state change is journaled so a halt survives a restart.
 */
import type { Logger } from "pino";
import type { KillCmd, SessionInfo, SetTradingStateCmd } from "../gateway/engineApi.js";
import type { Journal } from "../journal/writer.js";
import type { RiskGate } from "../risk/riskGate.js";
import type { TradingStateChange } from "../risk/tradingState.js";
import type { CancelPath } from "./cancelPath.js";
import type { Owners } from "./owners.js";
import type { RunState } from "./runState.js";
import { STATE_FROM_WIRE, STATE_TO_WIRE } from "./wireMap.js";

export interface ControlDeps {
  risk: RiskGate;
  journal: Journal | undefined;
  log: Logger;
  owners: Owners;
  cancels: CancelPath;
  run: RunState;
  /** The kill switch's sweep of venue orders the store does not hold (a journal tail lost to a power cut). */
  venueSweep: () => void;
}

export class Control {
  constructor(private readonly d: ControlDeps) {
    d.risk.addListener({ onTradingState: (c) => this.onTradingState(c) });
  }

  tradingState(): number {
    return STATE_TO_WIRE[this.d.risk.state];
  }

  /** Admin Kill: halt, cancel everything; TradingState to every session even if already halted. */
  onKill(session: SessionInfo, cmd: KillCmd): void {
    const reason = cmd.reason || `kill switch from session ${session.name}`;
    this.d.journal?.command({ session: session.name, op: "kill", reason });
    const wasHalted = this.d.risk.state === "halted";
    this.kill(reason);
    if (wasHalted) this.broadcastState(reason);
  }

  /** Admin SetTradingState; an unchanged state is still answered (one TradingState broadcast). */
  onSetTradingState(session: SessionInfo, cmd: SetTradingStateCmd): void {
    const to = STATE_FROM_WIRE[cmd.state];
    if (to === undefined) return; // the gateway validated the enum
    const reason = cmd.reason || `set by session ${session.name}`;
    this.d.journal?.command({ session: session.name, op: "tradingState", reason: `${to}: ${reason}` });
    if (!this.d.risk.setState(to, reason, "command")) this.broadcastState(reason);
  }

  /** Start-up: the last trading state the journal holds (a halt is lifted only by an admin). */
  restoreTradingState(state: "active" | "reducing" | "halted", healsTo?: "active" | "reducing"): void {
    const heals =
      healsTo === undefined ? undefined : { to: healsTo, reason: "a venue-health state before the restart" };
    this.d.risk.setState(state, "restored from the journal", "command", heals);
  }

  /** Halts trading and cancels every live order of the account. Returns how many cancels were asked. */
  kill(reason: string): number {
    this.d.risk.kill(reason);
    const n = this.d.cancels.cancelAll();
    // Orders live at the venue that the store does not hold (a journal tail lost to a power cut).
    this.d.venueSweep();
    return n;
  }

  private broadcastState(reason: string): void {
    this.d.owners.sessions.broadcast("TradingState", {
      state: STATE_TO_WIRE[this.d.risk.state],
      instrumentId: 0,
      text: reason.slice(0, 64),
    });
  }

  private onTradingState(c: TradingStateChange): void {
    // After shutdown the journal is closed (a late write failure can still report a state change).
    if (!this.d.run.dead) {
      this.d.journal?.note({ text: `trading state ${c.from} -> ${c.to} (${c.source}): ${c.reason}` });
      // The machine-readable record replay restores from (a halt survives a crash).
      // `reducing heal=active`: a venue-health state, which a restart keeps healing by itself.
      const heal = c.healsTo === undefined ? "" : ` heal=${c.healsTo}`;
      this.d.journal?.command({ session: "engine", op: "state", reason: `${c.to}${heal}` });
    }
    this.d.log.warn({ from: c.from, to: c.to, source: c.source, reason: c.reason }, "trading state changed");
    this.broadcastState(c.reason);
  }
}
