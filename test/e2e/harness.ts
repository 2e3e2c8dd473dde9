/**
 * Test harness: the whole product in-process over real sockets (simulator on port 0, gateway on port 0,
 * the TypeScript client), plus helpers that wait for protocol events.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { GatewayClient } from "../../src/client/index.js";
import { type Config, loadConfig } from "../../src/config/load.js";
import { type EngineHandle, type StartOptions, startEngine } from "../../src/index.js";
import { encodeC2G } from "../../src/protocol/codec.js";
import { type Body, OrdType, Side, Tif } from "../../src/protocol/schema.js";

export const silent = pino({ level: "silent" });

/** A pino logger whose JSON lines are kept in memory, one string per line (the last `max` of them). */
export function captureLogger(
  level = "debug",
  max = Number.POSITIVE_INFINITY,
): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      if (lines.length > max) lines.splice(0, lines.length - max);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}

export interface Harness {
  h: EngineHandle;
  dir: string;
  clients: GatewayClient[];
  client(name: string, codPolicy?: number, token?: string, logonOptions?: number): Promise<GatewayClient>;
  /** Instrument id by venue and symbol. */
  inst(venue: string, symbol: string): number;
  close(): Promise<void>;
}

export function testConfig(overrides: Record<string, unknown> = {}, dir?: string): Config {
  return loadConfig({
    env: {},
    overrides: {
      "gateway.port": 0,
      "gateway.token": "test-token-0123456789",
      "gateway.adminToken": "admin-token-0123456789",
      "gateway.badTokenDelayMs": 10,
      "journal.enabled": dir !== undefined,
      ...(dir ? { "journal.dir": join(dir, "journal"), "journal.fsync": "none" } : {}),
      "signing.presign": false,
      "sim.syntheticMarket": false,
      "sim.tickMs": 0,
      // The HFT NATS streams only where a test asks for them (they change what polls are made).
      "sim.nats": "off",
      "streams.pollIntervalMs": 100,
      "orders.unknownQueryIntervalMs": 50,
      "log.level": "silent",
      ...overrides,
    },
  });
}

export async function startHarness(
  overrides: Record<string, unknown> = {},
  opts: StartOptions = {},
  withJournal = false,
): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "hftgate-e2e-"));
  const h = await startEngine(testConfig(overrides, withJournal ? dir : undefined), {
    logger: silent,
    ...opts,
  });
  const clients: GatewayClient[] = [];
  return {
    h,
    dir,
    clients,
    async client(name, codPolicy = 0, token = h.token, logonOptions = 0) {
      const c = new GatewayClient({
        url: h.url,
        token,
        sessionName: name,
        codPolicy,
        logonOptions,
        heartbeatMs: 1000,
      });
      await c.connect();
      clients.push(c);
      return c;
    },
    inst(venue, symbol) {
      const i = h.instruments.all().find((x) => x.venue === venue && x.symbol === symbol);
      if (!i) throw new Error(`no instrument ${venue} ${symbol}`);
      return i.id;
    },
    async close() {
      for (const c of clients) await c.close().catch(() => {});
      await h.stop("test");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

type Events = {
  ack: Body<"Ack">;
  reject: Body<"Reject">;
  update: Body<"OrderUpdate">;
  fill: Body<"Fill">;
  cancelReject: Body<"CancelReject">;
  amendReject: Body<"AmendReject">;
  unknown: Body<"OutcomeUnknown">;
  tradingState: Body<"TradingState">;
  credit: Body<"Credit">;
  balance: Body<"BalanceUpdate">;
};

/** Resolves with the first `event` body matching `pred`; rejects after `ms`. */
export function next<K extends keyof Events>(
  c: GatewayClient,
  event: K,
  pred: (b: Events[K]) => boolean = () => true,
  ms = 3000,
): Promise<Events[K]> {
  return new Promise((resolve, reject) => {
    const on = (b: Events[K]) => {
      if (!pred(b)) return;
      clearTimeout(t);
      c.off(event as never, on as never);
      resolve(b);
    };
    const t = setTimeout(() => {
      c.off(event as never, on as never);
      reject(new Error(`timeout waiting for ${event}`));
    }, ms);
    c.on(event as never, on as never);
  });
}

/** Records every message of a client, for assertions on what was (not) sent. */
export function recorder(c: GatewayClient): { name: string; body: Record<string, unknown> }[] {
  const log: { name: string; body: Record<string, unknown> }[] = [];
  c.on("message", (m) => {
    if ("body" in m) log.push({ name: m.name, body: m.body as unknown as Record<string, unknown> });
  });
  return log;
}

/** Polls `cond` every 10 ms; `what` names it in the timeout error (a function: read at the timeout). */
/**
 * Sends a GTC limit buy with the client order number given, past the client's own numbering (which
 * would never send a used number): what the gateway does with a reused one.
 */
export function sendRawBuy(
  c: GatewayClient,
  o: { clOrdNo: number; instrumentId: number; priceTicks: number; qtyLots: number },
): void {
  c.sendRaw(
    Buffer.from(
      encodeC2G("NewOrder", {
        ...o,
        side: Side.Buy,
        ordType: OrdType.Limit,
        tif: Tif.GTC,
        positionIdx: 0,
        flags: 0,
      }),
    ),
  );
}

export async function until(
  cond: () => boolean,
  ms = 3000,
  what: string | (() => string) = "condition",
): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end)
      throw new Error(`timeout waiting for ${typeof what === "function" ? what() : what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
