/**
 * SQLite's date buckets for grouped Find (part of the SQLite Dialect). Datetimes are stored as
 * ISO-8601 UTC text (`2026-03-01T23:30:00.000Z`), dates as `YYYY-MM-DD`; SQLite's date functions read
 * both and never consult the server's time zone (no `localtime` modifier is ever used). A bucket
 * start is `YYYY-MM-DD` text, so every label is a substring of it.
 */
import type { BucketFormat, BucketZone, Granularity } from '../../core/query/group-vocabulary';
import type { Dialect, SqlFragment } from './dialect';

/** Modifiers after the zone shift: to the first day of the bucket. `weekday 1` moves forward to a Monday. */
const TO_START: Record<Granularity, string> = {
  day: '',
  week: ", '-6 days', 'weekday 1'",
  month: ", 'start of month'",
  year: ", 'start of year'",
};

const MONTH_ABBREVIATIONS = 'JanFebMarAprMayJunJulAugSepOctNovDec';
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const month = (start: SqlFragment): SqlFragment => ({ sql: `CAST(substr(${start.sql}, 6, 2) AS integer)`, bindings: start.bindings });

export const sqliteDates: Pick<Dialect, 'timeZones' | 'dateBucketStart' | 'dateLabel' | 'monthNumber'> = {
  // SQLite's date functions know UTC offsets only.
  timeZones: async () => null,

  dateBucketStart(column: string, source: 'date' | 'datetime', unit: Granularity, zone: BucketZone): SqlFragment {
    if (source === 'date' || (zone.kind === 'offset' && zone.minutes === 0)) return { sql: `date(??${TO_START[unit]})`, bindings: [column] };
    // check-group.ts refuses zone names on this dialect (timeZones: null); reaching here is a bug.
    if (zone.kind === 'name') throw new Error('sqlite: IANA time zone names are not supported');
    return { sql: `date(??, ?${TO_START[unit]})`, bindings: [column, `${zone.minutes >= 0 ? '+' : ''}${zone.minutes} minutes`] };
  },

  dateLabel(start: SqlFragment, format: BucketFormat): SqlFragment {
    switch (format) {
      case 'YYYY-MM-DD':
        return start;
      case 'YYYY-MM':
        return { sql: `substr(${start.sql}, 1, 7)`, bindings: start.bindings };
      case 'YYYY':
        return { sql: `substr(${start.sql}, 1, 4)`, bindings: start.bindings };
      case 'MMM': {
        const m = month(start);
        return { sql: `substr('${MONTH_ABBREVIATIONS}', 3 * ${m.sql} - 2, 3)`, bindings: m.bindings };
      }
      case 'MMMM': {
        const m = month(start);
        const whens = MONTH_NAMES.map((n, i) => `WHEN ${i + 1} THEN '${n}'`).join(' ');
        return { sql: `(CASE ${m.sql} ${whens} END)`, bindings: m.bindings };
      }
    }
  },

  monthNumber: month,
};
