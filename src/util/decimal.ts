/**
 * Exact decimal arithmetic on strings, for prices and quantities. Values are held as a bigint
 * mantissa and a power-of-ten scale, so "0.1" + "0.2" is exactly "0.3" and grid checks never
 * suffer binary floating point.
 */

export interface Dec {
  readonly m: bigint;
  readonly s: number;
}

const DEC_RE = /^([+-]?)(\d+)(?:\.(\d+))?$/;
const DEC_RE_LEADING_DOT = /^([+-]?)()\.(\d+)$/;

export class DecimalError extends Error {
  override readonly name = "DecimalError";
}

/** Parses a plain decimal string ("12", "0.001", "-3.50"). Exponents and junk are rejected. */
export function parseDec(text: string): Dec {
  const m = DEC_RE.exec(text) ?? DEC_RE_LEADING_DOT.exec(text);
  if (m === null) throw new DecimalError(`not a decimal number: ${JSON.stringify(text.slice(0, 40))}`);
  const frac = m[3] ?? "";
  const digits = (m[2] || "0") + frac;
  const mant = BigInt(digits);
  return { m: m[1] === "-" ? -mant : mant, s: frac.length };
}

/** Like parseDec but returns undefined instead of throwing. */
export function tryParseDec(text: string): Dec | undefined {
  const m = DEC_RE.exec(text) ?? DEC_RE_LEADING_DOT.exec(text);
  if (m === null) return undefined;
  return parseDec(text);
}

/** From a JS number via its shortest round-trip representation (exact for values typed by humans). */
export function decFromNumber(n: number): Dec {
  if (!Number.isFinite(n)) throw new DecimalError("not a finite number");
  let t = String(n);
  if (/e/i.test(t)) t = n.toFixed(20).replace(/0+$/, "").replace(/\.$/, "");
  return parseDec(t);
}

function align(a: Dec, b: Dec): [bigint, bigint, number] {
  if (a.s === b.s) return [a.m, b.m, a.s];
  if (a.s > b.s) return [a.m, b.m * 10n ** BigInt(a.s - b.s), a.s];
  return [a.m * 10n ** BigInt(b.s - a.s), b.m, b.s];
}

export function cmpDec(a: Dec, b: Dec): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function addDec(a: Dec, b: Dec): Dec {
  const [x, y, s] = align(a, b);
  return { m: x + y, s };
}

export function subDec(a: Dec, b: Dec): Dec {
  const [x, y, s] = align(a, b);
  return { m: x - y, s };
}

export function mulDec(a: Dec, b: Dec): Dec {
  return { m: a.m * b.m, s: a.s + b.s };
}

/** Is `value` an exact integer multiple of `step` (step > 0)? */
export function isMultipleOf(value: Dec, step: Dec): boolean {
  const [x, y] = align(value, step);
  if (y === 0n) return false;
  return x % y === 0n;
}

/** value / step as an integer, or undefined when it is not an exact multiple. */
export function stepsOf(value: Dec, step: Dec): bigint | undefined {
  const [x, y] = align(value, step);
  if (y === 0n || x % y !== 0n) return undefined;
  return x / y;
}

/** Canonical string: no exponent, no trailing fractional zeros, "-0" normalised to "0". */
export function formatDec(d: Dec): string {
  let m = d.m;
  const neg = m < 0n;
  if (neg) m = -m;
  let digits = m.toString();
  if (d.s > 0) {
    if (digits.length <= d.s) digits = "0".repeat(d.s - digits.length + 1) + digits;
    const int = digits.slice(0, digits.length - d.s);
    const frac = digits.slice(digits.length - d.s).replace(/0+$/, "");
    digits = frac === "" ? int : `${int}.${frac}`;
  }
  if (digits === "0") return "0";
  return neg ? `-${digits}` : digits;
}

/** Number of decimal places a step needs ("0.001" -> 3, "5" -> 0, "0.50" -> 1). */
export function decimalsOf(step: Dec): number {
  return formatDec(step).split(".")[1]?.length ?? 0;
}

export function decToNumber(d: Dec): number {
  return Number(formatDec(d));
}

export const ZERO: Dec = { m: 0n, s: 0 };

export function isZero(d: Dec): boolean {
  return d.m === 0n;
}

/** Multiplies an integer count of steps by the step: ticks -> price, lots -> qty. */
export function fromSteps(count: bigint | number, step: Dec): Dec {
  return { m: BigInt(count) * step.m, s: step.s };
}
