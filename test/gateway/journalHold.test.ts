/**
 * The journal-before-socket rule while the journal cannot write (PROTOCOL.md §3, src/gateway/
 * durableGate.ts): a real journal whose writes the kernel refuses (this test process's RLIMIT_FSIZE
 * lowered with prlimit(1): EFBIG, as a full disk gives ENOSPC), a real gateway and clients over
 * WebSocket. Sequenced frames wait, heartbeats still go out, the wait is bounded per connection
 * (1011, resumable), and once the journal writes again everything follows in order with no gap.
 * Skipped where prlimit is missing or not permitted.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GatewayClient } from "../../src/client/client.js";
import type { Gateway, GatewayConfig } from "../../src/gateway/gateway.js";
import type { Journal } from "../../src/journal/writer.js";
import type { G2CMessage } from "../../src/protocol/codec.js";
import { LIMIT_ORDER, startJournaledGateway, TOKEN, waitFor } from "./helpers.js";
import type { TestEngine } from "./testEngine.js";

const prlimitArgs = (bytes: number | "unlimited") => [
  "--pid",
  String(process.pid),
  `--fsize=${bytes}:unlimited`,
];
const PRLIMIT =
  spawnSync("prlimit", ["--version"]).status === 0 &&
  spawnSync("prlimit", prlimitArgs("unlimited")).status === 0;

/** Sets this process's file size limit without blocking its event loop (the gateway and clients run on it). */
function fileSizeLimit(bytes: number | "unlimited"): Promise<boolean> {
  return new Promise((resolve) => execFile("prlimit", prlimitArgs(bytes), (err) => resolve(err === null)));
}

const order = LIMIT_ORDER;

let dir = "";
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  spawnSync("prlimit", prlimitArgs("unlimited"));
  for (const f of stops.splice(0).reverse()) await f().catch(() => {});
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

async function run(
  extra: Partial<GatewayConfig> = {},
): Promise<{ gw: Gateway; j: Journal; engine: TestEngine }> {
  dir = mkdtempSync(join(tmpdir(), "hftgate-gw-jhold-"));
  const r = await startJournaledGateway(dir, { retryIntervalMs: 10, onError: () => {} }, extra);
  stops.push(r.stop);
  return r;
}

function open(gw: Gateway, name: string, heartbeatMs = 100) {
  const c = new GatewayClient({
    url: `ws://127.0.0.1:${gw.port}`,
    token: TOKEN,
    sessionName: name,
    heartbeatMs,
  });
  const got: G2CMessage[] = [];
  let heartbeats = 0;
  const gaps: number[][] = [];
  const closes: number[] = [];
  c.on("message", (m) => {
    if (m.header.seq !== 0) got.push(m);
    else if (m.name === "HeartbeatOut") heartbeats++;
  });
  c.on("gap", (a, b) => gaps.push([a, b]));
  c.on("close", (code) => closes.push(code));
  return { c, got, gaps, closes, heartbeats: () => heartbeats };
}

describe.skipIf(!PRLIMIT)("gateway: frames wait for a journal that cannot write", () => {
  it("no sequenced frame goes out while it fails, heartbeats do; then everything in order, no gap", async () => {
    const { gw, j } = await run();
    const k = open(gw, "holder");
    await k.c.connect();
    k.c.placeOrder(order);
    await waitFor(() => k.got.length === 2, 3_000, "the first order's frames");
    expect(await fileSizeLimit(statSync(j.path).size)).toBe(true);
    k.c.placeOrder(order);
    k.c.placeOrder(order);
    await waitFor(() => j.failure !== undefined, 3_000, "the journal failing");
    const hb = k.heartbeats();
    await new Promise((r) => setTimeout(r, 600)); // 6 heartbeat intervals
    expect(k.got.length).toBe(2);
    expect(k.heartbeats() - hb).toBeGreaterThan(2);
    expect(k.c.connected).toBe(true);
    await fileSizeLimit("unlimited");
    await waitFor(() => k.got.length === 6, 3_000, "the held frames");
    expect(k.got.map((m) => m.header.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(k.got.map((m) => m.name)).toEqual([
      "Ack",
      "OrderUpdate",
      "Ack",
      "OrderUpdate",
      "Ack",
      "OrderUpdate",
    ]);
    expect(k.gaps).toEqual([]);
    await k.c.close();
  });

  it("holding is bounded: past maxBufferedBytes the connection is closed with 1011, and the resume gets every frame", async () => {
    const { gw, j, engine } = await run({ maxBufferedBytes: 2_048 });
    const k = open(gw, "bounded");
    await k.c.connect();
    k.c.placeOrder(order);
    await waitFor(() => k.got.length === 2, 3_000, "the first order's frames");
    expect(await fileSizeLimit(statSync(j.path).size)).toBe(true);
    // Each order is answered with two frames (~300 bytes): 20 orders exceed 2 KiB.
    for (let i = 0; i < 20 && k.c.connected; i++) k.c.placeOrder(order);
    await waitFor(() => k.closes.length === 1, 3_000, "the close");
    expect(k.closes).toEqual([1011]);
    expect(gw.stats.journalHeldCloses).toBe(1);
    expect(k.got.length).toBe(2);
    // Orders the gateway read before it closed the connection (later ones arrived on a closed link).
    const sent = engine.orderCalls();
    expect(sent).toBeGreaterThan(5);
    await fileSizeLimit("unlimited");
    await waitFor(() => j.failure === undefined, 3_000, "the journal writing again");
    await k.c.connect(); // resumes from seq 3
    await waitFor(() => k.got.length === 2 * sent, 3_000, "every frame");
    expect(k.got.map((m) => m.header.seq)).toEqual(Array.from({ length: 2 * sent }, (_, i) => i + 1));
    expect(k.gaps).toEqual([]);
    await k.c.close();
  });
});
