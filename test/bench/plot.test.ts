/**
 * The benchmark plots draw every line in a style of its own: no two series of a plot share a colour
 * and dash, for every plot of the recorded results and for a plot with more series than the palette.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectPlots, percentileSvg, seriesStyles } from "../../bench/lib/plot.js";

const root = join(import.meta.dirname, "..", "..");

const key = (s: { color: string; dash: string | undefined }) => `${s.color}|${s.dash ?? "solid"}`;

describe("benchmark plot styles", () => {
  it("every plot of bench/results/latest.json: one style per series", () => {
    const doc = JSON.parse(readFileSync(join(root, "bench", "results", "latest.json"), "utf8")) as {
      results: Record<string, unknown>;
    };
    let plots = 0;
    for (const [suite, r] of Object.entries(doc.results))
      for (const g of collectPlots(suite, r)) {
        plots++;
        const styles = seriesStyles(g.series).map(key);
        expect(new Set(styles).size, g.id).toBe(styles.length);
      }
    expect(plots).toBeGreaterThan(5);
  });

  it("more lines and floors than the palette holds: still no repeat, in the SVG too", () => {
    const series = Array.from({ length: 30 }, (_, i) => ({
      label: `s${i}`,
      floor: i % 3 === 0,
      points: [
        [50, 10 + i],
        [99, 20 + i],
      ] as const,
    }));
    const styles = seriesStyles(series).map(key);
    expect(new Set(styles).size).toBe(30);
    const svg = percentileSvg({ id: "t", title: "t", series });
    const lines = [
      ...svg.matchAll(/<polyline [^>]*stroke="([^"]+)"[^>]*?(?:stroke-dasharray="([^"]+)")?\/>/g),
    ];
    expect(lines).toHaveLength(30);
    expect(new Set(lines.map((m) => `${m[1]}|${m[2] ?? "solid"}`)).size).toBe(30);
  });
});
