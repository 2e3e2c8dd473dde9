/** The trading state survives a restart: a halt is journaled and restored; only an admin lifts it. */
import { describe, expect, it } from "vitest";
import { GatewayClient } from "../../src/client/index.js";
import { startEngine } from "../../src/index.js";
import { CODES, Side, TradingStateValue } from "../../src/protocol/schema.js";
import { next, silent } from "./harness.js";
import { restartVenue } from "./restartFixture.js";

const v = restartVenue("halt-restart");
const config = () => v.config();

describe("trading state across restarts", () => {
  it("a Kill survives a restart; SetTradingState active lifts it, and that survives too", async () => {
    const h1 = await startEngine(config(), { logger: silent });
    try {
      const ops = new GatewayClient({ url: h1.url, token: h1.adminToken, sessionName: "ops" });
      await ops.connect();
      const halted = next(ops, "tradingState");
      ops.kill("desk: stop");
      expect((await halted).state).toBe(TradingStateValue.Halted);
      await ops.close();
    } finally {
      await h1.stop("restart");
    }

    const h2 = await startEngine(config(), { logger: silent });
    try {
      expect(h2.risk.state).toBe("halted");
      const user = new GatewayClient({ url: h2.url, token: h2.token, sessionName: "user" });
      expect((await user.connect()).tradingState).toBe(TradingStateValue.Halted);
      const rej = next(user, "reject");
      user.placeOrder({
        instrumentId: h2.instruments.all().find((i) => i.symbol === "BTCUSDT")!.id,
        side: Side.Buy,
        priceTicks: 600_000,
        qtyLots: 1,
      });
      expect((await rej).code).toBe(CODES.TradingHalted.code);
      const ops = new GatewayClient({ url: h2.url, token: h2.adminToken, sessionName: "ops" });
      await ops.connect();
      const active = next(user, "tradingState");
      ops.setTradingState(TradingStateValue.Active, "desk: resume");
      expect((await active).state).toBe(TradingStateValue.Active);
      await ops.close();
      await user.close();
    } finally {
      await h2.stop("restart");
    }

    const h3 = await startEngine(config(), { logger: silent });
    try {
      expect(h3.risk.state).toBe("active");
    } finally {
      await h3.stop("test");
    }
  }, 15_000);
});
