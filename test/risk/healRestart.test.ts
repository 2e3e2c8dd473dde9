/**
 * A venue-health state survives a restart as one: the change a trigger makes carries the state it heals
 * to (journaled as `reducing heal=active`), and a gate restored with it heals by itself once the venue
 * answers normally; a state restored without it (admin, venue rejects, kill switch) waits for an admin.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_RISK_CONFIG } from "../../src/risk/config.js";
import { RiskGate } from "../../src/risk/riskGate.js";
import type { TradingStateChange } from "../../src/risk/tradingState.js";

const HEAL = DEFAULT_RISK_CONFIG.triggers.healAfterMs;

function gate() {
  const clock = { t: 1_000_000, now: () => clock.t };
  const venue = { okMs: 0 };
  const g = new RiskGate(
    {
      triggers: {
        ...DEFAULT_RISK_CONFIG.triggers,
        unknownOutcomes: { count: 3, windowMs: 60_000, action: "reducing" },
      },
    },
    clock,
  );
  g.watchVenue({ unresolved: () => 0, lastOkMs: () => venue.okMs, lastFailMs: () => 0 });
  const changes: TradingStateChange[] = [];
  g.addListener({ onTradingState: (c) => changes.push(c) });
  const quiet = (ms: number) => {
    clock.t += ms;
    venue.okMs = clock.t;
    return g.tick();
  };
  return { g, changes, quiet };
}

describe("a venue-health state across a restart", () => {
  it("the trigger's change names where it heals to; a gate restored with it heals by itself, one without does not", () => {
    const before = gate();
    for (let i = 0; i < 3; i++) before.g.recordUnknownOutcome();
    expect(before.changes.map((c) => [c.to, c.healsTo])).toEqual([["reducing", "active"]]);
    // An admin's state carries none.
    before.g.setState("halted", "desk says stop");
    expect(before.changes[1]!.healsTo).toBeUndefined();

    const healing = gate();
    healing.g.setState("reducing", "restored from the journal", "command", {
      to: "active",
      reason: "restored",
    });
    expect(healing.quiet(HEAL - 1)).toBe("reducing");
    expect(healing.quiet(1)).toBe("active");

    const pinned = gate();
    pinned.g.setState("reducing", "restored from the journal", "command");
    expect(pinned.quiet(HEAL * 10)).toBe("reducing");
  });
});
