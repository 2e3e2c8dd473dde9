/**
 * Venue-health triggers (unknown outcomes, stream loss) and their heal: a state they set returns by
 * itself once nothing is unresolved, every surface is covered and the venue answered normally for
 * `healAfterMs`; states set by a venue-reject spike, an admin or the kill switch never do. Stream loss
 * counts only the time a surface had neither a trusted stream nor a working poll. A fake risk clock
 * and a hand-driven venue probe: every branch of the rule, no timing.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_RISK_CONFIG, type RiskConfig } from "../../src/risk/config.js";
import { RiskGate } from "../../src/risk/riskGate.js";
import type { TradingStateChange } from "../../src/risk/tradingState.js";
import type { VenueProbe } from "../../src/risk/venueHealth.js";

const HEAL = DEFAULT_RISK_CONFIG.triggers.healAfterMs;

function mk(triggers: Partial<RiskConfig["triggers"]> = {}, probe = true) {
  const clock = { t: 1_000_000, now: () => clock.t };
  const venue = { unresolved: 0, okMs: 0, failMs: 0 };
  const p: VenueProbe = {
    unresolved: () => venue.unresolved,
    lastOkMs: () => venue.okMs,
    lastFailMs: () => venue.failMs,
  };
  const gate = new RiskGate(
    {
      triggers: {
        ...DEFAULT_RISK_CONFIG.triggers,
        unknownOutcomes: { count: 3, windowMs: 60_000, action: "reducing" },
        ...triggers,
      },
    },
    clock,
  );
  if (probe) gate.watchVenue(p);
  const changes: TradingStateChange[] = [];
  gate.addListener({ onTradingState: (c) => changes.push(c) });
  /** Time passes with the venue answering normally all along. */
  const quiet = (ms: number) => {
    clock.t += ms;
    venue.okMs = clock.t;
    return gate.tick();
  };
  const unknowns = (n: number) => {
    for (let i = 0; i < n; i++) gate.recordUnknownOutcome();
  };
  return { gate, clock, venue, changes, quiet, unknowns };
}

describe("venue-health triggers heal", () => {
  it("unknown outcomes: reducing, then active once resolved and the venue answered normally for healAfterMs", () => {
    const { gate, venue, changes, quiet, unknowns } = mk();
    venue.unresolved = 3;
    unknowns(3);
    expect(gate.state).toBe("reducing");
    // Outcomes still open: no heal however long it is quiet.
    expect(quiet(HEAL * 3)).toBe("reducing");
    venue.unresolved = 0;
    // The quiet period starts when the last one resolved.
    expect(quiet(HEAL - 1)).toBe("reducing");
    expect(quiet(1)).toBe("active");
    expect(changes.map((c) => `${c.from}>${c.to}:${c.source}`)).toEqual([
      "active>reducing:trigger",
      "reducing>active:heal",
    ]);
    expect(changes[1]!.reason).toMatch(/^healed \(3 unknown outcomes within 60000 ms\): /);
    // The trigger counts restarted: two more unknown outcomes do not fire it again.
    unknowns(2);
    expect(gate.state).toBe("active");
  });

  it("waits for a normal venue answer after the last trouble, and a failure restarts the wait", () => {
    const { gate, clock, venue, unknowns } = mk();
    unknowns(3);
    venue.okMs = clock.t - 1; // the last answer came before the trouble
    clock.t += HEAL * 2;
    expect(gate.tick()).toBe("reducing");
    venue.okMs = clock.t;
    venue.failMs = clock.t - 10; // a failed request 10 ms ago
    expect(gate.tick()).toBe("reducing");
    clock.t += HEAL - 11;
    venue.okMs = clock.t;
    expect(gate.tick()).toBe("reducing");
    clock.t += 1;
    venue.okMs = clock.t;
    expect(gate.tick()).toBe("active");
    // Another unknown outcome while active is trouble again, but one alone triggers nothing.
    unknowns(1);
    expect(gate.state).toBe("active");
  });

  it("a state set by an admin, the kill switch or a venue-reject spike never heals", () => {
    const admin = mk();
    admin.gate.setState("reducing", "operator");
    expect(admin.quiet(HEAL * 5)).toBe("reducing");

    const kill = mk();
    kill.gate.kill("panic");
    expect(kill.quiet(HEAL * 5)).toBe("halted");

    const rejects = mk({ venueRejects: { count: 2, windowMs: 10_000, action: "halted" } });
    rejects.gate.recordVenueReject();
    rejects.gate.recordVenueReject();
    expect(rejects.gate.state).toBe("halted");
    expect(rejects.quiet(HEAL * 5)).toBe("halted");
  });

  it("a venue-reject trigger firing while a venue-health state holds pins it for an admin", () => {
    const { gate, quiet, unknowns } = mk({
      venueRejects: { count: 1, windowMs: 10_000, action: "reducing" },
    });
    unknowns(3);
    gate.recordVenueReject(); // same rank: no change of state, but no heal either
    expect(gate.state).toBe("reducing");
    expect(quiet(HEAL * 5)).toBe("reducing");
    gate.setState("active", "operator");
    expect(gate.state).toBe("active");
  });

  it("heals back to the admin's state, not past it", () => {
    const { gate, venue, changes, quiet, unknowns } = mk({
      unknownOutcomes: { count: 1, windowMs: 60_000, action: "halted" },
    });
    gate.setState("reducing", "operator");
    venue.unresolved = 1;
    unknowns(1);
    expect(gate.state).toBe("halted");
    venue.unresolved = 0;
    expect(quiet(HEAL)).toBe("reducing");
    expect(changes.at(-1)).toMatchObject({ from: "halted", to: "reducing", source: "heal" });
    expect(quiet(HEAL * 5)).toBe("reducing");
  });

  it("healAfterMs 0, or no venue probe: a human ends it", () => {
    const off = mk({ healAfterMs: 0 });
    off.unknowns(3);
    expect(off.quiet(HEAL * 5)).toBe("reducing");
    const blind = mk({}, false);
    blind.unknowns(3);
    expect(blind.quiet(HEAL * 5)).toBe("reducing");
  });
});

describe("stream loss counts only time with neither a trusted stream nor a working poll", () => {
  it("a surface covered again in time never escalates; each surface is counted on its own", () => {
    const { gate, clock } = mk();
    const afterMs = DEFAULT_RISK_CONFIG.triggers.streamLoss.afterMs;
    gate.setCovered("spot", false);
    clock.t += afterMs - 1;
    expect(gate.tick()).toBe("active");
    gate.setCovered("spot", true);
    gate.setCovered("hft", false);
    clock.t += afterMs - 1;
    expect(gate.tick()).toBe("active");
    gate.setCovered("spot", false); // both uncovered: the longest counts
    clock.t += 1;
    expect(gate.uncovered).toBe(2);
    expect(gate.tick()).toBe("reducing");
  });

  it("stream loss heals once every surface is covered and the venue answered for healAfterMs", () => {
    const { gate, clock, venue, changes, quiet } = mk();
    const afterMs = DEFAULT_RISK_CONFIG.triggers.streamLoss.afterMs;
    gate.setCovered("spot", false);
    clock.t += afterMs;
    venue.okMs = clock.t; // HFT answers all along
    expect(gate.tick()).toBe("reducing");
    expect(changes[0]!.reason).toMatch(
      /^spot: neither a trusted order stream nor a working poll for 30000 ms$/,
    );
    // Still uncovered: no heal however long the venue answers elsewhere.
    expect(quiet(HEAL * 2)).toBe("reducing");
    gate.setCovered("spot", true);
    expect(quiet(HEAL - 1)).toBe("reducing");
    expect(quiet(1)).toBe("active");
    expect(changes.at(-1)).toMatchObject({ from: "reducing", to: "active", source: "heal" });
  });
});
