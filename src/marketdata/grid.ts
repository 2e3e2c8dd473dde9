/** Venue decimals → whole ticks or lots, at the market data adapters' boundary. */

/** A decimal (string or number) as whole steps; NaN when malformed, negative or off the grid. */
export function onGrid(v: unknown, step: number): number {
  const x = typeof v === "string" && v !== "" ? Number(v) : typeof v === "number" ? v : Number.NaN;
  if (!Number.isFinite(x) || x < 0) return Number.NaN;
  const n = Math.round(x / step);
  return Math.abs(x - n * step) <= step * 1e-6 ? n : Number.NaN;
}
