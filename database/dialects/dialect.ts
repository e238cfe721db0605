/** Everything that differs between SQLite and PostgreSQL, behind one interface (DESIGN habit 7). */
import type { Knex } from 'knex';
import type { BucketFormat, BucketZone, Granularity } from '../../core/query/group-vocabulary';

/** A driver error, classified; records/db-errors.ts turns it into an AppError with field names. */
export type DbFault =
  | { readonly kind: 'unique'; readonly table: string | null; readonly columns: readonly string[] }
  | { readonly kind: 'foreignKey'; readonly table: string | null; readonly columns: readonly string[] }
  | { readonly kind: 'notNull'; readonly table: string | null; readonly columns: readonly string[] }
  /** A data error (a value out of the column's range, text the database cannot hold): `detail` is the driver's text, for logs only. */
  | { readonly kind: 'invalidValue'; readonly detail: string }
  | { readonly kind: 'unavailable'; readonly message: string }
  /** The statement ran past the per-query time limit (QUERY_TIMEOUT) and the database stopped it. */
  | { readonly kind: 'timeout' };

export interface LikeOptions {
  readonly caseInsensitive: boolean;
  readonly negate: boolean;
  readonly mode: 'contains' | 'startsWith' | 'endsWith';
}

/** A SQL fragment with `??` identifier and `?` value placeholders. */
export interface SqlFragment {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** SELECT … FOR UPDATE is meaningful (SQLite serializes writers anyway). */
  readonly rowLocks: boolean;
  /** The rows of a `knex.raw` SELECT (the drivers answer in different shapes). */
  rawRows(result: unknown): Record<string, unknown>[];
  /** `column` matches `value` as plain text (`%`, `_`, `\` match themselves); never NULL for a non-null column. */
  like(column: string, value: string, opts: Omit<LikeOptions, 'negate'>): SqlFragment;
  /**
   * A text column as ordered comparisons (`$lt`, `$between`, …) and ORDER BY see it: byte order
   * (`B` < `a`) on both databases, whatever collation a PostgreSQL database was created with.
   */
  byteOrdered(column: string): SqlFragment;
  /** Classifies a driver error, or null when it is none of ours to explain. */
  classifyError(err: unknown): DbFault | null;
  /** The tables of the current database / schema. */
  listTables(db: Knex): Promise<string[]>;

  // Date buckets of grouped Find (spec 4.5 rule 2). Every label is made in SQL from UTC plus the
  // zone given, never from the server's or the session's time zone.
  /**
   * The IANA zone names (`Europe/Berlin`) this database buckets in, or null when it buckets only in
   * fixed offsets. Node's list differs from the database's (Node takes `US/Pacific-New`, PostgreSQL
   * answered 22023): the `timezone` parameter is checked against this one.
   */
  timeZones(db: Knex): Promise<readonly string[] | null>;
  /**
   * The first instant of the bucket holding `column`, in local time of `zone` (a `date` column is a
   * calendar day already: the zone does not apply). Weeks are ISO weeks, starting on Monday. Only
   * `dateLabel` and `monthNumber` read the result, so its SQL type is the dialect's own choice.
   */
  dateBucketStart(column: string, source: 'date' | 'datetime', unit: Granularity, zone: BucketZone): SqlFragment;
  /** A bucket start (from `dateBucketStart`) as text in `format`; month names in English. */
  dateLabel(start: SqlFragment, format: BucketFormat): SqlFragment;
  /** The month (1–12) of a bucket start: orders month-name labels by the calendar. */
  monthNumber(start: SqlFragment): SqlFragment;
}

/** `%`, `_` and `\` escaped for a LIKE pattern with `ESCAPE '\'`. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export function likePattern(value: string, mode: LikeOptions['mode']): string {
  const v = escapeLike(value);
  return mode === 'contains' ? `%${v}%` : mode === 'startsWith' ? `${v}%` : `%${v}`;
}
