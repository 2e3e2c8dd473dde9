/**
 * Orphans at restart: venue orders the gateway did not place (here: sent straight to the venue with
 * the same account's keys while the gateway was down) are adopted when it starts again, never
 * ignored. `hftgate sim` and `hftgate start` as real processes; the venue's signed listings are the
 * truth. After the restart the orphans are reported in the log, listed to an admin session's Query
 * and in GET /admin/state (not to a strategy's Query), counted by risk (open orders per instrument),
 * cancelled by an admin's instrument-scoped CancelAll (that instrument's only) and by Kill.
 */
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import type { Body } from "../../src/protocol/schema.js";
import { CODES, OrderStatus } from "../../src/protocol/schema.js";
import { renderTop, type Snapshot } from "../../src/top/render.js";
import { ADMIN_TOKEN } from "./harness/engineRig.js";
import { VenueReader } from "./harness/listings.js";
import { instrumentIds, type ProcessRig, startProcessRig } from "./harness/processRig.js";
import { SimProcess } from "./harness/simProcess.js";
import { newKeys, signedCall, sleep, until } from "./harness/venue.js";

let sim: SimProcess | undefined;
let rig: ProcessRig | undefined;
let reader: VenueReader | undefined;
afterEach(async () => {
  await reader?.close();
  await rig?.close();
  await sim?.stop();
  reader = rig = sim = undefined;
});

/** Waits until `f` holds (polled), failing with `what` after `ms`. */
async function eventually(f: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`${what}: not reached within ${ms} ms`);
    await sleep(50);
  }
}

describe("orphans: venue orders the gateway did not know are adopted at restart", () => {
  it("adopts orders placed at the venue while the gateway was down: admin Query, admin state, risk, CancelAll, Kill", async () => {
    const keys = newKeys();
    sim = await SimProcess.start({ seed: 23, apiKeys: [keys.apiKey] });
    const venue = { baseUrl: sim.baseUrl, keys };
    rig = await startProcessRig(venue, {
      prefix: "orphans",
      config: (base) => ({ ...base, risk: { maxOpenOrdersPerInstrument: 3 } }),
    });
    const alpha = await rig.strategy("alpha");
    const ids = await instrumentIds(alpha);
    reader = new VenueReader(sim.baseUrl, keys, { spot: ids.spotStep, hft: ids.hftStep });

    // The gateway's own order: it stays alpha's, never an orphan.
    const own = alpha.place(ids.spot, "buy", 5_290_000, 100);
    await until(() => (alpha.told.get(own)?.acks ?? 0) > 0, 5_000, "own order acked");
    const ownId = alpha.told.get(own)!.exchangeId;
    await alpha.close();
    await rig.gp.stop();

    // While it is down: three orders straight at the venue with the same keys (two without a client id).
    const spotA = await signedCall(sim.baseUrl, keys, "POST", "/trade/api/v2/order", {
      side: "buy",
      symbol: "BTC/INR",
      type: "limit",
      price: 5_280_000,
      quantity: 0.001,
      exchange: "coinswitchx",
      client_order_id: "manual-spot-1",
    });
    const spotC = await signedCall(sim.baseUrl, keys, "POST", "/trade/api/v2/order", {
      side: "buy",
      symbol: "BTC/INR",
      type: "limit",
      price: 5_270_000,
      quantity: 0.002,
      exchange: "coinswitchx",
    });
    const hftB = await signedCall(sim.baseUrl, keys, "POST", "/v5/order/create", {
      category: "linear",
      symbol: "ETHUSDT",
      side: "Buy",
      orderType: "Limit",
      qty: "0.05",
      price: "3180.00",
      positionIdx: 0,
      timeInForce: "GTC",
    });
    expect([spotA.status, spotC.status, hftB.status, hftB.json.retCode]).toEqual([200, 200, 200, 0]);
    const a = String(spotA.json.data.order_id);
    const c = String(spotC.json.data.order_id);
    const b = String(hftB.json.result.orderId);

    const before = rig.gp.output.length;
    await rig.gp.start();
    // Reported at start: the count and every one of them by id (the gateway's own order is not one).
    const line = rig.gp.output
      .slice(before)
      .split("\n")
      .find((l) => l.includes("adopted as orphans"));
    expect(line).toBeDefined();
    const report = JSON.parse(line!) as { count: number; adopted: string[] };
    expect(report.count).toBe(3);
    expect(report.adopted.sort()).toEqual([`spot:${a}`, `hft:${b}`, `spot:${c}`].sort());

    // A strategy's Query: its own order only.
    const alpha2 = await rig.strategy("alpha");
    const mine = await alpha2.client.query();
    expect(mine.map((r) => r.exchangeOrderId)).toEqual([ownId]);

    // An admin session's Query: the orphans (its own orders: none), live, with the venue's terms.
    const ops = await rig.strategy("ops", { token: ADMIN_TOKEN });
    const seen = await ops.client.query();
    const byId = new Map(seen.map((r) => [r.exchangeOrderId, r]));
    expect([...byId.keys()].sort()).toEqual([a, b, c].sort());
    const lots = (qty: number, step: number) => Math.round(qty / step);
    expect(byId.get(a)).toMatchObject({
      instrumentId: ids.spot,
      priceTicks: 5_280_000,
      qtyLots: lots(0.001, ids.spotStep),
    });
    expect(byId.get(c)).toMatchObject({
      instrumentId: ids.spot,
      priceTicks: 5_270_000,
      qtyLots: lots(0.002, ids.spotStep),
    });
    expect(byId.get(b)).toMatchObject({
      instrumentId: ids.hft,
      priceTicks: 318_000,
      qtyLots: lots(0.05, ids.hftStep),
    });
    for (const r of seen) expect(r.status).toBe(OrderStatus.New);

    // The operator's view lists them under the orphans' owner.
    const st = await request(`${rig.gp.httpUrl}/admin/state`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const snap = (await st.body.json()) as {
      orphans: number;
      orders: { session: string; exchangeId: string }[];
    };
    expect(snap.orphans).toBe(3);
    const owners = new Map(snap.orders.map((o) => [o.exchangeId, o.session]));
    for (const id of [a, b, c]) expect(owners.get(id)).toBe("(orphans)");
    expect(owners.get(ownId)).toBe("alpha");
    // `hftgate top` draws them from the same snapshot.
    const frame = renderTop(snap as unknown as Snapshot, rig.gp.httpUrl, 200, false).join("\n");
    expect(frame).toContain("orphans 3: venue orders the gateway did not place");
    expect(frame.split("\n").filter((l) => l.trimStart().startsWith("(orphans)"))).toHaveLength(3);

    // Risk counts them: BTC/INR holds alpha's order and two orphans (3 = the limit), ETHUSDT one orphan.
    const refused = alpha2.place(ids.spot, "buy", 5_260_000, 100);
    const taken = alpha2.place(ids.hft, "buy", 317_000, 5);
    await until(
      () => (alpha2.told.get(refused)?.rejects.length ?? 0) > 0 && (alpha2.told.get(taken)?.acks ?? 0) > 0,
      5_000,
      "answers to alpha's new orders",
    );
    const reject = alpha2.told.get(refused)!.rejects[0] as Body<"Reject">;
    expect(reject.code).toBe(CODES.RiskLimit.code);
    expect(reject.text).toContain("open orders");
    const takenId = alpha2.told.get(taken)!.exchangeId;

    // An admin's CancelAll on ETHUSDT: the orphan there is cancelled at the venue; alpha's order stays.
    const status = async (id: string) => (await reader!.read()).orders.find((o) => o.id === id)?.status;
    ops.client.cancelAll(ids.hft);
    await eventually(async () => (await status(b)) === "Cancelled", 5_000, "HFT orphan cancelled");
    expect(await status(takenId)).toBe("New");
    expect(await status(a)).toBe("New");
    expect(await status(c)).toBe("New");

    // Kill: every live order of the account, orphans included, is cancelled at the venue.
    ops.client.kill("orphan test");
    const open = async () =>
      (await reader!.read()).orders.filter((o) => o.status !== "Cancelled" && o.status !== "Filled");
    await eventually(async () => (await open()).length === 0, 8_000, "every venue order cancelled");
    for (const id of [a, c, ownId, takenId]) expect(await status(id)).toBe("Cancelled");
    // And the gateway agrees: nothing left live for the admin or the strategy.
    await eventually(async () => (await ops.client.query()).length === 0, 5_000, "orphans final");
    expect(await alpha2.client.query()).toEqual([]);
  }, 60_000);
});
