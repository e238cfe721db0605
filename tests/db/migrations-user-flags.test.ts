/**
 * The identity plugin's account flags once accepted null. The `user-flags-not-null` migration stores
 * what every check read a NULL flag as (off): NULL becomes false, true and false stay, on every database.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { loadConfig } from '../../config';
import { connect } from '../../database/connect';
import { DIALECTS } from '../helpers/dialects';
import { ROOT } from '../helpers/test-app';
import { shippedMigrationsAround } from '../helpers/shipped-migrations';
import { createTestDatabase } from '../helpers/test-db';

const MIGRATION = /_user-flags-not-null\.js$/;
const FLAGS = ['active', 'force_password_change', 'email_verified', 'mobile_verified'] as const;

for (const dialect of DIALECTS) {
  describe(`migrations: NULL account flags become false [${dialect}]`, () => {
    it('NULL flags are stored as false; true and false stay', async function () {
      this.timeout(60_000);
      const database = await createTestDatabase(dialect);
      const shipped = shippedMigrationsAround(database.dir, MIGRATION);
      const db: Knex = connect(loadConfig({ ...database.env, IAM_JWT_SECRET: 'x'.repeat(32), NODE_ENV: 'test' }, ROOT).database).db;
      try {
        await shipped.before(db);
        const now = new Date().toISOString();
        // user n: each flag NULL, true or false by turns, so every column sees all three values
        const values = [null, true, false];
        await db('users').insert(
          Array.from({ length: 6 }, (_, n) => ({
            created_at: now,
            updated_at: now,
            username: `u${n}`,
            email: `u${n}@example.com`,
            ...Object.fromEntries(FLAGS.map((f, k) => [f, values[(n + k) % 3]])),
          })),
        );
        await shipped.rest(db);
        const rows = (await db('users').select('username', ...FLAGS).orderBy('id')) as Record<string, unknown>[];
        expect(rows).to.have.length(6);
        rows.forEach((r, n) => {
          FLAGS.forEach((f, k) => {
            const before = values[(n + k) % 3];
            expect(r[f] === null ? null : Boolean(r[f]), `${String(r.username)}.${f}`).to.equal(before === null ? false : before);
          });
        });
      } finally {
        await db.destroy();
        await database.drop();
      }
    });
  });
}
