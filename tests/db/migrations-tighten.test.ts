/**
 * Tightening a model over rows that break the new rule (tests/fixtures/tighten/before → one folder a rule):
 * `required`, fewer `enumeration` values, a lower `maxLength`, a `min` / `max`, `unique`. Before the
 * migration changes anything the rows that break the rule are counted; the start (and `admin-cli
 * migrate:latest`) stops with one line naming the model, the attribute, the rule, how many rows and which
 * ids, and what to do; the database stays as it was. Rows that satisfy the rule migrate as before.
 */
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { loadConfig } from '../../config';
import { connect } from '../../database/connect';
import { makeMigration } from '../../database/migrate';
import { modelSources } from '../../core/boot';
import { loadRegistry } from '../../core/registry';
import { reservedModelNames } from '../../core/api-segments';
import { enabledPlugins } from '../../config/plugins';
import { runCli } from '../helpers/admin-cli';
import { DIALECTS } from '../helpers/dialects';
import { ROOT, TEST_JWT_SECRET, startTestApp, type TestApp } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

const TIGHTEN = join(ROOT, 'tests', 'fixtures', 'tighten');

/** Each folder's change, and what its refusal must say (besides the model file, the count and the ids). */
const CASES: readonly { folder: string; says: readonly RegExp[] }[] = [
  { folder: 'required', says: [/gadget\.name is now required: 1 row has no value \(id R2\)/] },
  { folder: 'enumeration', says: [/gadget\.kind now allows only small, large: 2 rows hold another value \(ids R2, R3\)/] },
  { folder: 'max-length', says: [/gadget\.code now has maxLength 5: 2 rows are longer \(ids R2, R3\)/] },
  { folder: 'range', says: [/gadget\.size now has min 0: 1 row is below it \(id R3\)/, /gadget\.size now has max 10: 1 row is above it \(id R2\)/] },
  { folder: 'unique', says: [/gadget\.serial is now unique: 2 rows share a value \(ids R2, R3\)/] },
];

for (const dialect of DIALECTS) {
  describe(`tightening a model over rows that break the new rule [${dialect}]`, function () {
    this.timeout(120_000);
    let database: TestDatabase;
    let db: Knex;
    const ids: number[] = [];
    const dir = (): string => join(database.dir, 'migrations');
    const files = (): string[] => readdirSync(dir()).sort();
    const rows = async (): Promise<unknown[]> => db('gadget').select('id', 'name', 'kind', 'code', 'size', 'serial').orderBy('id');
    /** Everything a refused change must leave as it was. */
    const state = async (): Promise<unknown> => ({
      files: files(),
      applied: (await db('knex_migrations').select('name').orderBy('id')).map((r: { name: string }) => r.name),
      rows: await rows(),
      columns: await db('gadget').columnInfo(),
      indexes: dialect === 'sqlite' ? await db.raw("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'gadget' ORDER BY name") : null,
    });
    const ided = (re: RegExp): RegExp => new RegExp(re.source.replace(/R(\d)/g, (_, n: string) => String(ids[Number(n) - 1])));

    before(async () => {
      database = await createTestDatabase(dialect);
      const app = await startTestApp(dialect, { database, contentTypesDir: join(TIGHTEN, 'before') });
      try {
        const write = async (body: Record<string, unknown>): Promise<void> => {
          const res = await app.http.post('/api/gadget', body);
          expect(res.status, res.text).to.equal(200);
          ids.push(res.body.data.id as number);
        };
        await write({ name: 'one', kind: 'small', code: 'abc', size: 5, serial: 's1' });
        await write({ kind: 'medium', code: 'abcdefgh', size: 50, serial: 'dup' });
        await write({ name: 'three', kind: 'medium', code: 'abcdefghij', size: -3, serial: 'dup' });
        // at the new limits, NULL serial, five two-byte characters (maxLength counts characters)
        await write({ name: 'four', kind: 'large', code: 'ééééé', size: 10 });
        await write({ name: 'five', kind: 'small', code: 'abcde', size: 0 });
      } finally {
        await app.close();
      }
      db = connect(loadConfig({ ...database.env, IAM_JWT_SECRET: TEST_JWT_SECRET, NODE_ENV: 'test' }, ROOT).database).db;
    });
    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    for (const c of CASES) {
      it(`${c.folder}: the start stops with one line naming the model, attribute, rule, count and ids; nothing changes`, async () => {
        const was = await state();
        const failed = await startTestApp(dialect, { database, contentTypesDir: join(TIGHTEN, c.folder) }).then(
          (app) => app.close().then(() => null),
          (e: unknown) => e,
        );
        expect(failed, 'the start is refused').to.be.instanceOf(Error);
        const message = (failed as Error).message;
        expect((failed as Error).name, message).to.equal('MigrationFailedError');
        expect(message, 'one line').to.not.contain('\n');
        expect(message).to.match(/^the change to .*tighten\/[a-z-]+\/gadget\.yaml was not applied: existing rows break its new rules \(/);
        for (const re of c.says) expect(message).to.match(ided(re));
        expect(message).to.match(/; nothing was changed and the migration written for it \([^)]+\) was removed; fix those rows or relax the model, then start again$/);
        expect(await state(), 'the database and the migrations folder stay as they were').to.deep.equal(was);
      });
    }

    it('`admin-cli migrate:latest` refuses the same way with a committed migration, which stays pending', async () => {
      const env = { NODE_ENV: 'test', IAM_JWT_SECRET: TEST_JWT_SECRET, MIGRATIONS_DIR: dir(), CONTENT_TYPES_DIR: join(TIGHTEN, 'all'), DATA_DIR: join(database.dir, 'data'), LOG_LEVEL: 'silent', ...database.env };
      const plugins = enabledPlugins();
      const registry = loadRegistry(modelSources(loadConfig(env, ROOT), plugins), ROOT, reservedModelNames(plugins));
      const made = makeMigration(registry, dir(), 'tighten-gadget', false);
      expect(made, 'a migration for the new rules').to.not.equal(null);
      const was = await state();
      // runCli needs only the app's settings: the CLI is a process of its own on the same database
      const app = { env } as unknown as TestApp;
      const run = await runCli(app, ['migrate:latest']);
      expect(run.code, run.err).to.not.equal(0);
      const line = run.err.trim();
      expect(line.split('\n'), run.err).to.have.length(1);
      expect(line).to.contain(`migration ${made?.file.split('/').pop()} was not applied: existing rows break its new rules (`);
      for (const re of CASES.flatMap((c) => c.says)) expect(line).to.match(ided(re));
      expect(line).to.match(/nothing was changed and it is still pending; fix those rows or relax the model, then run `admin-cli migrate:latest` again$/);
      expect(await state()).to.deep.equal(was);

      // The rows fixed: it applies, and every row keeps its values.
      await db('gadget').where('id', ids[1]).update({ name: 'two', kind: 'small', code: 'abc', size: 1, serial: 'd2' });
      await db('gadget').where('id', ids[2]).update({ kind: 'large', code: 'abcd', size: 0 });
      const fixed = await rows();
      const ok = await runCli(app, ['migrate:latest']);
      expect(ok.code, ok.err).to.equal(0);
      expect(ok.out).to.contain(made?.file.split('/').pop());
      expect(await rows()).to.deep.equal(fixed);
      const started = await startTestApp(dialect, { database, contentTypesDir: join(TIGHTEN, 'all') });
      try {
        expect(files(), 'nothing left to write').to.deep.equal((was as { files: string[] }).files);
        const dup = await started.http.post('/api/gadget', { name: 'six', kind: 'small', code: 'x', size: 1, serial: 'dup' });
        expect(dup.status, 'serial is unique now').to.equal(409);
      } finally {
        await started.close();
      }
    });
  });
}
