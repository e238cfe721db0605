/**
 * Realtime judges a filter on the record an event carries, in memory (core/realtime/snapshot-match.ts),
 * where it can. It must mean what Find's SQL means: over the seeded dataset, for every case of the filter
 * case table (tests/unit/query/filter.cases.ts) and every record as the API shows it, the in-memory
 * answer (when it gives one rather than leaving the case to the database) is whether the database's
 * compiled filter selects that record, on every database.
 */
import { expect } from 'chai';
import { filteredBase } from '../../core/query/compile-list';
import { proveTable } from '../../core/query/checked';
import { matchesSnapshot } from '../../core/realtime/snapshot-match';
import { DIALECTS } from '../helpers/dialects';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { type Dataset, seedDataset } from '../fixtures/query-dataset';
import { FIXTURE_DIR } from '../fixtures/query-oracle';
import { checkedFrom } from '../unit/query/compile-case';
import { FILTER_CASES } from '../unit/query/filter.cases';

for (const dialect of DIALECTS) {
  describe(`realtime: a filter judged in memory on a record agrees with the database [${dialect}]`, function () {
    this.timeout(120_000);
    let app: TestApp;
    let data: Dataset;
    let decidedCases = 0;

    before(async () => {
      app = await startTestApp(dialect, { contentTypesDir: FIXTURE_DIR });
      data = await seedDataset(app.http);
    });
    after(async () => app?.close());

    for (const c of FILTER_CASES) {
      it(c.name, async () => {
        const model = c.model ?? 'book';
        const q = checkedFrom(model, { filters: c.filters });
        const rows = (await filteredBase(app.deps.db, { table: proveTable(q.model.table), filter: q.filter, softDelete: 'inclusive' }, app.deps.dialect).select('t0.id')) as { id: number }[];
        const selected = new Set(rows.map((r) => Number(r.id)));
        let decided = 0;
        for (const record of data.records.get(model) ?? []) {
          const judged = matchesSnapshot(q.filter, q.model, record);
          if (judged === null) continue;
          decided += 1;
          expect(judged, `${JSON.stringify(c.filters)} on ${model} ${record.id}: ${JSON.stringify(record)}`).to.equal(selected.has(record.id));
        }
        if (decided > 0) decidedCases += 1;
      });
    }

    it('most cases are judged in memory (the rest: relations, json, left to the database)', () => {
      expect(decidedCases).to.be.greaterThan(FILTER_CASES.length * 0.5);
    });
  });
}
