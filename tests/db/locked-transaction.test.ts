/**
 * Dialect.lockedTransaction (the access-rules file applied at every node's start): transactions of one lock
 * name run one after the other, each seeing what the one before committed (the read-decide-write a second
 * node must not repeat), also after a rollback; other names and other databases do not wait for it; the
 * connection goes back to the pool.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { loadConfig } from '../../config';
import { connect } from '../../database/connect';
import type { Dialect } from '../../database/dialects/dialect';
import { DIALECTS } from '../helpers/dialects';
import { ROOT } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

const TABLE = 'lock_probe';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

for (const dialect of DIALECTS) {
  describe(`Dialect.lockedTransaction [${dialect}]`, () => {
    let database: TestDatabase;
    let db: Knex;
    let other: Knex;
    let sql: Dialect;

    before(async () => {
      database = await createTestDatabase(dialect);
      const config = loadConfig({ ...database.env, IAM_JWT_SECRET: 'x'.repeat(32), NODE_ENV: 'test' }, ROOT).database;
      // two pools on one database: two nodes
      ({ db, dialect: sql } = connect(config, { poolMax: 4 }));
      ({ db: other } = connect(config, { poolMax: 4 }));
      await db.schema.createTable(TABLE, (t) => {
        t.increments('id');
        t.string('name').notNullable();
      });
    });
    after(async () => {
      await db?.destroy();
      await other?.destroy();
      await database?.drop();
    });
    beforeEach(async () => {
      await db(TABLE).del();
    });

    /** Inserts `name` unless a row of that name is there (no unique key): what two nodes must not both do. */
    const once = (k: Knex, name: string, log: string[], fail = false) =>
      sql.lockedTransaction(k, 'probe', async (trx) => {
        log.push(`start ${name}`);
        const there = await trx(TABLE).where('name', 'x').first();
        await sleep(150);
        if (!there) await trx(TABLE).insert({ name: 'x' });
        log.push(`end ${name}`);
        if (fail) throw new Error('rolled back');
        return !there;
      });

    it('two at once (two pools: two nodes) run one after the other; the second sees the first one commit', async () => {
      const log: string[] = [];
      const made = await Promise.all([once(db, 'a', log), once(other, 'b', log), once(db, 'c', log)]);
      expect(made.filter(Boolean)).to.have.length(1);
      expect(await db(TABLE).count({ n: '*' })).to.satisfy((r: { n: unknown }[]) => Number(r[0].n) === 1);
      // never interleaved: each start is followed by its own end
      for (let i = 0; i < log.length; i += 2) expect(log[i + 1]).to.equal(log[i].replace('start', 'end'));
    });

    it('a rolled-back one releases the lock and leaves nothing; the next one does the work', async () => {
      const log: string[] = [];
      const [first, second] = await Promise.allSettled([once(db, 'a', log, true), (async () => (await sleep(30), once(other, 'b', log)))()]);
      expect(first.status).to.equal('rejected');
      expect(second).to.deep.equal({ status: 'fulfilled', value: true });
      expect(await db(TABLE).count({ n: '*' })).to.satisfy((r: { n: unknown }[]) => Number(r[0].n) === 1);
    });

    it('answers what the work answers, and leaves the pool usable (locks released: many in a row)', async () => {
      for (let i = 0; i < 12; i++) expect(await sql.lockedTransaction(db, 'probe', async (trx) => (await trx(TABLE).count({ n: '*' }), i))).to.equal(i);
      expect(await sql.lockedTransaction(other, 'probe', async () => 'free')).to.equal('free');
    });

    if (dialect !== 'sqlite') {
      it('another lock name does not wait', async () => {
        let inside = false;
        const long = sql.lockedTransaction(db, 'probe', async () => {
          inside = true;
          await sleep(400);
        });
        while (!inside) await sleep(5);
        const t0 = Date.now();
        await sql.lockedTransaction(other, 'another', async (trx) => trx(TABLE).count({ n: '*' }));
        expect(Date.now() - t0).to.be.below(300);
        await long;
      });
    }
  });
}
