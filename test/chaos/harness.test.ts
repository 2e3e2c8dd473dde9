/** The chaos harness's own checks must be able to fail: truth comparison and secret scan on known inputs. */
import { describe, expect, it } from "vitest";
import { leaks, mentions } from "./harness/secrets.js";
import { compareTruth, type GatewayView, type VenueView } from "./harness/truth.js";

const venue = (id: string, clientId: string, status: VenueView["status"], filledLots = 0): VenueView => ({
  surface: "hft",
  id,
  clientId,
  status,
  filledLots,
});
const gw = (key: string, exchangeId: string, status: GatewayView["status"], filledLots = 0): GatewayView => ({
  key,
  exchangeId,
  status,
  filledLots,
});

describe("compareTruth", () => {
  it("clean when every order matches", () => {
    const t = compareTruth(
      [gw("a", "x1", "Filled", 5), gw("b", "", "Rejected")],
      [venue("x1", "c1", "Filled", 5)],
    );
    expect(t.details).toEqual([]);
  });

  it("counts a duplicate at the venue (same client id twice) once, not also as lost", () => {
    const t = compareTruth([gw("a", "x1", "New")], [venue("x1", "c1", "New"), venue("x2", "c1", "New")]);
    expect(t.duplicated).toBe(1);
    expect(t.lost).toBe(0);
  });

  it("counts lost: venue order unknown to the gateway, unresolved gateway order, ghost order", () => {
    const t = compareTruth(
      [gw("a", "", "Unknown"), gw("b", "x9", "New"), gw("c", "", "Rejected")],
      [venue("x1", "c1", "New")],
    );
    expect(t.lost).toBe(3);
    expect(t.ghostLive).toBe(1);
  });

  it("reports status and filled-qty mismatches, and live-vs-terminal ghosts", () => {
    const t = compareTruth(
      [gw("a", "x1", "New"), gw("b", "x2", "Filled", 4)],
      [venue("x1", "c1", "Cancelled"), venue("x2", "c2", "Filled", 5)],
    );
    expect(t.mismatched.map((m) => m.key)).toEqual(["a", "b"]);
    expect(t.ghostLive).toBe(1);
  });

  it("a pending cancel on the wire equals the venue's CANCELLATION_RAISED", () => {
    expect(
      compareTruth([gw("a", "x1", "PendingCancel")], [venue("x1", "c1", "CancelRaised")]).details,
    ).toEqual([]);
  });
});

describe("secret scan", () => {
  const hex = "9f".repeat(16) + "0a".repeat(16);
  it("finds the secret in lower case, upper case, as raw bytes and as base64", () => {
    const raw = Buffer.from(hex, "hex");
    const found = leaks(hex, [
      { name: "lower", data: `x ${hex} y` },
      { name: "upper", data: `x ${hex.toUpperCase()} y` },
      { name: "bytes", data: Buffer.concat([Buffer.from([1, 2]), raw, Buffer.from([3])]) },
      { name: "b64", data: `k=${raw.toString("base64")}` },
      { name: "clean", data: `x ${hex.slice(0, 63)} y` },
    ]);
    expect(found).toEqual(["lower", "upper", "bytes", "b64"]);
  });

  it("mentions() is case-insensitive", () => {
    expect(
      mentions("Token-ABC", [
        { name: "a", data: "token-abc" },
        { name: "b", data: "nothing" },
      ]),
    ).toEqual(["a"]);
  });
});
