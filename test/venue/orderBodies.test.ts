import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidRequestError } from "../../src/rest/errors.js";
import { formatDec, isMultipleOf, parseDec, tryParseDec } from "../../src/util/decimal.js";
import { hftCancelBody } from "../../src/venue/hft/cancel.js";
import { hftCreateBody } from "../../src/venue/hft/create.js";
import { makeGrid } from "../../src/venue/orderFields.js";
import { spotCancelBody } from "../../src/venue/spot/cancel.js";

const base = {
  category: "linear",
  symbol: "BTCUSDT",
  side: "sell",
  orderType: "limit",
  positionIdx: 2,
} as const;

describe("order bodies", () => {
  it("grid check agrees with exact decimal arithmetic on random inputs", () => {
    const digitStr = fc.stringMatching(/^[0-9]{1,22}$/);
    const qtyText = fc.oneof(
      fc
        .tuple(digitStr, fc.option(fc.stringMatching(/^[0-9]{1,10}$/), { nil: undefined }))
        .map(([i, f]) => (f === undefined ? i : `${i}.${f}`)),
      fc.constantFrom("0", "0.0", "00.5", "1.", ".5", "1e-3", "-1", "+1", "1.2.3", " 1", "0.0010", "5.000"),
    );
    const step = fc.constantFrom("0.001", "0.5", "1", "5", "0.25", "0.000001", "10");
    fc.assert(
      fc.property(qtyText, step, (q, st) => {
        const grid = makeGrid("0.1", st);
        const d = tryParseDec(q);
        const ok = d !== undefined && d.m > 0n && isMultipleOf(d, parseDec(st));
        let body: string | undefined;
        try {
          body = hftCreateBody({ ...base, qty: q, price: "100" }, grid);
        } catch (e) {
          expect(e).toBeInstanceOf(InvalidRequestError);
        }
        expect(body !== undefined).toBe(ok);
        if (body !== undefined) expect(JSON.parse(body).qty).toBe(formatDec(d!));
      }),
      { numRuns: 3000 },
    );
  });

  it("canonicalises values and keeps field order", () => {
    const b = hftCreateBody({ ...base, qty: "0.0020", price: "064000.10" }, makeGrid("0.1", "0.001"));
    expect(b).toBe(
      '{"category":"linear","symbol":"BTCUSDT","side":"Sell","orderType":"Limit","qty":"0.002","price":"64000.1","positionIdx":2}',
    );
  });

  it("cancel bodies need exactly one id", () => {
    expect(hftCancelBody({ category: "linear", symbol: "BTCUSDT", orderId: "abc-1" })).toBe(
      '{"category":"linear","symbol":"BTCUSDT","orderId":"abc-1"}',
    );
    expect(() => hftCancelBody({ category: "linear", symbol: "BTCUSDT" })).toThrow(InvalidRequestError);
    expect(() =>
      hftCancelBody({ category: "linear", symbol: "BTCUSDT", orderId: "a", orderLinkId: "b" }),
    ).toThrow(InvalidRequestError);
    expect(() => spotCancelBody('x"}')).toThrow(InvalidRequestError);
  });

  it("rejects a non-positive grid", () => {
    expect(() => makeGrid("0", "1")).toThrow(InvalidRequestError);
    expect(() => makeGrid("0.1", "abc")).toThrow(InvalidRequestError);
  });
});
