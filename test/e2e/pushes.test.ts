/**
 * Account-wide pushes: a fill on each surface produces BalanceUpdate (Spot, from the balance stream) and
 * PositionUpdate (HFT, from fills and `/v5/position/list`) at every session, with the venue's values.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyHex } from "../../src/auth/keygen.js";
import { loadKeyPair } from "../../src/auth/keys.js";
import { GatewayClient } from "../../src/client/index.js";
import type { Body } from "../../src/protocol/schema.js";
import { OrderStatus, Side, Tif } from "../../src/protocol/schema.js";
import { makeGrid } from "../../src/venue/orderFields.js";
import { createRestStack, type RestStack } from "../../src/venue/stack.js";
import { type Harness, next, startHarness, until } from "./harness.js";

let t: Harness;
let other: RestStack;
beforeAll(async () => {
  t = await startHarness();
  const kp = generateKeyHex();
  t.h.sim!.registerAccount(kp.apiKey);
  other = createRestStack({
    keys: loadKeyPair(kp.secretKey),
    spotBaseUrl: t.h.sim!.baseUrl,
    hftBaseUrl: t.h.sim!.baseUrl,
    presign: false,
    clock: false,
  });
});
afterAll(async () => {
  await other?.stop();
  await t?.close();
});

const value = (mantissa: number, exponent: number) => mantissa * 10 ** exponent;

function latest<N extends "PositionUpdate" | "BalanceUpdate">(c: GatewayClient, name: N): Body<N>[] {
  const seen: Body<N>[] = [];
  const keep = (b: Body<"PositionUpdate"> | Body<"BalanceUpdate">) => seen.push(b as Body<N>);
  if (name === "PositionUpdate") c.on("position", keep);
  else c.on("balance", keep);
  return seen;
}

describe("balance and position pushes", () => {
  it("HFT: fills move the position at every session; the values equal the venue's position list", async () => {
    const a = await t.client("pos-a");
    const watcher = await t.client("pos-watcher");
    const btc = t.inst("linear", "BTCUSDT");
    const atA = latest(a, "PositionUpdate");
    const atW = latest(watcher, "PositionUpdate");
    const grid = makeGrid("0.1", "0.001");
    const rest = (side: "buy" | "sell", price: string) =>
      other.client.createHftOrder(
        {
          category: "linear",
          symbol: "BTCUSDT",
          side,
          orderType: "limit",
          qty: "0.004",
          price,
          positionIdx: 0,
          timeInForce: "GTC",
        },
        grid,
      );
    // Open long 4 lots at 64000, then sell 3 of them at 64100 (realised PnL 3 × 0.001 × 100 = 0.3).
    await rest("sell", "64000");
    const f1 = next(a, "update", (u) => u.status === OrderStatus.Filled);
    a.placeOrder({ instrumentId: btc, side: Side.Buy, priceTicks: 640_000, qtyLots: 4, tif: Tif.IOC });
    await f1;
    await rest("buy", "64100");
    const f2 = next(a, "update", (u) => u.status === OrderStatus.Filled);
    a.placeOrder({ instrumentId: btc, side: Side.Sell, priceTicks: 641_000, qtyLots: 3, tif: Tif.IOC });
    await f2;

    const venue = (await t.h.rest.client.positions({ category: "linear" })).list.find(
      (p) => p.symbol === "BTCUSDT" && p.positionIdx === 0,
    )!;
    expect(venue.size).toBe("0.001");
    expect(venue.side).toBe("Buy");
    const matches = (p: Body<"PositionUpdate"> | undefined) =>
      p !== undefined &&
      p.instrumentId === btc &&
      p.sizeLots === 1 &&
      Math.abs(value(p.entryPxMantissa, p.entryPxExponent) - Number(venue.avgPrice)) < 1e-6 &&
      Math.abs(value(p.realisedPnlMantissa, p.pnlExponent) - Number(venue.cumRealisedPnl)) < 1e-8;
    await until(() => matches(atA.at(-1)) && matches(atW.at(-1)), 3000, "position pushed to both sessions");
    expect(Number(venue.cumRealisedPnl)).toBeCloseTo(0.3, 8);
    expect(value(atA.at(-1)!.entryPxMantissa, atA.at(-1)!.entryPxExponent)).toBeCloseTo(64000, 6);
    // Every push the sessions got was one of the steps (4 long, then 1 long), never anything else.
    for (const p of atA) expect([0, 4, 1]).toContain(p.sizeLots);
    // A session that logs on later gets the current position right after its LogonAck.
    const late = new GatewayClient({ url: t.h.url, token: t.h.token, sessionName: "pos-late" });
    const atL = latest(late, "PositionUpdate");
    await late.connect();
    await until(() => atL.some((p) => p.instrumentId === btc && p.sizeLots === 1), 2000, "logon snapshot");
    await late.close();
    // Close the rest so later tests start flat.
    await rest("buy", "64000");
    const f3 = next(a, "update", (u) => u.status === OrderStatus.Filled);
    a.placeOrder({ instrumentId: btc, side: Side.Sell, priceTicks: 640_000, qtyLots: 1, tif: Tif.IOC });
    await f3;
    await until(() => atW.at(-1)?.sizeLots === 0, 3000, "flat pushed");
    await until(() => t.h.engine.store.liveOrders().length === 0, 3000, "no live orders");
  });

  it("Spot: a fill changes the balances; every session gets BalanceUpdates equal to the venue's portfolio", async () => {
    const a = await t.client("bal-a");
    const watcher = await t.client("bal-watcher");
    const eth = t.inst("coinswitchx", "ETH/INR");
    const atW = latest(watcher, "BalanceUpdate");
    await other.client.createSpotOrder(
      {
        symbol: "ETH/INR",
        side: "sell",
        price: "250000",
        quantity: "0.5",
        exchange: "coinswitchx",
      },
      t.h.instruments.byId(eth)!.orderGrid,
    );
    const filled = next(a, "update", (u) => u.status === OrderStatus.Filled);
    const qty = t.h.instruments.byId(eth)!.qty;
    a.placeOrder({
      instrumentId: eth,
      side: Side.Buy,
      priceTicks: Math.round(250000 / Number(t.h.instruments.byId(eth)!.inst.tickSize)),
      qtyLots: Math.round(0.5 * 10 ** qty.scale),
    });
    await filled;
    const rows = await t.h.rest.client.portfolio();
    const want = (cur: string) => {
      const r = rows.find((x) => x.currency.toUpperCase() === cur)!;
      return { free: Number(r.main_balance), locked: Number(r.blocked_balance_order) };
    };
    const eq = (cur: string) => {
      const got = [...atW].reverse().find((b) => b.asset === cur);
      if (!got) return false;
      const w = want(cur);
      return (
        Math.abs(value(got.freeMantissa, got.exponent) - w.free) < 1e-8 &&
        Math.abs(value(got.lockedMantissa, got.exponent) - w.locked) < 1e-8
      );
    };
    await until(() => eq("ETH") && eq("INR"), 3000, "balances pushed");
    expect(want("ETH").free).toBeCloseTo(10.5, 8);
  });
});
