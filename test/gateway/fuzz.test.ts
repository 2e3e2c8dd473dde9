/**
 * Feeds random and mutated frames to a live gateway from a logged-on session and from a connection
 * that never logged on. Every bad frame must get an Error; the server stays up; another session keeps
 * trading; no command reaches the engine.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayClient } from "../../src/client/client.js";
import type { Gateway } from "../../src/gateway/gateway.js";
import { decodeC2G, encodeC2G } from "../../src/protocol/codec.js";
import { CODES, Side } from "../../src/protocol/schema.js";
import { client, type Raw, raw, startTestGateway, waitFor } from "./helpers.js";
import type { TestEngine } from "./testEngine.js";

const VALID = [
  encodeC2G("NewOrder", {
    clOrdNo: 1,
    instrumentId: 1,
    side: 1,
    ordType: 1,
    tif: 1,
    positionIdx: 0,
    priceTicks: 10,
    qtyLots: 1,
    flags: 0,
  }),
  encodeC2G("Cancel", { clOrdNo: 1, exchangeOrderId: "" }),
  encodeC2G("CancelAll", { scope: 1, instrumentId: 0 }),
  encodeC2G("Query", { requestId: 1, scope: 2, clOrdNo: 0 }),
].map((b) => Buffer.from(b));

/** Random bytes, truncations, byte flips, length lies and size extremes of valid frames. */
const frameArb: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 80 }),
  fc.tuple(fc.constantFrom(...VALID), fc.nat()).map(([v, n]) => v.subarray(0, n % v.length)),
  fc
    .tuple(
      fc.constantFrom(...VALID),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
    )
    .map(([v, flips]) => {
      const b = Buffer.from(v);
      for (const [i, x] of flips) b[i % b.length] = x;
      return b;
    }),
  fc.tuple(fc.constantFrom(...VALID), fc.integer({ min: 1, max: 40 })).map(([v, extra]) => {
    const b = Buffer.concat([v, Buffer.alloc(extra)]);
    return b;
  }),
  fc.integer({ min: 513, max: 4000 }).map((n) => Buffer.alloc(n, 2)),
);

describe("fuzzing a live gateway", () => {
  let gw: Gateway;
  let engine: TestEngine;
  let victim: Raw;
  let stranger: Raw;
  let bystander: GatewayClient;

  beforeAll(async () => {
    ({ gw, engine } = await startTestGateway("auto"));
    victim = await raw(gw);
    await victim.logon("victim");
    stranger = await raw(gw);
    bystander = client(gw, "bystander");
    await bystander.connect();
  });
  afterAll(async () => {
    victim.ws.terminate();
    stranger.ws.terminate();
    await bystander.close();
    await gw.close();
  });

  it("answers every bad frame with an Error and lets nothing through", async () => {
    const frames = fc
      .sample(frameArb, { numRuns: 3000, seed: 1234 })
      .filter((f) => decodeC2G(f).name === undefined);
    expect(frames.length).toBeGreaterThan(2000);
    for (const f of frames) victim.send(f);
    for (const f of frames.slice(0, 500)) stranger.send(f);
    victim.send("text frames are refused");
    await waitFor(
      () => victim.frames.filter((m) => m.name === "Error").length === frames.length + 1,
      10_000,
      "victim errors",
    );
    await waitFor(
      () => stranger.frames.filter((m) => m.name === "Error").length === 500,
      10_000,
      "stranger errors",
    );
    expect(victim.frames.at(-1)).toMatchObject({ name: "Error", body: { code: CODES.TextFrame.code } });
    expect(victim.closeCode).toBeUndefined();
    expect(stranger.closeCode).toBeUndefined();
    expect(engine.calls).toEqual([]);
    // Error seqs in the victim's session are contiguous after the LogonAck.
    const seqs = victim.frames.filter((m) => m.name === "Error").map((m) => m.header.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    // Codes seen are protocol codes only.
    const codes = new Set(
      victim.frames.filter((m) => m.name === "Error").map((m) => (m.body as { code: number }).code),
    );
    for (const c of codes) expect(c).toBeLessThan(100);
  });

  it("keeps serving the victim and other sessions afterwards", async () => {
    const acks: number[] = [];
    bystander.on("ack", (b) => acks.push(b.clOrdNo));
    bystander.placeOrder({ instrumentId: 1, side: Side.Sell, priceTicks: 5, qtyLots: 1 });
    await waitFor(() => acks.length === 1);
    expect(await bystander.ping()).toBeGreaterThan(0);
    victim.send(VALID[0]!);
    await waitFor(() => victim.frames.some((m) => m.name === "Ack"));
    expect(engine.calls.map((c) => c.kind)).toEqual(["new", "new"]);
    // A stranger that never logged on is told so, not served.
    stranger.send(VALID[0]!);
    await waitFor(() => stranger.frames.length === 501);
    expect(stranger.frames.at(-1)).toMatchObject({ name: "Error", body: { code: CODES.NotLoggedOn.code } });
    expect(engine.calls).toHaveLength(2);
  });
});
