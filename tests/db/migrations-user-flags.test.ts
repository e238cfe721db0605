/**
 * The identity plugin's account flags once accepted null. The `user-flags-not-null` migration stores
 * what every check read a NULL flag as (off): NULL becomes false, true and false stay, on every database.
 */
import { expect } from 'chai';
import { DIALECTS } from '../helpers/dialects';
import { aroundShippedMigration } from '../helpers/shipped-migrations';

const MIGRATION = /_user-flags-not-null\.js$/;
const FLAGS = ['active', 'force_password_change', 'email_verified', 'mobile_verified'] as const;
/** User n's flag k is VALUES[(n + k) % 3]: every column sees NULL, true and false. */
const VALUES = [null, true, false];

for (const dialect of DIALECTS) {
  describe(`migrations: NULL account flags become false [${dialect}]`, () => {
    it('NULL flags are stored as false; true and false stay', async function () {
      this.timeout(60_000);
      await aroundShippedMigration(
        dialect,
        MIGRATION,
        async (db) => {
          const now = new Date().toISOString();
          await db('users').insert(
            Array.from({ length: 6 }, (_, n) => ({
              created_at: now,
              updated_at: now,
              username: `u${n}`,
              email: `u${n}@example.com`,
              ...Object.fromEntries(FLAGS.map((f, k) => [f, VALUES[(n + k) % 3]])),
            })),
          );
        },
        async (db) => {
          const rows = (await db('users').select('username', ...FLAGS).orderBy('id')) as Record<string, unknown>[];
          expect(rows).to.have.length(6);
          rows.forEach((r, n) => {
            FLAGS.forEach((f, k) => {
              const before = VALUES[(n + k) % 3];
              expect(r[f] === null ? null : Boolean(r[f]), `${String(r.username)}.${f}`).to.equal(before === null ? false : before);
            });
          });
        },
      );
    });
  });
}
