/**
 * Real unique / foreign-key / not-null violations on every database become the same AppError (DESIGN habit
 * 2); a real deadlock, serialization failure or lock wait past its limit becomes 503 WriteConflictError.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { loadConfig } from '../../config';
import { translateDbError } from '../../core/records/db-errors';
import { ConflictError, ValidationError, WriteConflictError } from '../../core/errors/errors';
import { connect } from '../../database/connect';
import type { Dialect } from '../../database/dialects/dialect';
import { prepareSchema } from '../../database/migrate';
import { loadRegistry } from '../../core/registry';
import type { Registry } from '../../core/registry/types';
import { DIALECTS } from '../helpers/dialects';
import { ROOT } from '../helpers/test-app';
import { meetingPoint } from '../helpers/meet';
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

    /** A new institute's id. */
    const institute = async (code: string): Promise<number> => Number((await d.insertReturning(db, 'institute', { name: code, code, created_at: now, updated_at: now }, ['id'])).id);
    /** The rejection of `p`, translated; undefined when it went through. */
    const translatedFailure = async (p: Promise<unknown>): Promise<unknown> => {
      try {
        await p;
        return undefined;
      } catch (e) {
        return caught(() => Promise.reject(e), 'institute');
      }
    };

    it('a deadlock → 503 WriteConflictError (reason deadlock), the other transaction goes through; SQLite runs the two one after the other', async () => {
      const [x, y] = [await institute('DL-X'), await institute('DL-Y')];
      const meet = meetingPoint(1000);
      const crossing = (first: number, second: number): Promise<void> =>
        db.transaction(async (trx) => {
          await trx('institute').where('id', first).update({ city: 'first' });
          await meet();
          await trx('institute').where('id', second).update({ city: 'second' });
        });
      const failures = await Promise.all([translatedFailure(crossing(x, y)), translatedFailure(crossing(y, x))]);
      if (!d.rowLocks) {
        expect(failures).to.deep.equal([undefined, undefined]);
        return;
      }
      const failed = failures.filter((f) => f !== undefined);
      expect(failed).to.have.length(1);
      expect(failed[0]).to.be.instanceOf(WriteConflictError);
      expect(failed[0]).to.deep.include({ status: 503, reason: 'deadlock' });
      expect((failed[0] as WriteConflictError).details).to.deep.equal({ reason: 'deadlock', retryable: true, retryAfterSeconds: 1 });
    });

    it('rows the dialect locks (lockRows) are taken in id order: two lockers of the same rows queue instead of deadlocking', async () => {
      const ids = [await institute('LR-1'), await institute('LR-2'), await institute('LR-3')];
      const meet = meetingPoint(300);
      const locker = (order: number[]): Promise<void> =>
        db.transaction(async (trx) => {
          await d.lockRows(trx, 'institute', order);
          await meet();
          for (const id of order) await trx('institute').where('id', id).update({ city: `locked ${order.join(',')}` });
        });
      expect(await Promise.all([translatedFailure(locker(ids)), translatedFailure(locker([...ids].reverse()))])).to.deep.equal([undefined, undefined]);
    });

    if (dialect !== 'sqlite') {
      // SQLite has one writer at a time: it never makes a transaction wait for a row, nor fails it for a concurrent one.
      it('a lock not had within the session\'s limit → 503 WriteConflictError (reason lockTimeout)', async () => {
        const id = await institute('LT-1');
        const holder = await db.transaction();
        try {
          await holder('institute').where('id', id).update({ city: 'held' });
          const failure = await translatedFailure(
            db.transaction(async (trx) => {
              await trx.raw(dialect === 'postgres' ? "SET LOCAL lock_timeout = '200ms'" : 'SET SESSION innodb_lock_wait_timeout = 1');
              try {
                await trx('institute').where('id', id).update({ city: 'waited' });
              } finally {
                if (dialect === 'mysql') await trx.raw('SET SESSION innodb_lock_wait_timeout = DEFAULT').catch(() => undefined);
              }
            }),
          );
          expect(failure).to.be.instanceOf(WriteConflictError);
          expect(failure).to.deep.include({ reason: 'lockTimeout' });
        } finally {
          await holder.rollback();
        }
      });

      it('a serialization failure (a row changed since the transaction read it) → 503 WriteConflictError (reason serialization)', async () => {
        const id = await institute('SF-1');
        const meet = meetingPoint(5000);
        // MariaDB reports a lost update only with innodb_snapshot_isolation (its default from 11.6 on)
        const reader = db.transaction(
          async (trx) => {
            if (dialect === 'mysql') await trx.raw('SET SESSION innodb_snapshot_isolation = ON');
            try {
              await trx('institute').where('id', id).first('city');
              await meet();
              await trx('institute').where('id', id).update({ city: 'reader' });
            } finally {
              if (dialect === 'mysql') await trx.raw('SET SESSION innodb_snapshot_isolation = DEFAULT');
            }
          },
          { isolationLevel: 'repeatable read' },
        );
        await new Promise((r) => setTimeout(r, 100));
        await db('institute').where('id', id).update({ city: 'writer' });
        await meet();
        const failure = await translatedFailure(reader);
        expect(failure).to.be.instanceOf(WriteConflictError);
        expect(failure).to.deep.include({ reason: 'serialization' });
        expect((await db('institute').where('id', id).first('city')).city).to.equal('writer');
      });
    }

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
