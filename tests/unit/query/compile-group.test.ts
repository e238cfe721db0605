/**
 * Grouping, compile-only: the SQL each dialect gets for a month-bucketed sum (the shape the planner
 * handles well: one date_trunc per row, one to_char per group), and the pure rules of check-group.ts.
 */
import { expect } from 'chai';
import knex from 'knex';
import { checkTimeZone, type CheckedGroup } from '../../../core/query/check-group';
import { proveColumn } from '../../../core/query/checked';
import { compileGroupPage } from '../../../core/query/compile-group';
import { type ZoneNames, labelIsInjective, zoneNames } from '../../../core/query/group-vocabulary';
import { postgresDialect } from '../../../database/dialects/postgres';
import { sqliteDialect } from '../../../database/dialects/sqlite';
import { sqliteSums } from '../../../database/dialects/sqlite-sums';
import type { TableRef } from '../../../core/query/checked';

const group = (zone: CheckedGroup['zone']): CheckedGroup => ({
  keys: [
    {
      kind: 'bucket',
      name: 'paidAt:month',
      field: { name: 'paidAt', column: proveColumn('t0', 'paid_at'), type: 'datetime', dotted: false },
      source: 'datetime',
      unit: 'month',
      format: 'YYYY-MM',
      injective: true,
    },
  ],
  aggregates: [{ alias: 'amount_sum', fn: 'sum', field: { name: 'amount', column: proveColumn('t0', 'amount'), type: 'decimal', dotted: false } }],
  joins: [],
  sort: [
    { target: { kind: 'aggregate', index: 0 }, direction: 'desc' },
    { target: { kind: 'key', index: 0 }, direction: 'asc' },
  ],
  limit: 10,
  offset: 0,
  zone,
  populateGroup: false,
  reads: [],
  ruleReads: [],
});

const src = { table: 'payment' as TableRef, filter: null, softDelete: 'active' as const };

describe('unit: compile-group (SQL per dialect)', () => {
  it('text keys sort and text MIN/MAX compare in byte order on PostgreSQL (COLLATE "C"), as SQLite does', () => {
    const title = { name: 'title', column: proveColumn('t0', 'title'), type: 'string' as const, dotted: false };
    const g: CheckedGroup = {
      ...group({ kind: 'offset', minutes: 0 }),
      keys: [{ kind: 'field', name: 'title', field: title }],
      aggregates: [{ alias: 'title_max', fn: 'max', field: title }],
      sort: [{ target: { kind: 'key', index: 0 }, direction: 'desc' }],
    };
    const pg = compileGroupPage(knex({ client: 'pg' }), postgresDialect, src, g).toSQL().toNative().sql;
    expect(pg).to.contain('MAX("__src"."__v0" COLLATE "C")');
    expect(pg).to.contain('order by "__src"."__b0" COLLATE "C" DESC NULLS LAST');
    const lite = compileGroupPage(knex({ client: 'sqlite3', useNullAsDefault: true }), sqliteDialect, src, g).toSQL().toNative().sql;
    expect(lite).to.not.contain('COLLATE');
  });

  it('PostgreSQL: groups by date_trunc of the UTC (or offset) wall time, labels per group with to_char', () => {
    const db = knex({ client: 'pg' });
    const utc = compileGroupPage(db, postgresDialect, src, group({ kind: 'offset', minutes: 0 })).toSQL().toNative();
    expect(utc.sql).to.equal(
      'select to_char("__src"."__b0", $1) as "__g0", SUM("__src"."__v0") as "__a0", COUNT(*) as "__n", COUNT(*) OVER () as "__groups" ' +
        'from (select date_trunc(\'month\', ("t0"."paid_at" AT TIME ZONE \'UTC\')) as "__b0", "t0"."amount" as "__v0" from "payment" as "t0" where "t0"."deleted_tracker" = $2) as "__src" ' +
        'group by "__src"."__b0" order by "__a0" DESC NULLS LAST, "__src"."__b0" ASC NULLS FIRST limit $3',
    );
    expect(utc.bindings).to.deep.equal(['YYYY-MM', 'not-deleted', 10]);
    const ist = compileGroupPage(db, postgresDialect, src, group({ kind: 'offset', minutes: 330 })).toSQL().toNative();
    expect(ist.sql).to.contain(`date_trunc('month', (("t0"."paid_at" AT TIME ZONE 'UTC') + CAST($2 AS integer) * INTERVAL '1 minute'))`);
    expect(ist.bindings).to.deep.equal(['YYYY-MM', 330, 'not-deleted', 10]);
    const named = compileGroupPage(db, postgresDialect, src, group({ kind: 'name', name: 'Europe/Berlin' })).toSQL().toNative();
    expect(named.sql).to.contain(`date_trunc('month', ("t0"."paid_at" AT TIME ZONE $2))`);
    expect(named.bindings).to.deep.equal(['YYYY-MM', 'Europe/Berlin', 'not-deleted', 10]);
  });

  it('SQLite: groups by the first day of the month (date modifiers, never localtime), labels with substr', () => {
    const db = knex({ client: 'sqlite3', useNullAsDefault: true });
    const ist = compileGroupPage(db, sqliteDialect, src, group({ kind: 'offset', minutes: 330 })).toSQL().toNative();
    const amountUnits = sqliteSums.units(proveColumn('t0', 'amount'), 4);
    const units = db.raw(amountUnits.sql, amountUnits.bindings as string[]).toQuery();
    expect(units).to.match(/^\(CASE WHEN ABS\(`t0`\.`amount`\) < 1e11 THEN CAST\(ROUND\(`t0`\.`amount` \* 10000\) AS INTEGER\) ELSE /);
    expect(ist.sql).to.equal(
      // the sum of a decimal is taken exactly, in units of 0.0001 (sqlite-sums.ts): two part sums as text
      'select substr(`__src`.`__b0`, 1, 7) as `__g0`, ' +
        "CAST(SUM(`__src`.`__v0` / 4294967296) AS TEXT) || ',' || CAST(SUM(`__src`.`__v0` % 4294967296) AS TEXT) || ',' || COUNT(`__src`.`__v0`) as `__a0`, " +
        'COUNT(*) as `__n`, COUNT(*) OVER () as `__groups` ' +
        `from (select date(\`t0\`.\`paid_at\`, ?, 'start of month') as \`__b0\`, ${units} as \`__v0\` from \`payment\` as \`t0\` where \`t0\`.\`deleted_tracker\` = ?) as \`__src\` ` +
        'group by `__src`.`__b0` order by (SUM(`__src`.`__v0` / 4294967296) * 4294967296.0 + SUM(`__src`.`__v0` % 4294967296)) / 10000.0 DESC NULLS LAST, `__src`.`__b0` ASC NULLS FIRST limit ?',
    );
    expect(ist.bindings).to.deep.equal(['+330 minutes', 'not-deleted', 10]);
    expect(() => compileGroupPage(db, sqliteDialect, src, group({ kind: 'name', name: 'Europe/Berlin' }))).to.throw(/not supported/);
  });
});

describe('unit: check-group rules', () => {
  // What PostgreSQL's pg_timezone_names holds (a sample); null: SQLite, fixed offsets only.
  const pg = zoneNames(['Europe/Berlin', 'America/Los_Angeles', 'UTC']);
  const zones: [string, ZoneNames | null, unknown][] = [
    ['+05:30', null, { kind: 'offset', minutes: 330 }],
    ['-08:00', null, { kind: 'offset', minutes: -480 }],
    ['+0545', null, { kind: 'offset', minutes: 345 }],
    [' 05:30', null, { kind: 'offset', minutes: 330 }],
    ['UTC', null, { kind: 'offset', minutes: 0 }],
    ['Z', null, { kind: 'offset', minutes: 0 }],
    ['Europe/Berlin', pg, { kind: 'name', name: 'Europe/Berlin' }],
    ['america/los_angeles', pg, { kind: 'name', name: 'America/Los_Angeles' }],
  ];
  for (const [raw, names, want] of zones) it(`timezone ${raw} → ${JSON.stringify(want)}`, () => expect(checkTimeZone(raw, names)).to.deep.equal(want));
  // US/Pacific-New: Node's ICU knows it, the database does not (issue 13: PostgreSQL answered 22023 → 500).
  for (const [raw, names] of [['Europe/Berlin', null], ['+14:30', pg], ['+05:60', pg], ['Mars/Base', pg], ["UTC'; --", pg], ['US/Pacific-New', pg], ['Asia/Tokyo', pg]] as const) {
    it(`timezone ${raw} is refused (zone names ${names ? 'on' : 'off'})`, () => expect(() => checkTimeZone(raw, names)).to.throw(/^timezone: /));
  }

  it('a label tells buckets apart only when it is at least as fine as the granularity', () => {
    expect(labelIsInjective('YYYY-MM-DD', 'week')).to.equal(true);
    expect(labelIsInjective('YYYY-MM', 'month')).to.equal(true);
    expect(labelIsInjective('YYYY-MM', 'week')).to.equal(false);
    expect(labelIsInjective('YYYY', 'year')).to.equal(true);
    expect(labelIsInjective('YYYY', 'day')).to.equal(false);
    expect(labelIsInjective('MMM', 'month')).to.equal(false);
  });
});
