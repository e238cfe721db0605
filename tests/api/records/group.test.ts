/**
 * Spec 2.4 + 4.5: grouping and aggregation on Find, on every database, against an in-memory oracle
 * computed from the same seeded records (tests/fixtures/group-dataset.ts).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { ACTIVE, ARCHIVED, GROUP_MODELS, PAYMENTS, type Payment, type Zone, UTC, aggregateOf, expectGroups, groupsOf, seedPayments } from '../../fixtures/group-dataset';

const GRANULARITIES = ['day', 'week', 'month', 'year'] as const;
const FORMATS = [null, 'MMM', 'MMMM', 'YYYY', 'YYYY-MM', 'YYYY-MM-DD'] as const;

const url = (query: Record<string, unknown>): string => `/api/payment?${qs.stringify(query, { encodeValuesOnly: true })}`;

/** The oracle's answer: one record per group, keys in groupBy order, then the aggregates. */
function expected(list: readonly Payment[], groupBy: readonly string[], aggregates: readonly string[] = [], zone: Zone = UTC): Record<string, unknown>[] {
  return groupsOf(list, groupBy, zone).map((g) => ({
    ...g.key,
    ...(aggregates.length === 0 ? { count: g.members.length } : Object.fromEntries(aggregates.map((a) => [a.replace(/:([a-z_]+)$/, '_$1'), aggregateOf(g.members, a)]))),
  }));
}

for (const dialect of DIALECTS) {
  describe(`records: grouping and aggregation (spec 4.5) [${dialect}]`, () => {
    let app: TestApp;

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: GROUP_MODELS });
      await seedPayments(app);
    });
    after(async () => app?.close());

    const find = async (query: Record<string, unknown>, status = 200) => {
      const res = await app.http.get(url({ limit: 100, ...query }));
      expect(res.status, JSON.stringify(res.body)).to.equal(status);
      return res.body;
    };

    describe('date buckets: every granularity and format, against the oracle', () => {
      for (const field of ['paidAt', 'dueOn']) {
        for (const unit of GRANULARITIES) {
          it(`${field} (${field === 'paidAt' ? 'datetime' : 'date'}) by ${unit}, raw and in every format`, async () => {
            for (const format of FORMATS) {
              const entry = format ? `${field}:${unit}:${format}` : `${field}:${unit}`;
              const body = await find({ groupBy: [entry] });
              const want = expected(ACTIVE, [entry]);
              expectGroups(body.records, want, entry);
              expect(body.meta.totalRecords, entry).to.equal(want.length);
            }
          });
        }
      }

      it('defines the week as the ISO week, labelled by its Monday (week 53 and week 1 around new year)', async () => {
        // p000…p003 are due 2020-12-28 (Mon, week 53), 2021-01-03 (Sun, week 53), 2021-01-04 and 2021-01-10 (week 1).
        const body = await find({ groupBy: ['dueOn:week'], filters: { title: { $in: ['p000', 'p001', 'p002', 'p003'] } } });
        expect(body.records).to.deep.equal([
          { 'dueOn:week': '2020-12-28', count: 2 },
          { 'dueOn:week': '2021-01-04', count: 2 },
        ]);
        const y2025 = await find({ groupBy: ['dueOn:week', 'dueOn:week:YYYY'], filters: { title: { $eq: 'p005' } } });
        // ISO week 1 of 2025 starts on Monday 2024-12-30; formats read the Monday, so YYYY is 2024.
        expect(y2025.records).to.deep.equal([{ 'dueOn:week': '2024-12-30', 'dueOn:week:YYYY': '2024', count: 1 }]);
      });

      it('buckets the leap day on its own and datetimes in UTC by default', async () => {
        const body = await find({ groupBy: ['paidAt:day'], filters: { title: { $in: ['p006', 'p007'] } } });
        expect(body.records).to.deep.equal([{ 'paidAt:day': '2024-02-29', count: 2 }]);
      });

      it('orders month names by the calendar, not alphabetically', async () => {
        const body = await find({ groupBy: ['dueOn:month:MMMM'] });
        const names = body.records.map((r: Record<string, unknown>) => r['dueOn:month:MMMM']).filter((n: unknown) => n !== null);
        expect(names[0]).to.equal('January');
        expect(names[names.length - 1]).to.equal('December');
      });
    });

    describe('fields, relations and aggregates', () => {
      const NUMERIC = ['amount', 'units', 'ratio'];
      const ALL = [
        ...NUMERIC.flatMap((f) => ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'].map((fn) => `${f}:${fn}`)),
        'title:count',
        'note:count_distinct',
        'note:min',
        'note:max',
        'paid:count',
        'paid:count_distinct',
        'paidAt:min',
        'paidAt:max',
        'dueOn:min',
        'dueOn:max',
        'paidAt:count_distinct',
        'id:max',
      ];

      it('computes every function on a relation key (branch.name, archived branch → null)', async () => {
        const body = await find({ groupBy: ['branch.name'], aggregates: ALL });
        expectGroups(body.records, expected(ACTIVE, ['branch.name'], ALL), 'branch.name');
        expect(body.records.map((r: Record<string, unknown>) => r['branch.name'])).to.deep.equal([null, 'East', 'North', 'South']);
      });

      it('buckets a date reached through a relation (branch.createdAt:year)', async () => {
        const body = await find({ groupBy: ['branch.createdAt:year', 'branch.region'], sort: ['branch.region:DESC'] });
        const year = String(new Date().getUTCFullYear());
        const count = (region: string | null) => ACTIVE.filter((p) => ({ North: 'N', South: 'S', East: 'E' } as Record<string, string>)[p.branch ?? ''] === (region ?? undefined)).length;
        expect(body.records).to.deep.equal([
          { 'branch.createdAt:year': year, 'branch.region': 'S', count: count('S') },
          { 'branch.createdAt:year': year, 'branch.region': 'N', count: count('N') },
          { 'branch.createdAt:year': year, 'branch.region': 'E', count: count('E') },
          { 'branch.createdAt:year': null, 'branch.region': null, count: ACTIVE.filter((p) => p.branch === null || p.branch === 'West').length },
        ]);
      });

      it('answers numbers as JSON numbers, aliases as <field>_<function>', async () => {
        const body = await find({ groupBy: ['paid'], aggregates: ['amount:sum', 'amount:avg', 'units:sum', 'units:avg', 'id:count', 'id:max'] });
        for (const r of body.records) {
          expect(Object.keys(r)).to.deep.equal(['paid', 'amount_sum', 'amount_avg', 'units_sum', 'units_avg', 'id_count', 'id_max']);
          for (const k of ['amount_sum', 'amount_avg', 'units_sum', 'units_avg', 'id_count', 'id_max']) expect(r[k], k).to.be.a('number');
        }
        expect(body.records.map((r: Record<string, unknown>) => r.paid)).to.deep.equal([null, false, true]);
      });

      it('applies a row count per group when no aggregates are given', async () => {
        const body = await find({ groupBy: ['paid'] });
        expectGroups(body.records, expected(ACTIVE, ['paid']), 'paid');
      });

      it('keeps several keys in groupBy order, in the records and in the order of the groups (rules 5)', async () => {
        const groupBy = ['paid', 'dueOn:year', 'branch.name'];
        const body = await find({ groupBy, aggregates: ['amount:sum'] });
        expectGroups(body.records, expected(ACTIVE, groupBy, ['amount:sum']), 'three keys');
        const reversed = await find({ groupBy: [...groupBy].reverse(), aggregates: ['amount:sum'] });
        expectGroups(reversed.records, expected(ACTIVE, [...groupBy].reverse(), ['amount:sum']), 'three keys reversed');
      });

      it('answers groupMeta: one entry per group with its key and its aggregates', async () => {
        const body = await find({ groupBy: ['branch.name', 'paid'], aggregates: ['units:sum'] });
        expect(body.groupMeta).to.have.length(body.records.length);
        body.groupMeta.forEach((m: { groupKey: Record<string, unknown>; aggregates: Record<string, unknown> }, i: number) => {
          expect(m.groupKey).to.deep.equal({ 'branch.name': body.records[i]['branch.name'], paid: body.records[i].paid });
          expect(m.aggregates).to.deep.equal({ units_sum: body.records[i].units_sum });
        });
        expect(body).not.to.have.property('groupRecords');
      });
    });

    describe('paging, sorting, filters, soft delete', () => {
      it('pages groups with offset/limit and page/limit; meta counts groups without paging', async () => {
        const all = expected(ACTIVE, ['dueOn:month']);
        const body = await find({ groupBy: ['dueOn:month'], offset: 3, limit: 4 });
        expectGroups(body.records, all.slice(3, 7), 'offset 3 limit 4');
        expect(body.meta).to.deep.equal({ totalRecords: all.length, currentPage: 1, totalPages: Math.ceil(all.length / 4) });
        const page = await find({ groupBy: ['dueOn:month'], page: 2, limit: 4 });
        expectGroups(page.records, all.slice(4, 8), 'page 2');
        expect(page.meta.currentPage).to.equal(2);
        const beyond = await find({ groupBy: ['dueOn:month'], offset: 1000 });
        expect(beyond.records).to.deep.equal([]);
        expect(beyond.meta.totalRecords).to.equal(all.length);
        const none = await find({ groupBy: ['dueOn:month'], limit: 0 });
        expect(none.records).to.deep.equal([]);
        expect(none.meta.totalRecords).to.equal(all.length);
      });

      it('sorts groups by an aggregate alias in both forms (-x and x:DESC), ties by the keys', async () => {
        const want = expected(ACTIVE, ['branch.name'], ['amount:sum', 'id:max']).sort((a, b) => (b.id_max as number) - (a.id_max as number));
        for (const sort of ['-id_max', 'id_max:DESC', 'id_max:desc']) {
          const body = await find({ groupBy: ['branch.name'], aggregates: ['amount:sum', 'id:max'], sort: [sort] });
          expectGroups(body.records, want, sort);
        }
        const asc = await find({ groupBy: ['branch.name'], aggregates: ['amount:sum', 'id:max'], sort: ['amount_sum:ASC'] });
        const sums = asc.records.map((r: Record<string, number>) => r.amount_sum);
        expect(sums).to.deep.equal([...sums].sort((a, b) => a - b));
      });

      it('sorts by a bucket key with granularity and format; the last segment is the order (rule 9)', async () => {
        const want = expected(ACTIVE, ['paidAt:year']).reverse();
        for (const sort of ['-paidAt:year', 'paidAt:year:DESC']) {
          expectGroups((await find({ groupBy: ['paidAt:year'], sort: [sort] })).records, want, sort);
        }
        const fmt = await find({ groupBy: ['paidAt:month:YYYY-MM'], sort: ['paidAt:month:YYYY-MM:DESC'], limit: 3 });
        expectGroups(fmt.records, expected(ACTIVE, ['paidAt:month:YYYY-MM']).reverse().slice(0, 3), 'format DESC');
        // Descending puts NULL last.
        expect(want[want.length - 1]['paidAt:year']).to.equal(null);
      });

      it('applies filters before grouping (rule 8), relation filters too', async () => {
        const filters = { amount: { $gte: 10 }, branch: { region: { $in: ['N', 'S'] } } };
        const body = await find({ groupBy: ['paid'], aggregates: ['amount:sum', 'amount:min'], filters });
        const subset = ACTIVE.filter((p) => p.amount !== null && p.amount >= 10 && (p.branch === 'North' || p.branch === 'South'));
        expectGroups(body.records, expected(subset, ['paid'], ['amount:sum', 'amount:min']), 'filtered');
      });

      it('honours showSoftDeleted: active only by default, inclusive, exclusive', async () => {
        expect(ARCHIVED.length).to.be.greaterThan(2);
        const cases: [string | undefined, readonly Payment[]][] = [
          [undefined, ACTIVE],
          ['inclusive', PAYMENTS],
          ['exclusive', ARCHIVED],
        ];
        for (const [scope, list] of cases) {
          const body = await find({ groupBy: ['branch.name'], aggregates: ['units:sum'], ...(scope ? { showSoftDeleted: scope } : {}) });
          expectGroups(body.records, expected(list, ['branch.name'], ['units:sum']), `showSoftDeleted=${scope}`);
        }
      });
    });

    it('deletedTracker groups, aggregates and sorts by the value answers show (deleted / not-deleted), not the stored one', async () => {
      const grouped = await find({ groupBy: ['deletedTracker'], showSoftDeleted: 'inclusive' });
      expect(grouped.records).to.deep.equal([
        { deletedTracker: 'deleted', count: ARCHIVED.length },
        { deletedTracker: 'not-deleted', count: ACTIVE.length },
      ]);
      expect(grouped.meta.totalRecords).to.equal(2);
      const archived = await find({ groupBy: ['deletedTracker'], aggregates: ['deletedTracker:max', 'deletedTracker:count_distinct'], showSoftDeleted: 'exclusive' });
      expect(archived.records).to.deep.equal([{ deletedTracker: 'deleted', deletedTracker_max: 'deleted', deletedTracker_count_distinct: 1 }]);
      // Find's own sort: every archived record (titles ascending, the second key) before every active one
      const titles = (list: readonly Payment[]): string[] => list.map((p) => p.title).sort();
      const sorted: string[] = [];
      for (let offset = 0; offset < PAYMENTS.length; offset += 100) {
        const page = await find({ sort: ['deletedTracker', 'title'], fields: ['title'], showSoftDeleted: 'inclusive', offset });
        sorted.push(...(page.records as { title: string }[]).map((r) => r.title));
      }
      expect(sorted).to.deep.equal([...titles(ARCHIVED), ...titles(ACTIVE)]);
    });

    it('groups come in key order with a COUNT(DISTINCT …) aggregate too (MariaDB dropped that ORDER BY: the property\'s counterexample)', async () => {
      const groupBy = ['paid', 'dueOn:month:YYYY'];
      const aggregates = ['note:count_distinct'];
      const body = await find({ groupBy, aggregates, timezone: '+00:00', limit: 100 });
      expectGroups(body.records, expected(ACTIVE, groupBy, aggregates, { offset: 0 }), 'paid + dueOn:month:YYYY, note:count_distinct');
    });

    describe('property: random groupings equal the oracle', () => {
      const KEYS = [
        'paid', 'note', 'units', 'branch.name', 'branch.region', 'branchId',
        ...GRANULARITIES.flatMap((u) => ['paidAt', 'dueOn'].flatMap((f) => FORMATS.map((x) => (x ? `${f}:${u}:${x}` : `${f}:${u}`)))),
      ];
      const AGGREGATES = ['amount:sum', 'amount:avg', 'units:min', 'units:max', 'ratio:sum', 'note:count_distinct', 'paidAt:max', 'dueOn:min', 'title:count', 'id:count'];
      it('any 1–3 keys, aggregates, offset, amount filter and fixed offset (GROUP_PROPERTY_RUNS, default 25)', async () => {
        const runs = Number(process.env.GROUP_PROPERTY_RUNS ?? 25);
        await fc.assert(
          fc.asyncProperty(
            fc.uniqueArray(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 3 }),
            fc.uniqueArray(fc.constantFrom(...AGGREGATES), { maxLength: 3 }),
            fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined }),
            fc.constantFrom(0, 330, -480, 60),
            fc.integer({ min: 0, max: 3 }),
            async (groupBy, aggregates, minAmount, minutes, offset) => {
              const timezone = `${minutes < 0 ? '-' : '+'}${String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0')}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
              const filters = minAmount === undefined ? undefined : { amount: { $gte: minAmount / 100 } };
              const body = await find({ groupBy, aggregates, timezone, offset, limit: 100, ...(filters ? { filters } : {}) });
              const list = minAmount === undefined ? ACTIVE : ACTIVE.filter((p) => p.amount !== null && p.amount >= minAmount / 100);
              const want = expected(list, groupBy, aggregates, { offset: minutes });
              expectGroups(body.records, want.slice(offset), JSON.stringify({ groupBy, aggregates, timezone, minAmount, offset }));
              expect(body.meta.totalRecords).to.equal(want.length);
            },
          ),
          { numRuns: runs },
        );
      });
    });

    describe('time zones', () => {
      for (const offset of ['+05:30', '-08:00', '+14:00']) {
        it(`buckets datetimes at the fixed offset ${offset} (both databases)`, async () => {
          const minutes = (offset.startsWith('-') ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
          for (const entry of ['paidAt:day', 'paidAt:week', 'paidAt:month:MMM', 'paidAt:year']) {
            const body = await find({ groupBy: [entry], timezone: offset });
            expectGroups(body.records, expected(ACTIVE, [entry], [], { offset: minutes }), `${entry} at ${offset}`);
          }
        });
      }

      it('moves an instant across a year end and a leap day at +05:30; date fields do not move', async () => {
        const body = await find({ groupBy: ['paidAt:year'], timezone: '+05:30', filters: { title: { $in: ['p010'] } } });
        expect(body.records).to.deep.equal([{ 'paidAt:year': '2027', count: 1 }]);
        const day = await find({ groupBy: ['paidAt:day', 'dueOn:day'], timezone: '+05:30', filters: { title: { $eq: 'p007' } } });
        expect(day.records).to.deep.equal([{ 'paidAt:day': '2024-03-01', 'dueOn:day': '2024-03-01', count: 1 }]);
      });

      // MariaDB knows zone names from its time zone tables (.ci/run loads them with mariadb-tzinfo-to-sql).
      if (dialect === 'postgres' || dialect === 'mysql') {
        it('buckets in an IANA zone, correct across a DST change (PostgreSQL, MariaDB)', async () => {
          for (const zone of ['America/New_York', 'Asia/Kolkata', 'Europe/Berlin']) {
            for (const entry of ['paidAt:day', 'paidAt:week', 'paidAt:month']) {
              const body = await find({ groupBy: [entry], timezone: zone });
              expectGroups(body.records, expected(ACTIVE, [entry], [], { name: zone }), `${entry} in ${zone}`);
            }
          }
          // 2026-03-09T04:30Z: 00:30 EDT on the 9th in New York (after the change), 23:30 on the 8th at -05:00.
          const filters = { title: { $eq: 'p009' } };
          expect((await find({ groupBy: ['paidAt:day'], timezone: 'America/New_York', filters })).records).to.deep.equal([{ 'paidAt:day': '2026-03-09', count: 1 }]);
          expect((await find({ groupBy: ['paidAt:day'], timezone: '-05:00', filters })).records).to.deep.equal([{ 'paidAt:day': '2026-03-08', count: 1 }]);
        });
      } else {
        it('answers 400 for an IANA zone name on SQLite, saying why', async () => {
          const body = await find({ groupBy: ['paidAt:day'], timezone: 'America/New_York' }, 400);
          expect(body.error.message).to.match(/^timezone: .*PostgreSQL.*fixed offsets/);
        });
      }

      it('accepts UTC and Z; refuses unknown zones and offsets beyond ±14:00', async () => {
        for (const tz of ['UTC', 'Z']) expectGroups((await find({ groupBy: ['paidAt:year'], timezone: tz })).records, expected(ACTIVE, ['paidAt:year']), tz);
        for (const tz of ['Mars/Olympus', '+15:00', '+05:75', 'DROP TABLE payment']) {
          const body = await find({ groupBy: ['paidAt:year'], timezone: tz }, 400);
          expect(body.error.details.parameter, tz).to.equal('timezone');
        }
      });
    });
  });
}
