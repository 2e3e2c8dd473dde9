/**
 * `hftgate top`'s frame fits the terminal: at 80×24 with long lists the header stays on the first
 * line, the frame has at most 23 lines (the newline after it must not scroll), no line is wider than
 * 80 columns, long lists end in "… N more", and the rate-limit credit wraps instead of being cut
 * (every class with its figure), at 80 and at 200 columns.
 */
import { describe, expect, it } from "vitest";
import { LIMIT_CLASSES } from "../../src/limits/classes.js";
import { renderTop, type Snapshot } from "../../src/top/render.js";

const visible = (l: string) => l.replace(/\x1b\[[0-9;]*m/g, "");

function busy(orders: number): Snapshot {
  return {
    at: "2026-11-26T10:00:00.000Z",
    health: {
      tradingState: "active",
      ready: true,
      venue: "sim",
      lastVenueOkMsAgo: 12,
      liveOrders: orders,
      feeds: { "spot-orders": true, "hft-orders": true, "spot-md": true, "hft-md": false },
      surfaces: { spot: { state: "ready" }, hft: { state: "polling-only" }, futures: { state: "ready" } },
    },
    sessions: Array.from({ length: 6 }, (_, i) => ({
      id: i + 1,
      name: `strategy-${i}`,
      connected: i % 2 === 0,
      admin: i === 0,
      liveOrders: Math.floor(orders / 6),
    })),
    orders: Array.from({ length: orders }, (_, i) => ({
      session: `strategy-${i % 6}`,
      clOrdNo: i + 1,
      symbol: "BTCUSDT",
      side: "buy",
      price: "60000",
      qty: "0.001",
      filled: "0",
      status: "New",
      ageMs: 1000 * i,
    })),
    fills: Array.from({ length: 8 }, (_, i) => ({
      atMs: Date.UTC(2026, 10, 26, 10) + i,
      session: "strategy-1",
      clOrdNo: i,
      text: "0.001 @ 60000.5",
    })),
    rejects: [{ atMs: Date.UTC(2026, 10, 26, 10), session: "strategy-2", clOrdNo: 9, text: "205 too small" }],
    stages: {
      decode: { count: 10, p50_us: 2, p99_us: 9 },
      risk: { count: 10, p50_us: 1, p99_us: 3 },
      exchange_rtt: { count: 10, p50_us: 900, p99_us: 4000 },
    },
    credit: Object.fromEntries(LIMIT_CLASSES.map((c, i) => [c, 100 + i])),
  };
}

function creditOf(lines: string[]): string {
  const from = lines.findIndex((l) => visible(l) === "rate-limit credit");
  const to = lines.findIndex((l, i) => i > from && visible(l) === "");
  return lines
    .slice(from + 1, to)
    .map(visible)
    .join(" ");
}

describe("hftgate top frame", () => {
  it("fits 80×24: header first, at most 23 lines of at most 80 columns, long lists cut with a count", () => {
    for (const color of [false, true]) {
      const lines = renderTop(busy(40), "http://127.0.0.1:7700", 80, color, 23);
      expect(lines.length).toBeLessThanOrEqual(23);
      expect(visible(lines[0]!)).toMatch(/^hftgate top {2}http:\/\/127\.0\.0\.1:7700/);
      for (const l of lines) expect(visible(l).length).toBeLessThanOrEqual(80);
      const text = lines.map(visible).join("\n");
      expect(text).toMatch(/… \d+ more/);
      expect(text).toContain("live orders (40)");
      expect(text).toContain("trading active");
      expect(text).toContain("surfaces spot ready");
    }
  });

  it("wraps the credit: every class and its figure in full, at 80 and 200 columns", () => {
    for (const width of [80, 200]) {
      const lines = renderTop(busy(2), "http://127.0.0.1:7700", width, false);
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(width);
      const credit = creditOf(lines);
      LIMIT_CLASSES.forEach((c, i) => {
        const [surface, cls] = c.split(".") as [string, string];
        expect(credit).toContain(surface);
        expect(credit).toMatch(new RegExp(`\\b${cls} ${100 + i}\\b`));
      });
    }
  });

  it("without a height bound lists everything (the --once frame)", () => {
    const lines = renderTop(busy(40), "http://127.0.0.1:7700", 200, false);
    expect(lines.join("\n")).not.toMatch(/… \d+ more/);
    expect(lines.filter((l) => /^ {2}strategy-\d +\d+ +BTCUSDT/.test(l))).toHaveLength(40);
  });
});
