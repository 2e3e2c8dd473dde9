/**
 * FIX decimal text ↔ the binary protocol's ticks and lots, exactly (integers, no floating point):
 * a value off the instrument's grid is refused, never rounded.
 */

/** A grid step ("0.01" → mant 1, scale 2). */
export interface Grid {
  readonly mant: number;
  readonly scale: number;
}

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/** Parses a positive decimal step; undefined when it is not one. */
export function gridOf(step: string): Grid | undefined {
  const d = parseDecimal(step);
  if (d === undefined || d.mant <= 0) return undefined;
  return { mant: d.mant, scale: d.scale };
}

/** Non-negative decimal text → mantissa and scale (trailing zeros dropped); undefined when malformed. */
export function parseDecimal(s: string): { mant: number; scale: number } | undefined {
  let mant = 0;
  let scale = 0;
  let dot = false;
  let digits = 0;
  const n = s.length;
  if (n === 0 || n > 24) return undefined;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (dot) return undefined;
      dot = true;
      continue;
    }
    const d = c - 48;
    if (d < 0 || d > 9) return undefined;
    if (mant === 0 && d === 0 && !dot) continue;
    mant = mant * 10 + d;
    if (mant > 0) digits++;
    if (dot) scale++;
  }
  if (digits > 15 || s.charCodeAt(n - 1) === 46) return undefined;
  while (scale > 0 && mant % 10 === 0 && mant !== 0) {
    mant /= 10;
    scale--;
  }
  if (mant === 0) scale = 0;
  return { mant, scale };
}

/** Decimal text → whole grid steps; -1 off the grid, -2 malformed or out of range. */
export function toUnits(s: string, g: Grid): number {
  const d = parseDecimal(s);
  if (d === undefined) return -2;
  if (d.scale > g.scale) return -1;
  const diff = g.scale - d.scale;
  if (diff >= POW10.length) return -2;
  const v = d.mant * POW10[diff]!;
  if (!Number.isSafeInteger(v)) return -2;
  if (v % g.mant !== 0) return -1;
  return v / g.mant;
}

/** Whole grid steps → decimal text (no trailing zeros). */
export function fromUnits(units: number, g: Grid): string {
  return formatScaled(units * g.mant, g.scale);
}

/** mantissa × 10^exponent → decimal text. */
export function fromMantExp(mant: number, exp: number): string {
  if (exp >= 0) return String(mant * POW10[Math.min(exp, 15)]!);
  return formatScaled(mant, -exp);
}

function formatScaled(v: number, scale: number): string {
  if (scale === 0) return String(v);
  const neg = v < 0;
  let s = String(neg ? -v : v);
  if (s.length <= scale) s = "0".repeat(scale - s.length + 1) + s;
  let int = s.slice(0, s.length - scale);
  let frac = s.slice(s.length - scale);
  let end = frac.length;
  while (end > 0 && frac.charCodeAt(end - 1) === 48) end--;
  frac = frac.slice(0, end);
  if (int === "") int = "0";
  return (neg ? "-" : "") + (frac === "" ? int : `${int}.${frac}`);
}
