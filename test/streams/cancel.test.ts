/**
 * Cancel paths seen through the Spot order stream against the simulator (manual time): the two-phase
 * cancel, a second cancel during CANCELLATION_RAISED (nothing leaves the process), a fill racing the
 * cancel, and a cancel refused locally during EXPIRATION_RAISED.
 */
import { afterEach, describe, expect, it } from "vitest";
import { RateLimiter } from "../../src/limits/index.js";
import { Status } from "../../src/orders/index.js";
import { OrderSync } from "../../src/streams/index.js";
import type { VenueSync } from "../../src/venue/sync.js";
import {
  cancelSpot,
  counterSpot,
  DOMAIN_INSTRUMENTS,
  placeSpot,
  type Rig,
  simSpotOrder,
  startRig,
  until,
  venueSync,
} from "./helpers.js";

let rig: Rig | undefined;
let sync: OrderSync | undefined;
let venue: VenueSync | undefined;

afterEach(async () => {
  await sync?.stop();
  sync = undefined;
  await venue?.stop();
  venue = undefined;
  await rig?.close();
  rig = undefined;
});

async function setup(): Promise<{ r: Rig; s: OrderSync }> {
  rig = await startRig();
  rig.sim.setSpotDelays({ cancelConfirmMs: 10_000, expiryConfirmMs: 10_000 });
  const limiter = new RateLimiter();
  venue = venueSync(rig, { limiter, surfaces: ["spot"] });
  await venue.start();
  sync = new OrderSync({
    store: rig.store,
    rest: rig.stack.client,
    limiter,
    instruments: DOMAIN_INSTRUMENTS,
    apiKey: rig.keys.apiKey,
    streamBaseUrl: rig.sim.baseUrl,
    hftCategories: [],
    backoff: { minMs: 20, maxMs: 100 },
    venue,
  });
  await sync.start();
  const s = sync;
  await until(() => s.spotTrusted, 4_000, "stream trusted");
  return { r: rig, s };
}

const DELETES = "DELETE /trade/api/v2/order";

describe("cancels through the stream", () => {
  it("two-phase cancel; a second cancel during CANCELLATION_RAISED sends nothing", async () => {
    const { r } = await setup();
    const o = await placeSpot(r, { symbol: "BTC/INR", side: "buy", price: "5300000", qty: "0.001" });
    const before = r.sim.counters.requests(DELETES);
    expect((await cancelSpot(r, o)).kind).toBe("send");
    await until(() => o.status === Status.CancellationRaised, 2_000, "CANCELLATION_RAISED");
    const again = await cancelSpot(r, o);
    expect(again).toMatchObject({ kind: "reject", code: "CANCEL_ALREADY_PENDING" });
    expect(r.sim.counters.requests(DELETES)).toBe(before + 1);
    r.sim.advance(10_000);
    await until(() => o.status === Status.Cancelled, 2_000, "CANCELLED via stream");
    expect(o.filledLots).toBe(0);
    expect((await simSpotOrder(r, o.clientId)).status).toBe("CANCELLED");
  });

  it("a fill in the cancel gap is applied; the order ends Cancelled with the fill", async () => {
    const { r } = await setup();
    const o = await placeSpot(r, { symbol: "BTC/INR", side: "buy", price: "5400000", qty: "0.002" });
    await cancelSpot(r, o);
    await until(() => o.status === Status.CancellationRaised, 2_000, "CANCELLATION_RAISED");
    await counterSpot(r, "sell", 5_400_000, 0.001);
    await until(() => o.filledLots === 100, 2_000, "fill during the gap");
    expect(o.status).toBe(Status.CancellationRaised);
    r.sim.advance(10_000);
    await until(() => o.status === Status.Cancelled, 2_000, "CANCELLED");
    const truth = await simSpotOrder(r, o.clientId);
    expect(truth.status).toBe("CANCELLED");
    expect(o.filledLots).toBe(Math.round(truth.executed_qty / 0.00001));
  });

  it("cancel during EXPIRATION_RAISED is refused locally and nothing is sent", async () => {
    const { r } = await setup();
    const o = await placeSpot(r, {
      symbol: "BTC/INR",
      side: "buy",
      price: "5300000",
      qty: "0.001",
      expirySeconds: 5,
    });
    r.sim.advance(5_000);
    await until(() => o.status === Status.ExpirationRaised, 2_000, "EXPIRATION_RAISED via stream");
    const before = r.sim.counters.requests(DELETES);
    expect(await cancelSpot(r, o)).toMatchObject({ kind: "reject", code: "EXPIRATION_RAISED" });
    expect(r.sim.counters.requests(DELETES)).toBe(before);
    r.sim.advance(10_000);
    await until(() => o.status === Status.Expired, 2_000, "EXPIRED via stream");
  });
});
