import { describe, expect, it } from "vitest";
import { decodeC2G, decodeG2C, encodeC2G, encodeG2C } from "../../src/protocol/codec.js";
import { type C2GName, type G2CName, MESSAGES } from "../../src/protocol/schema.js";
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

  it("negative i64 uses two's complement across both halves", () => {
    const b = encodeG2C("BalanceUpdate", HEADER, { ...SAMPLES.BalanceUpdate, lockedMantissa: -1 } as never);
    // lockedMantissa sits at 32 + 12 + 8 = 52: eight 0xff bytes for -1
    expect(b.subarray(52, 60).toString("hex")).toBe("ffffffffffffffff");
  });
});
