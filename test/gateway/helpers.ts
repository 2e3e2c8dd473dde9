import WebSocket from "ws";
import { GatewayClient } from "../../src/client/client.js";
import { Gateway, type GatewayConfig } from "../../src/gateway/gateway.js";
import { Journal, type JournalOptions } from "../../src/journal/writer.js";
import { decodeG2C, encodeC2G, type G2CMessage } from "../../src/protocol/codec.js";
import { OrdType, Side, Tif, WS_PATH } from "../../src/protocol/schema.js";
import { TestEngine } from "./testEngine.js";

export const TOKEN = "test-token-0123456789";

export async function startTestGateway(
  transport: "auto" | "ws",
  extra: Partial<GatewayConfig> = {},
): Promise<{ gw: Gateway; engine: TestEngine }> {
  const engine = new TestEngine();
  const gw = new Gateway(engine, {
    token: TOKEN,
    host: "127.0.0.1",
    port: 0,
    transport,
    badTokenDelayMs: 20,
    logger: { info: () => {}, warn: () => {} },
    ...extra,
  });
  engine.sink = gw;
  await gw.start();
  return { gw, engine };
}

/** A limit order on the test engine's instrument 1. */
export const LIMIT_ORDER = {
  instrumentId: 1,
  side: Side.Buy,
  ordType: OrdType.Limit,
  tif: Tif.GTC,
  priceTicks: 100,
  qtyLots: 5,
};

/**
 * A test gateway journaling to a real journal in `dir` (restart = resume, journal-before-socket);
 * `stop` closes the gateway, then the journal, once.
 */
export async function startJournaledGateway(
  dir: string,
  journal: Partial<Omit<JournalOptions, "dir">> = {},
  extra: Partial<GatewayConfig> = {},
): Promise<{ gw: Gateway; engine: TestEngine; j: Journal; stop: () => Promise<void> }> {
  const j = Journal.open({ dir, fsync: "none", ...journal });
  const { gw, engine } = await startTestGateway("auto", { journal: j, ...extra });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await gw.close();
    await j.close();
  };
  return { gw, engine, j, stop };
}

export function client(
  gw: Gateway,
  sessionName: string,
  extra: { codPolicy?: number; heartbeatMs?: number } = {},
) {
  return new GatewayClient({ url: `ws://127.0.0.1:${gw.port}`, token: TOKEN, sessionName, ...extra });
}

export async function waitFor(cond: () => boolean, ms = 3000, what = "condition"): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A bare WebSocket that records decoded frames: for raw-byte tests. */
export interface Raw {
  ws: WebSocket;
  frames: G2CMessage[];
  closeCode: number | undefined;
  send(b: Uint8Array | string): void;
  logon(name: string, extra?: { heartbeatMs?: number; codPolicy?: number; token?: string }): Promise<void>;
}

export async function raw(gw: Gateway): Promise<Raw> {
  const ws = new WebSocket(`ws://127.0.0.1:${gw.port}${WS_PATH}`);
  ws.binaryType = "nodebuffer";
  const r: Raw = {
    ws,
    frames: [],
    closeCode: undefined,
    send: (b) => ws.send(typeof b === "string" ? b : Buffer.from(b)),
    logon: async (name, extra = {}) => {
      r.send(
        encodeC2G("Logon", {
          token: extra.token ?? TOKEN,
          sessionName: name,
          heartbeatMs: extra.heartbeatMs ?? 0,
          codPolicy: extra.codPolicy ?? 0,
          resumeFromSeq: 0,
          options: 0,
        }),
      );
      await waitFor(() => r.frames.some((f) => f.name === "LogonAck" || f.name === "LogonReject"));
    },
  };
  ws.on("message", (d: Buffer) => {
    const m = decodeG2C(d);
    if (m.name !== undefined) r.frames.push(m);
  });
  ws.on("close", (code) => {
    r.closeCode = code;
  });
  ws.on("error", () => {});
  await new Promise<void>((res, rej) => {
    ws.once("open", () => res());
    ws.once("error", rej);
  });
  return r;
}
