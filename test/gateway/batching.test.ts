import { afterEach, describe, expect, it } from "vitest";
import type { Gateway } from "../../src/gateway/gateway.js";
import { raw, startTestGateway, waitFor } from "./helpers.js";

// Frames sent outside a uWS callback after the first of an event-loop turn are held and written
// together at the turn's end: every frame must still arrive, once, in sequence order.
for (const transport of ["auto", "ws"] as const) {
  describe(`gateway send batching (transport=${transport})`, () => {
    let gw: Gateway;
    afterEach(async () => {
      await gw.close();
    });

    const fill = (clOrdNo: number) => ({
      clOrdNo,
      instrumentId: 1,
      side: 1,
      liquidity: 1,
      execId: `e${clOrdNo}`,
      priceTicks: 1,
      qtyLots: 1,
      feeMantissa: 0,
      feeExponent: 0,
      feeAsset: "USDT",
      exchangeTimeMs: 0,
    });

    it("delivers a burst sent in one turn completely and in order", async () => {
      ({ gw } = await startTestGateway(transport, {}));
      const r = await raw(gw);
      await r.logon("burst");
      const sid = r.frames[0]!.header.sessionId;
      const before = r.frames.length;
      // From a timer (outside any uWS callback), 600 frames (~60 KB: several held batches) in one turn.
      await new Promise<void>((res) =>
        setTimeout(() => {
          for (let i = 1; i <= 600; i++) gw.send(sid, "Fill", fill(i));
          res();
        }, 1),
      );
      await waitFor(() => r.frames.length === before + 600);
      const got = r.frames.slice(before);
      expect(got.map((f) => (f.body as { clOrdNo: number }).clOrdNo)).toEqual(
        Array.from({ length: 600 }, (_, i) => i + 1),
      );
      const seqs = got.map((f) => f.header.seq);
      for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBe(seqs[i - 1]! + 1);
      r.ws.terminate();
    });

    it("writes frames held this turn before closing the connection", async () => {
      ({ gw } = await startTestGateway(transport, {}));
      const r = await raw(gw);
      await r.logon("closing");
      const sid = r.frames[0]!.header.sessionId;
      const before = r.frames.length;
      await new Promise<void>((res) =>
        setTimeout(() => {
          for (let i = 1; i <= 5; i++) gw.send(sid, "Fill", fill(i));
          void gw.close();
          res();
        }, 1),
      );
      await waitFor(() => r.closeCode !== undefined);
      expect(r.frames.slice(before).map((f) => (f.body as { clOrdNo: number }).clOrdNo)).toEqual([
        1, 2, 3, 4, 5,
      ]);
    });
  });
}
