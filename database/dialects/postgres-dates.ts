/**
 * PostgreSQL's date buckets for grouped Find (part of the PostgreSQL Dialect). A datetime is a
 * timestamptz: it is turned into local time of the zone given with `AT TIME ZONE` (explicitly `UTC`
 * by default, so the session's TimeZone never matters), then truncated with `date_trunc`, which the
 * planner evaluates cheaply per row. `date_trunc('week', …)` is the ISO week (Monday). Labels come
 * from `to_char` without the `TM` prefix, so month names are English whatever `lc_time` says.
 */
import type { BucketFormat, BucketZone, Granularity } from '../../core/query/group-vocabulary';
import type { Knex } from 'knex';
import type { Dialect, SqlFragment } from './dialect';

const PATTERNS: Record<BucketFormat, string> = {
  'YYYY-MM-DD': 'YYYY-MM-DD',
  'YYYY-MM': 'YYYY-MM',
  YYYY: 'YYYY',
  MMM: 'Mon',
  // FM: no blank padding to nine characters.
  MMMM: 'FMMonth',
};

function local(column: string, source: 'date' | 'datetime', zone: BucketZone): SqlFragment {
  // A date is a calendar day: as a timestamp without time zone it is midnight of that day, in no zone.
  if (source === 'date') return { sql: 'CAST(?? AS timestamp)', bindings: [column] };
  if (zone.kind === 'name') return { sql: '(?? AT TIME ZONE ?)', bindings: [column, zone.name] };
  if (zone.minutes === 0) return { sql: "(?? AT TIME ZONE 'UTC')", bindings: [column] };
  // A fixed offset is added to UTC wall time (the interval form of AT TIME ZONE has POSIX-style signs).
  return { sql: "((?? AT TIME ZONE 'UTC') + CAST(? AS integer) * INTERVAL '1 minute')", bindings: [column, zone.minutes] };
}

export const postgresDates: Pick<Dialect, 'timeZones' | 'dateBucketStart' | 'dateLabel' | 'monthNumber'> = {
  async timeZones(db: Knex) {
    // The names AT TIME ZONE accepts (the server's tz database, not Node's ICU).
    const rows = (await db.raw('SELECT name FROM pg_timezone_names')) as { rows: { name: string }[] };
    return rows.rows.map((r) => r.name);
  },

  dateBucketStart(column: string, source: 'date' | 'datetime', unit: Granularity, zone: BucketZone): SqlFragment {
    const t = local(column, source, zone);
    // `unit` comes from the GRANULARITIES table, never from the request text.
    return { sql: `date_trunc('${unit}', ${t.sql})`, bindings: t.bindings };
  },

  dateLabel(start: SqlFragment, format: BucketFormat): SqlFragment {
    return { sql: `to_char(${start.sql}, ?)`, bindings: [...start.bindings, PATTERNS[format]] };
  },

  monthNumber(start: SqlFragment): SqlFragment {
    return { sql: `CAST(EXTRACT(MONTH FROM ${start.sql}) AS integer)`, bindings: start.bindings };
  },
};
