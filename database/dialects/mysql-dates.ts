/**
 * MariaDB/MySQL date buckets for grouped Find (part of the MySQL dialect). A datetime is stored as
 * canonical ISO-8601 UTC text (mysql-client.ts), read as a DATETIME(3) in UTC from its first 23
 * characters; a fixed offset is added as minutes, a zone name goes through CONVERT_TZ, which needs
 * the server's time zone tables (`mariadb-tzinfo-to-sql /usr/share/zoneinfo | mariadb mysql`).
 * Without them `timeZones` answers null and zone names are refused (400) while offsets still work;
 * mysql-connect.ts says so in the log at start. CONVERT_TZ leaves instants outside 1970–2038 (the
 * TIMESTAMP range) unconverted: such an instant is bucketed in UTC. A bucket start is a DATE; labels
 * come from DATE_FORMAT's numeric fields and month names from a fixed English list (never
 * lc_time_names), so no session setting changes them.
 */
import type { Knex } from 'knex';
import type { BucketFormat, BucketZone, Granularity } from '../../core/query/group-vocabulary';
import type { Dialect, SqlFragment } from './dialect';

const MONTH_ABBREVIATIONS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const NUMERIC: Partial<Record<BucketFormat, string>> = { 'YYYY-MM-DD': '%Y-%m-%d', 'YYYY-MM': '%Y-%m', YYYY: '%Y' };

/** The local calendar day of `column` in `zone`, as a DATE. */
function localDay(column: string, source: 'date' | 'datetime', zone: BucketZone): SqlFragment {
  if (source === 'date') return { sql: '??', bindings: [column] };
  const utc = 'CAST(LEFT(??, 23) AS DATETIME(3))';
  if (zone.kind === 'name') return { sql: `DATE(CONVERT_TZ(${utc}, '+00:00', ?))`, bindings: [column, zone.name] };
  if (zone.minutes === 0) return { sql: `DATE(${utc})`, bindings: [column] };
  return { sql: `DATE(${utc} + INTERVAL ? MINUTE)`, bindings: [column, zone.minutes] };
}

const quoted = (names: readonly string[]): string => names.map((n) => `'${n}'`).join(', ');

export const mysqlDates: Pick<Dialect, 'timeZones' | 'dateBucketStart' | 'dateLabel' | 'monthNumber'> = {
  async timeZones(db: Knex) {
    try {
      const [rows] = (await db.raw('SELECT Name AS name FROM mysql.time_zone_name')) as [{ name: string }[]];
      return rows.length > 0 ? rows.map((r) => String(r.name)) : null;
    } catch {
      // No SELECT on mysql.time_zone_name: the names cannot be checked, so only offsets are taken.
      return null;
    }
  },

  dateBucketStart(column: string, source: 'date' | 'datetime', unit: Granularity, zone: BucketZone): SqlFragment {
    const d = localDay(column, source, zone);
    const twice = [...d.bindings, ...d.bindings];
    switch (unit) {
      case 'day':
        return d;
      case 'week': // WEEKDAY: Monday 0 … Sunday 6 (ISO weeks start on Monday)
        return { sql: `(${d.sql} - INTERVAL WEEKDAY(${d.sql}) DAY)`, bindings: twice };
      case 'month':
        return { sql: `(${d.sql} - INTERVAL (DAYOFMONTH(${d.sql}) - 1) DAY)`, bindings: twice };
      case 'year':
        return { sql: `(${d.sql} - INTERVAL (DAYOFYEAR(${d.sql}) - 1) DAY)`, bindings: twice };
    }
  },

  dateLabel(start: SqlFragment, format: BucketFormat): SqlFragment {
    const numeric = NUMERIC[format];
    if (numeric !== undefined) return { sql: `DATE_FORMAT(${start.sql}, '${numeric}')`, bindings: start.bindings };
    const names = format === 'MMM' ? MONTH_ABBREVIATIONS : MONTH_NAMES;
    return { sql: `ELT(MONTH(${start.sql}), ${quoted(names)})`, bindings: start.bindings };
  },

  monthNumber(start: SqlFragment): SqlFragment {
    return { sql: `MONTH(${start.sql})`, bindings: start.bindings };
  },
};
