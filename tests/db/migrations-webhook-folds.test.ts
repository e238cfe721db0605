/**
 * A delivery's claim and attempts once wrote `status` and `last_error` without their case-fold shadow
 * columns. The `webhook-delivery-folds` migration recomputes both for existing rows (several batches
 * here), with the service's own fold, on every database.
 */
import { expect } from 'chai';
import { foldText } from '../../core/registry/fold';
import { DIALECTS } from '../helpers/dialects';
import { aroundShippedMigration } from '../helpers/shipped-migrations';

const MIGRATION = /_webhook-delivery-folds\.js$/;
/** More rows than the migration's batch (300). */
const ROWS = 650;

for (const dialect of DIALECTS) {
  describe(`migrations: webhook delivery folds are recomputed [${dialect}]`, () => {
    it('rows with stale status / last_error folds get the fold of their values; NULL stays NULL', async function () {
      this.timeout(60_000);
      await aroundShippedMigration(
        dialect,
        MIGRATION,
        async (db) => {
          const now = new Date().toISOString();
          const errors = ['Receiver answered 500', 'ZEIT ÜBERSCHRITTEN', null];
          for (let i = 0; i < ROWS; i += 100) {
            const rows = Array.from({ length: Math.min(100, ROWS - i) }, (_, k) => {
              const n = i + k;
              return {
                created_at: now,
                updated_at: now,
                webhook_id: 1,
                event_id: n + 1,
                status: n % 2 ? 'succeeded' : 'failed',
                status__fold: 'pending',
                attempt_count: 1,
                attempts: '[]',
                last_error: errors[n % 3],
                last_error__fold: 'stale',
              };
            });
            await db('webhook_deliveries').insert(rows);
          }
        },
        async (db) => {
          const rows = (await db('webhook_deliveries').select('status', 'status__fold', 'last_error', 'last_error__fold').orderBy('id')) as Record<string, string | null>[];
          expect(rows).to.have.length(ROWS);
          for (const r of rows) {
            expect(r.status__fold).to.equal(r.status);
            expect(r.last_error__fold).to.equal(r.last_error === null ? null : foldText(r.last_error));
          }
          expect(rows[1].last_error__fold).to.equal('zeit überschritten');
        },
      );
    });
  });
}
