/**
 * QUERY_TIMEOUT at the driver level (database/connect.ts, dialects/sqlite-interrupt.ts): a statement
 * past the limit is stopped by the database and classified as a timeout (→ 504), inside a
 * transaction too, which then leaves nothing behind; the connection serves the next statement at once.
 * The HTTP side: tests/api/records/query-cost.test.ts.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { join } from 'node:path';
import { loadConfig } from '../../config';
import { QueryTimeoutError } from '../../core/errors/errors';
import { loadRegistry } from '../../core/registry';
import { translateDbError } from '../../core/records/db-errors';
import { connect } from '../../database/connect';
import type { Dialect } from '../../database/dialects/dialect';
import { prepareSchema } from '../../database/migrate';
import { DIALECTS } from '../helpers/dialects';
import { ROOT } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

const TIMEOUT_MS = 150;
/** Far more rows than either database inserts within the limit, made by one statement. */
const MANY = 20_000_000;

for (const dialect of DIALECTS) {
  describe(`QUERY_TIMEOUT stops a statement in the database [${dialect}]`, function () {
    this.timeout(60_000);
    let database: TestDatabase;
    let db: Knex;
    let d: Dialect;
    const now = new Date().toISOString();
    const registry = loadRegistry([{ dir: join(ROOT, 'content-types'), plugin: null }], ROOT);
    const feeType = registry.get('fee-type');
    const numbers = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)';
    const insert = "INSERT INTO fee_type (fee_type, created_at, updated_at, deleted_tracker) SELECT 'bulk ' || i, ?, ?, 'not-deleted' FROM n";
    const bigInsert = (k: Knex | Knex.Transaction) =>
      dialect === 'mysql'
        ? // MySQL: the WITH after INSERT INTO; MariaDB stops a recursion after max_recursive_iterations (1000), raised for this statement only.
          k.raw(`SET STATEMENT max_recursive_iterations = ? FOR ${insert.replace(' SELECT', ` ${numbers} SELECT`)}`, [MANY + 1, MANY, now, now])
        : k.raw(`${numbers} ${insert}`, [MANY, now, now]);

    before(async () => {
      database = await createTestDatabase(dialect);
      const config = loadConfig({ ...database.env, IAM_JWT_SECRET: 'x'.repeat(32), NODE_ENV: 'test', MIGRATIONS_DIR: join(database.dir, 'm'), QUERY_TIMEOUT: `${TIMEOUT_MS}ms` }, ROOT);
      expect(config.query.timeoutMs).to.equal(TIMEOUT_MS);
      ({ db, dialect: d } = connect(config.database, { queryTimeoutMs: config.query.timeoutMs }));
      await prepareSchema(db, registry, { dir: config.migrationsDir, autoMigrate: true, allowDestructive: false });
    });
    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    async function failure(work: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
      const started = Date.now();
      try {
        await work();
      } catch (error) {
        return { error, ms: Date.now() - started };
      }
      throw new Error('the statement was not stopped');
    }

    it('a long statement fails as a timeout (→ QueryTimeoutError), and the next statement runs at once', async () => {
      const { error } = await failure(() => bigInsert(db));
      expect(d.classifyError(error)).to.deep.equal({ kind: 'timeout' });
      expect(() => translateDbError(error, d, feeType!)).to.throw(QueryTimeoutError);
      if (dialect === 'postgres') {
        // cancelled on the server, not merely abandoned by the client: no backend runs it any more
        const running = await db.raw(`SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE ?`, [`%'bulk ' || i%`]);
        expect(Number(d.rawRows(running)[0].n)).to.equal(0);
      }
      if (dialect === 'mysql') {
        // stopped by the server (max_statement_time): no thread runs it any more
        const running = await db.raw(`SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND INFO LIKE ?`, [`%'bulk ' || i%`]);
        expect(Number(d.rawRows(running)[0].n)).to.equal(0);
      }
      const started = Date.now();
      const rows: unknown = await db('fee_type').count({ n: '*' });
      expect(Number((rows as { n: unknown }[])[0].n)).to.equal(0);
      expect(Date.now() - started).to.be.below(1000);
    });

    it('inside a transaction: the write is stopped, the transaction rejects with the timeout and leaves nothing behind', async () => {
      const { error } = await failure(() =>
        db.transaction(async (trx) => {
          await trx('fee_type').insert({ fee_type: 'first', created_at: now, updated_at: now, deleted_tracker: 'not-deleted' });
          await bigInsert(trx);
        }),
      );
      expect(d.classifyError(error), String(error)).to.deep.equal({ kind: 'timeout' });
      const rows: unknown = await db('fee_type').count({ n: '*' });
      expect(Number((rows as { n: unknown }[])[0].n)).to.equal(0);
      // the connection is in a clean state: a new transaction commits
      await db.transaction(async (trx) => {
        await trx('fee_type').insert({ fee_type: 'after', created_at: now, updated_at: now, deleted_tracker: 'not-deleted' });
      });
      expect((await db('fee_type').select('fee_type')).map((r: { fee_type: string }) => r.fee_type)).to.deep.equal(['after']);
    });

    it('a statement within the limit is untouched', async () => {
      const rows: unknown = await db.raw(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) SELECT count(*) AS c FROM n`);
      const list = d.rawRows(rows);
      expect(Number(list[0].c)).to.equal(1000);
    });
  });
}
