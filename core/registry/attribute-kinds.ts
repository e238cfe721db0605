/**
 * ONE table: per scalar type → column, JSON-schema fragment (also the OpenAPI 3.1 schema), query
 * value class, (de)serializer, documentation sample (DESIGN habit 5). A new type fails to compile
 * until it has every entry.
 */
import { clip } from '../errors/client-text';
import type { ScalarAttribute, ScalarType } from './types';

/** How values of a type behave in filters, sorts and aggregates. */
export type ValueClass = 'text' | 'number' | 'boolean' | 'date' | 'json' | 'secret';

/** A knex schema-builder call, as data (migrations are written from it). */
export interface ColumnSpec {
  readonly method: 'string' | 'text' | 'integer' | 'bigInteger' | 'decimal' | 'double' | 'boolean' | 'date' | 'timestamp' | 'time' | 'jsonb';
  readonly args: readonly (number | string | boolean | Record<string, unknown>)[];
}

export interface KindSpec {
  readonly column: (a: ScalarAttribute) => ColumnSpec;
  /** JSON-schema fragment for a non-null value. */
  readonly schema: (a: ScalarAttribute) => Record<string, unknown>;
  readonly valueClass: ValueClass;
  /** Query-string text → bound value; throws Error(message) when it cannot be coerced. */
  readonly coerce: (raw: string) => unknown;
  /** Driver value → API value. */
  readonly fromDb: (v: unknown) => unknown;
  /** API value (already validated) → bound value. */
  readonly toDb: (v: unknown) => unknown;
  /** A documentation sample (OpenAPI `example`) when the YAML gives none; undefined: none fits. */
  readonly example: (a: ScalarAttribute) => unknown;
  /**
   * A rule on a value the JSON schema already accepted that JSON Schema cannot say (a date's year
   * range): the problem in our words, or null. Checked before SQL, so no driver text reaches a client.
   */
  readonly valueProblem: (v: unknown) => string | null;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
// Hours 00–23, minutes and seconds 00–59: PostgreSQL refuses `25:00` that SQLite would store.
const ISO_TIME = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?$/;

/** A `decimal` column is decimal(18,4): 18 digits, 4 of them after the point (PostgreSQL rounds to 4). */
export const DECIMAL_PRECISION = 18;
export const DECIMAL_SCALE = 4;
/** Magnitude a decimal stays below: 14 digits before the point. PostgreSQL refuses more ("numeric field overflow"). */
export const DECIMAL_LIMIT = 10 ** (DECIMAL_PRECISION - DECIMAL_SCALE);

/** Column ranges: a value outside them is refused (422 / 400) before SQL, never a driver error. */
export const INT4_MAX = 2147483647;

/** Years both databases store in dates and datetimes: PostgreSQL has no year 0, and YYYY holds four digits. */
export const MIN_YEAR = 1;
export const MAX_YEAR = 9999;
const DATE_RANGE = 'a date from 0001-01-01 to 9999-12-31';
const INSTANT_RANGE = 'an instant from 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z (in UTC)';

const noProblem = (): null => null;

/** `YYYY-MM-DD` (already a real day) inside the stored years. */
function dateProblem(v: unknown): string | null {
  return typeof v === 'string' && Number(v.slice(0, 4)) < MIN_YEAR ? `must be ${DATE_RANGE}` : null;
}

/** A date-time whose instant, in UTC, falls inside the stored years (`0001-01-01T00:30:00+01:00` does not). */
function instantProblem(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) return 'must be a date-time (RFC 3339)';
  const year = d.getUTCFullYear();
  return year < MIN_YEAR || year > MAX_YEAR ? `must be ${INSTANT_RANGE}` : null;
}

function coerceNumber(raw: string, integer: boolean, max = Number.MAX_SAFE_INTEGER): number {
  const t = raw.trim();
  // Decimal notation only: Number() would also take `0x1f`, `0b11` and `Infinity`.
  const n = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : NaN;
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) throw new Error(`"${clip(raw)}" is not ${integer ? 'an integer' : 'a number'}`);
  if (integer && Math.abs(n) > max) throw new Error(`"${clip(raw)}" is out of range (at most ${max} in magnitude)`);
  return n;
}

/** `YYYY-MM-DD` that names a real day (`2026-02-30` does not; JS would roll it over to March). */
function coerceDate(raw: string): string {
  const d = ISO_DATE.test(raw) ? new Date(`${raw}T00:00:00Z`) : null;
  if (!d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== raw) throw new Error(`"${clip(raw)}" is not a date (YYYY-MM-DD)`);
  if (dateProblem(raw)) throw new Error(`"${clip(raw)}" is out of range (${DATE_RANGE})`);
  return raw;
}

/** `HH:MM[:SS[.ffffff]]` → `HH:MM:SS[.f…]` as PostgreSQL prints it, so SQLite's text compares the same. */
export function canonicalTime(raw: string): string {
  const m = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?$/.exec(raw);
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3] ?? 0) > 59) throw new Error(`"${clip(raw)}" is not a time (HH:MM:SS)`);
  const fraction = (m[4] ?? '').replace(/0+$/, '');
  return `${m[1]}:${m[2]}:${m[3] ?? '00'}${fraction ? `.${fraction}` : ''}`;
}

/** An instant both databases can store: years 0001–9999 in UTC (PostgreSQL refuses year 0 and `+010000-…`). */
function coerceTimestamp(raw: string): string {
  // JS rolls 2026-02-30 over to March and T24:00 to the next day; a body's date-time format refuses
  // both, so a filter does too (it would otherwise compare with an instant nobody named).
  const m = /^(\d{4}-\d{2}-\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(raw.trim());
  if (m) {
    const day = new Date(`${m[1]}T00:00:00Z`);
    const realDay = !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === m[1];
    if (!realDay || Number(m[2] ?? 0) > 23 || Number(m[3] ?? 0) > 59 || Number(m[4] ?? 0) > 59) throw new Error(`"${clip(raw)}" is not a date-time`);
  }
  const iso = toIsoTimestamp(raw);
  if (instantProblem(iso)) throw new Error(`"${clip(raw)}" is out of range (${INSTANT_RANGE})`);
  return iso;
}

/** A decimal filter value the column's range can hold (comparing with a larger one is a driver error on PostgreSQL). */
function coerceDecimal(raw: string): number {
  const n = coerceNumber(raw, false);
  if (Math.abs(n) >= DECIMAL_LIMIT) throw new Error(`"${clip(raw)}" is out of range (a decimal is less than ${DECIMAL_LIMIT} in magnitude)`);
  return n;
}

function coerceBoolean(raw: string): boolean {
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new Error(`"${clip(raw)}" is not a boolean (true or false)`);
}

/** Any parseable instant → canonical UTC ISO string, so text comparison on SQLite orders correctly. */
export function toIsoTimestamp(v: unknown): string {
  const d = v instanceof Date ? v : new Date(typeof v === 'number' ? v : String(v));
  if (Number.isNaN(d.getTime())) throw new Error(`"${clip(String(v))}" is not a date-time`);
  return d.toISOString();
}

function fromDbNumber(v: unknown): unknown {
  if (typeof v === 'string' && v !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : v;
  }
  return v;
}

function fromDbBoolean(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  return v === true || v === 1 || v === '1' || v === 't';
}

function fromDbJson(v: unknown): unknown {
  if (typeof v === 'string') {
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }
  return v;
}

function fromDbTimestamp(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  return toIsoTimestamp(v);
}

function fromDbDate(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return v;
}

const identity = (v: unknown): unknown => v;

/** `<name> example` cut or padded to the declared lengths; none when a pattern constrains the text. */
function sampleText(a: ScalarAttribute, base = `${a.name} example`): string | undefined {
  if (a.pattern !== undefined) return undefined;
  let s = base.slice(0, a.maxLength ?? base.length);
  while (s.length < (a.minLength ?? 0)) s += 'x';
  return s;
}

function sampleNumber(a: ScalarAttribute, preferred: number): number {
  const low = a.min ?? -Infinity;
  const high = a.max ?? Infinity;
  return Math.min(Math.max(preferred, low), high);
}
const text = (raw: string): unknown => raw;

/** `columnLength`: the varchar's length, so a longer value is a 422 here, not a driver error (or, on SQLite, stored). */
function stringSchema(a: ScalarAttribute, extra: Record<string, unknown> = {}, columnLength?: number): Record<string, unknown> {
  const s: Record<string, unknown> = { type: 'string', ...extra };
  if (a.minLength !== undefined) s.minLength = a.minLength;
  const maxLength = a.maxLength ?? columnLength;
  if (maxLength !== undefined) s.maxLength = maxLength;
  if (a.pattern !== undefined) s.pattern = a.pattern;
  return s;
}

/** decimal(18,4): strictly inside ±10^14 (a value rounded to 4 places must still fit), within min/max. */
function decimalSchema(a: ScalarAttribute): Record<string, unknown> {
  // One keyword per side (linters refuse `minimum` beside `exclusiveMinimum`): the tighter bound.
  return {
    type: 'number',
    ...(a.min !== undefined && a.min > -DECIMAL_LIMIT ? { minimum: a.min } : { exclusiveMinimum: -DECIMAL_LIMIT }),
    ...(a.max !== undefined && a.max < DECIMAL_LIMIT ? { maximum: a.max } : { exclusiveMaximum: DECIMAL_LIMIT }),
  };
}

/** Bounds within the column's range, so a value one database stores is never refused by the other. */
function numberSchema(a: ScalarAttribute, type: 'integer' | 'number', limit = Number.MAX_SAFE_INTEGER): Record<string, unknown> {
  const lowest = limit === INT4_MAX ? -limit - 1 : -limit;
  return { type, minimum: Math.max(a.min ?? lowest, lowest), maximum: Math.min(a.max ?? limit, limit) };
}

/** Characters of a `string`, `email` or `uid` column without `maxLength` (varchar(255)). */
export const DEFAULT_VARCHAR_LENGTH = 255;

const varchar = (a: ScalarAttribute): ColumnSpec => ({ method: 'string', args: [Math.max(a.maxLength ?? DEFAULT_VARCHAR_LENGTH, 1)] });

const textKind = (column: (a: ScalarAttribute) => ColumnSpec, extra: Record<string, unknown> = {}, example: (a: ScalarAttribute) => unknown = (a) => sampleText(a)): KindSpec => ({
  column,
  schema: (a) => stringSchema(a, extra, column === varchar ? DEFAULT_VARCHAR_LENGTH : undefined),
  valueClass: 'text',
  coerce: text,
  fromDb: identity,
  toDb: identity,
  example,
  valueProblem: noProblem,
});

export const ATTRIBUTE_KINDS: { readonly [K in ScalarType]: KindSpec } = {
  string: textKind(varchar),
  text: textKind(() => ({ method: 'text', args: [] })),
  email: textKind(varchar, { format: 'email' }, () => 'user@example.com'),
  uid: textKind(varchar, { pattern: '^[A-Za-z0-9]+(?:[-_.~][A-Za-z0-9]+)*$' }, (a) => (a.pattern === undefined ? 'example-slug' : undefined)),
  enumeration: {
    column: (a) => ({ method: 'string', args: [Math.max(...(a.enum ?? ['']).map((e) => e.length), 16)] }),
    schema: (a) => ({ type: 'string', enum: [...(a.enum ?? [])] }),
    valueClass: 'text',
    coerce: text,
    fromDb: identity,
    toDb: identity,
    example: (a) => a.enum?.[0],
    valueProblem: noProblem,
  },
  password: {
    column: () => ({ method: 'string', args: [255] }),
    schema: (a) => stringSchema(a, { minLength: a.minLength ?? 8 }),
    valueClass: 'secret',
    coerce: text,
    fromDb: identity,
    toDb: identity,
    example: (a) => sampleText(a, 'correct-horse-battery-staple'),
    valueProblem: noProblem,
  },
  integer: {
    column: () => ({ method: 'integer', args: [] }),
    schema: (a) => numberSchema(a, 'integer', INT4_MAX),
    valueClass: 'number',
    coerce: (raw) => coerceNumber(raw, true, INT4_MAX),
    fromDb: fromDbNumber,
    toDb: identity,
    example: (a) => sampleNumber(a, 1),
    valueProblem: noProblem,
  },
  biginteger: {
    column: () => ({ method: 'bigInteger', args: [] }),
    schema: (a) => numberSchema(a, 'integer'),
    valueClass: 'number',
    coerce: (raw) => coerceNumber(raw, true),
    fromDb: fromDbNumber,
    toDb: identity,
    example: (a) => sampleNumber(a, 1),
    valueProblem: noProblem,
  },
  decimal: {
    column: () => ({ method: 'decimal', args: [DECIMAL_PRECISION, DECIMAL_SCALE] }),
    schema: (a) => decimalSchema(a),
    valueClass: 'number',
    coerce: coerceDecimal,
    fromDb: fromDbNumber,
    // PostgreSQL rounds to the column's scale; SQLite would keep every digit: round here so both store the same.
    toDb: (v) => (typeof v === 'number' ? Number(v.toFixed(DECIMAL_SCALE)) : v),
    example: (a) => sampleNumber(a, 12.5),
    valueProblem: noProblem,
  },
  float: {
    column: () => ({ method: 'double', args: [] }),
    schema: (a) => numberSchema(a, 'number'),
    valueClass: 'number',
    coerce: (raw) => coerceNumber(raw, false),
    fromDb: fromDbNumber,
    toDb: identity,
    example: (a) => sampleNumber(a, 12.5),
    valueProblem: noProblem,
  },
  boolean: {
    column: () => ({ method: 'boolean', args: [] }),
    schema: () => ({ type: 'boolean' }),
    valueClass: 'boolean',
    coerce: coerceBoolean,
    fromDb: fromDbBoolean,
    toDb: identity,
    example: (a) => (typeof a.default === 'boolean' ? a.default : true),
    valueProblem: noProblem,
  },
  date: {
    column: () => ({ method: 'date', args: [] }),
    schema: () => ({ type: 'string', format: 'date' }),
    valueClass: 'date',
    coerce: coerceDate,
    fromDb: fromDbDate,
    toDb: identity,
    example: () => '2026-03-31',
    valueProblem: dateProblem,
  },
  datetime: {
    column: () => ({ method: 'timestamp', args: [{ useTz: true, precision: 3 }] }),
    schema: () => ({ type: 'string', format: 'date-time' }),
    valueClass: 'date',
    coerce: coerceTimestamp,
    fromDb: fromDbTimestamp,
    toDb: (v) => (v === null || v === undefined ? v : toIsoTimestamp(v)),
    example: () => '2026-03-31T09:30:00.000Z',
    valueProblem: instantProblem,
  },
  time: {
    column: () => ({ method: 'time', args: [] }),
    schema: () => ({ type: 'string', pattern: ISO_TIME.source }),
    valueClass: 'date',
    coerce: canonicalTime,
    fromDb: identity,
    // Stored as PostgreSQL prints it, so SQLite answers and compares the same text.
    toDb: (v) => {
      try {
        return typeof v === 'string' ? canonicalTime(v) : v;
      } catch {
        return v; // out-of-range text the schema let through: the database answers it
      }
    },
    example: () => '09:30:00',
    valueProblem: noProblem,
  },
  json: {
    column: () => ({ method: 'jsonb', args: [] }),
    schema: () => ({}),
    valueClass: 'json',
    coerce: text,
    fromDb: fromDbJson,
    toDb: (v) => (v === null || v === undefined ? v : JSON.stringify(v)),
    example: () => ({ key: 'value' }),
    valueProblem: noProblem,
  },
};
