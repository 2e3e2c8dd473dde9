/**
 * HDR-style percentile plots of the benchmark latency distributions, as SVG: latency (log scale) by
 * percentile on the usual 1/(1 − p) axis (50 %, 90 %, 99 %, 99.9 % ... evenly spaced), with the floors
 * measured in the same run drawn dashed in the same figure, every line in a style of its own.
 * `npm run bench` writes one file per suite result group into the results directory's plots/.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** [percentile 0..100, microseconds] pairs, from the histogram's own percentile iteration. */
export type Dist = readonly (readonly [number, number])[];

export interface Series {
  label: string;
  points: Dist;
  floor: boolean;
}

export interface PlotGroup {
  /** File name stem. */
  id: string;
  title: string;
  series: Series[];
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";

/**
 * Every latency summary with a `dist` in a suite's result, grouped: one group per element of a result
 * array (a run: its string fields name it), plus one for the rest. Floors: paths that mention "floor".
 */
export function collectPlots(suite: string, result: unknown): PlotGroup[] {
  const groups = new Map<string, PlotGroup>();
  const walk = (v: unknown, path: string[], group: PlotGroup) => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        const name = isObj(x)
          ? Object.values(x)
              .filter((s): s is string => typeof s === "string" && s.length < 60)
              .join(", ")
          : "";
        const id = `${group.id}-${path.join("-")}${i}`;
        const g = groups.get(id) ?? {
          id,
          title: `${suite}: ${name || `${path.join(".")}[${i}]`}`,
          series: [],
        };
        groups.set(id, g);
        walk(x, [], g);
      });
      return;
    }
    if (!isObj(v)) return;
    if (Array.isArray(v.dist) && typeof v.p50_us === "number") {
      const label = path.join(".") || "latency";
      group.series.push({ label, points: v.dist as Dist, floor: /floor/i.test(label) });
      return;
    }
    for (const [k, x] of Object.entries(v)) walk(x, [...path, k], group);
  };
  const root: PlotGroup = { id: suite, title: suite, series: [] };
  groups.set(suite, root);
  walk(result, [], root);
  return [...groups.values()].filter((g) => g.series.length > 0);
}

const W = 1020;
const H = 420;
const L = 70;
const R = 560;
const T = 40;
const B = 360;
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];
/** Floors: greys told apart by their dash pattern as well. */
const FLOORS = ["#444444", "#8a8a8a", "#666666", "#b0b0b0"];
const FLOOR_DASHES = ["6 4", "2 3", "10 3 2 3", "1 5"];

export interface LineStyle {
  color: string;
  /** SVG stroke-dasharray; undefined: solid. */
  dash: string | undefined;
}

/**
 * A distinct style per series: the palette while it lasts, then hues spread around the colour wheel
 * (never a repeat); floors in grey and dashed, each floor a distinct grey and dash pair.
 */
export function seriesStyles(series: readonly Pick<Series, "floor">[]): LineStyle[] {
  const lines = series.filter((s) => !s.floor).length;
  let c = 0;
  let f = 0;
  return series.map((s) => {
    if (s.floor) {
      const i = f++;
      return {
        color: FLOORS[i % FLOORS.length]!,
        dash: FLOOR_DASHES[(i + Math.floor(i / FLOORS.length)) % FLOOR_DASHES.length]!,
      };
    }
    const i = c++;
    if (lines <= COLORS.length) return { color: COLORS[i]!, dash: undefined };
    // Golden-angle hues, two lightness levels: distinct however many lines a plot holds.
    const hue = Math.round((i * 137.508) % 360);
    return { color: `hsl(${hue}, 70%, ${i % 2 === 0 ? 40 : 55}%)`, dash: undefined };
  });
}
/** Percentiles labelled on the x axis. */
const X_TICKS = [0, 50, 90, 99, 99.9, 99.99, 99.999];

/** Position on the percentile axis: log10(1 / (1 − p)); 100 % sits at the end of the axis. */
function xOf(p: number, xmax: number): number {
  return p >= 100 ? xmax : Math.min(xmax, Math.log10(1 / (1 - p / 100)));
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function usLabel(us: number): string {
  if (us >= 1e6) return `${us / 1e6} s`;
  if (us >= 1e3) return `${us / 1e3} ms`;
  return `${us} µs`;
}

export function percentileSvg(g: PlotGroup): string {
  let xmax = 2;
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  for (const s of g.series)
    for (const [p, us] of s.points) {
      if (p < 100) xmax = Math.max(xmax, Math.min(5, Math.ceil(Math.log10(1 / (1 - p / 100)))));
      if (us > 0) {
        lo = Math.min(lo, us);
        hi = Math.max(hi, us);
      }
    }
  if (!(hi > 0)) return "";
  const y0 = Math.floor(Math.log10(lo));
  const y1 = Math.max(y0 + 1, Math.ceil(Math.log10(hi)));
  const px = (p: number) => L + ((R - L) * xOf(p, xmax)) / xmax;
  const py = (us: number) => B - ((B - T) * (Math.log10(Math.max(us, 10 ** y0)) - y0)) / (y1 - y0);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${L}" y="20" font-size="13" font-weight="bold">${esc(g.title)}</text>`,
  ];
  for (let d = y0; d <= y1; d++) {
    const y = py(10 ** d).toFixed(1);
    out.push(`<line x1="${L}" x2="${R}" y1="${y}" y2="${y}" stroke="#e5e5e5"/>`);
    out.push(
      `<text x="${L - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${usLabel(10 ** d)}</text>`,
    );
  }
  for (const p of X_TICKS) {
    if (p > 0 && Math.log10(1 / (1 - p / 100)) > xmax + 1e-9) continue;
    const x = px(p).toFixed(1);
    out.push(`<line x1="${x}" x2="${x}" y1="${T}" y2="${B}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${x}" y="${B + 16}" text-anchor="middle">${p}%</text>`);
  }
  out.push(`<text x="${(L + R) / 2}" y="${B + 36}" text-anchor="middle">percentile</text>`);
  out.push(`<rect x="${L}" y="${T}" width="${R - L}" height="${B - T}" fill="none" stroke="#888"/>`);
  const styles = seriesStyles(g.series);
  let ly = T + 4;
  for (const [i, s] of g.series.entries()) {
    const { color, dash: pattern } = styles[i]!;
    const dash = pattern !== undefined ? ` stroke-dasharray="${pattern}"` : "";
    const pts = s.points
      .filter(([, us]) => us > 0)
      .map(([p, us]) => `${px(p).toFixed(1)},${py(us).toFixed(1)}`)
      .join(" ");
    out.push(`<polyline points="${pts}" fill="none" stroke="${color}" stroke-width="1.8"${dash}/>`);
    const p50 = s.points.find(([p]) => p >= 50)?.[1];
    const p99 = s.points.find(([p]) => p >= 99)?.[1];
    const fig = p50 !== undefined ? ` (p50 ${p50}, p99 ${p99 ?? "?"} µs)` : "";
    out.push(
      `<line x1="${R + 12}" x2="${R + 34}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"${dash}/>`,
    );
    out.push(
      `<text x="${R + 40}" y="${ly}" dominant-baseline="middle">${esc(`${s.floor ? "floor: " : ""}${s.label}${fig}`)}</text>`,
    );
    ly += 16;
  }
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

/** Writes every plot of a suite's result into `dir`; returns the files written. */
export function writePlots(suite: string, result: unknown, dir: string): string[] {
  const files: string[] = [];
  for (const g of collectPlots(suite, result)) {
    const svg = percentileSvg(g);
    if (svg === "") continue;
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${g.id.replace(/[^A-Za-z0-9_-]+/g, "_")}.svg`);
    writeFileSync(file, svg);
    files.push(file);
  }
  return files;
}
