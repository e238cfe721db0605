/**
 * Exact decimal results as text, computed on whole units (BigInt), for a database whose own SUM and AVG
 * are not exact (SQLite): `Number()` of the text is then the double PostgreSQL's numeric (and MariaDB's
 * DECIMAL) answer becomes, the nearest double of the exact result. Pure functions.
 */

/** PostgreSQL's numeric digits are base 10000 (NBASE), 4 decimal digits each (DEC_DIGITS). */
const DEC_DIGITS = 4;
/** PostgreSQL's NUMERIC_MIN_SIG_DIGITS: a quotient has at least this many significant digits. */
const MIN_SIG_DIGITS = 16;
/** PostgreSQL's NUMERIC_MAX_DISPLAY_SCALE. */
const MAX_DISPLAY_SCALE = 1000;

const abs = (n: bigint): bigint => (n < 0n ? -n : n);

/**
 * `units` × 10^-scale as decimal text: `decimalText(-15n, 4)` → `-0.0015`.
 */
export function decimalText(units: bigint, scale: number): string {
  const digits = abs(units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  const sign = units < 0n ? '-' : '';
  return scale === 0 ? `${sign}${whole}` : `${sign}${whole}.${fraction}`;
}

/** The weight (position of the first non-zero base-10000 digit; 0: the units' digit) and that digit, of |units| × 10^-scale. */
function leadingDigit(units: bigint, scale: number): { weight: number; digit: number } {
  if (units === 0n) return { weight: 0, digit: 0 };
  // Pad the fraction to whole base-10000 digits, so the digit groups line up with the point.
  const pad = (DEC_DIGITS - (scale % DEC_DIGITS)) % DEC_DIGITS;
  const fractionDigits = (scale + pad) / DEC_DIGITS;
  const text = (abs(units) * 10n ** BigInt(pad)).toString();
  const groups = Math.ceil(text.length / DEC_DIGITS);
  const first = Number(text.slice(0, text.length - (groups - 1) * DEC_DIGITS));
  return { weight: groups - 1 - fractionDigits, digit: first };
}

/**
 * The scale PostgreSQL gives `a / b` (numeric.c select_div_scale): at least 16 significant digits,
 * estimated from the leading base-10000 digits, and never fewer decimals than either input shows.
 */
function divisionScale(a: bigint, aScale: number, b: bigint): number {
  const x = leadingDigit(a, aScale);
  const y = leadingDigit(b, 0);
  const quotientWeight = x.weight - y.weight - (x.digit <= y.digit ? 1 : 0);
  return Math.min(Math.max(MIN_SIG_DIGITS - quotientWeight * DEC_DIGITS, aScale, 0), MAX_DISPLAY_SCALE);
}

/**
 * The average `units` × 10^-scale / `count` as PostgreSQL's AVG answers it (numeric_div: the exact
 * quotient rounded half away from zero at `divisionScale`): `averageText(5n, 0, 3n)` → `1.6666666666666667`.
 * MariaDB rounds the same quotient at 30 more decimals (div_precision_increment): the same double.
 */
export function averageText(units: bigint, scale: number, count: bigint): string {
  if (count <= 0n) throw new RangeError('an average of no values');
  const rscale = divisionScale(units, scale, count);
  const numerator = abs(units) * 10n ** BigInt(rscale);
  const denominator = count * 10n ** BigInt(scale);
  let q = numerator / denominator;
  if (2n * (numerator % denominator) >= denominator) q += 1n;
  // PostgreSQL's numeric has no negative zero.
  return decimalText(units < 0n && q !== 0n ? -q : q, rscale);
}
