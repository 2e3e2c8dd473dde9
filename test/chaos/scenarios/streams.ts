/**
 * Scenarios on the Spot order stream: a network partition of the stream while orders fill and get
 * cancelled (the poller must cover the outage, a reconciliation must run on reconnect), and a stream
 * that duplicates and reorders its messages (the state machine must absorb both).
 */
import { describe, expect, it } from "vitest";
import type { Order } from "../../../src/orders/index.js";
import { MiniGateway } from "../harness/mini.js";
import { CuttableProxy } from "../harness/proxy.js";
import { record } from "../harness/results.js";
import { converge, venueOrders } from "../harness/truth.js";
import { counterSpot, sleep, startVenue, until } from "../harness/venue.js";

/** The design's 10 s outage, scaled down: the poller interval (100 ms) and back-off are scaled alike. */
const CUT_MS = 4_000;

export function streamScenarios(): void {
  describe("order stream faults (component level)", () => {
    it(`stream partitioned for ${CUT_MS} ms during fills and cancels: poller covers, reconcile on reconnect`, async () => {
      const v = await startVenue();
      const proxy = await new CuttableProxy(v.sim.port).start();
      const gw = await MiniGateway.start({ sim: v.sim, keys: v.keys, streamBaseUrl: proxy.url });
      try {
        await until(() => gw.sync.orderStream?.up === true, 3_000, "order stream up");
        const N = 30;
        const orders: Order[] = [];
        for (let i = 0; i < N; i++) {
          orders.push(
            gw.place({
              surface: "spot",
              symbol: "BTC/INR",
              side: "buy",
              price: String(5_300_000 - i * 10),
              qty: "0.001",
            }),
          );
        }
        await gw.idle();
        const runsBefore = gw.sync.reconciler.runs;
        proxy.cut(CUT_MS);
        const cutEnds = Date.now() + CUT_MS;
        await until(() => gw.sync.orderStream?.up === false, 1_000, "stream seen down");
        // During the outage: fills (some partial), cancels (two-phase at the venue), more fills.
        await counterSpot(v, "sell", 5_299_000, 0.0045);
        for (let i = 10; i < N; i += 3) gw.cancel(orders[i]!);
        await sleep(300);
        await counterSpot(v, "sell", 5_299_000, 0.0021);
        await gw.idle();
        // Before the stream is back, the poller alone must have brought the gateway to the truth.
        const during = await converge(
          () => gw.views(),
          () => venueOrders(v.sim, v.keys.apiKey),
          cutEnds - Date.now() - 300,
        );
        expect(proxy.isCut).toBe(true);
        expect(during.details).toEqual([]);
        expect(gw.venue.poller.stats.rounds).toBeGreaterThan(0);
        // The stream comes back: it must be reconciled before it is trusted again.
        await until(() => gw.sync.orderStream?.up === true, CUT_MS + 3_000, "stream back up");
        await until(
          () => gw.sync.reconciler.runs > runsBefore && !gw.sync.reconciler.running,
          3_000,
          "reconcile",
        );
        await counterSpot(v, "sell", 5_299_000, 0.0013); // a fill after the reconnect arrives by the stream
        await gw.settle();
        const t = await converge(
          () => gw.views(),
          () => venueOrders(v.sim, v.keys.apiKey),
          3_000,
        );
        record({
          scenario: `order stream partitioned ${CUT_MS / 1000} s during fills`,
          orders: N,
          faults: proxy.stats.cuts + proxy.stats.refused,
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(t.details).toEqual([]);
        expect(t.venueOrders).toBe(N);
      } finally {
        await gw.stop();
        await proxy.stop();
        await v.sim.stop();
      }
    }, 30_000);

    it("stream messages duplicated and reordered: fills counted once, statuses never regress", async () => {
      const v = await startVenue({
        faults: { streams: { duplicateProbability: 0.3, reorderProbability: 0.3 } },
      });
      const gw = await MiniGateway.start({ sim: v.sim, keys: v.keys });
      const regressions: string[] = [];
      const filled = new Map<string, number>();
      gw.store.setListener({
        onUpdate(o) {
          const before = filled.get(o.clientId) ?? 0;
          if (o.filledLots < before) regressions.push(`${o.clientId} ${before} -> ${o.filledLots}`);
          filled.set(o.clientId, o.filledLots);
        },
        onFill() {},
        onCancelReleased: () => {},
      });
      try {
        await until(() => gw.sync.orderStream?.up === true, 3_000, "order stream up");
        const N = 30;
        const orders: Order[] = [];
        for (let i = 0; i < N; i++) {
          orders.push(
            gw.place({
              surface: "spot",
              symbol: "BTC/INR",
              side: "buy",
              price: String(5_300_000 - i * 10),
              qty: "0.001",
            }),
          );
        }
        await gw.idle();
        // Many small fills: each produces a PARTIALLY_EXECUTED / EXECUTED push that may be doubled or swapped.
        for (let k = 0; k < 12; k++) await counterSpot(v, "sell", 5_299_000, 0.0004);
        for (let i = 15; i < N; i += 2) gw.cancel(orders[i]!);
        await gw.idle();
        for (let k = 0; k < 4; k++) await counterSpot(v, "sell", 5_299_000, 0.0003);
        // A held (reordered) message is delivered after the next one: stop the faults and cause one
        // more push (a new order) so nothing stays held, as on a stream that keeps flowing.
        v.sim.faults.setStreams({ duplicateProbability: 0, reorderProbability: 0 });
        gw.place({ surface: "spot", symbol: "BTC/INR", side: "buy", price: "5000000", qty: "0.001" });
        await gw.settle();
        const t = await converge(
          () => gw.views(),
          () => venueOrders(v.sim, v.keys.apiKey),
          4_000,
        );
        const s = v.sim.counters.streams;
        record({
          scenario: "order stream messages duplicated and reordered",
          orders: N + 1,
          faults: s.duplicated + s.reordered,
          lost: t.lost,
          duplicated: t.duplicated,
          mismatched: t.mismatched.length,
        });
        expect(s.duplicated).toBeGreaterThan(0);
        expect(s.reordered).toBeGreaterThan(0);
        expect(regressions).toEqual([]);
        expect(t.details).toEqual([]);
      } finally {
        await gw.stop();
        await v.sim.stop();
      }
    }, 30_000);
  });
}
