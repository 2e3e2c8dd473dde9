/**
 * Scenario: strategies misbehave — garbage frames, oversized frames, a flood of orders past the rate
 * limit and past the session's risk limit — while another strategy trades normally. Bad input must
 * get a typed answer and change nothing: no request reaches the venue for it, the sessions stay up
 * (or, for a frame beyond the transport's limit, only that connection closes), throttled orders get
 * retryable rejects, risk-refused ones non-retryable rejects, and the final truth holds for everyone.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { encodeC2G } from "../../../src/protocol/codec.js";
import { CODES, MAX_C2G_FRAME, RejectSource } from "../../../src/protocol/schema.js";
import { engineTruth } from "../harness/checks.js";
import { startEngineRig } from "../harness/engineRig.js";
import { record } from "../harness/results.js";
import { startVenue, until } from "../harness/venue.js";

const SPOT_CREATE = "POST /trade/api/v2/order";
const HFT_CREATE = "POST /v5/order/create";

function newOrderFrame(clOrdNo: number, instrumentId: number): Buffer {
  return Buffer.from(
    encodeC2G("NewOrder", {
      clOrdNo,
      instrumentId,
      side: 1,
      ordType: 1,
      tif: 1,
      positionIdx: 0,
      priceTicks: 320_000,
      qtyLots: 5,
      flags: 0,
    }),
  );
}

/** Frames the gateway must answer with an Error (each one exactly one Error), by name. */
function garbage(hftId: number): Array<[string, Buffer | string]> {
  const valid = newOrderFrame(9_000_000, hftId);
  const out: Array<[string, Buffer | string]> = [];
  for (let i = 0; i < 10; i++) out.push([`random ${i}`, randomBytes(8 + i * 7)]);
  out.push(["truncated NewOrder", valid.subarray(0, valid.length - 5)]);
  const badVersion = Buffer.from(valid);
  badVersion[0] = 9;
  out.push(["version 9", badVersion]);
  const badType = Buffer.from(valid);
  badType[1] = 0x3f;
  out.push(["unknown type", badType]);
  const badLen = Buffer.from(valid);
  badLen.writeUInt16LE(valid.length + 3, 2);
  out.push(["length field lies", badLen]);
  const over = Buffer.alloc(MAX_C2G_FRAME + 88);
  valid.copy(over);
  over.writeUInt16LE(over.length, 2);
  out.push(["oversized (600 B)", over]);
  out.push(["text frame", '{"op":"new","qty":1e9}']);
  out.push(["empty", Buffer.alloc(0)]);
  return out;
}

export function badStrategyScenario(): void {
  describe.each(["auto", "ws"] as const)(
    "misbehaving strategies (engine level, transport %s)",
    (transport) => {
      it("garbage and oversized frames, floods past the rate and risk limits: nothing reaches the venue for bad input", async () => {
        const v = await startVenue();
        const rig = await startEngineRig(v, {
          "risk.maxOpenOrdersPerSession": 60,
          "gateway.transport": transport,
        });
        const creates = () => v.sim.counters.requests(SPOT_CREATE) + v.sim.counters.requests(HFT_CREATE);
        try {
          const alpha = await rig.strategy("alpha");
          const mallory = await rig.strategy("mallory");
          const flood = await rig.strategy("flood");
          const spotId = rig.inst("spot", "BTC/INR");
          const hftId = rig.inst("hft", "ETHUSDT");

          // 1. Garbage from mallory, interleaved with alpha's normal trading.
          const frames = garbage(hftId);
          let k = 0;
          for (const [, f] of frames) {
            mallory.client.sendRaw(f);
            if (k++ % 3 === 0) alpha.place(spotId, "buy", 5_300_000 - k * 10, 100);
          }
          await until(() => mallory.errors.length >= frames.length, 3_000, "an Error per bad frame");
          await until(() => alpha.unanswered().length === 0, 3_000, "alpha answered");
          expect(mallory.errors.length).toBe(frames.length);
          expect(mallory.errors.map((e) => e.code)).toContain(CODES.Oversized.code);
          expect(mallory.errors.map((e) => e.code)).toContain(CODES.TextFrame.code);
          expect(mallory.client.connected).toBe(true);
          const alphaAcks = () => alpha.placed.filter((n) => alpha.told.get(n)!.acks > 0).length;
          expect(alphaAcks()).toBe(alpha.placed.length);
          expect(creates()).toBe(alpha.placed.length); // nothing from the garbage reached the venue
          // Nonsense values in a well-formed frame: typed rejects, nothing sent.
          mallory.client.sendRaw(newOrderFrame(mallory.client.lastClOrdNo + 1, 4242)); // unknown instrument
          await until(() => mallory.told.size > 0, 2_000, "reject for the unknown instrument");
          mallory.client.lastClOrdNo += 1;
          // The same session still trades.
          const ok = mallory.place(hftId, "buy", 320_000, 5);
          await until(() => mallory.told.get(ok)!.acks === 1, 2_000, "mallory's valid order acked");

          // 2. A frame beyond the transport's limit: only that connection closes; it reconnects and trades.
          const big = await rig.strategy("mallory-big");
          const closed = new Promise<number>((r) => big.client.once("close", (code) => r(code)));
          big.client.sendRaw(randomBytes(100 * 1024));
          await closed;
          await big.client.connect();
          const bigOk = big.place(hftId, "buy", 319_990, 5);
          await until(() => big.told.get(bigOk)!.acks === 1, 2_000, "big's order after reconnect");

          // 3. Flood past the rate limit: 80 HFT creates at once; the order bucket lets 45 through.
          const before = creates();
          for (let i = 0; i < 80; i++) flood.place(hftId, "buy", 310_000 - i * 10, 5);
          await until(() => flood.unanswered().length === 0, 5_000, "flood answered");
          const throttled = flood.placed.filter((n) => flood.told.get(n)!.rejects.length > 0);
          const rejects = throttled.map((n) => flood.told.get(n)!.rejects[0]!);
          expect(throttled.length).toBeGreaterThan(0);
          expect(rejects.every((r) => r.source === RejectSource.Throttle && r.retryable === 1)).toBe(true);
          const accepted = flood.placed.length - throttled.length;
          expect(creates() - before).toBe(accepted);

          // 4. Past the session's risk limit (60 open orders): non-retryable risk rejects, nothing sent.
          await new Promise((r) => setTimeout(r, 1_100)); // a fresh rate window
          const before2 = creates();
          const wave = [];
          for (let i = 0; i < 25; i++) wave.push(flood.place(hftId, "buy", 300_000 - i * 10, 5));
          await until(() => flood.unanswered().length === 0, 5_000, "second wave answered");
          const riskRejected = wave.filter((n) =>
            flood.told.get(n)!.rejects.some((r) => r.source === RejectSource.Risk),
          );
          expect(riskRejected.length).toBe(accepted + 25 - 60);
          expect(riskRejected.every((n) => flood.told.get(n)!.rejects.every((r) => r.retryable === 0))).toBe(
            true,
          );
          expect(creates() - before2).toBe(25 - riskRejected.length);

          // Alpha was never disturbed, and the final truth holds for every session.
          const t = await engineTruth(v, [alpha, mallory, big, flood]);
          const orders =
            alpha.placed.length + mallory.placed.length + big.placed.length + flood.placed.length;
          record({
            scenario: `garbage/oversized frames, floods past rate and risk limits (${rig.h.gateway.transportKind})`,
            orders,
            faults: frames.length + 2 + throttled.length + riskRejected.length,
            lost: t.lost,
            duplicated: t.duplicated,
            mismatched: t.mismatched.length,
          });
          expect(t.details).toEqual([]);
          expect(alphaAcks()).toBe(alpha.placed.length);
        } finally {
          await rig.close();
          await v.sim.stop();
        }
      }, 40_000);
    },
  );
}
