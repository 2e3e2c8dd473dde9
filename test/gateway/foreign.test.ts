/** A client in another language (Python, stdlib only), written from PROTOCOL.md, trades through the gateway. */
import { execFile, execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Gateway } from "../../src/gateway/gateway.js";
import { startTestGateway, TOKEN } from "./helpers.js";
import type { TestEngine } from "./testEngine.js";

const here = dirname(fileURLToPath(import.meta.url));
const hasPython = (() => {
  try {
    execFileSync("python3", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasPython)("foreign-language client from the spec", () => {
  let gw: Gateway;
  let engine: TestEngine;
  beforeAll(async () => {
    ({ gw, engine } = await startTestGateway("auto"));
  });
  afterAll(async () => {
    await gw.close();
  });

  it("logs on, lists instruments, places an order and logs out", async () => {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        "python3",
        [join(here, "foreign_client.py"), String(gw.port), TOKEN],
        { timeout: 10_000 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    const r = JSON.parse(out);
    expect(r.logon).toMatchObject({ nextSeq: 1, heartbeatMs: 5000, tradingState: 1 });
    expect(r.instruments.requestId).toBe(77);
    expect(r.instruments.records).toEqual([
      { id: 1, symbol: "BTCUSDT", tickSize: "0.1", qtyStep: "0.001", active: 1 },
      { id: 2, symbol: "ETHUSDT", tickSize: "0.1", qtyStep: "0.001", active: 1 },
      { id: 3, symbol: "OLDUSDT", tickSize: "0.1", qtyStep: "0.001", active: 0 },
    ]);
    expect(r.order[0]).toMatchObject({
      type: "Ack",
      seq: 2,
      clOrdNo: 1,
      exchangeOrderId: `X-${r.logon.sessionId}-1`,
    });
    expect(r.order[0].sendNs).toBeGreaterThanOrEqual(r.order[0].recvNs);
    expect(r.order[1]).toMatchObject({
      type: "OrderUpdate",
      seq: 3,
      status: 2,
      priceTicks: 650001,
      qtyLots: 12,
      leaves: 12,
    });
    expect(r.close).toEqual({ opcode: 8, code: 1000 });
    const cmd = engine.calls.find((c) => c.kind === "new")!.detail;
    expect(cmd).toMatchObject({ clOrdNo: 1, instrumentId: 1, side: 1, priceTicks: 650001, qtyLots: 12 });
    expect(engine.disconnects).toEqual([
      { sessionId: r.logon.sessionId, reason: "logout", cancelOrders: true },
    ]);
  });
});
