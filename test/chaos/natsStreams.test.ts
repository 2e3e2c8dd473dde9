/**
 * Chaos on the HFT private streams over NATS (engine level: the real engine against the simulator, the
 * simulator publishing through the built-in NATS endpoint, and through a real nats-server for the kill
 * when one is installed). Each scenario ends with the same truth as the rest of the suite: the
 * gateway's Query answers against the simulator, and the venue's signed listings against the Query
 * answers and what the strategy was told (harness/crashTruth.ts): 0 lost, 0 duplicated, 0 mismatched.
 *
 * - the NATS server killed mid-fill and restarted;
 * - credentials expiring every 2 s (rolled onto the refreshed one), one refused;
 * - messages duplicated, reordered and dropped by the publisher;
 * - the stream silent while its connection stays up (detected by the ack echo, polling meanwhile);
 * - on both backends, order records ahead of their create answers: not silence (the echo came first),
 *   while an echo that never comes is still found;
 * - order records published before their trades: every Fill still says maker or taker.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  findNatsServer,
  type NatsBackend,
  type NatsBackendKind,
  simNatsOptions,
  startNatsBackend,
} from "../../sim/index.js";
import type { StreamsFeed } from "../../src/engine/streamsFeed.js";
import { Liquidity } from "../../src/protocol/schema.js";
import { engineTruth, fillsAddUp } from "./harness/checks.js";
import { compareCrashTruth, findingLines } from "./harness/crashTruth.js";
import { type EngineRig, startEngineRig } from "./harness/engineRig.js";
import { journalClOrdNos } from "./harness/killRun.js";
import { VenueReader } from "./harness/listings.js";
import { record, report } from "./harness/results.js";
import type { Strategy } from "./harness/strategy.js";
import type { GatewayView } from "./harness/truth.js";
import { type ChaosVenue, counterHft, sleep, startVenue, until } from "./harness/venue.js";

const PUBLISHER = { user: "chaos-publisher", password: "chaos-publisher-pw-31" };
const BIN = findNatsServer();

interface NatsRig {
  backend: NatsBackend;
  v: ChaosVenue;
  rig: EngineRig;
  s: Strategy;
  sync: StreamsFeed["sync"];
  hftId: number;
  close(): Promise<void>;
}

async function natsRig(
  kind: NatsBackendKind,
  overrides: Record<string, unknown> = {},
  before?: (v: ChaosVenue) => void,
): Promise<NatsRig> {
  const backend = await startNatsBackend(kind, [PUBLISHER]);
  const v = await startVenue({ nats: simNatsOptions(backend, PUBLISHER) });
  before?.(v);
  const rig = await startEngineRig(v, {
    "streams.hftNats.url": backend.wsUrl,
    "streams.hftNats.echoTimeoutMs": 600,
    "streams.hftAuditIntervalMs": 1_000,
    ...overrides,
  });
  const sync = (rig.h.feeds[0] as StreamsFeed).sync;
  await until(() => sync.hftTrusted, 10_000, "HFT stream trusted");
  const s = await rig.strategy("alpha");
  return {
    backend,
    v,
    rig,
    s,
    sync,
    hftId: rig.inst("hft", "ETHUSDT"),
    async close() {
      await rig.close();
      await v.sim.stop();
      await backend.stop();
    },
  };
}

/** Resting buys 3200.00, 3199.90, … (5 lots each), all acknowledged. */
async function restingBuys(r: NatsRig, n: number): Promise<void> {
  for (let i = 0; i < n; i++) r.s.place(r.hftId, "buy", 320_000 - i * 10, 5);
  await until(() => r.s.unanswered().length === 0, 5_000, "acks");
}

/** The suite's truth, twice: Query vs the simulator, venue listings vs Query vs what the strategy was told. */
async function truth(r: NatsRig, scenario: string, faults: number): Promise<void> {
  const t = await engineTruth(r.v, [r.s], 10_000);
  const reader = new VenueReader(r.v.sim.baseUrl, r.v.keys, { spot: 0.00001, hft: 0.01 });
  let lines: string[] = [];
  try {
    const end = Date.now() + 5_000;
    for (;;) {
      const list = await r.s.views();
      const views = new Map<number, GatewayView>();
      for (let i = 0; i < list.length; i++) views.set(r.s.placed[i]!, list[i]!);
      const f = compareCrashTruth({
        strategy: r.s,
        views,
        venue: await reader.read(),
        clOrdNoOf: journalClOrdNos(join(r.rig.dir, "journal")),
      });
      lines = findingLines(f);
      if (lines.length === 0 || Date.now() > end) break;
      await sleep(150);
    }
  } finally {
    await reader.close();
  }
  record({
    scenario,
    orders: r.s.placed.length,
    faults,
    lost: t.lost,
    duplicated: t.duplicated,
    mismatched: t.mismatched.length + lines.length,
  });
  expect(t.details).toEqual([]);
  expect(lines).toEqual([]);
  expect(await fillsAddUp(r.s)).toEqual([]);
  // What the strategy was told in OrderUpdates never ran ahead of the Fills it was told before them.
  expect(r.s.updatesAhead).toEqual([]);
}

const KILL_KINDS: Array<[NatsBackendKind, boolean]> = [
  ["builtin", false],
  ["nats-server", BIN === undefined],
];

describe("HFT NATS stream chaos (engine level)", () => {
  for (const [kind, skip] of KILL_KINDS) {
    it.skipIf(skip)(
      `${kind} killed mid-fill and restarted: polling covers, reconciled, trusted again`,
      async () => {
        const r = await natsRig(kind);
        try {
          await restingBuys(r, 20);
          await counterHft(r.v, "Sell", "3190.00", "0.12");
          // Killed while the next fill is being published.
          await Promise.all([counterHft(r.v, "Sell", "3190.00", "0.12"), r.backend.kill()]);
          await until(() => !r.sync.hftTrusted, 5_000, "stream untrusted");
          await counterHft(r.v, "Sell", "3190.00", "0.08");
          r.s.cancel(r.s.placed[15]!);
          r.s.cancel(r.s.placed[17]!);
          await sleep(300);
          await r.backend.restart();
          await until(() => r.sync.hftTrusted, 15_000, "trusted again");
          await counterHft(r.v, "Sell", "3190.00", "0.12");
          await truth(r, `engine: NATS ${kind} killed mid-fill, restarted`, 1);
          expect(r.sync.hftStream?.transport.stats.disconnects).toBeGreaterThanOrEqual(1);
          expect(r.sync.hftTrusted).toBe(true);
        } finally {
          await r.close();
        }
      },
      60_000,
    );
  }

  it("credentials expiring every 2 s are rolled over; one refused: down, polled, back", async () => {
    const r = await natsRig("builtin", {}, (v) => v.sim.faults.setNats({ credentialTtlMs: 2_000 }));
    try {
      await restingBuys(r, 20);
      for (let k = 0; k < 8; k++) {
        await counterHft(r.v, "Sell", "3190.00", "0.06");
        await sleep(400);
      }
      const rolls = r.sync.hftStream!.transport.stats.rolls;
      r.v.sim.faults.setNats({ refuseGrants: 1 });
      for (let k = 0; k < 6; k++) {
        await counterHft(r.v, "Sell", "3190.00", "0.04");
        await sleep(400);
      }
      await until(() => r.sync.hftTrusted, 10_000, "trusted");
      await truth(r, "engine: NATS credentials expiring every 2 s, one refused", 1 + rolls);
      expect(rolls).toBeGreaterThanOrEqual(2);
      expect(r.v.sim.counters.nats?.refused).toBe(1);
      expect(r.sync.hftStream!.transport.stats.authFailures).toBeGreaterThanOrEqual(1);
    } finally {
      await r.close();
    }
  }, 60_000);

  it("messages duplicated, reordered and dropped by the publisher: every fill once, truth holds", async () => {
    const r = await natsRig("builtin");
    try {
      await restingBuys(r, 24);
      r.v.sim.faults.setNats({ dropProbability: 0.15, duplicateProbability: 0.3, reorderProbability: 0.3 });
      for (let k = 0; k < 8; k++) {
        await counterHft(r.v, "Sell", "3190.00", "0.07");
        if (k % 3 === 2) r.s.cancel(r.s.placed[23 - k]!);
        await sleep(150);
      }
      r.v.sim.faults.setNats({ dropProbability: 0, duplicateProbability: 0, reorderProbability: 0 });
      const c = r.v.sim.counters.nats!;
      await truth(
        r,
        "engine: NATS messages duplicated, reordered, dropped",
        c.dropped + c.duplicated + c.reordered,
      );
      expect(c.dropped).toBeGreaterThan(0);
      expect(c.duplicated).toBeGreaterThan(0);
      expect(c.reordered).toBeGreaterThan(0);
    } finally {
      await r.close();
    }
  }, 60_000);

  it("stream silent with its connection up: the ack echo trips it, polling at once, reconciled, trusted", async () => {
    const r = await natsRig("builtin");
    try {
      await restingBuys(r, 16);
      r.v.sim.faults.pauseNats(true);
      await restingBuys(r, 2); // acked while trusted: their New never comes
      await until(() => !r.sync.hftTrusted, 5_000, "silence detected");
      await counterHft(r.v, "Sell", "3190.00", "0.12");
      const told = () => [...r.s.told.values()].reduce((a, t) => a + t.fillLots, 0);
      await until(() => told() === 12, 5_000, "fills found while the stream is silent");
      r.v.sim.faults.pauseNats(false);
      await until(() => r.sync.hftTrusted, 15_000, "trusted again");
      await counterHft(r.v, "Sell", "3190.00", "0.08");
      await truth(r, "engine: NATS stream silent, connection up", 1);
      expect(r.sync.hftStream!.stats.silentTrips).toBeGreaterThanOrEqual(1);
    } finally {
      await r.close();
    }
  }, 60_000);

  for (const [kind, skip] of KILL_KINDS) {
    it.skipIf(skip)(
      `${kind}: order records ahead of their create answers are echoes, not silence; a missing echo still trips`,
      async () => {
        const r = await natsRig(kind);
        try {
          const hft = r.sync.hftStream!;
          // The venue handles each create at once (its New goes out on the stream) and answers 150 ms later.
          r.v.sim.faults.add({ kind: "slowAnswer", endpoint: "POST /v5/order/create", ms: 150, count: 8 });
          await restingBuys(r, 8);
          await until(
            () => hft.stats.echoesAhead === 8,
            5_000,
            "every create answer after its stream record",
          );
          // Three echo timeouts (600 ms) later: nothing declared silent, the connection never dropped.
          await sleep(1_800);
          expect(hft.stats.silentTrips).toBe(0);
          expect(hft.transport.stats.disconnects).toBe(0);
          expect(r.sync.hftTrusted).toBe(true);
          // The check is still armed: an ack whose New never comes trips it.
          r.v.sim.faults.pauseNats(true);
          await restingBuys(r, 2);
          await until(() => hft.stats.silentTrips >= 1, 5_000, "silence detected");
          r.v.sim.faults.pauseNats(false);
          await until(() => r.sync.hftTrusted, 15_000, "trusted again");
          await truth(r, `engine: NATS ${kind} order records ahead of their answers`, 8);
          expect(hft.stats.echoesAhead).toBe(8);
        } finally {
          await r.close();
        }
      },
      60_000,
    );
  }

  it("order records before their trades (trade 100 ms later): every Fill says maker, none derived", async () => {
    const r = await natsRig("builtin", {}, (v) =>
      v.sim.faults.setNats({ orderFirst: true, tradeDelayMs: 100 }),
    );
    try {
      await restingBuys(r, 12);
      for (let k = 0; k < 5; k++) await counterHft(r.v, "Sell", "3190.00", "0.07");
      await truth(r, "engine: NATS order records before their trades", 5);
      expect(r.s.fillLiquidity.get(Liquidity.Maker)).toBeGreaterThanOrEqual(5);
      expect(r.s.fillLiquidity.get(Liquidity.Unknown) ?? 0).toBe(0);
      expect(r.sync.hftStream!.stats.releasedByTrade).toBeGreaterThan(0);
    } finally {
      await r.close();
    }
  }, 60_000);
});

afterAll(() => report());
