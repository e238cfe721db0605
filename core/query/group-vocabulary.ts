/**
 * ONE table each for the grouping vocabulary of Find (spec 4.5): aggregate functions, date
 * granularities, bucket label formats, and the grouping limits (DESIGN habits 5 and "limits as
 * named constants"). TS types are derived from the tables.
 */
import type { ValueClass } from '../registry/attribute-kinds';

/**
 * Aggregate functions (spec 4.5 rule 3): which value classes each accepts and what its result is.
 * `count` results are whole numbers; `number` results are numbers (PostgreSQL's numeric and bigint
 * are converted); `field` results have the aggregated field's own type (min of a date is a date).
 */
export const AGGREGATE_FUNCTIONS = {
  count: { classes: ['text', 'number', 'date', 'boolean', 'json'], result: 'count' },
  count_distinct: { classes: ['text', 'number', 'date', 'boolean', 'json'], result: 'count' },
  sum: { classes: ['number'], result: 'number' },
  avg: { classes: ['number'], result: 'number' },
  min: { classes: ['number', 'date', 'text'], result: 'field' },
  max: { classes: ['number', 'date', 'text'], result: 'field' },
} as const satisfies Record<string, { classes: readonly ValueClass[]; result: 'count' | 'number' | 'field' }>;

export type AggregateFunction = keyof typeof AGGREGATE_FUNCTIONS;

export function isAggregateFunction(s: string): s is AggregateFunction {
  return Object.prototype.hasOwnProperty.call(AGGREGATE_FUNCTIONS, s);
}

export function aggregateAllows(fn: AggregateFunction, cls: ValueClass): boolean {
  return (AGGREGATE_FUNCTIONS[fn].classes as readonly ValueClass[]).includes(cls);
}

/**
 * Date bucket granularities (spec 4.5 rule 2) and the label each bucket has without a format.
 * A week is the ISO week: it starts on Monday, and its raw label is that Monday (`YYYY-MM-DD`).
 */
export const GRANULARITIES = {
  day: { rawLabel: 'YYYY-MM-DD' },
  week: { rawLabel: 'YYYY-MM-DD' },
  month: { rawLabel: 'YYYY-MM' },
  year: { rawLabel: 'YYYY' },
} as const satisfies Record<string, { rawLabel: string }>;

export type Granularity = keyof typeof GRANULARITIES;

/**
 * Label formats, applied to the first day of the bucket (the Monday of a week). `finest` is the
 * finest granularity whose buckets the format still tells apart: a format coarser than the
 * granularity merges buckets (`dueDate:day:YYYY` is one group per year; `dueDate:month:MMM` one
 * group per month name, every year together). Month names are English.
 */
export const BUCKET_FORMATS = {
  'YYYY-MM-DD': { finest: 'day' },
  'YYYY-MM': { finest: 'month' },
  YYYY: { finest: 'year' },
  MMM: { finest: null },
  MMMM: { finest: null },
} as const satisfies Record<string, { finest: Granularity | null }>;

export type BucketFormat = keyof typeof BUCKET_FORMATS;

export function isGranularity(s: string): s is Granularity {
  return Object.prototype.hasOwnProperty.call(GRANULARITIES, s);
}

export function isBucketFormat(s: string): s is BucketFormat {
  return Object.prototype.hasOwnProperty.call(BUCKET_FORMATS, s);
}

const COARSENESS: Record<Granularity, number> = { day: 0, week: 1, month: 2, year: 3 };

/**
 * True when the label tells every bucket of `unit` apart, so the database may group by the bucket's
 * first instant and format afterwards (cheaper: one `date_trunc` per row, one `to_char` per group).
 */
export function labelIsInjective(format: BucketFormat, unit: Granularity): boolean {
  const finest = BUCKET_FORMATS[format].finest;
  if (finest === null) return false;
  // A week starts on a day, so a day label tells weeks apart.
  return COARSENESS[finest] <= COARSENESS[unit];
}

/** A fixed UTC offset (both databases) or an IANA zone name (PostgreSQL only). */
export type BucketZone = { readonly kind: 'offset'; readonly minutes: number } | { readonly kind: 'name'; readonly name: string };

export const UTC_ZONE: BucketZone = { kind: 'offset', minutes: 0 };

/** The zone names a database buckets in, by lower-case name (PostgreSQL reads names case-insensitively) → its own spelling. */
export type ZoneNames = ReadonlyMap<string, string>;

export function zoneNames(names: readonly string[]): ZoneNames {
  return new Map(names.map((n) => [n.toLowerCase(), n] as const));
}

/** The aggregate alias of the row count applied when no `aggregates` are given (spec 4.5 rule 3). */
export const ROW_COUNT_ALIAS = 'count';
/** Entries in `groupBy`. */
export const MAX_GROUP_KEYS = 10;
/** Entries in `aggregates`. */
export const MAX_AGGREGATES = 50;
/** Records per group in `groupRecords` when `groupFilter[limit]` is not given. */
export const DEFAULT_GROUP_RECORDS_LIMIT = 10;
/** Largest fixed offset accepted in `timezone` (±14:00, as the world's zones). */
export const MAX_OFFSET_MINUTES = 14 * 60;
