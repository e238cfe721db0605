/**
 * The connections database/connect.ts makes: a write transaction that read first waits for another
 * process's write and then succeeds (SQLite: BEGIN IMMEDIATE, dialects/sqlite-client.ts; elsewhere row
 * locks), and SQLite's read-only connections (SQLITE_READERS): present on a file, absent in memory or
 * at 0, and unable to write.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { loadConfig } from '../../config';
import type { DatabaseTarget } from '../../config/schema';
import { connect } from '../../database/connect';
import { DIALECTS } from '../helpers/dialects';
import { ROOT } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

const TABLE = 'connection_probe';

for (const dialect of DIALECTS) {
  describe(`database connections [${dialect}]`, () => {
    let database: TestDatabase;
    let target: DatabaseTarget;
    const opened: Knex[] = [];
    const open = (sqliteReaders = 0, at: DatabaseTarget = target) => {
      const c = connect(at, { poolMax: 4, sqliteReaders });
      opened.push(c.db, ...(c.readDb ? [c.readDb] : []));
      return c;
    };

    before(async () => {
      database = await createTestDatabase(dialect);
      target = loadConfig({ ...database.env, IAM_JWT_SECRET: 'x'.repeat(32), NODE_ENV: 'test' }, ROOT).database;
      await open().db.schema.createTable(TABLE, (t) => {
        t.increments('id');
        t.string('name').notNullable();
      });
    });
    after(async () => {
      for (const k of opened) await k.destroy();
      await database?.drop();
    });

    it('a transaction that reads, then writes while another process holds a write, waits its turn and succeeds', async () => {
      // Two connects: two processes (nodes) on one database, each with its own writing connection.
      const [a, b] = [open().db, open().db];
      const [id] = (await a(TABLE).insert({ name: 'first' }).returning('id')).map((r: { id: number } | number) => (typeof r === 'object' ? r.id : r));
      let bCommitted = false;
      let holding: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        holding = resolve;
      });
      const other = b.transaction(async (trx) => {
        await trx(TABLE).where({ id }).update({ name: 'by b' });
        holding();
        await new Promise((r) => setTimeout(r, 300));
        bCommitted = true;
      });
      await held;
      await a.transaction(async (trx) => {
        await trx(TABLE).count({ n: '*' });
        await trx(TABLE).where({ id }).update({ name: 'by a' });
      });
      await other;
      expect(bCommitted).to.equal(true);
      expect((await a(TABLE).where({ id }).first()).name).to.equal('by a');
    });

    if (dialect === 'sqlite') {
      it('SQLite on a file: SQLITE_READERS read-only connections beside the writer; none at 0 or in memory', async () => {
        const withReaders = open(2);
        expect(withReaders.readDb).to.not.equal(undefined);
        expect((await withReaders.readDb!(TABLE).count({ n: '*' }))[0].n).to.be.a('number');
        let refused: unknown = null;
        await withReaders.readDb!(TABLE)
          .insert({ name: 'through a reader' })
          .catch((e: unknown) => {
            refused = e;
          });
        expect(String(refused)).to.match(/SQLITE_READONLY/);
        expect(open(0).readDb).to.equal(undefined);
        expect(open(2, { client: 'sqlite', filename: ':memory:' }).readDb).to.equal(undefined);
      });
    }
  });
}
