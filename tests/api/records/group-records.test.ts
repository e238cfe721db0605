/**
 * Spec 4.5 rules 6 and 7: populateGroup / groupRecords paged and sorted by groupFilter, fetched in one
 * window-function query; and every grouped request the service refuses with 400, on every database.
 */
import { expect } from 'chai';
import qs from 'qs';
import { DIALECTS } from '../../helpers/dialects';
import { logRequestQueries } from '../../helpers/request-queries';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { ACTIVE, GROUP_MODELS, PAYMENTS, type Payment, groupsOf, seedPayments } from '../../fixtures/group-dataset';

const url = (query: Record<string, unknown>): string => `/api/payment?${qs.stringify(query, { encodeValuesOnly: true })}`;

interface GroupRecords {
  groupKey: Record<string, unknown>;
  aggregates: Record<string, unknown>;
  records: Record<string, unknown>[];
  meta: { totalRecords: number; currentPage: number; totalPages: number };
}

const byTitle = (a: Payment, b: Payment): number => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0);

for (const dialect of DIALECTS) {
  describe(`records: populateGroup and grouped-query errors (spec 4.5) [${dialect}]`, () => {
    let app: TestApp;
    const queries: string[] = [];

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: GROUP_MODELS });
      await seedPayments(app);
      logRequestQueries(app.deps, queries);
    });
    after(async () => app?.close());

    const find = async (query: Record<string, unknown>, status = 200) => {
      const res = await app.http.get(url(query));
      expect(res.status, JSON.stringify(res.body)).to.equal(status);
      return res.body;
    };

    describe('populateGroup', () => {
      it('adds groupRecords: each group with its key, aggregates, records and their paging meta', async () => {
        const body = await find({ groupBy: ['paid'], aggregates: ['amount:sum'], populateGroup: true, groupFilter: { limit: 3, sort: ['title:DESC'] } });
        const oracle = groupsOf(ACTIVE, ['paid']);
        const groups: GroupRecords[] = body.groupRecords;
        expect(groups.map((g) => g.groupKey)).to.deep.equal(oracle.map((g) => g.key));
        groups.forEach((g, i) => {
          const members = [...oracle[i].members].sort(byTitle).reverse();
          expect(g.aggregates).to.deep.equal(body.groupMeta[i].aggregates);
          expect(g.records.map((r) => r.title)).to.deep.equal(members.slice(0, 3).map((m) => m.title));
          expect(g.records.every((r) => r.paid === g.groupKey.paid)).to.equal(true);
          expect(g.meta).to.deep.equal({ totalRecords: members.length, currentPage: 1, totalPages: Math.ceil(members.length / 3) });
          expect(g.records[0]).to.include.keys('id', 'title', 'amount', 'paidAt', 'branchId', 'createdAt');
          expect(g.records[0]).not.to.have.property('pin');
        });
      });

      it('pages inside each group with groupFilter offset/limit; defaults to 10 records in id order', async () => {
        const oracle = groupsOf(ACTIVE, ['dueOn:year']);
        const paged = await find({ groupBy: ['dueOn:year'], populateGroup: true, groupFilter: { offset: 1, limit: 2, sort: ['amount', 'title'] } });
        paged.groupRecords.forEach((g: GroupRecords, i: number) => {
          const members = [...oracle[i].members].sort((a, b) => ((a.amount ?? -Infinity) - (b.amount ?? -Infinity)) || byTitle(a, b));
          expect(g.records.map((r) => r.title), String(g.groupKey['dueOn:year'])).to.deep.equal(members.slice(1, 3).map((m) => m.title));
          expect(g.meta.totalRecords).to.equal(members.length);
          expect(g.meta.currentPage).to.equal(1);
        });
        const defaults = await find({ groupBy: ['branch.name'], limit: 2 });
        expect(defaults).not.to.have.property('groupRecords');
        const def = await find({ groupBy: ['paid'], populateGroup: true });
        def.groupRecords.forEach((g: GroupRecords) => {
          expect(g.records.length).to.equal(Math.min(10, g.meta.totalRecords));
          const ids = g.records.map((r) => r.id as number);
          expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
        });
      });

      it('finds the records of groups keyed by raw datetimes, decimals, floats and booleans (values bound back)', async () => {
        for (const key of ['paidAt', 'amount', 'ratio', 'paid', 'branchId']) {
          const body = await find({ groupBy: [key], populateGroup: true, limit: 100, groupFilter: { limit: 100, sort: ['branch.name:DESC', 'title'] } });
          for (const g of body.groupRecords as GroupRecords[]) {
            expect(g.records.length, `${key} ${JSON.stringify(g.groupKey)}`).to.equal(g.aggregates.count);
            expect(g.meta.totalRecords).to.equal(g.aggregates.count);
            for (const r of g.records) expect(r[key], key).to.deep.equal(g.groupKey[key]);
          }
          expect(body.groupRecords.reduce((n: number, g: GroupRecords) => n + g.records.length, 0), key).to.equal(ACTIVE.length);
        }
      });

      it('answers a group whose page is past its end with no records and its true size', async () => {
        const body = await find({ groupBy: ['paid'], populateGroup: true, groupFilter: { offset: 25, limit: 5 } });
        const oracle = groupsOf(ACTIVE, ['paid']);
        body.groupRecords.forEach((g: GroupRecords, i: number) => {
          expect(g.meta.totalRecords).to.equal(oracle[i].members.length);
          expect(g.records.length).to.equal(Math.max(0, Math.min(5, oracle[i].members.length - 25)));
        });
      });

      it('fetches the records of every group in ONE window-function query', async () => {
        queries.length = 0;
        const body = await find({ groupBy: ['dueOn:year', 'paid'], populateGroup: true, limit: 20, groupFilter: { limit: 2 } });
        expect(body.groupRecords.length).to.be.greaterThan(5);
        const windowed = queries.filter((q) => /ROW_NUMBER\(\) OVER \(PARTITION BY/i.test(q));
        expect(windowed, queries.join('\n')).to.have.length(1);
        // each group's size comes from the page query's COUNT(*), not a second window over every row
        expect(windowed[0]).to.not.match(/COUNT\(\*\) OVER \(PARTITION BY/i);
        // The page of groups (with their number) and the records: two queries whatever the number of groups.
        expect(queries, queries.join('\n')).to.have.length(2);
      });

      it('populates relations of groupRecords with one query per relation level, not per group', async () => {
        queries.length = 0;
        const body = await find({ groupBy: ['dueOn:year'], populateGroup: true, populate: ['branch'], fields: ['title'], groupFilter: { limit: 3 } });
        expect(queries, queries.join('\n')).to.have.length(3);
        const all: Record<string, unknown>[] = body.groupRecords.flatMap((g: GroupRecords) => g.records);
        expect(all.length).to.be.greaterThan(10);
        for (const r of all) {
          const p = PAYMENTS.find((x) => x.title === r.title);
          const branch = r.branch as { name: string } | null;
          expect(branch === null ? null : branch.name, String(r.title)).to.equal(p?.branch === 'West' ? null : (p?.branch ?? null));
        }
      });

      it('keeps the groups paged and sorted; groupRecords follows the page of groups', async () => {
        const body = await find({ groupBy: ['dueOn:month:MMM'], aggregates: ['units:sum'], sort: ['-units_sum'], limit: 3, populateGroup: true, groupFilter: { limit: 1 } });
        expect(body.records).to.have.length(3);
        expect(body.groupRecords.map((g: GroupRecords) => g.groupKey)).to.deep.equal(body.groupMeta.map((m: { groupKey: unknown }) => m.groupKey));
        for (const g of body.groupRecords as GroupRecords[]) {
          expect(g.records).to.have.length(1);
          const month = new Date(`${g.records[0].dueOn as string}T00:00:00Z`).toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
          expect(month).to.equal(g.groupKey['dueOn:month:MMM']);
        }
      });

      it('honours fields inside groupRecords, and filters and showSoftDeleted before grouping', async () => {
        const body = await find({ groupBy: ['paid'], populateGroup: true, fields: ['title'], filters: { units: { $gte: 10 } }, showSoftDeleted: 'inclusive', groupFilter: { limit: 100 } });
        const all = body.groupRecords.flatMap((g: GroupRecords) => g.records);
        for (const r of all) expect(Object.keys(r).sort()).to.deep.equal(['id', 'title']);
        const expected = groupsOf(PAYMENTS.filter((p) => p.units !== null && p.units >= 10), ['paid']);
        expect(all.map((r: Record<string, unknown>) => r.title).sort()).to.deep.equal(expected.flatMap((g) => g.members.map((m) => m.title)).sort());
        expect(body.groupRecords.map((g: GroupRecords) => g.meta.totalRecords)).to.deep.equal(expected.map((g) => g.members.length));
      });
    });

    describe('400 for what a grouped query cannot do', () => {
      const cases: { name: string; query: Record<string, unknown>; parameter: string; message: RegExp }[] = [
        { name: 'unknown group field', query: { groupBy: ['nope'] }, parameter: 'groupBy[0]', message: /unknown field "nope"/ },
        { name: 'private group field (same answer as unknown)', query: { groupBy: ['pin'] }, parameter: 'groupBy[0]', message: /unknown field "pin"/ },
        { name: 'private aggregate field', query: { groupBy: ['paid'], aggregates: ['pin:count'] }, parameter: 'aggregates[0]', message: /unknown field "pin"/ },
        { name: 'unknown relation field', query: { groupBy: ['branch.nope'] }, parameter: 'groupBy[0]', message: /unknown field "nope" of branch/ },
        { name: 'sum of a string', query: { groupBy: ['paid'], aggregates: ['title:sum'] }, parameter: 'aggregates[0]', message: /sum does not apply to "title"/ },
        { name: 'avg of a date', query: { groupBy: ['paid'], aggregates: ['dueOn:avg'] }, parameter: 'aggregates[0]', message: /avg does not apply/ },
        { name: 'min of a boolean', query: { groupBy: ['title'], aggregates: ['paid:min'] }, parameter: 'aggregates[0]', message: /min does not apply/ },
        { name: 'bad aggregate function', query: { groupBy: ['paid'], aggregates: ['amount:median'] }, parameter: 'aggregates[0]', message: /unknown aggregate function "median"/ },
        { name: 'aggregate without function', query: { groupBy: ['paid'], aggregates: ['amount'] }, parameter: 'aggregates[0]', message: /<field>:<function>/ },
        { name: 'bad granularity', query: { groupBy: ['paidAt:hour'] }, parameter: 'groupBy[0]', message: /unknown granularity "hour"/ },
        { name: 'bad format', query: { groupBy: ['paidAt:month:MM/YYYY'] }, parameter: 'groupBy[0]', message: /unknown format "MM\/YYYY"/ },
        { name: 'granularity on a non-date field', query: { groupBy: ['amount:month'] }, parameter: 'groupBy[0]', message: /not a date or datetime field/ },
        { name: 'too many segments', query: { groupBy: ['paidAt:month:YYYY:x'] }, parameter: 'groupBy[0]', message: /<field>:<granularity>:<format>/ },
        { name: 'json group field', query: { groupBy: ['extra'] }, parameter: 'groupBy[0]', message: /json/ },
        { name: 'a relation itself', query: { groupBy: ['branch'] }, parameter: 'groupBy[0]', message: /is a relation; group by branchId or branch\.<field>/ },
        { name: 'populateGroup with a relation key (rule 7)', query: { groupBy: ['paid', 'branch.name'], populateGroup: true }, parameter: 'populateGroup', message: /relation field/ },
        { name: 'sort by a field that is not a key', query: { groupBy: ['paid'], sort: ['title'] }, parameter: 'sort[0]', message: /neither a group key nor an aggregate alias/ },
        { name: 'sort by the plain field of a bucket key', query: { groupBy: ['paidAt:month'], sort: ['paidAt'] }, parameter: 'sort[0]', message: /paidAt:month/ },
        { name: 'a key named twice', query: { groupBy: ['paid', 'paid'] }, parameter: 'groupBy[1]', message: /named twice/ },
        { name: 'groupFilter sort on an unknown field', query: { groupBy: ['paid'], populateGroup: true, groupFilter: { sort: ['nope'] } }, parameter: 'groupFilter[sort][0]', message: /unknown field/ },
        { name: 'aggregates without groupBy', query: { aggregates: ['amount:sum'] }, parameter: 'groupBy', message: /required/ },
      ];
      for (const c of cases) {
        it(c.name, async () => {
          const body = await find(c.query, 400);
          expect(body.error.details.parameter).to.equal(c.parameter);
          expect(body.error.message).to.match(c.message);
        });
      }
    });
  });
}
