/**
 * The filter case table (tests/unit/query/filter.cases.ts) on live SQLite and PostgreSQL over the seeded
 * dataset: each database returns exactly the in-memory oracle's ids, so the two agree with each other.
 */
import { expect } from 'chai';
import { filteredBase } from '../../core/query/compile-list';
import { proveTable } from '../../core/query/checked';
import { DIALECTS } from '../helpers/dialects';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { seedDataset } from '../fixtures/query-dataset';
import { FIXTURE_DIR, Oracle } from '../fixtures/query-oracle';
import { checkedFrom } from '../unit/query/compile-case';
import { FILTER_CASES } from '../unit/query/filter.cases';

const answers = new Map<string, Map<string, number[]>>();

for (const dialect of DIALECTS) {
  describe(`query agreement: filter cases on a live database [${dialect}]`, () => {
    let app: TestApp;
    let oracle: Oracle;
    const mine = new Map<string, number[]>();
    answers.set(dialect, mine);

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: FIXTURE_DIR });
      oracle = new Oracle(await seedDataset(app.http));
    });
    after(async () => app?.close());

    for (const c of FILTER_CASES) {
      it(c.name, async () => {
        const model = c.model ?? 'book';
        const q = checkedFrom(model, { filters: c.filters });
        const rows = (await filteredBase(app.deps.db, { table: proveTable(q.model.table), filter: q.filter, softDelete: 'active' }, app.deps.dialect).select('t0.id').orderBy('t0.id')) as { id: number }[];
        const ids = rows.map((r) => Number(r.id));
        mine.set(c.name, ids);
        expect(ids, JSON.stringify(c.filters)).to.deep.equal(oracle.ids(model, c.filters));
      });
    }

    it('the cases are not vacuous: most select some but not all records', () => {
      const sizes = FILTER_CASES.map((c) => mine.get(c.name)?.length ?? 0);
      expect(sizes.filter((n) => n > 0).length).to.be.greaterThan(FILTER_CASES.length * 0.8);
    });
  });
}

if (DIALECTS.length > 1) {
  describe('query agreement: SQLite and PostgreSQL return the same ids', () => {
    it('for every case', () => {
      const [a, b] = DIALECTS.map((d) => answers.get(d) as Map<string, number[]>);
      for (const c of FILTER_CASES) expect(a.get(c.name), c.name).to.deep.equal(b.get(c.name));
    });
  });
}
