/**
 * SUM and AVG of integer, biginteger and decimal columns on SQLite, exact as PostgreSQL's numeric and
 * MariaDB's DECIMAL answer them. SQLite's own are not: SUM of integers fails past 2^63 ("integer
 * overflow", a 500), AVG and the sums of decimals (REAL) are float arithmetic.
 *
 * Each value becomes whole units of its last digit (per row), split at 2^32 into a high and a low part:
 * their SUMs cannot overflow (below 2^31 rows), and come back as text, so no digit is lost on the way
 * (node-sqlite3 answers integers past 2^53 as doubles). The answer is made from them exactly (BigInt).
 */
import type { ExactAggregate, SqlFragment } from './dialect';
import { averageText, decimalText } from './exact-numbers';

const SPLIT = 4294967296; // 2^32
const SPLIT_BIG = BigInt(SPLIT);

/**
 * The shortest decimal of 15 or 16 significant digits that reads back as the stored double (REAL, of
 * ABS(column)), or NULL: what was written (the service writes decimals rounded to `scale` places; one of
 * at most 15 digits always reads back), and past that what the API answers for the value.
 */
function shortText(column: string): SqlFragment {
  const g = (digits: number): string => `printf('%!.${digits}g', ABS(??))`;
  const readsBack = (digits: number): string => `CAST(${g(digits)} AS REAL) = ABS(??)`;
  return { sql: `(CASE WHEN ${readsBack(15)} THEN ${g(15)} WHEN ${readsBack(16)} THEN ${g(16)} END)`, bindings: Array<string>(6).fill(column) };
}

/** Significant digits every decimal keeps through a double (DBL_DIG). */
const DOUBLE_DIGITS = 15;

/**
 * Per row: a decimal REAL as whole units of 10^-scale. Below 10^(15 - scale) the double is within far
 * less than half a unit of the decimal written, and × 10^scale stays below 2^53: rounded, it is exact.
 * Beyond, from its short text (`%!.g` always has a point): `123.45` → `123.4500` (the point moved past
 * `scale` digits) → 1234500. A double no such text reads back as (17 digits, past ±5e11: its fraction
 * has few bits, so × 10^scale is exact) is rounded to units.
 */
function decimalUnits(column: string, scale: number): SqlFragment {
  const unit = 10 ** scale;
  const t = shortText(column);
  const fromText = `CAST(REPLACE(substr(${t.sql} || '${'0'.repeat(scale)}', 1, instr(${t.sql}, '.') + ${scale}), '.', '') AS INTEGER)`;
  const rounded = `CAST(ABS(??) AS INTEGER) * ${unit} + CAST(ROUND((ABS(??) - CAST(ABS(??) AS INTEGER)) * ${unit}) AS INTEGER)`;
  return {
    sql: `(CASE WHEN ABS(??) < 1e${DOUBLE_DIGITS - scale} THEN CAST(ROUND(?? * ${unit}) AS INTEGER) ELSE SIGN(??) * COALESCE(${fromText}, ${rounded}) END)`,
    bindings: [column, column, column, ...t.bindings, ...t.bindings, column, column, column],
  };
}

const high = `?? / ${SPLIT}`;
const low = `?? % ${SPLIT}`;

/** The exact total in units: `high` and `low` sums as text, and the count of values, `h,l,n` (NULL for no values). */
function parts(units: string): SqlFragment {
  return { sql: `CAST(SUM(${high}) AS TEXT) || ',' || CAST(SUM(${low}) AS TEXT) || ',' || COUNT(??)`, bindings: [units, units, units] };
}

function read(fn: 'sum' | 'avg', raw: unknown, scale: number): number | null {
  if (raw === null || raw === undefined) return null;
  const [h, l, n] = String(raw).split(',').map((p) => BigInt(p));
  const units = h * SPLIT_BIG + l;
  return Number(fn === 'sum' ? decimalText(units, scale) : averageText(units, scale, n));
}

export const sqliteSums: ExactAggregate = {
  units: (column, scale) => (scale === 0 ? { sql: 'CAST(?? AS INTEGER)', bindings: [column] } : decimalUnits(column, scale)),
  value: (_fn, units) => parts(units),
  // A double in the order of the exact answers (the nearest double of a sum in units, once divided).
  order(fn, units, scale) {
    const total = `(SUM(${high}) * ${SPLIT}.0 + SUM(${low}))`;
    const divisor = fn === 'sum' ? `${10 ** scale}.0` : `(COUNT(??) * ${10 ** scale}.0)`;
    return { sql: `${total} / ${divisor}`, bindings: fn === 'sum' ? [units, units] : [units, units, units] };
  },
  read,
};
