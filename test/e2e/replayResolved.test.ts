/**
 * A create the journal holds as sent but the venue never received is rejected by the restart's
 * resolution, and that outcome is journaled so that the next restart replays it as rejected instead of
 * resolving it again.
 */
import { renameSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEngine } from "../../src/index.js";
import { Journal } from "../../src/journal/writer.js";
import { Status } from "../../src/orders/index.js";
import { silent, until } from "./harness.js";
import { restartVenue } from "./restartFixture.js";

const v = restartVenue("replay-resolved", {
  "orders.unknownQueryIntervalMs": 20,
  // A replayed create is judged once every request with its client id is past its answer deadline
  // (connect + headers + body timeouts): short timeouts keep the test short.
  "http.connectTimeoutMs": 200,
  "http.headersTimeoutMs": 1_000,
  "http.bodyTimeoutMs": 200,
});
const config = () => v.config();

describe("resolution outcomes survive the next restart", () => {
  it("a never-received create is rejected once, and replayed as rejected afterwards", async () => {
    // What a process that died right after journaling the request (before it reached the venue) leaves.
    const j = Journal.open({ dir: join(v.dir, "journal"), fsync: "none" });
    j.command({
      session: "ghostly",
      op: "new",
      clientId: "ghost-create-1",
      symbol: "BTCUSDT",
      side: "buy",
      type: "limit",
      price: "60000",
      qty: "0.001",
      tif: "GTC",
      reason: "no=1;inst=hft:linear:BTCUSDT;pos=0",
    });
    j.request({
      clientId: "ghost-create-1",
      op: "create",
      method: "POST",
      path: "/v5/order/create",
      attempt: 1,
    });
    await j.close();
    // Named as an older run: files are replayed in name order (start time, then pid).
    renameSync(j.path, join(v.dir, "journal", "hftgate-20260101T000000Z-1.hgj"));

    const h1 = await startEngine(config(), { logger: silent });
    try {
      expect(h1.replay?.live).toBe(1);
      await until(
        () => h1.engine.store.byClientId("ghost-create-1")?.status === Status.Rejected,
        3000,
        "rejected by resolution",
      );
      expect(h1.sync.stats.escalations).toBe(0);
    } finally {
      await h1.stop("restart");
    }
    const h2 = await startEngine(config(), { logger: silent });
    try {
      expect(h2.replay?.orders).toBe(1);
      expect(h2.replay?.live).toBe(0); // rejected at replay: nothing to resolve again
      expect(h2.engine.store.byClientId("ghost-create-1")?.status).toBe(Status.Rejected);
      expect(h2.engine.lastClOrdNo("ghostly")).toBe(1);
      expect(v.sim.counters.ordersCreated("hft")).toBe(0); // never re-sent
    } finally {
      await h2.stop("test");
    }
  }, 15_000);
});
