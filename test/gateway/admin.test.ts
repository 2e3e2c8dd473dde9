/**
 * Gateway side of the admin commands (Kill, SetTradingState) and of the engine's lastClOrdNo hook:
 * non-admin sessions are refused before the engine, admin ones reach it, an engine without the hooks
 * answers UnknownType.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GatewayClient } from "../../src/client/client.js";
import type { KillCmd, SessionInfo, SetTradingStateCmd } from "../../src/gateway/engineApi.js";
import { Gateway } from "../../src/gateway/gateway.js";
import { CODES, Side, TradingStateValue } from "../../src/protocol/schema.js";
import { TOKEN, waitFor } from "./helpers.js";
import { TestEngine } from "./testEngine.js";

const ADMIN = "admin-token-0123456789";

class AdminEngine extends TestEngine {
  state: number = TradingStateValue.Active;
  readonly admin: { kind: string; session: string; detail: unknown }[] = [];
  known = new Map<string, number>();
  lastClOrdNo(name: string): number {
    return this.known.get(name) ?? 0;
  }
  tradingState(): number {
    return this.state;
  }
  onKill(s: SessionInfo, cmd: KillCmd): void {
    this.admin.push({ kind: "kill", session: s.name, detail: cmd });
    this.state = TradingStateValue.Halted;
    this.sink.broadcast("TradingState", { state: this.state, instrumentId: 0, text: cmd.reason });
  }
  onSetTradingState(s: SessionInfo, cmd: SetTradingStateCmd): void {
    this.admin.push({ kind: "state", session: s.name, detail: cmd });
    this.state = cmd.state;
    this.sink.broadcast("TradingState", { state: this.state, instrumentId: 0, text: cmd.reason });
  }
}

let gw: Gateway | undefined;
const clients: GatewayClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await gw?.close();
  gw = undefined;
});

async function start(engine: TestEngine): Promise<Gateway> {
  gw = new Gateway(engine, {
    token: TOKEN,
    adminToken: ADMIN,
    port: 0,
    transport: "ws",
    logger: { info: () => {}, warn: () => {} },
  });
  engine.sink = gw;
  return gw.start();
}
async function connect(g: Gateway, name: string, token = TOKEN): Promise<GatewayClient> {
  const c = new GatewayClient({ url: `ws://127.0.0.1:${g.port}`, token, sessionName: name });
  await c.connect();
  clients.push(c);
  return c;
}

describe("admin commands at the gateway", () => {
  it("refuses Kill and SetTradingState from a non-admin session with NotAdmin; nothing reaches the engine", async () => {
    const engine = new AdminEngine();
    const g = await start(engine);
    const user = await connect(g, "user");
    const errors: number[] = [];
    const states: number[] = [];
    user.on("protocolError", (e) => errors.push(e.code));
    user.on("tradingState", (t) => states.push(t.state));
    user.kill("not mine to pull");
    user.setTradingState(TradingStateValue.Halted, "nor this");
    await waitFor(() => errors.length === 2, 2000, "two errors");
    expect(errors).toEqual([CODES.NotAdmin.code, CODES.NotAdmin.code]);
    expect(engine.admin).toEqual([]);
    expect(engine.state).toBe(TradingStateValue.Active);
    // The session keeps working.
    const acked = new Promise((r) => user.once("ack", r));
    user.placeOrder({ instrumentId: 1, side: Side.Buy, priceTicks: 10, qtyLots: 1 });
    await acked;
    expect(states).toEqual([]);
  });

  it("passes admin commands to the engine; every session sees the TradingState answer", async () => {
    const engine = new AdminEngine();
    const g = await start(engine);
    const user = await connect(g, "user");
    const ops = await connect(g, "ops", ADMIN);
    const seen = { user: [] as number[], ops: [] as number[] };
    user.on("tradingState", (t) => seen.user.push(t.state));
    ops.on("tradingState", (t) => seen.ops.push(t.state));
    ops.setTradingState(TradingStateValue.Reducing, "desk says reduce");
    ops.kill("desk says stop");
    await waitFor(() => seen.user.length === 2 && seen.ops.length === 2, 2000, "broadcasts");
    expect(seen.user).toEqual([TradingStateValue.Reducing, TradingStateValue.Halted]);
    expect(seen.ops).toEqual([TradingStateValue.Reducing, TradingStateValue.Halted]);
    expect(engine.admin).toEqual([
      { kind: "state", session: "ops", detail: { state: 2, reason: "desk says reduce" } },
      { kind: "kill", session: "ops", detail: { reason: "desk says stop" } },
    ]);
  });

  it("answers UnknownType when the engine offers no admin commands", async () => {
    const g = await start(new TestEngine());
    const ops = await connect(g, "ops", ADMIN);
    const err = new Promise<number>((r) => ops.once("protocolError", (e) => r(e.code)));
    ops.kill("x");
    expect(await err).toBe(CODES.UnknownType.code);
  });

  it("continues a session's client order numbers above the engine's lastClOrdNo at logon", async () => {
    const engine = new AdminEngine();
    engine.known.set("returning", 41);
    const g = await start(engine);
    const c = await connect(g, "returning");
    expect(c.lastClOrdNo).toBe(41);
    const rejected = new Promise<number>((r) => c.once("reject", (b) => r(b.code)));
    c.lastClOrdNo = 40; // a strategy that forgot: its next number (41) was used before the restart
    expect(c.placeOrder({ instrumentId: 1, side: Side.Buy, priceTicks: 10, qtyLots: 1 })).toBe(41);
    expect(await rejected).toBe(CODES.ClOrdNoNotIncreasing.code);
    expect(engine.orderCalls()).toBe(0);
    const fresh = await connect(g, "fresh");
    expect(fresh.lastClOrdNo).toBe(0);
  });
});
