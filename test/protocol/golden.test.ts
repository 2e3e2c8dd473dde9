import { describe, expect, it } from "vitest";
import { decodeC2G, decodeG2C, encodeC2G, encodeG2C } from "../../src/protocol/codec.js";
import { type C2GName, CODES, type G2CName, MESSAGES } from "../../src/protocol/schema.js";
import { GOLDEN } from "./golden.js";
import { HEADER, SAMPLES } from "./samples.js";

describe("golden bytes", () => {
  for (const m of MESSAGES) {
    it(`${m.name} encodes to the golden dump and decodes back`, () => {
      const sample = SAMPLES[m.name];
      const bytes =
        m.dir === "c2g"
          ? encodeC2G(m.name as C2GName, sample as never)
          : encodeG2C(m.name as G2CName, HEADER, sample as never);
      expect(Buffer.from(bytes).toString("hex")).toBe(GOLDEN[m.name]);
      const golden = Buffer.from(GOLDEN[m.name]!, "hex");
      const d = m.dir === "c2g" ? decodeC2G(golden) : decodeG2C(golden);
      expect(d.name).toBe(m.name);
      expect((d as { body: unknown }).body).toEqual(sample);
      if (m.dir === "g2c") expect((d as { header: unknown }).header).toEqual(HEADER);
    });
  }

  it("NewOrder matches the hand-annotated example in PROTOCOL.md §7", () => {
    const hex =
      "01022a0000000000" +
      "0500000000000000" +
      "01000000" +
      "01010100" +
      "0300000000010000" +
      "0700000000000000" +
      "0000";
    expect(GOLDEN.NewOrder).toBe(hex);
  });

  it("a Futures instrument record carries Surface 3 and venue EXCHANGE_2 at their documented offsets", () => {
    const sample = SAMPLES.InstrumentsResponse as { instruments: Record<string, unknown>[] };
    const rec = { ...sample.instruments[0]!, surface: 3, venue: "EXCHANGE_2" };
    const b = encodeG2C("InstrumentsResponse", HEADER, {
      ...SAMPLES.InstrumentsResponse,
      instruments: [rec],
    } as never);
    // Record at 38: instrumentId u32, surface u8 at +4, active u8 at +5, symbol char[24] at +6, venue char[16] at +30.
    expect(b.subarray(38, 50).toString("hex")).toBe("01000000" + "03" + "01" + "425443555344");
    expect(b.subarray(68, 84).toString("hex")).toBe("45584348414e47455f32000000000000");
    const d = decodeG2C(b) as { body: { instruments: unknown[] } };
    expect(d.body.instruments[0]).toEqual(rec);
  });

  it("Reject code 403 NotAllowlisted (options without the allowlist) sits in the code field", () => {
    const b = encodeG2C("Reject", HEADER, {
      ...SAMPLES.Reject,
      code: CODES.NotAllowlisted.code,
      source: 3,
      retryable: 0,
    } as never);
    // clOrdNo u64 at 32, code u16 at 40: 403 = 0x0193, then source Venue (3) and retryable 0.
    expect(b.subarray(40, 44).toString("hex")).toBe("93010300");
  });

  it("negative i64 uses two's complement across both halves", () => {
    const b = encodeG2C("BalanceUpdate", HEADER, { ...SAMPLES.BalanceUpdate, lockedMantissa: -1 } as never);
    // lockedMantissa sits at 32 + 12 + 8 = 52: eight 0xff bytes for -1
    expect(b.subarray(52, 60).toString("hex")).toBe("ffffffffffffffff");
  });
});
