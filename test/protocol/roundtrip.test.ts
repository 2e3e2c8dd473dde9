import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMPILED, decodeC2G, decodeG2C, encodeC2G, encodeG2C } from "../../src/protocol/codec.js";
import {
  type C2GName,
  FIELD_ENUMS,
  type FieldDef,
  type G2CName,
  INSTRUMENTS_PER_FRAME,
  kindSize,
  MAX_C2G_FRAME,
  MESSAGES,
} from "../../src/protocol/schema.js";

const MAX53 = Number.MAX_SAFE_INTEGER;

/** Strings that fit the field: NUL-free UTF-8 of at most `size` bytes. */
function charArb(size: number): fc.Arbitrary<string> {
  return fc
    .string({ unit: "grapheme", maxLength: size })
    .map((s) => s.replaceAll("\u0000", ""))
    .filter((s) => Buffer.byteLength(s) <= size);
}

function fieldArb(msg: string, [name, kind]: FieldDef): fc.Arbitrary<unknown> {
  const en = FIELD_ENUMS[`${msg}.${name}`];
  if (en) return fc.constantFrom(...Object.values(en));
  switch (kind) {
    case "u8":
      return fc.integer({ min: 0, max: 255 });
    case "i8":
      return fc.integer({ min: -128, max: 127 });
    case "u16":
      return fc.integer({ min: 0, max: 0xffff });
    case "u32":
      return fc.integer({ min: 0, max: 0xffffffff });
    case "u64":
      return fc.integer({ min: 0, max: MAX53 });
    case "i64":
      return fc.integer({ min: -MAX53, max: MAX53 });
    default:
      return charArb(kindSize(kind));
  }
}

function bodyArb(msg: string, fields: readonly FieldDef[]): fc.Arbitrary<Record<string, unknown>> {
  const rec: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of fields) rec[f[0]] = fieldArb(msg, f);
  return fc.record(rec);
}

const headerArb = fc.record({
  sessionId: fc.integer({ min: 0, max: 0xffffffff }),
  seq: fc.integer({ min: 0, max: MAX53 }),
  recvNs: fc.integer({ min: 0, max: MAX53 }),
  sendNs: fc.integer({ min: 0, max: MAX53 }),
});

describe("codec round trips (property)", () => {
  for (const m of MESSAGES) {
    it(`${m.name}`, () => {
      let arb = bodyArb(m.name, m.fields);
      if ("items" in m) {
        const items = fc.array(bodyArb(`${m.name}.instruments`, m.items.fields), {
          maxLength: INSTRUMENTS_PER_FRAME,
        });
        arb = fc.tuple(arb, items).map(([b, it]) => ({ ...b, count: it.length, instruments: it }));
      }
      fc.assert(
        fc.property(arb, headerArb, (body, h) => {
          if (m.dir === "c2g") {
            const d = decodeC2G(Buffer.from(encodeC2G(m.name as C2GName, body as never)));
            expect(d.name).toBe(m.name);
            expect((d as { body: unknown }).body).toEqual(body);
          } else {
            const d = decodeG2C(Buffer.from(encodeG2C(m.name as G2CName, h, body as never)));
            expect(d.name).toBe(m.name);
            expect((d as { body: unknown }).body).toEqual(body);
            expect((d as { header: unknown }).header).toEqual(h);
          }
        }),
        { numRuns: 200 },
      );
    });
  }
});

describe("decodeC2G on hostile input", () => {
  it("never throws, and anything it accepts re-encodes to an equal message", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const d = decodeC2G(bytes);
        if (d.name !== undefined) {
          expect(decodeC2G(Buffer.from(encodeC2G(d.name, d.body as never)))).toEqual(d);
          expect(bytes.length).toBe(COMPILED[d.name].fixedSize);
        } else expect(typeof d.error).toBe("string");
      }),
      { numRuns: 3000 },
    );
  });

  it("classifies truncation, length, type, version, size and range errors", () => {
    const ok = Buffer.from(
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
    );
    expect(decodeC2G(ok).name).toBe("NewOrder");
    expect(decodeC2G(ok.subarray(0, 5))).toMatchObject({ error: "Malformed" });
    const trunc = Buffer.from(ok.subarray(0, 30));
    trunc.writeUInt16LE(30, 2);
    expect(decodeC2G(trunc)).toMatchObject({ error: "Malformed", type: 2 });
    expect(decodeC2G(ok.subarray(0, 30))).toMatchObject({ error: "BadLength" });
    const t = Buffer.from(ok);
    t[1] = 0x7f;
    expect(decodeC2G(t)).toMatchObject({ error: "UnknownType", type: 0x7f });
    const v = Buffer.from(ok);
    v[0] = 9;
    expect(decodeC2G(v)).toMatchObject({ error: "UnsupportedVersion" });
    expect(decodeC2G(Buffer.alloc(MAX_C2G_FRAME + 1, 1))).toMatchObject({ error: "Oversized" });
    const side = Buffer.from(ok);
    side[20] = 3;
    expect(decodeC2G(side)).toMatchObject({ error: "BadField", field: "side" });
    const big = Buffer.from(ok);
    big.writeUInt32LE(0x200000, 12); // clOrdNo high word → value ≥ 2^53
    expect(decodeC2G(big)).toMatchObject({ error: "BadField", field: "clOrdNo" });
  });

  it("reads an older client's Logon, without the options byte, as options 0; refuses unknown option bits", () => {
    const logon = { token: "t", sessionName: "s", heartbeatMs: 500, codPolicy: 1, resumeFromSeq: 3 };
    const now = Buffer.from(encodeC2G("Logon", { ...logon, options: 1 }));
    expect(now.length).toBe(118);
    expect(decodeC2G(now)).toMatchObject({ name: "Logon", body: { ...logon, options: 1 } });
    const older = Buffer.from(now.subarray(0, 117));
    older.writeUInt16LE(117, 2);
    expect(decodeC2G(older)).toMatchObject({ name: "Logon", body: { ...logon, options: 0 } });
    const shorter = Buffer.from(now.subarray(0, 116));
    shorter.writeUInt16LE(116, 2);
    expect(decodeC2G(shorter)).toMatchObject({ error: "Malformed", type: 1 });
    const unknownBit = Buffer.from(now);
    unknownBit[117] = 2;
    expect(decodeC2G(unknownBit)).toMatchObject({ error: "BadField", field: "options" });
    // Only a message with fields added later has an older size: a short NewOrder stays malformed.
    const order = Buffer.from(
      encodeC2G("NewOrder", {
        ...{ clOrdNo: 1, instrumentId: 1, side: 1, ordType: 1, tif: 1, positionIdx: 0 },
        ...{ priceTicks: 10, qtyLots: 1, flags: 0 },
      }).subarray(0, 41),
    );
    order.writeUInt16LE(41, 2);
    expect(decodeC2G(order)).toMatchObject({ error: "Malformed", type: 2 });
  });

  it("encoders refuse values outside 53 bits instead of writing wrong bytes", () => {
    expect(() => encodeC2G("Heartbeat", { echo: 2 ** 53 })).toThrow(RangeError);
    expect(() => encodeC2G("Heartbeat", { echo: -1 })).toThrow(RangeError);
    expect(() => encodeC2G("Heartbeat", { echo: 1.5 })).toThrow(RangeError);
  });

  it("encoders refuse out-of-range and mistyped fields; a text field is written whole, padded with zeros", () => {
    const logon = {
      token: "t",
      sessionName: "s",
      heartbeatMs: 500,
      codPolicy: 1,
      resumeFromSeq: 3,
      options: 0,
    };
    expect(() => encodeC2G("Logon", { ...logon, codPolicy: 256 })).toThrow(RangeError);
    expect(() => encodeC2G("Logon", { ...logon, heartbeatMs: -1 })).toThrow(RangeError);
    expect(() => encodeC2G("Logon", { ...logon, token: 12345 as unknown as string })).toThrow(TypeError);
    // A long name first, then a short one in the same reusable buffer: nothing of the first is left.
    encodeC2G("Logon", { ...logon, sessionName: "x".repeat(20) });
    const short = decodeC2G(Buffer.from(encodeC2G("Logon", { ...logon, sessionName: "ab" })));
    expect(short).toMatchObject({ name: "Logon", body: { sessionName: "ab" } });
    const text = decodeC2G(Buffer.from(encodeC2G("Logon", { ...logon, sessionName: "café €" })));
    expect(text).toMatchObject({ name: "Logon", body: { sessionName: "café €" } });
  });
});
