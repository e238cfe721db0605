/**
 * Issue 17: a list sorted by an `index: true` column (fee-type dueDate) reads that column's index in
 * the sort's order on every database, with no sort step of its own: on PostgreSQL the index keeps
 * NULLs first (IndexDef.nullsFirst), the order the service sorts in (NULL is the smallest value), so
 * `due_date DESC NULLS LAST` is the index read backwards. The plan is asked of each database for the
 * very statement the request sent.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { seed } from '../../../bench/seed';
import { DIALECTS } from '../../helpers/dialects';
import { onEveryStatement } from '../../helpers/request-queries';
import { startTestApp, type TestApp } from '../../helpers/test-app';

interface Sent {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

/** The plan as text; where a statement sorts on its own it says so in each database's words. */
async function plan(db: Knex, dialect: string, q: Sent): Promise<string> {
  const sql = q.sql.replace(/\$\d+/g, '?');
  if (dialect === 'postgres') return ((await db.raw(`EXPLAIN ${sql}`, q.bindings as Knex.RawBinding[])) as { rows: { 'QUERY PLAN': string }[] }).rows.map((r) => r['QUERY PLAN']).join('\n');
  if (dialect === 'sqlite') return ((await db.raw(`EXPLAIN QUERY PLAN ${sql}`, q.bindings as Knex.RawBinding[])) as { detail: string }[]).map((r) => r.detail).join('\n');
  const [rows] = (await db.raw(`EXPLAIN ${sql}`, q.bindings as Knex.RawBinding[])) as [{ Extra: string | null; key: string | null }[]];
  return rows.map((r) => `key=${r.key} ${r.Extra ?? ''}`).join('\n');
}

const SORTS_ITSELF: Record<string, RegExp> = { postgres: /\bSort\b/, sqlite: /TEMP B-TREE FOR ORDER BY/, mysql: /filesort/ };

for (const dialect of DIALECTS) {
  describe(`a sort by an indexed column reads the index in order [${dialect}]`, function () {
    this.timeout(60_000);
    let app: TestApp;

    before(async () => {
      app = await startTestApp(dialect);
      await seed(app.deps.db, 5000, true);
      await app.deps.dialect.analyze(app.deps.db, ['fee_type', 'institute']);
    });
    after(async () => {
      await app?.close();
    });

    const pageStatement = async (path: string): Promise<{ body: any; page: Sent }> => {
      const sent: Sent[] = [];
      const listen = (q: Sent): void => {
        sent.push(q);
      };
      const stop = onEveryStatement(app.deps, listen);
      let res;
      try {
        res = await app.http.get(path);
      } finally {
        stop();
      }
      expect(res.status, res.text).to.equal(200);
      const page = sent.find((q) => /^select\b/i.test(q.sql) && /\bfee_type\b/.test(q.sql) && /order by/i.test(q.sql));
      expect(page, sent.map((q) => q.sql).join('\n')).to.not.equal(undefined);
      return { body: res.body, page: page! };
    };

    for (const [label, path] of [
      ['newest due date first', '/api/fee-type?sort[0]=-dueDate&limit=10'],
      ['oldest due date first', '/api/fee-type?sort[0]=dueDate&limit=10'],
    ] as const) {
      it(`${label}: no sort step, and the order is the service's (NULLs smallest)`, async () => {
        const { body, page } = await pageStatement(path);
        const text = await plan(app.deps.db, dialect, page);
        expect(text, text).to.not.match(SORTS_ITSELF[dialect]);
        const days = (body.records as { dueDate: string | null }[]).map((r) => r.dueDate);
        const sorted = [...days].sort((a, b) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1));
        expect(days).to.deep.equal(label.startsWith('newest') ? sorted.reverse() : sorted);
      });
    }

    it('a record without a due date comes last newest-first and first oldest-first (the index keeps that order)', async () => {
      const created = await app.http.post('/api/fee-type', { feeType: 'No due date' });
      expect(created.status, created.text).to.equal(200);
      const id = created.body.data.id as number;
      const oldest = await app.http.get('/api/fee-type?sort[0]=dueDate&limit=1');
      expect(oldest.body.records[0].id).to.equal(id);
      const newest = await app.http.get(`/api/fee-type?sort[0]=-dueDate&limit=1&page=${oldest.body.meta.totalRecords}`);
      expect(newest.body.records[0].id).to.equal(id);
    });
  });
}
