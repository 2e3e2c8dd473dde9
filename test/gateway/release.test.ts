/**
 * Sessions are released: an anonymous session (never resumable) is freed when its connection ends;
 * named ones are kept for resume within a retention (count and time), then released.
 */
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { GatewayClient, LogonRejectedError } from "../../src/client/client.js";
import type { Gateway, GatewayConfig } from "../../src/gateway/gateway.js";
import { SessionTable } from "../../src/gateway/sessions.js";
import { decodeG2C, encodeC2G } from "../../src/protocol/codec.js";
import { CODES, OrdType, Side, Tif, WS_PATH } from "../../src/protocol/schema.js";
import { startTestGateway, TOKEN, waitFor } from "./helpers.js";

let gw: Gateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

async function setup(extra: Partial<GatewayConfig> = {}) {
  const r = await startTestGateway("auto", extra);
  gw = r.gw;
  return r;
}

/** Opens a socket, logs on without a name, waits for the LogonAck, sends an order, drops the socket. */
function anonymousVisit(g: Gateway): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${g.port}${WS_PATH}`);
    ws.binaryType = "nodebuffer";
    ws.on("open", () =>
      ws.send(
        Buffer.from(
          encodeC2G("Logon", {
            token: TOKEN,
            sessionName: "",
            heartbeatMs: 0,
            codPolicy: 0,
            resumeFromSeq: 0,
            options: 0,
          }),
        ),
      ),
    );
    ws.on("message", (d: Buffer) => {
      const m = decodeG2C(d);
      if (m.name !== "LogonAck") return;
      ws.send(
        Buffer.from(
          encodeC2G("NewOrder", {
            clOrdNo: 1,
            instrumentId: 1,
            side: Side.Buy,
            ordType: OrdType.Limit,
            tif: Tif.GTC,
            positionIdx: 0,
            priceTicks: 100,
            qtyLots: 1,
            flags: 0,
          }),
        ),
      );
      ws.terminate();
    });
    ws.on("close", () => resolve());
    ws.on("error", reject);
  });
}

function heapAndBuffers(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

describe("sessions released", () => {
  it("frees every anonymous session when its connection ends: thousands of dropped logons leave the maps as they were", async () => {
    const { engine } = await setup();
    const live = new GatewayClient({ url: `ws://127.0.0.1:${gw!.port}`, token: TOKEN, sessionName: "live" });
    await live.connect();
    for (let i = 0; i < 100; i++) await anonymousVisit(gw!); // warm-up: allocator and JIT settle
    await waitFor(() => gw!.counts().links === 1);
    const before = heapAndBuffers();
    const N = 3000;
    for (let i = 0; i < N; i += 50) await Promise.all(Array.from({ length: 50 }, () => anonymousVisit(gw!)));
    await waitFor(() => gw!.counts().links === 1, 10_000, "all anonymous connections closed");
    expect(engine.logons.length).toBe(1 + 100 + N);
    expect(gw!.counts()).toEqual({ sessions: 1, connected: 1, retained: 0, links: 1 });
    const health = (await (await fetch(`http://127.0.0.1:${gw!.port}/health`)).json()) as {
      sessions: number;
    };
    expect(health.sessions).toBe(1);
    // Loose bound: a leaked session with its ring is ~80 KiB, so 3,000 of them would be ~240 MB.
    const grown = heapAndBuffers() - before;
    expect(grown).toBeLessThan(40 * 1024 * 1024);
    await live.close();
  }, 120_000);

  it("keeps at most maxRetainedSessions disconnected named sessions, releasing the longest idle first", async () => {
    await setup({ maxRetainedSessions: 3 });
    for (const name of ["a", "b", "c", "d", "e"]) {
      const c = new GatewayClient({ url: `ws://127.0.0.1:${gw!.port}`, token: TOKEN, sessionName: name });
      await c.connect();
      await c.close();
      await waitFor(() => gw!.counts().connected === 0);
    }
    expect(gw!.counts()).toMatchObject({ sessions: 3, retained: 3 });
    expect(["a", "b", "c", "d", "e"].map((n) => gw!.sessionIdOf(n) !== 0)).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
    // A released name starts over: a resume is refused, a plain logon gets a new session.
    const a = new GatewayClient({
      url: `ws://127.0.0.1:${gw!.port}`,
      token: TOKEN,
      sessionName: "a",
      lastSeq: 1,
    });
    const err = await a.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LogonRejectedError);
    expect((err as LogonRejectedError).code).toBe(CODES.ResumeOutOfRange.code);
  });

  it("releases a disconnected named session once its retention time has passed", async () => {
    await setup({ sessionRetentionMs: 100 });
    const c = new GatewayClient({ url: `ws://127.0.0.1:${gw!.port}`, token: TOKEN, sessionName: "brief" });
    await c.connect();
    await c.close();
    await waitFor(() => gw!.counts().retained === 1);
    await waitFor(() => gw!.counts().sessions === 0, 5000, "retention expiry");
    expect(gw!.sessionIdOf("brief")).toBe(0);
  });

  it("counts sessions restored from the journal by how long they have been idle, not by restore order", () => {
    const released: string[] = [];
    const t = new SessionTable<object>({
      ring: 8,
      retentionMs: 60_000,
      maxRetained: 2,
      journal: undefined,
      onRelease: (s) => released.push(s.name),
      logInfo: () => {},
    });
    const now = Date.now();
    const restored = (name: string, sid: number, idleSinceMs: number) => ({
      name,
      sessionId: sid,
      admin: false,
      nextSeq: 1,
      frames: [],
      idleSinceMs,
      options: 0,
    });
    // Restore hands them most recent first; the older one must still be the first to go.
    t.restore({
      sessions: [restored("recent", 1, now - 1_000), restored("older", 2, now - 50_000)],
      maxSessionId: 2,
      expired: 0,
    });
    const fresh = t.create("fresh", false);
    expect(fresh.sessionId).toBe(3);
    t.loggedOn(fresh);
    t.disconnected(fresh, now);
    expect(released).toEqual(["older"]);
    t.expire(now + 59_500); // "recent" idle 60.5 s, "fresh" 59.5 s: only "recent" is past the retention
    expect(released).toEqual(["older", "recent"]);
    expect(t.size).toBe(1);
  });
});
