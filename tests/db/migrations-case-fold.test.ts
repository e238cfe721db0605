/**
 * Issue 13 item 15 (part): a database made before the hidden case-fold columns existed, with rows
 * written without them, is backfilled by the migration that adds them (the shipped `case_fold` one
 * and any generated later), batch-wise, with the service's own fold; afterwards the `…i` operators
 * find those rows over HTTP on both databases.
 */
import { expect } from 'chai';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import qs from 'qs';
import { loadConfig } from '../../config';
import { connect } from '../../database/connect';
import { makeMigration, migrateLatest, migrateRollback } from '../../database/migrate';
import { BACKFILL_BATCH } from '../../database/schema/to-migration';
import { loadRegistry } from '../../core/registry';
import { foldText } from '../../core/registry/fold';
import { DIALECTS } from '../helpers/dialects';
import { ROOT, startTestApp } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

const SHIPPED = join(ROOT, 'database', 'migrations');
const FOLD_MIGRATION = /_case_fold\.js$/;
/** Enough rows for several backfill batches. */
const MANY = BACKFILL_BATCH * 2 + 17;

const connectTo = (database: TestDatabase): Knex => connect(loadConfig({ ...database.env, IAM_JWT_SECRET: 'x'.repeat(32), NODE_ENV: 'test' }, ROOT).database).db;

for (const dialect of DIALECTS) {
  describe(`migrations: case-fold columns of existing rows are backfilled [${dialect}]`, () => {
    it('the shipped case_fold migration fills rows written before it; the …i operators find them over HTTP', async function () {
      this.timeout(60_000);
      const database = await createTestDatabase(dialect);
      const dir = join(database.dir, 'migrations');
      mkdirSync(dir, { recursive: true });
      const files = readdirSync(SHIPPED).filter((f) => f.endsWith('.js')).sort();
      const at = files.findIndex((f) => FOLD_MIGRATION.test(f));
      expect(at, 'the shipped case_fold migration').to.be.greaterThan(0);
      const old = ['ÄRGER', 'Straße', 'ΟΔΟΣ', 'e\u0301cole', 'дом'];
      const db = connectTo(database);
      try {
        // The schema as it was before: every shipped migration older than case_fold.
        for (const f of files.slice(0, at)) copyFileSync(join(SHIPPED, f), join(dir, f));
        await migrateLatest(db, dir);
        const now = new Date().toISOString();
        const stamp = { created_at: now, updated_at: now };
        const [inst] = (await db('institute').insert({ ...stamp, name: 'ETH Zürich', code: 'ETHZ', city: null }).returning('id')) as ({ id: number } | number)[];
        const instituteId = typeof inst === 'object' ? inst.id : inst;
        await db('fee_type').insert(old.map((feeType) => ({ ...stamp, fee_type: feeType, institute_id: instituteId, late_payment_fees_type: feeType === 'дом' ? 'fixed' : null })));
        for (let i = 0; i < MANY; i += 100) {
          await db('fee_type').insert(Array.from({ length: Math.min(100, MANY - i) }, (_, k) => ({ ...stamp, fee_type: `Bulk Ü ${String(i + k).padStart(4, '0')}` })));
        }

        // The upgrade: the remaining shipped migrations.
        for (const f of files.slice(at)) copyFileSync(join(SHIPPED, f), join(dir, f));
        expect(await migrateLatest(db, dir)).to.include(files[at]);
        const rows = (await db('fee_type').select('fee_type', 'fee_type__fold', 'late_payment_fees_type', 'late_payment_fees_type__fold').orderBy('id')) as Record<string, string | null>[];
        expect(rows).to.have.length(old.length + MANY);
        for (const r of rows) {
          expect(r.fee_type__fold, String(r.fee_type)).to.equal(foldText(String(r.fee_type)));
          expect(r.late_payment_fees_type__fold).to.equal(r.late_payment_fees_type === null ? null : foldText(r.late_payment_fees_type));
        }
        const institute = (await db('institute').first('name__fold', 'code__fold', 'city__fold')) as Record<string, unknown>;
        expect(institute).to.deep.equal({ name__fold: 'eth zürich', code__fold: 'ethz', city__fold: null });
      } finally {
        await db.destroy();
      }

      // The service on the upgraded database: no further migration, and the old rows are found.
      const app = await startTestApp(dialect, { database });
      try {
        const find = async (filters: Record<string, unknown>): Promise<number> => {
          const res = await app.http.get(`/api/fee-type?${qs.stringify({ filters, limit: 1 }, { encodeValuesOnly: true })}`);
          expect(res.status, res.text).to.equal(200);
          return res.body.meta.totalRecords as number;
        };
        expect(readdirSync(dir).filter((f) => f.endsWith('.js'))).to.deep.equal(files);
        expect(await find({ feeType: { $eqi: 'ärger' } })).to.equal(1);
        expect(await find({ feeType: { $eqi: 'STRASSE' } })).to.equal(1);
        expect(await find({ feeType: { $endsWithi: 'ς' } })).to.equal(1);
        expect(await find({ feeType: { $eqi: 'École' } })).to.equal(1);
        expect(await find({ latePaymentFeesType: { $eqi: 'FIXED' } })).to.equal(1);
        expect(await find({ feeType: { $startsWithi: 'BULK ü' } })).to.equal(MANY);
        expect(await find({ institute: { name: { $containsi: 'ZÜRICH' } } })).to.equal(old.length);
      } finally {
        await app.close();
        await database.drop();
      }
    });

    it('a registry change that makes a text field filterable adds and backfills its fold; rollback drops it', async () => {
      const database = await createTestDatabase(dialect);
      const work = mkdtempSync(join(tmpdir(), 'ris-fold-'));
      const models = join(work, 'models');
      const migrations = join(work, 'migrations');
      const registryOf = (yaml: string) => {
        rmSync(models, { recursive: true, force: true });
        mkdirSync(models, { recursive: true });
        writeFileSync(join(models, 'gizmo.yaml'), yaml);
        return loadRegistry([{ dir: models, plugin: null }], models);
      };
      const db = connectTo(database);
      try {
        // A private field has no fold (nothing can filter on it) …
        makeMigration(registryOf('attributes:\n  nick: { type: string, private: true }\n  size: { type: integer }\n'), migrations, 'init', false);
        await migrateLatest(db, migrations);
        const now = new Date().toISOString();
        await db('gizmo').insert([{ created_at: now, updated_at: now, nick: 'ÅSA' }, { created_at: now, updated_at: now, nick: null }]);
        // … made public, it gets one, filled from the rows already there.
        const made = makeMigration(registryOf('attributes:\n  nick: { type: string }\n  size: { type: integer }\n'), migrations, 'public-nick', false);
        expect(made?.changes).to.deep.equal(['+ column gizmo.nick__fold']);
        await migrateLatest(db, migrations);
        expect(((await db('gizmo').select('nick__fold').orderBy('id')) as { nick__fold: string | null }[]).map((r) => r.nick__fold)).to.deep.equal(['åsa', null]);
        // Made private again: the fold goes, without counting as a destructive change.
        expect(makeMigration(registryOf('attributes:\n  nick: { type: string, private: true }\n  size: { type: integer }\n'), migrations, 'private-nick', false)?.changes).to.deep.equal(['- column gizmo.nick__fold']);
        await migrateLatest(db, migrations);
        expect(Object.keys((await db('gizmo').first()) as object)).to.not.include('nick__fold');
        await migrateRollback(db, migrations);
        expect(Object.keys((await db('gizmo').first()) as object)).to.include('nick__fold');
      } finally {
        await db.destroy();
        await database.drop();
        rmSync(work, { recursive: true, force: true });
      }
    });
  });
}
