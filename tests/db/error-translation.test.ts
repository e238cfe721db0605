/** Real unique / foreign-key / not-null violations on both databases become the same AppError (DESIGN habit 2). */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { loadConfig } from '../../config';
import { translateDbError } from '../../core/records/db-errors';
import { ConflictError, ValidationError } from '../../core/errors/errors';
import { connect } from '../../database/connect';
import type { Dialect } from '../../database/dialects/dialect';
import { prepareSchema } from '../../database/migrate';
import { loadRegistry } from '../../core/registry';
import type { Registry } from '../../core/registry/types';
import { DIALECTS } from '../helpers/dialects';
import { ROOT } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { join } from 'node:path';

for (const dialect of DIALECTS) {
  describe(`driver errors are translated [${dialect}]`, () => {
    let database: TestDatabase;
    let db: Knex;
    let d: Dialect;
    let registry: Registry;
    const now = new Date().toISOString();

    before(async () => {
      database = await createTestDatabase(dialect);
      const config = loadConfig({ ...database.env, IAM_JWT_SECRET: 'x'.repeat(32), NODE_ENV: 'test', MIGRATIONS_DIR: join(database.dir, 'm') }, ROOT);
      ({ db, dialect: d } = connect(config.database));
      registry = loadRegistry([{ dir: join(ROOT, 'content-types'), plugin: null }], ROOT);
      await prepareSchema(db, registry, { dir: config.migrationsDir, autoMigrate: true, allowDestructive: false });
      await db('institute').insert({ name: 'A', code: 'A', created_at: now, updated_at: now });
    });
    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    async function caught(fn: () => Promise<unknown>, model: string): Promise<unknown> {
      try {
        await fn();
      } catch (e) {
        try {
          translateDbError(e, d, registry.get(model)!);
        } catch (translated) {
          return translated;
        }
      }
      throw new Error('expected a driver error');
    }

    it('a unique violation → 409 naming the field', async () => {
      const err = await caught(() => db('institute').insert({ name: 'A', code: 'B', created_at: now, updated_at: now }), 'institute');
      expect(err).to.be.instanceOf(ConflictError);
      expect((err as ConflictError).details.fields).to.deep.equal({ name: ['is already taken'] });
    });

    it('a foreign key naming no record → 422', async () => {
      const err = await caught(() => db('fee_type').insert({ fee_type: 'x', institute_id: 9999, created_at: now, updated_at: now }), 'fee-type');
      expect(err).to.be.instanceOf(ValidationError);
    });

    it('a missing NOT NULL value → 422', async () => {
      const err = await caught(() => db('institute').insert({ name: 'C', code: 'C' }), 'institute');
      expect(err).to.be.instanceOf(ValidationError);
    });

    it('a data error (a value the column cannot hold) → 422 in our words; the driver text only as the cause', async () => {
      // SQLite: datatype mismatch on the integer primary key; PostgreSQL: 22P02 invalid input syntax.
      const err = await caught(() => db('institute').insert({ id: 'not-a-number', name: 'D', code: 'D', created_at: now, updated_at: now }), 'institute');
      expect(err).to.be.instanceOf(ValidationError);
      const e = err as ValidationError;
      expect(e.message).to.equal('institute: the database cannot store a value of this record');
      expect(e.details).to.deep.equal({ fields: { _body: ['a value is outside what its column can store'] } });
      expect(e.cause).to.be.instanceOf(Error);
      if (dialect === 'postgres') {
        const overflow = await caught(() => db('fee_type').insert({ fee_type: 'o', late_payment_fees: '99999999999999.99999', created_at: now, updated_at: now }), 'fee-type');
        expect(JSON.stringify((overflow as ValidationError).details)).to.not.contain('overflow');
      }
    });

    it('anything else is left alone (a 500 with a logged cause)', async () => {
      let raw: unknown;
      try {
        await db.raw('select * from no_such_table');
      } catch (e) {
        raw = e;
      }
      expect(() => translateDbError(raw, d, registry.get('institute')!)).to.throw(Error).that.satisfies((e: unknown) => e === raw);
    });
  });
}
