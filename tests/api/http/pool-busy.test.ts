/**
 * A pool whose every connection is held by work on a live server is busy, not down (database/pool-busy.ts).
 * With DATABASE_POOL_MAX=2, two list requests that wait on a table lock held elsewhere hold the whole
 * pool (the limit: both run). A third request (one past it) cannot have a connection within the acquire
 * bound: it answers 503 ServiceBusyError naming DATABASE_POOL_MAX with `Retry-After: 1`, never "the
 * database is unavailable"; /health/ready still answers 200 (the server is asked on a connection of its
 * own) and says the pool is busy. When the lock goes, the held requests answer 200 and so does the next one.
 *
 * PostgreSQL and MariaDB: SQLite has no pool to exhaust in this sense (one writer in the process, and
 * its readers do not wait on another process's locks in WAL mode). On SQLite, the one writer held by a
 * long write does not make /health/ready fail: it asks a reader.
 */
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import { DIALECTS, TEST_DATABASE_URL } from '../../helpers/dialects';
import { startTestApp, type TestApp } from '../../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db';

const POOLED = DIALECTS.filter((d): d is 'postgres' | 'mysql' => d !== 'sqlite');

/** Holds fee_type from a connection of the test's own, so that every read of it waits; answers the release. */
async function lockFeeTypes(dialect: 'postgres' | 'mysql', env: Record<string, string>): Promise<{ release(): Promise<void> }> {
  if (dialect === 'postgres') {
    const locker: Knex = knex({ client: 'pg', connection: TEST_DATABASE_URL, searchPath: [env.DATABASE_SCHEMA], pool: { min: 0, max: 1 } });
    const trx = await locker.transaction();
    await trx.raw('LOCK TABLE fee_type IN ACCESS EXCLUSIVE MODE');
    return {
      async release() {
        await trx.commit();
        await locker.destroy();
      },
    };
  }
  // the locker's one connection holds the table lock until UNLOCK TABLES
  const locker: Knex = knex({ client: 'mysql2', connection: env.DATABASE_URL, pool: { min: 1, max: 1 } });
  await locker.raw('LOCK TABLES fee_type WRITE');
  return {
    async release() {
      await locker.raw('UNLOCK TABLES');
      await locker.destroy();
    },
  };
}

for (const dialect of POOLED) {
  describe(`a busy pool answers 503 busy, not unavailable; /health/ready stays 200 [${dialect}]`, function () {
    this.timeout(30_000);
    let database: TestDatabase;
    let app: TestApp;
    before(async () => {
      database = await createTestDatabase(dialect);
      app = await startTestApp(dialect, { database, env: { DATABASE_POOL_MAX: '2' } });
    });
    after(async () => {
      await app?.close();
      await database?.drop();
    });

    it('two requests hold the pool of 2 and answer 200; a third answers 503 ServiceBusyError naming DATABASE_POOL_MAX', async () => {
      // the admin's session is looked up (and cached) before the pool is taken
      expect((await app.http.get('/api/institute?limit=1')).status).to.equal(200);
      const lock = await lockFeeTypes(dialect, database.env);
      let held: Promise<{ status: number }[]> | null = null;
      try {
        held = Promise.all([app.http.get('/api/fee-type?limit=1'), app.http.get('/api/fee-type?limit=2')]);
        await new Promise((r) => setTimeout(r, 300));
        const started = Date.now();
        const past = await app.http.get('/api/institute?limit=1');
        const waited = Date.now() - started;
        expect(past.status, past.text).to.equal(503);
        expect(past.body.error.name).to.equal('ServiceBusyError');
        expect(past.body.error.message).to.contain('busy').and.contain('DATABASE_POOL_MAX').and.not.contain('unavailable');
        expect(past.body.error.details).to.include({ reason: 'busy', limit: 'databaseConnections', setting: 'DATABASE_POOL_MAX', retryable: true });
        expect(past.headers.get('retry-after')).to.equal('1');
        expect(waited, 'it waited for a slot for the acquire bound, not longer').to.be.within(1000, 5000);

        const readyAt = Date.now();
        const ready = await app.anon.get('/health/ready');
        expect(ready.status, ready.text).to.equal(200);
        expect(ready.body).to.deep.equal({ status: 'ready', pool: 'busy' });
        expect(Date.now() - readyAt, '/health/ready answers within its second').to.be.below(1100);
      } finally {
        await lock.release();
      }
      const answers = await (held as Promise<{ status: number }[]>);
      expect(answers.map((a) => a.status), 'the two that held the pool').to.deep.equal([200, 200]);
      expect((await app.http.get('/api/institute?limit=1')).status).to.equal(200);
      const ready = await app.anon.get('/health/ready');
      expect(ready.body).to.deep.equal({ status: 'ready' });
    });

    it('DATABASE_POOL_MAX is checked at start: 0 stops it naming the setting', async () => {
      let failure: unknown = null;
      try {
        const extra = await startTestApp(dialect, { database, env: { DATABASE_POOL_MAX: '0' } });
        await extra.close();
      } catch (e) {
        failure = e;
      }
      expect(String(failure)).to.contain('DATABASE_POOL_MAX');
    });
  });
}

if (DIALECTS.includes('sqlite')) {
  describe('SQLite: a long write elsewhere: writes answer busy, /health/ready answers from a reader [sqlite]', function () {
    this.timeout(30_000);
    let app: TestApp;
    before(async () => {
      app = await startTestApp('sqlite');
    });
    after(async () => app?.close());

    it('a write that waits past busy_timeout for a lock another process holds answers 503 ServiceBusyError; reads go on; then it writes', async () => {
      const file = app.env.DATABASE_URL.replace(/^sqlite:/, '');
      const other: Knex = knex({ client: 'sqlite3', connection: { filename: file }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
      try {
        await other.raw('BEGIN IMMEDIATE');
        const read = await app.http.get('/api/fee-type?limit=1');
        expect(read.status, 'a reader reads beside the lock').to.equal(200);
        const refused = await app.http.post('/api/fee-type', { feeType: 'while locked' });
        expect(refused.status, refused.text).to.equal(503);
        expect(refused.body.error.name).to.equal('ServiceBusyError');
        expect(refused.body.error.message).to.contain('busy').and.not.contain('unavailable');
        expect(refused.body.error.details).to.include({ reason: 'busy', retryable: true });
        expect(refused.headers.get('retry-after')).to.equal('1');
      } finally {
        await other.raw('ROLLBACK').catch(() => undefined);
        await other.destroy();
      }
      const written = await app.http.post('/api/fee-type', { feeType: 'after the lock' });
      expect(written.status, written.text).to.equal(200);
      expect((await app.http.get('/api/fee-type?filters[feeType][$eq]=while locked')).body.records, 'nothing of the refused write').to.deep.equal([]);
    });

    it('200 within its second while the one writing connection is held', async () => {
      const trx = await app.deps.db.transaction();
      try {
        const started = Date.now();
        const ready = await app.anon.get('/health/ready');
        expect(ready.status, ready.text).to.equal(200);
        expect(ready.body).to.deep.equal({ status: 'ready' });
        expect(Date.now() - started).to.be.below(1000);
      } finally {
        await trx.rollback();
      }
    });
  });
}
