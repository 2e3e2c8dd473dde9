/**
 * The run-time venue reads a strategy needs (trading fee, trade info, TDS, portfolio) through the
 * TypeScript client over real sockets: the gateway signs them with its keys and answers the venue's
 * data; a bad token, an unknown read or a bad parameter changes nothing at the venue.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayClient, VenueReadError } from "../../src/client/client.js";
import type { SpotPortfolioRow } from "../../src/rest/wire.js";
import { type Harness, startHarness } from "./harness.js";

let t: Harness;
beforeAll(async () => {
  t = await startHarness();
});
afterAll(async () => {
  await t?.close();
});

const venueCalls = (path: string) => t.h.sim!.counters.requests(`GET ${path}`);

describe("venue reads through the TypeScript client", () => {
  it("trading fee, trade info, TDS and portfolio come back as the venue answered them, signed by the gateway", async () => {
    const c = await t.client("reads");
    const fee = await c.venueRead<Record<string, Record<string, { maker_fee: number }>>>("tradingFee", {
      exchange: "coinswitchx",
    });
    expect(Object.keys(fee)).toEqual(["coinswitchx"]);
    expect(fee.coinswitchx!.BTC!.maker_fee).toBeGreaterThan(0);
    const info = await c.venueRead<Record<string, Record<string, unknown>>>("tradeInfo", {
      exchange: "c2c1",
      symbol: "BTC/USDT",
    });
    expect(info).toEqual(await t.h.rest.client.tradeInfo({ exchange: "c2c1", symbol: "BTC/USDT" }));
    const tds = await c.venueRead<{ total_tds_amount: number }>("tds");
    expect(typeof tds.total_tds_amount).toBe("number");
    const rows = await c.venueRead<SpotPortfolioRow[]>("portfolio");
    expect(rows.map((r) => r.currency)).toContain("INR");
    // Each read reached the venue once, as a signed request (the simulator verifies every signature).
    expect(venueCalls("/trade/api/v2/tds")).toBeGreaterThanOrEqual(1);
    expect(venueCalls("/trade/api/v2/user/portfolio")).toBeGreaterThanOrEqual(1);
  });

  it("refuses a bad token (401), an unknown read (404) and a bad or missing parameter (400) without asking the venue", async () => {
    const c = await t.client("reads-bad");
    const before = [venueCalls("/trade/api/v2/tds"), venueCalls("/trade/api/v2/tradingFee")];
    const liar = new GatewayClient({ url: t.h.url, token: "not-the-token-0123456789", sessionName: "liar" });
    await expect(liar.venueRead("tds")).rejects.toMatchObject({ status: 401, kind: "BadToken" });
    await expect(c.venueRead("nope" as "tds")).rejects.toMatchObject({ status: 404, kind: "UnknownRead" });
    await expect(c.venueRead("tradingFee")).rejects.toMatchObject({ status: 400, kind: "BadParameter" });
    await expect(c.venueRead("tds", { exchange: "c2c1" })).rejects.toMatchObject({ status: 400 });
    await expect(c.venueRead("tradeInfo", { symbol: 'BTC/USDT"}' })).rejects.toBeInstanceOf(VenueReadError);
    expect([venueCalls("/trade/api/v2/tds"), venueCalls("/trade/api/v2/tradingFee")]).toEqual(before);
  });

  it("a venue refusal comes back as VenueRejected with the venue's message", async () => {
    const c = await t.client("reads-venue");
    const err = await c.venueRead("tradingFee", { exchange: "wazirx" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VenueReadError);
    expect(err).toMatchObject({ status: 400, kind: "VenueRejected" });
    expect((err as Error).message).toMatch(/exchange/);
  });
});
